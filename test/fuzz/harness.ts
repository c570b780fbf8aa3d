/**
 * Schema-driven fuzzing of every route (docs/operations.md): requests drawn from each route's own schemas
 * (JSON bodies, path parameters and queries; the X12 bridge's interchanges from a real 940 changed
 * a little), most of them naming the tenant's real identifiers and documents so that they reach the
 * services, a share of them with a hostile value planted somewhere. Every answer must be below 500, and a
 * refused body must change nothing (its failure ACK and that ACK's ack.failed event aside, which
 * docs/receipts.md, docs/orders.md, docs/webhooks.md ask for).
 */
import fc from 'fast-check';
import type { FastifySchema } from 'fastify';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { dialectNameOfDb } from '../../src/db/dialect.js';
import type { Db } from '../../src/db/database.js';
import { loadRateCard } from '../../src/modules/rating/rating.service.js';
import { listApiKeys } from '../../src/modules/tenants/tenants.service.js';
import { addPartner } from '../../src/modules/x12/partners.service.js';
import { X12_MEDIA_TYPE } from '../../src/modules/x12/x12.routes.js';
import type { TestContext } from '../helpers/app.js';
import { buildOrder, buildReceipt, createKey, createTenant, stock, type Tenant } from '../helpers/factories.js';
import { arbitraryOf, HOSTILE_KINDS, hostileValue, mutated, serialize } from './arbitraries.js';

/** A route as the app registered it, with the schemas of what it reads from a request. */
export interface FuzzedRoute {
  method: string;
  url: string;
  /** The JSON body's schema; absent when the route takes no JSON body. */
  body?: Schema;
  /** Whether the body is an X12 interchange (text), not JSON. */
  x12: boolean;
  params?: Schema;
  querystring?: Schema;
}

type Schema = Record<string, unknown>;

/**
 * Collects, for buildApp's onRoute, every route that reads something from a request: a JSON body,
 * an X12 body (declared by media type, `content`), path parameters or a query. The routes that
 * read nothing (the probes, /metrics, the OpenAPI document, the console's files) have nothing to fuzz.
 */
export function routeCollector() {
  const routes: FuzzedRoute[] = [];
  const onRoute = ({ method, url, schema }: { method: string | string[]; url: string; schema?: FastifySchema }) => {
    const { body, params, querystring } = (schema ?? {}) as { body?: Schema; params?: Schema; querystring?: Schema };
    if (!body && !params && !querystring) return;
    const x12 = body !== undefined && 'content' in body;
    for (const one of Array.isArray(method) ? method : [method]) {
      if (one !== 'HEAD') routes.push({ method: one, url, body: x12 ? undefined : body, x12, params, querystring });
    }
  };
  return { routes, onRoute };
}

/** What the fuzzed requests may name: a tenant, an admin key, real documents, spare keys and an X12 partner. */
export interface FuzzWorld {
  tenant: Tenant;
  adminKey: string;
  svcpoids: string[];
  numbers: string[];
  /** Keys the admin API may rotate and revoke (never the fuzzer's own). */
  spareKeyIds: string[];
  /** Customer 0's X12 partner, whose 940s the bridge takes. */
  x12Partner: string;
}

export async function buildFuzzWorld(ctx: TestContext): Promise<FuzzWorld> {
  const { database, clock } = ctx;
  const tenant = await createTenant(database.db, clock, { customers: 2, facilities: 2 });
  // No rate limit: the fuzzer's volume is not what it tests.
  const adminKey = await createKey(database.db, clock, tenant, 'admin', { rateLimit: 0 });
  await createKey(database.db, clock, tenant, 'operator');
  await createKey(database.db, clock, tenant, 'operator');
  const spareKeyIds = (await listApiKeys(database.db, tenant.companyId)).slice(-2).map((key) => String(key.id));
  const x12Partner = 'FUZZEDI';
  await addPartner(database.db, clock, {
    companyId: tenant.companyId,
    customerId: tenant.customerIds[0]!,
    id: x12Partner,
    qualifier: 'ZZ',
  });
  await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
  await stock(ctx, { tenant, items: [{ ItemNumber: 'SKU-1', Qty: '50' }] });
  const receipt = await buildReceipt(ctx, { tenant, itemMaster: true });
  const order = await buildOrder(ctx, { tenant });
  return {
    tenant,
    adminKey,
    svcpoids: [receipt.answer.SVCPOID, order.answer.SVCPOID],
    numbers: [receipt.poNo, order.referenceNo, 'SKU-1'],
    spareKeyIds,
    x12Partner,
  };
}

/** `drawn` (a body, path parameters or a query), its identifiers mostly replaced by the world's. */
function named(drawn: fc.Arbitrary<unknown>, world: FuzzWorld): fc.Arbitrary<unknown> {
  return fc
    .tuple(drawn, fc.nat({ max: 1 }), fc.nat({ max: 1 }), fc.nat(), fc.boolean())
    .map(([value, customer, facility, pick, withIds]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !withIds) return value;
      const real: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if ('CompanyID' in real) real.CompanyID = world.tenant.companyId;
      if ('CustomerID' in real) real.CustomerID = world.tenant.customerIds[customer];
      if ('FacilityID' in real) real.FacilityID = world.tenant.facilityIds[facility];
      if ('SVCPOID' in real) real.SVCPOID = world.svcpoids[pick % world.svcpoids.length];
      if ('PONo' in real) real.PONo = world.numbers[pick % world.numbers.length];
      if ('KeyID' in real && typeof real.KeyID === 'string') real.KeyID = world.spareKeyIds[pick % world.spareKeyIds.length];
      if ('Version' in real && typeof real.Version === 'string') real.Version = '1';
      return real;
    });
}

/** A 940 of the world's partner for customer 0: one line of SKU-1, under its own control number. */
function x12OrderOf(world: FuzzWorld, controlNo: number): string[] {
  const { companyId, facilityIds } = world.tenant;
  const isa13 = String(controlNo).padStart(9, '0');
  return [
    `ISA*00*          *00*          *ZZ*${world.x12Partner.padEnd(15)}*ZZ*${companyId.padEnd(15)}*261127*1200*U*00401*${isa13}*0*P*>`,
    `GS*OW*${world.x12Partner}*${companyId}*20261127*1200*${controlNo}*X*004010`,
    'ST*940*0001',
    `W05*N*FUZZ-${controlNo}`,
    `N1*WH*F1*9*${facilityIds[0]}`,
    'N1*ST*Jane Doe',
    'N3*1 Market St',
    'N4*San Francisco*CA*94105',
    'LX*1',
    'W01*1*EA**VN*SKU-1',
    'SE*9*0001',
    `GE*1*${controlNo}`,
    `IEA*1*${isa13}`,
  ];
}

/**
 * X12 text for the bridge: mostly a real 940 of the world's partner, often with one element replaced
 * by drawn or hostile text, a segment dropped or repeated, or cut short; sometimes any text at all.
 */
function x12Interchange(world: FuzzWorld, hostiles: fc.Arbitrary<unknown> = hostileValue): fc.Arbitrary<string> {
  const text = fc.oneof(fc.string({ maxLength: 20 }), hostiles.map(textOf));
  const segmentsOf = fc.integer({ min: 1, max: 999_999_999 }).map((controlNo) => x12OrderOf(world, controlNo));
  const interchange = fc
    .tuple(segmentsOf, fc.nat(), fc.nat(), fc.constantFrom('as is', 'element', 'drop', 'repeat', 'cut'), text)
    .map(([segments, pick, at, change, replacement]) => {
      const index = pick % segments.length;
      const copy = [...segments];
      if (change === 'element') {
        const elements = copy[index]!.split('*');
        elements[1 + (at % Math.max(1, elements.length - 1))] = replacement;
        copy[index] = elements.join('*');
      } else if (change === 'drop') copy.splice(index, 1);
      else if (change === 'repeat') copy.splice(index, 0, copy[index]!);
      const whole = copy.map((segment) => `${segment}~`).join('\n');
      return change === 'cut' ? whole.slice(0, at % whole.length) : whole;
    });
  return fc.oneof({ weight: 5, arbitrary: interchange }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) });
}

/** One drawn request: its body (JSON, or X12 text), its path parameters and its query. */
interface DrawnRequest {
  body?: unknown;
  params?: unknown;
  query?: unknown;
}

function requestOf(route: FuzzedRoute, world: FuzzWorld, hostiles?: fc.Arbitrary<unknown>): fc.Arbitrary<DrawnRequest> {
  const part = (schema: Schema | undefined) => (schema ? named(arbitraryOf(schema), world) : fc.constant(undefined));
  return fc.record({
    body: route.x12 ? x12Interchange(world, hostiles) : part(route.body),
    params: part(route.params),
    query: part(route.querystring),
  });
}

/**
 * The requests sent to `route`: `count` drawn at random (a quarter of them with a hostile value
 * planted), then one for each kind of hostile value, so that every route meets every kind.
 */
export function requestsFor(route: FuzzedRoute, world: FuzzWorld, count: number, seed: number): DrawnRequest[] {
  const drawn = fc.oneof(
    { weight: 3, arbitrary: requestOf(route, world) },
    { weight: 1, arbitrary: mutated(requestOf(route, world)) as fc.Arbitrary<DrawnRequest> },
  );
  const eachKind = Object.values(HOSTILE_KINDS).map(
    (kind, index) =>
      fc.sample(route.x12 ? requestOf(route, world, kind) : (mutated(requestOf(route, world), kind) as fc.Arbitrary<DrawnRequest>), {
        numRuns: 1,
        seed: seed + index,
      })[0]!,
  );
  return [...fc.sample(drawn, { numRuns: count, seed }), ...eachKind];
}

/** A drawn value as text in a path, a query or an X12 body. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : serialize(value);
}

/** Text as one component of a URL; a lone surrogate, which no URL can carry, as U+FFFD. */
const urlComponent = (value: unknown) => encodeURIComponent(textOf(value).toWellFormed());

/** The route's URL with the drawn path parameters and query. */
function urlOf(route: FuzzedRoute, { params, query }: DrawnRequest): string {
  const fields = (value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const path = route.url.replace(/:(\w+)/g, (_whole, name: string) =>
    urlComponent(fields(params) ? (fields(params)![name] ?? '') : params),
  );
  if (query === undefined) return path;
  const pairs = fields(query)
    ? Object.entries(fields(query)!).map(([key, value]) => `${urlComponent(key)}=${urlComponent(value)}`)
    : [urlComponent(query)];
  return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
}

/** What inject sends for a drawn request: the method, URL, headers and payload. */
function injected(route: FuzzedRoute, request: DrawnRequest, adminKey: string) {
  const headers: Record<string, string> = { authorization: `APIKey ${adminKey}` };
  let payload: string | undefined;
  if (route.x12) {
    headers['content-type'] = X12_MEDIA_TYPE;
    payload = textOf(request.body);
  } else if (route.body) {
    headers['content-type'] = 'application/json';
    payload = serialize(request.body);
  }
  return { method: route.method as 'POST', url: urlOf(route, request), headers, payload };
}

const UNWATCHED = new Set([
  'acks',
  'search_counts',
  'idempotency_records',
  'rate_limit_windows',
  'api_keys',
  'event_sequencer',
  'kysely_migration',
  'kysely_migration_lock',
]);

/**
 * Every table but those a refusal may write (ACKs and their search counts, refusals kept for their Idempotency-Key, rate
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

/**
 * A watched table's rows, but what a refusal may write: of the events, the ack.failed that a
 * refusal's failure ACK writes with it; of the X12 partners, the control numbers that the TA1
 * refusing an interchange takes.
 */
const rowsOf = (table: string) => {
  if (table === 'events') return sql`select * from events where type <> 'ack.failed'`;
  if (table === 'x12_partners') return sql`select company_id, qualifier, partner_id, gs_id, customer_id, created_at from x12_partners`;
  return sql`select * from ${sql.table(table)}`;
};

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
    for (const request of requestsFor(route, world, perRoute, seed + index * 1000)) {
      const before = await fingerprint(ctx.database.db, tables, thorough);
      const sent = injected(route, request, world.adminKey);
      const answer = await ctx.app.inject(sent);
      summary.requests += 1;
      summary.byStatus[answer.statusCode] = (summary.byStatus[answer.statusCode] ?? 0) + 1;
      const where = () => `${sent.method} ${sent.url.slice(0, 300)} ${(sent.payload ?? '').slice(0, 300)}`;
      if (answer.statusCode >= 500) summary.problems.push(`${answer.statusCode} ${where()} → ${answer.body.slice(0, 300)}`);
      else if (answer.statusCode >= 400 && (await fingerprint(ctx.database.db, tables, thorough)) !== before) {
        summary.problems.push(`refused ${answer.statusCode} but wrote: ${where()}`);
      }
      onProgress?.(summary.requests);
    }
  }
  return summary;
}
