#!/usr/bin/env node
/**
 * Where one write's time goes in process, statement by statement: builds the app on a scratch SQLite
 * file (synchronous=FULL, as served), seeds a tenant with the CLI and 1000 items, sends 300 warm-up
 * requests of a scenario through `app.inject`, then times every better-sqlite3 statement of the
 * next N and prints each statement's time and count per request, and the request's whole time.
 * No HTTP, no load generator: what is left besides the statements is Wharf's JavaScript (and
 * light-my-request's, which a real request does not pay).
 *
 *   npm run build && node bench/statements-in-process.js rn-import   # or adjust-1, adjust-20, dn-import, x12-dn-import
 *   STATEMENTS_REQUESTS=5000 node bench/statements-in-process.js adjust-1
 *   node bench/statements-in-process.js adjust-1 postgres             # a temporary PostgreSQL database instead
 *
 * On PostgreSQL a statement's time is from handing it to pg to its answer; pipelined statements
 * (trailing writes, BEGIN, the item locks) overlap the ones after them, so their times add up to
 * more than the request. The round trips a request are counted as the socket writes to PostgreSQL:
 * the pool sends what one turn of the event loop writes in one, and then waits for its answers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, vacuumAnalyze } from './postgres.js';
import { adjustmentBody, itemIdOf, orderImportBody, receiptImportBody } from './payload.js';
import { BENCH_KEY_RATE_LIMIT } from './seed.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const SqliteDatabase = require('better-sqlite3');
const pg = require('pg');

const TENANT = { company: 'STMT', customer: 'CUSTS', facility: 'FAC1' };
const ITEMS = 1000;
const WARMUP = 300;
const REQUESTS = Number(process.env.STATEMENTS_REQUESTS ?? 2000);
const EDI = '/shared/bam/v1/public';

/** Each scenario: the path and body of request n. */
const SCENARIOS = {
  'rn-import': (n) => ['/edi/inbound/receipt', receiptImportBody(TENANT, { poNo: `S-${n}`, referenceNo: `SR-${n}`, n, itemCount: ITEMS })],
  'adjust-1': (n) => [
    '/edi/3pl/adjust/inventory-adjust-qty-incremental',
    adjustmentBody(TENANT, { adjustmentNo: `A1-${n}`, itemIds: [itemIdOf((n % ITEMS) + 1)] }),
  ],
  'adjust-20': (n) => [
    '/edi/3pl/adjust/inventory-adjust-qty-incremental',
    adjustmentBody(TENANT, {
      adjustmentNo: `A20-${n}`,
      itemIds: Array.from({ length: 20 }, (_, i) => itemIdOf(((n * 20 + i) % ITEMS) + 1)),
    }),
  ],
  'dn-import': (n) => [
    '/edi/outbound/order',
    orderImportBody(TENANT, {
      poNo: `D-${n}`,
      referenceNo: `DR-${n}`,
      n,
      itemIds: Array.from({ length: 5 }, (_, i) => itemIdOf(((n * 5 + i) % 50) + 1)),
    }),
  ],
  // The dn-import's order as an X12 940 (docs/x12.md): the partner ZZ/STMTX12 of the customer.
  'x12-dn-import': (n) => [
    '/edi/x12',
    shippingOrder940(
      n,
      Array.from({ length: 5 }, (_, i) => itemIdOf(((n * 5 + i) % 50) + 1)),
    ),
    'application/edi-x12',
  ],
};

/** One interchange of one 940 of 1 EA of each item, under ISA13 `n`. */
function shippingOrder940(n, itemIds) {
  const isa13 = String(n + 1).padStart(9, '0');
  const body = [
    `W05*N*XR-${n}*X-${n}`,
    `N1*WH*Bench*9*${TENANT.facility}`,
    'N1*ST*Jane Doe',
    'N3*1 Market St',
    'N4*San Francisco*CA*94105',
    ...itemIds.flatMap((itemId, i) => [`LX*${i + 1}`, `W01*1*EA**VN*${itemId}`]),
  ];
  return [
    `ISA*00*          *00*          *ZZ*STMTX12        *ZZ*${TENANT.company.padEnd(15)}*261127*1200*U*00401*${isa13}*0*P*>~`,
    `GS*OW*STMTX12*${TENANT.company}*20261127*1200*${n + 1}*X*004010~`,
    'ST*940*0001~',
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 2}*0001~`,
    `GE*1*${n + 1}~`,
    `IEA*1*${isa13}~`,
  ].join('\n');
}

/** Times every statement better-sqlite3 or pg runs, by its SQL text; counts pg's socket writes under `socketWrites`. */
function timeStatements() {
  const totals = new Map();
  const watched = new WeakSet();
  const countWrites = (stream) => {
    if (watched.has(stream)) return;
    watched.add(stream);
    for (const method of ['_write', '_writev']) {
      const write = stream[method];
      stream[method] = function counted(...args) {
        totals.socketWrites += 1;
        return write.apply(this, args);
      };
    }
  };
  const add = (sqlText, started) => {
    const total = totals.get(sqlText) ?? { count: 0, ns: 0n };
    total.count += 1;
    total.ns += process.hrtime.bigint() - started;
    totals.set(sqlText, total);
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function timed(config, values) {
    countWrites(this.connection.stream);
    const started = process.hrtime.bigint();
    const sqlText = typeof config === 'string' ? config : config.text;
    const done = () => add(sqlText, started);
    const answer = query.call(this, config, values);
    answer.then(done, done);
    return answer;
  };
  const statementClass = Object.getPrototypeOf(new SqliteDatabase(':memory:').prepare('select 1'));
  for (const method of ['run', 'all', 'get']) {
    const original = statementClass[method];
    statementClass[method] = function timed(...args) {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        add(this.source, started);
      }
    };
  }
  return totals;
}

async function main() {
  const scenarioName = process.argv[2] ?? 'rn-import';
  const requestOf = SCENARIOS[scenarioName];
  if (!requestOf) throw new Error(`scenario must be one of ${Object.keys(SCENARIOS).join(', ')}`);
  const onPostgres = process.argv[3] === 'postgres';
  const totals = timeStatements();
  const tmp = mkdtempSync(join(tmpdir(), 'wharf-statements-'));
  const databases = new TemporaryDatabases(process.env.BENCH_POSTGRES_URL ?? DEFAULT_ADMIN_URL);
  const databaseUrl = onPostgres ? await databases.create('statements') : `sqlite:${join(tmp, 'wharf.db')}`;
  const cli = (...args) => execFileSync('node', [join(root, 'dist', 'cli.js'), ...args, '--db', databaseUrl], { encoding: 'utf8' }).trim();
  cli('migrate');
  cli('company', 'add', TENANT.company);
  cli('customer', 'add', TENANT.company, TENANT.customer);
  cli('facility', 'add', TENANT.company, TENANT.facility);
  const key = cli('key', 'create', '--role', 'admin', '--company', TENANT.company, '--rate-limit', String(BENCH_KEY_RATE_LIMIT));
  // Only the X12 scenario has a partner, as in npm run bench: a partner's advices add statements to every confirmation and adjustment.
  if (scenarioName === 'x12-dn-import') cli('x12', 'partner', 'add', '--company', TENANT.company, '--customer', TENANT.customer, '--id', 'STMTX12');

  const { loadConfig } = await import(join(root, 'dist', 'config.js'));
  const { openDatabase } = await import(join(root, 'dist', 'server.js'));
  const { buildApp } = await import(join(root, 'dist', 'app.js'));
  const config = loadConfig({ databaseUrl, logLevel: 'warn' });
  const db = openDatabase(config);
  const app = await buildApp({ config, db, logger: { level: 'warn' } });
  const send = async (path, body, contentType = 'application/json') => {
    const headers = { 'content-type': contentType, authorization: `APIKey ${key}` };
    const answer = await app.inject({ method: 'POST', url: `${EDI}${path}`, headers, payload: body });
    if (answer.statusCode !== 200) throw new Error(`${path} answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`);
    if (contentType !== 'application/json' && !answer.body.includes('AK5*A~'))
      throw new Error(`${path}: a set was not applied: ${answer.body}`);
  };
  try {
    await send(
      '/edi/item-master/import',
      JSON.stringify({
        CompanyID: TENANT.company,
        CustomerID: TENANT.customer,
        Items: Array.from({ length: ITEMS }, (_, i) => ({ itemID: itemIdOf(i + 1) })),
      }),
    );
    // Stock for the orders to allocate.
    await send(
      '/edi/3pl/adjust/inventory-adjust-qty-incremental',
      adjustmentBody(TENANT, { adjustmentNo: 'OPENING', itemIds: Array.from({ length: 50 }, (_, i) => itemIdOf(i + 1)), qty: '1000000' }),
    );
    for (let n = 0; n < WARMUP; n++) await send(...requestOf(n));
    // Plans made on the seeded tables, as a production database has them (see bench/postgres.js).
    if (onPostgres) await vacuumAnalyze(databaseUrl);
    totals.clear();
    totals.socketWrites = 0;
    const started = performance.now();
    for (let n = WARMUP; n < WARMUP + REQUESTS; n++) await send(...requestOf(n));
    const perRequestUs = ((performance.now() - started) * 1000) / REQUESTS;

    let inStatements = 0;
    console.log(`${scenarioName}, ${REQUESTS} requests in process (${onPostgres ? 'PostgreSQL' : 'SQLite, synchronous=FULL'}):`);
    console.log('| µs a request | run a request | statement |\n|---|---|---|');
    for (const [sqlText, { count, ns }] of [...totals].sort((a, b) => Number(b[1].ns - a[1].ns))) {
      const us = Number(ns) / 1000 / REQUESTS;
      inStatements += us;
      console.log(
        `| ${us.toFixed(1)} | ${(count / REQUESTS).toFixed(1)} | ${sqlText.length > 100 ? `${sqlText.slice(0, 100)}…` : sqlText} |`,
      );
    }
    console.log(
      `\nA request: ${perRequestUs.toFixed(0)} µs, of which ${inStatements.toFixed(0)} µs in ${onPostgres ? "PostgreSQL's statements" : "SQLite's statements (COMMIT and its fsync included)"}.`,
    );
    if (onPostgres) console.log(`Round trips to PostgreSQL a request (socket writes): ${(totals.socketWrites / REQUESTS).toFixed(2)}.`);
  } finally {
    await app.close();
    await db.destroy();
    rmSync(tmp, { recursive: true, force: true });
    await databases.dropAll();
  }
}

await main();
