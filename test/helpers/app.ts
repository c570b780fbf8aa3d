import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, EDI_PREFIX, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { DialectName } from '../../src/db/dialect.js';
import type { App } from '../../src/http/module.js';
import type { Clock } from '../../src/lib/clock.js';
import { createTestDatabase, type TestDatabase } from './dialects.js';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(public time = Date.parse('2026-03-05T14:07:09.123Z')) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface TestContext {
  app: App;
  database: TestDatabase;
  clock: TestClock;
  /** Every log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** POST a JSON body to an EDI path (relative to the EDI base) with an API key. */
  post(path: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** PUT a JSON body to an EDI path, like `post` (the customer cancels of receipts and orders). */
  put(path: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/**
 * Builds the app on a fresh database of `dialect` before the block's tests and tears both down
 * after; read the returned getter inside tests. `options` passes `onRoute` and `consoleDir` on to buildApp.
 */
export function useTestApp(
  dialect: DialectName,
  overrides: Partial<Config> = {},
  options: Pick<AppOptions, 'onRoute' | 'consoleDir'> = {},
): () => TestContext {
  let context: TestContext | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase(dialect);
    const clock = new TestClock();
    const logs: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    });
    const config = { ...loadConfig({ databaseUrl: database.url }, {}), logLevel: 'info' as const, ...overrides };
    const app = await buildApp({ config, db: database.db, clock, logger: { level: 'info', stream }, ...options });
    await app.ready();
    const send =
      (method: 'POST' | 'PUT') =>
      (path: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
        app.inject({
          method,
          url: `${EDI_PREFIX}${path}`,
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `APIKey ${key}` } : {}), ...headers },
          payload: typeof body === 'string' ? body : JSON.stringify(body),
        });
    context = { app, database, clock, logs, post: send('POST'), put: send('PUT') };
  });
  afterAll(async () => {
    await context?.app.close();
    await context?.database.destroy();
  });
  return () => {
    if (!context) throw new Error('the test app is not built yet');
    return context;
  };
}
