import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { HOSTILE_KINDS } from './arbitraries.js';
import { buildFuzzWorld, fuzz, routeCollector, type FuzzWorld } from './harness.js';

/**
 * `npm run fuzz`: FUZZ_REQUESTS (default 100,000) schema-driven requests over every route that
 * reads a request (harness.ts), half on each database, with a summary of the status codes. Zero 5xx, zero writes
 * from refused bodies (row counts of every watched table around each refused request), and the
 * process's heap after a full collection no larger at the end than at the first tenth, give or
 * take 64 MiB.
 */

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const HEAP_SLACK = 64 * 1024 * 1024;

const heapAfterCollection = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};

describeEachDialect('fuzzing every route', (dialect) => {
  const { routes, onRoute } = routeCollector();
  const ctx = useTestApp(dialect, {}, { onRoute });
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await buildFuzzWorld(ctx());
  });

  it(`sends ${TOTAL / 2} requests: no 5xx, no write from a refused body, the heap flat`, async () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('function');
    const perRoute = Math.max(1, Math.ceil(TOTAL / 2 / routes.length) - Object.keys(HOSTILE_KINDS).length);
    let heapAtTenth = 0;
    const tenth = Math.floor((routes.length * perRoute) / 10);
    const summary = await fuzz(ctx(), routes, world, {
      perRoute,
      seed: SEED,
      thorough: false,
      onProgress: (sent) => {
        if (sent === tenth) heapAtTenth = heapAfterCollection();
      },
    });
    const heapAtEnd = heapAfterCollection();
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `${dialect}: ${summary.requests} requests over ${routes.length} routes (seed ${SEED}); by status ${JSON.stringify(summary.byStatus)}; ` +
        `heap ${mib(heapAtTenth)} MiB at a tenth, ${mib(heapAtEnd)} MiB at the end`,
    );
    expect(summary.problems).toEqual([]);
    expect(heapAtEnd).toBeLessThanOrEqual(heapAtTenth + HEAP_SLACK);
  }, 3_600_000);
});
