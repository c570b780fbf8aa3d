/**
 * Schema-driven fuzzing of every route (DESIGN §12): bodies drawn from each route's own schema,
 * most of them naming the tenant's real identifiers and documents so that they reach the services,
 * a share of them with a hostile value planted somewhere. Every answer must be below 500, and a
 * refused body must change nothing (its failure ACK and that ACK's ack.failed event aside, which
 * DESIGN §4 and §13 ask for).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { dialectNameOfDb } from '../../src/db/dialect.js';
import type { Db } from '../../src/db/database.js';
import { loadRateCard } from '../../src/modules/rating/rating.service.js';
import type { TestContext } from '../helpers/app.js';
import { buildOrder, buildReceipt, createKey, createTenant, stock, type Tenant } from '../helpers/factories.js';
import { arbitraryOf, HOSTILE_KINDS, mutated, serialize } from './arbitraries.js';

/** A route as the app registered it, with its body schema. */
export interface FuzzedRoute {
  method: string;
  url: string;
  body: Record<string, unknown>;
}

/**
 * Collects the routes that take a JSON body, for buildApp's onRoute. A body declared by media type
 * (`content`) is the X12 bridge's text, fuzzed by the reader's own property tests (x12-properties).
 */
export function routeCollector() {
  const routes: FuzzedRoute[] = [];
  const onRoute = ({ method, url, schema }: { method: string | string[]; url: string; schema?: { body?: unknown } }) => {
    if (!schema?.body || 'content' in (schema.body as object)) return;
    for (const one of Array.isArray(method) ? method : [method])
      routes.push({ method: one, url, body: schema.body as Record<string, unknown> });
  };
  return { routes, onRoute };
}

/** What the fuzzed requests may name: a tenant, an admin key, and real documents. */
export interface FuzzWorld {
  tenant: Tenant;
  adminKey: string;
  svcpoids: string[];
  numbers: string[];
}

export async function buildFuzzWorld(ctx: TestContext): Promise<FuzzWorld> {
  const { database, clock } = ctx;
  const tenant = await createTenant(database.db, clock, { customers: 2, facilities: 2 });
  // No rate limit: the fuzzer's volume is not what it tests.
  const adminKey = await createKey(database.db, clock, tenant, 'admin', { rateLimit: 0 });
  await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
  await stock(ctx, { tenant, items: [{ ItemNumber: 'SKU-1', Qty: '50' }] });
  const receipt = await buildReceipt(ctx, { tenant, itemMaster: true });
  const order = await buildOrder(ctx, { tenant });
  return {
    tenant,
    adminKey,
    svcpoids: [receipt.answer.SVCPOID, order.answer.SVCPOID],
    numbers: [receipt.poNo, order.referenceNo, 'SKU-1'],
  };
}

/** A body for `route` from its schema, mostly naming the world's identifiers. */
function namedBodyOf(route: FuzzedRoute, world: FuzzWorld): fc.Arbitrary<unknown> {
  const drawn = arbitraryOf(route.body);
  return fc.tuple(drawn, fc.nat({ max: 1 }), fc.nat({ max: 1 }), fc.nat(), fc.boolean()).map(([body, customer, facility, pick, real]) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !real) return body;
    const named: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    if ('CompanyID' in named) named.CompanyID = world.tenant.companyId;
    if ('CustomerID' in named) named.CustomerID = world.tenant.customerIds[customer];
    if ('FacilityID' in named) named.FacilityID = world.tenant.facilityIds[facility];
    if ('SVCPOID' in named) named.SVCPOID = world.svcpoids[pick % world.svcpoids.length];
    if ('PONo' in named) named.PONo = world.numbers[pick % world.numbers.length];
    return named;
  });
}

/**
 * The bodies sent to `route`: `count` drawn at random (a quarter of them with a hostile value
 * planted), then one for each kind of hostile value, so that every route meets every kind.
 */
export function bodiesFor(route: FuzzedRoute, world: FuzzWorld, count: number, seed: number): unknown[] {
  const named = namedBodyOf(route, world);
  const drawn = fc.oneof({ weight: 3, arbitrary: named }, { weight: 1, arbitrary: mutated(named) });
  const eachKind = Object.values(HOSTILE_KINDS).map(
    (kind, index) => fc.sample(mutated(named, kind), { numRuns: 1, seed: seed + index })[0],
  );
  return [...fc.sample(drawn, { numRuns: count, seed }), ...eachKind];
}

const UNWATCHED = new Set([
  'acks',
  'idempotency_records',
  'rate_limit_windows',
  'api_keys',
  'event_sequencer',
  'kysely_migration',
  'kysely_migration_lock',
]);

/**
 * Every table but those a refusal may write (ACKs, refusals kept for their Idempotency-Key, rate
 * counts, key use, and the Sequence counter that numbers the ack.failed event on SQLite).
 */
async function watchedTables(db: Db): Promise<string[]> {
  const rows =
    dialectNameOfDb(db) === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          db,
        );
  return rows.rows
    .map((row) => row.name)
    .filter((name) => !UNWATCHED.has(name))
    .sort();
}

/** A watched table's rows; of the events, all but the ack.failed that a refusal's failure ACK writes with it. */
const rowsOf = (table: string) =>
  table === 'events' ? sql`select * from events where type <> 'ack.failed'` : sql`select * from ${sql.table(table)}`;

/** What the database holds: each watched table's rows (`thorough`), or their counts in one statement. */
export async function fingerprint(db: Db, tables: string[], thorough: boolean): Promise<string> {
  if (!thorough) {
    const counts = sql.join(tables.map((table) => sql`(select count(*) from (${rowsOf(table)}) as watched)`));
    return JSON.stringify((await sql`select ${counts}`.execute(db)).rows);
  }
  const parts: string[] = [];
  for (const table of tables) parts.push(`${table}:${JSON.stringify((await rowsOf(table).execute(db)).rows)}`);
  return parts.join('\n');
}

export interface FuzzSummary {
  requests: number;
  byStatus: Record<number, number>;
  /** Requests answered 5xx, or refused while changing a watched table: each with its route and body. */
  problems: string[];
}

/**
 * Sends `perRoute` bodies to every route and returns what came back. `thorough` compares every
 * row of the watched tables around each refused request; otherwise their counts.
 */
export async function fuzz(
  ctx: TestContext,
  routes: FuzzedRoute[],
  world: FuzzWorld,
  { perRoute, seed, thorough, onProgress }: { perRoute: number; seed: number; thorough: boolean; onProgress?: (sent: number) => void },
): Promise<FuzzSummary> {
  const tables = await watchedTables(ctx.database.db);
  const summary: FuzzSummary = { requests: 0, byStatus: {}, problems: [] };
  for (const [index, route] of routes.entries()) {
    const bodies = bodiesFor(route, world, perRoute, seed + index * 1000);
    for (const body of bodies) {
      const before = await fingerprint(ctx.database.db, tables, thorough);
      const payload = serialize(body);
      const answer = await ctx.app.inject({
        method: route.method as 'POST',
        url: route.url,
        headers: { 'content-type': 'application/json', authorization: `APIKey ${world.adminKey}` },
        payload,
      });
      summary.requests += 1;
      summary.byStatus[answer.statusCode] = (summary.byStatus[answer.statusCode] ?? 0) + 1;
      const where = () => `${route.method} ${route.url} ${payload.slice(0, 300)}`;
      if (answer.statusCode >= 500) summary.problems.push(`${answer.statusCode} ${where()} → ${answer.body.slice(0, 300)}`);
      else if (answer.statusCode >= 400 && (await fingerprint(ctx.database.db, tables, thorough)) !== before) {
        summary.problems.push(`refused ${answer.statusCode} but wrote: ${where()}`);
      }
      onProgress?.(summary.requests);
    }
  }
  return summary;
}
