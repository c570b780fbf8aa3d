#!/usr/bin/env node
/**
 * `node bench/database-size.js` (after `npm run build`): how much disk a busy 3PL's business takes,
 * for docs/operations.md, "Capacity planning". On SQLite (a temporary file) and on PostgreSQL (a
 * temporary database) it builds BENCH_SIZE_ORDERS orders (20,000 by default) through the API, in
 * process, as a 3PL's day goes:
 *
 * - every order a DN import of 3 lines with an Idempotency-Key, opened and shipped in full by the
 *   warehouse (its events, ACK, allocations, ledger postings, shipment confirmation);
 * - every 100th order, a receipt of 10 lines imported and received in full (replenishment);
 * - stock on hand from one adjustment per 20 of its 200 items at the start;
 * - one webhook endpoint of the customer, so that every event is fanned out to a delivery (as the
 *   dispatcher does; none is attempted).
 *
 * It logs the rate of every 2,000 orders, and runs the maintenance pass of a serving process every
 * BENCH_SIZE_ANALYZE_EVERY orders (never by default). It then prints the size of every table with its indexes (SQLite: the dbstat table after a
 * checkpoint; PostgreSQL: pg_total_relation_size after VACUUM ANALYZE) and of the whole database,
 * and which tables are the books (kept for ever) and which are kept for a retention window.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { buildApp, EDI_PREFIX } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { connectDatabase } from '../dist/db/connect.js';
import { refreshStatistics } from '../dist/db/dialect.js';
import { migrateToLatest } from '../dist/db/migrate.js';
import * as tenants from '../dist/modules/tenants/tenants.service.js';
import { fanOut } from '../dist/modules/webhooks/deliveries.service.js';
import { log, positiveInteger } from './lifecycle.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases } from './postgres.js';

const ORDERS = positiveInteger('BENCH_SIZE_ORDERS', 20_000);
/**
 * Every this many orders, the maintenance pass of a serving process (refreshStatistics) runs, as
 * its hourly pass would; 0 (the default): never, as where nothing analyses (PostgreSQL without
 * autovacuum), which shows what the statistics are worth.
 */
const ANALYZE_EVERY = positiveInteger('BENCH_SIZE_ANALYZE_EVERY', 0, { zero: true });
/** Which databases: `sqlite,postgres` (the default), or one of them. */
const DIALECTS = (process.env.BENCH_SIZE_DIALECTS ?? 'sqlite,postgres').split(',');
const ITEMS = 200;
const LINES = 3;
const IN_FLIGHT = 8;
const ids = { CompanyID: 'SIZE', CustomerID: 'ACME', FacilityID: 'WH1' };

/** Tables kept for a retention window (docs/operations.md, "Retention"); every other one is the books or configuration. */
const RETAINED = ['events', 'webhook_deliveries', 'webhook_attempts', 'idempotency_records', 'x12_interchanges', 'x12_outbox'];

const itemId = (n) => `ITEM-${String(n).padStart(4, '0')}`;

async function build(db, url) {
  const clock = { now: () => Date.now() };
  await migrateToLatest(db);
  await tenants.addCompany(db, clock, { companyId: ids.CompanyID });
  await tenants.addCustomer(db, clock, { companyId: ids.CompanyID, customerId: ids.CustomerID });
  await tenants.addFacility(db, clock, { companyId: ids.CompanyID, facilityId: ids.FacilityID, timeZone: 'America/Los_Angeles' });
  const key = async (role, scope = {}) =>
    (
      await tenants.createApiKey(db, clock, {
        role,
        companyId: ids.CompanyID,
        customerIds: role === 'customer' ? [ids.CustomerID] : [],
        facilityIds: [],
        userIds: [],
        label: `size ${role}`,
        rateLimit: 0,
        ...scope,
      })
    ).key;
  const customerKey = await key('customer');
  const operatorKey = await key('operator');
  const config = { ...loadConfig({ databaseUrl: url }, {}), webhookAllowPrivate: true };
  const app = await buildApp({ config, db, logger: false });
  await app.ready();
  const post = async (path, body, apiKey, headers = {}) => {
    const response = await app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${path}`,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${apiKey}`, ...headers },
      payload: JSON.stringify(body),
    });
    if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
    return response.json();
  };

  await post(
    '/edi/item-master/import',
    {
      CompanyID: ids.CompanyID,
      CustomerID: ids.CustomerID,
      Items: Array.from({ length: ITEMS }, (_, i) => ({ itemID: itemId(i + 1), itemDescription: `Item ${i + 1}`, BaseUOM: 'EA' })),
    },
    customerKey,
  );
  for (let start = 1; start <= ITEMS; start += 20) {
    const Items = Array.from({ length: 20 }, (_, i) => ({ ItemNumber: itemId(start + i), UOM: 'EA', Qty: '1000000' }));
    await post(
      '/edi/3pl/adjust/inventory-adjust-qty-incremental',
      { ...ids, AdjustmentNo: `OPEN-${start}`, ReasonCode: 'OPENING', Items },
      operatorKey,
    );
  }
  await post(
    '/edi/webhook/endpoint/create',
    { CompanyID: ids.CompanyID, CustomerID: ids.CustomerID, Url: 'http://127.0.0.1:9/hooks' },
    customerKey,
  );

  const oneOrder = async (n) => {
    const lines = Array.from({ length: LINES }, (_, i) => ({
      LineNo: i + 1,
      ItemID: itemId(((n * LINES + i) % ITEMS) + 1),
      OrderedQty: '2',
      UOM: 'EA',
    }));
    const { Order } = await post(
      '/edi/outbound/order',
      {
        ...ids,
        POContent: {
          ReferenceNo: `SO-${n}`,
          PONo: `PO-${n}`,
          OrderType: 'Regular Order',
          Address: {
            ShipToName: `Store ${n % 500}`,
            ShipToAddress1: `${(n % 9000) + 100} Commerce Way`,
            ShipToCity: 'Reno',
            ShipToState: 'NV',
            ShipToZipCode: '89501',
            ShipToCountry: 'US',
          },
          ShippingInfo: { CarrierName: 'Parcel', SCACCode: 'PRCL', DeliveryService: 'Ground' },
          Items: lines,
        },
      },
      customerKey,
      { 'idempotency-key': `order-${n}` },
    );
    const document = { CompanyID: ids.CompanyID, FacilityID: ids.FacilityID, SVCPOID: Order.SVCPOID };
    await post('/edi/3pl/outbound/order/open', document, operatorKey);
    await post(
      '/edi/3pl/outbound/order/post-confirmation',
      {
        ...document,
        ConfirmationNo: `SHIP-${n}`,
        Close: true,
        Items: lines.map((line) => ({ ItemNumber: line.ItemID, ShippedQty: '2', UOM: 'EA' })),
      },
      operatorKey,
    );
    if (n % 100 === 0) {
      const items = Array.from({ length: 10 }, (_, i) => ({
        POLineNo: i + 1,
        ItemNumber: itemId(((n + i) % ITEMS) + 1),
        ExpectedQty: '600',
        UOM: 'EA',
      }));
      const { Receipt } = await post(
        '/edi/inbound/receipt',
        { ...ids, ASNContent: { PONo: `RPO-${n}`, ReferenceNo: `RN-${n}`, CarrierName: 'Freight', Status: 'Imported', Items: items } },
        customerKey,
      );
      const receipt = { CompanyID: ids.CompanyID, FacilityID: ids.FacilityID, SVCPOID: Receipt.SVCPOID };
      await post(
        '/edi/3pl/inbound/receipt/post-confirmation',
        {
          ...receipt,
          ConfirmationNo: `RCV-${n}`,
          Close: true,
          Items: items.map((line) => ({ POLineNo: line.POLineNo, ItemNumber: line.ItemNumber, ReceivedQuantity: '600', UOM: 'EA' })),
        },
        operatorKey,
      );
    }
  };

  const started = Date.now();
  let lastAt = started;
  let next = 1;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next <= ORDERS) {
        const n = next++;
        await oneOrder(n);
        if (ANALYZE_EVERY > 0 && n % ANALYZE_EVERY === 0) await refreshStatistics(db);
        if (n % 2000 === 0) {
          const now = Date.now();
          log(
            `  ${n} orders, ${Math.round((now - started) / 1000)} s, the last 2,000 at ${Math.round(2000 / ((now - lastAt) / 1000))} a second`,
          );
          lastAt = now;
        }
      }
    }),
  );
  // As the dispatcher would: every event becomes a delivery to the endpoint.
  await fanOut(db, Date.now());
  await app.close();
}

/** The rows of the kinds counted per order. */
async function countsOf(db) {
  const counts = {};
  for (const table of ['events', 'webhook_deliveries', 'inventory_ledger']) {
    counts[table] = Number((await sql`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0].n);
  }
  return counts;
}

async function sqliteSizes() {
  const dir = mkdtempSync(join(tmpdir(), 'wharf-size-'));
  const file = join(dir, 'wharf.db');
  const db = connectDatabase(`sqlite:${file}`, { sqliteSynchronous: 'NORMAL' });
  try {
    await build(db, `sqlite:${file}`);
    await sql`pragma wal_checkpoint(truncate)`.execute(db);
    const { rows } = await sql`select coalesce(m.tbl_name, s.name) as tbl, sum(s.pgsize) as bytes
      from dbstat s left join sqlite_schema m on m.name = s.name group by 1 order by 2 desc`.execute(db);
    return {
      total: statSync(file).size,
      tables: rows.map((row) => ({ table: row.tbl, bytes: Number(row.bytes) })),
      counts: await countsOf(db),
    };
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresSizes() {
  const databases = new TemporaryDatabases(process.env.BENCH_POSTGRES_URL ?? DEFAULT_ADMIN_URL);
  const url = await databases.create('size');
  const db = connectDatabase(url);
  try {
    await build(db, url);
    const counts = await countsOf(db);
    await db.destroy();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('vacuum analyze');
      const { rows } = await client.query(
        `select relname as table, pg_total_relation_size(relid) as bytes from pg_stat_user_tables order by 2 desc`,
      );
      const total = (await client.query('select pg_database_size(current_database()) as bytes')).rows[0].bytes;
      return { total: Number(total), tables: rows.map((row) => ({ table: row.table, bytes: Number(row.bytes) })), counts };
    } finally {
      await client.end();
    }
  } finally {
    await db.destroy().catch(() => {});
    await databases.dropAll();
  }
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);

function report(name, { total, tables, counts }) {
  const retained = tables.filter((t) => RETAINED.includes(t.table)).reduce((sum, t) => sum + t.bytes, 0);
  const all = tables.reduce((sum, t) => sum + t.bytes, 0);
  console.log(`\n${name}: ${ORDERS} orders, database ${mb(total)} MB (tables and indexes ${mb(all)} MB)`);
  console.log(`  books and configuration ${mb(all - retained)} MB, kept for a retention window ${mb(retained)} MB`);
  console.log(
    `  rows: ${Object.entries(counts)
      .map(([table, n]) => `${table} ${n} (${(n / ORDERS).toFixed(1)} an order)`)
      .join(', ')}`,
  );
  for (const t of tables.filter((t) => t.bytes >= 100_000)) {
    console.log(`  ${t.table.padEnd(32)} ${mb(t.bytes).padStart(8)} MB  ${RETAINED.includes(t.table) ? 'retained' : ''}`);
  }
}

for (const [name, measure] of [
  ['SQLite', sqliteSizes],
  ['PostgreSQL', postgresSizes],
].filter(([name]) => DIALECTS.includes(name === 'SQLite' ? 'sqlite' : 'postgres'))) {
  log(`${name}: building ${ORDERS} orders`);
  report(name, await measure());
}
