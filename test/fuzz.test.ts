import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../src/app.js';
import { ADMIN_PREFIX } from '../src/modules/admin/admin.routes.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { HOSTILE_KINDS } from './fuzz/arbitraries.js';
import { buildFuzzWorld, fuzz, routeCollector, type FuzzWorld } from './fuzz/harness.js';

/**
 * A sample of the schema-driven fuzzing (docs/operations.md) on every route that reads a request (a JSON or
 * X12 body, path parameters, a query): no answer is a 5xx, and no refused request changes a row.
 * `npm run fuzz` sends 100,000 and more.
 */

const PER_ROUTE = 15;

describeEachDialect('fuzzing, a sample', (dialect) => {
  const { routes, onRoute } = routeCollector();
  const ctx = useTestApp(dialect, {}, { onRoute });
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await buildFuzzWorld(ctx());
  });

  it(`sends ${PER_ROUTE} drawn bodies and one of each hostile kind to every route: no 5xx, no write from a refused body`, async () => {
    expect(routes.length).toBeGreaterThan(25);
    // Not only the JSON bodies: the X12 bridge's text, path parameters and queries too.
    expect(routes.map((route) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining([
        `POST ${EDI_PREFIX}/edi/x12`,
        `DELETE ${ADMIN_PREFIX}/keys/:KeyID`,
        `GET ${ADMIN_PREFIX}/rate-cards/:Version`,
        `GET ${ADMIN_PREFIX}/changes`,
      ]),
    );
    const summary = await fuzz(ctx(), routes, world, { perRoute: PER_ROUTE, seed: 20261125, thorough: true });
    expect(summary.problems).toEqual([]);
    expect(summary.requests).toBe(routes.length * (PER_ROUTE + Object.keys(HOSTILE_KINDS).length));
    // The sample reaches past validation: some bodies are accepted, some refused by the services.
    expect(summary.byStatus[200]).toBeGreaterThan(0);
    expect(Object.keys(summary.byStatus).some((status) => status === '404' || status === '409')).toBe(true);
  }, 240_000);
});
