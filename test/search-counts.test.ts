import { DateTime } from 'luxon';
import { beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { useTestApp, type TestContext } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { buildOrder, buildReceipt, createWorld, expectOk, idsOf, stock, uniqueId, type World } from './helpers/factories.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';
import {
  ITEM_IMPORT,
  ITEM_SEARCH,
  LEDGER_SEARCH,
  ORDER_ACK_SEARCH,
  ORDER_CANCEL,
  ORDER_DC_SEARCH,
  ORDER_IMPORT,
  ORDER_LEVEL_SEARCH,
  RECEIPT_ACK_SEARCH,
  RECEIPT_LEVEL_SEARCH,
  RECEIPT_RC_SEARCH,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from './helpers/paths.js';

/**
 * The kept counts behind every document search's totalCount, the ledger's and the item master's
 * (docs/paging.md): after imports, updates, cancels, operator moves, MarkOpen lists, backorders
 * filled, shipments, receipts, stock postings and item imports that create, change and deactivate
 * items over several days, each kept count equals the rows it counts, and every search's
 * totalCount, with or without a time window that starts and ends inside a day, equals a count of
 * the table itself.
 */

const HOUR = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR;

type Counted = Map<string, number>;

const keyOf = (...parts: (string | number)[]) => JSON.stringify(parts);

/** The kept counts, without the keys that have come back to zero. */
async function keptCounts(db: Db): Promise<Counted> {
  const rows = await db.selectFrom('search_counts').selectAll().execute();
  return new Map(
    rows
      .filter((row) => Number(row.count) !== 0)
      .map((row) => [keyOf(row.company_id, row.counted, row.facility_id, row.customer_id, row.status, Number(row.day)), Number(row.count)]),
  );
}

/** The same counts, counted from the rows themselves. */
async function countedRows(db: Db): Promise<Counted> {
  const counted: Counted = new Map();
  const add = (kind: string, row: { company_id: string; facility_id: string; customer_id: string }, status: string, at: number) => {
    const key = keyOf(row.company_id, kind, row.facility_id, row.customer_id, status, Math.floor(Number(at) / DAY_MS));
    counted.set(key, (counted.get(key) ?? 0) + 1);
  };
  for (const row of await db.selectFrom('orders').selectAll().execute()) add('orders', row, row.status, row.updated_at);
  for (const row of await db.selectFrom('receipts').selectAll().execute()) add('receipts', row, row.status, row.updated_at);
  for (const row of await db.selectFrom('order_confirmations').selectAll().execute()) add('order_confirmations', row, '', row.created_at);
  for (const row of await db.selectFrom('receipt_confirmations').selectAll().execute())
    add('receipt_confirmations', row, '', row.created_at);
  for (const row of await db.selectFrom('acks').selectAll().execute()) add(`acks:${row.document_type}`, row, '', row.created_at);
  for (const row of await db.selectFrom('inventory_ledger').selectAll().execute()) add('ledger', row, '', row.created_at);
  // Items belong to no facility.
  for (const row of await db.selectFrom('items').selectAll().execute())
    add('items', { ...row, facility_id: '' }, row.status, row.updated_at);
  return counted;
}

/**
 * Item imports of a day, by both customers: new items, one of them Inactive, and in the same import
 * a change of an earlier day's item and the deactivation of another, beside one sent unchanged;
 * hours later the first customer reactivates an item.
 */
async function importItemsOfADay(ctx: TestContext, world: World, earlier: Record<string, unknown>[][]): Promise<void> {
  const { tenant } = world;
  for (const [customer, key] of [
    [0, world.customer],
    [1, world.otherCustomer],
  ] as const) {
    const known = (earlier[customer] ??= []);
    const fresh = [
      { itemID: uniqueId('ITM'), itemDescription: 'new' },
      { itemID: uniqueId('ITM'), status: 'Inactive' },
      { itemID: uniqueId('ITM') },
    ];
    const Items: Record<string, unknown>[] = [...fresh];
    if (known.length > 0) {
      // The day before's items: the first changed, the last deactivated, the middle one as it is.
      const [changed, unchanged, deactivated] = known.slice(-3) as [
        Record<string, unknown>,
        Record<string, unknown>,
        Record<string, unknown>,
      ];
      Object.assign(changed, { itemDescription: uniqueId('DESC') });
      Object.assign(deactivated, { status: 'Inactive' });
      Items.push(changed, unchanged, deactivated);
    }
    const imported = await expectOk(
      ctx.post(ITEM_IMPORT, { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[customer], Items }, key),
    );
    expect(imported.json().Items.map((item: { Status: string }) => item.Status)).toEqual(
      known.length > 0 ? ['Created', 'Created', 'Created', 'Updated', 'Unchanged', 'Updated'] : ['Created', 'Created', 'Created'],
    );
    known.push(...fresh);
  }
  ctx.clock.advance(3 * HOUR);
  const reactivated = Object.assign(earlier[0]!.find((item) => item.status === 'Inactive')!, { status: 'Active' });
  const body = { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0], Items: [reactivated] };
  expect((await expectOk(ctx.post(ITEM_IMPORT, body, world.customer))).json().Items).toEqual([
    { itemID: reactivated.itemID, Status: 'Updated' },
  ]);
}

/**
 * Four days of a warehouse's work for the first customer of the first facility, hours apart, with
 * some stock posted for the second customer and items imported by both.
 */
async function workFourDays(ctx: TestContext, world: World): Promise<void> {
  const { tenant } = world;
  const operatorOpts = { tenant, key: world.customer, operatorKey: world.operator };
  const imported: Record<string, unknown>[][] = [];
  for (let day = 0; day < 4; day++) {
    await importItemsOfADay(ctx, world, imported);
    // The second customer's stock, in the same facility: the ledger search counts every customer's
    // postings when it names none.
    await stock(ctx, { tenant, customer: 1, items: [{ ItemNumber: uniqueId('SKU'), Qty: '5' }], key: world.admin });
    // An order short at import, filled in part by stock that comes hours later (its update time moves).
    const sku = uniqueId('SKU');
    const short = await buildOrder(ctx, { ...operatorOpts, content: { Items: [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }] } });
    ctx.clock.advance(7 * HOUR);
    await stock(ctx, { tenant, items: [{ ItemNumber: sku, Qty: '4' }], key: world.admin });
    // The customer updates it, then cancels it.
    const updated = await ctx.post(
      ORDER_IMPORT,
      { ...idsOf(tenant), POContent: { ...short.body.POContent, Items: [{ ItemID: sku, OrderedQty: '3', UOM: 'EA' }] } },
      world.customer,
    );
    expect(updated.statusCode, updated.body).toBe(200);
    ctx.clock.advance(3 * HOUR);
    await expectOk(ctx.put(ORDER_CANCEL, { ...idsOf(tenant), ReferenceNo: short.referenceNo }, world.customer));

    // Orders shipped in full, in part, closed short, and cancelled by the operator.
    const stocked = uniqueId('SKU');
    await stock(ctx, { tenant, items: [{ ItemNumber: stocked, Qty: '100' }], key: world.admin });
    const items = [{ ItemID: stocked, OrderedQty: '10', UOM: 'EA' }];
    await buildOrder(ctx, { ...operatorOpts, status: 'Shipped', content: { Items: items } });
    await buildOrder(ctx, { ...operatorOpts, status: 'Partial Shipped', content: { Items: items } });
    ctx.clock.advance(2 * HOUR);
    await buildOrder(ctx, { ...operatorOpts, status: 'Short Shipped', content: { Items: items } });
    await buildOrder(ctx, { ...operatorOpts, status: 'Cancelled' });
    await buildOrder(ctx, { ...operatorOpts, status: 'Open' });
    await buildOrder(ctx, operatorOpts);
    // A refused import: a failure ACK.
    const refused = await ctx.post(
      ORDER_IMPORT,
      { ...idsOf(tenant), POContent: { ReferenceNo: uniqueId('SO'), Items: [] } },
      world.customer,
    );
    expect(refused.statusCode).toBe(400);

    // Receipts in every state a warehouse takes them to.
    for (const status of ['Imported', 'Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'] as const)
      await buildReceipt(ctx, { ...operatorOpts, status });
    ctx.clock.advance(5 * HOUR);

    // The warehouse lists what is new and opens it.
    for (const list of [THREEPL_ORDER, THREEPL_RECEIPT])
      await expectOk(
        ctx.post(`${list}/list`, { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], MarkOpen: true }, world.operator),
      );
    ctx.clock.advance(7 * HOUR + 17 * 60 * 1000);
  }
}

describeEachDialect('the kept counts of the document searches', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
    await workFourDays(ctx(), world);
  });

  it('equal the rows they count after every kind of write', async () => {
    const kept = await keptCounts(ctx().database.db);
    expect(kept.size).toBeGreaterThan(20);
    expect(kept).toEqual(await countedRows(ctx().database.db));
  });

  it('give every search the totalCount of its rows, whatever the window', async () => {
    const { db } = ctx().database;
    const { tenant } = world;
    const scope = { ...idsOf(tenant) };
    const zone = 'America/Los_Angeles';
    const first = Number(
      (
        await db
          .selectFrom('acks')
          .select((eb) => eb.fn.min('created_at').as('at'))
          .where('company_id', '=', tenant.companyId)
          .executeTakeFirstOrThrow()
      ).at,
    );
    // Windows that start and end inside days, span whole days, sit inside one day, or are open at one end.
    const windows: [number | undefined, number | undefined][] = [
      [undefined, undefined],
      [first + 5 * HOUR, first + 2 * DAY_MS + 3 * HOUR],
      [first + 26 * HOUR, first + 27 * HOUR],
      [first + 30 * HOUR, undefined],
      [undefined, first + 40 * HOUR],
      [Math.ceil(first / DAY_MS) * DAY_MS, Math.ceil(first / DAY_MS) * DAY_MS + 2 * DAY_MS - 1],
    ];
    const local = (at: number | undefined) =>
      at === undefined ? undefined : DateTime.fromMillis(at, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS");
    const offset = (at: number | undefined) => (at === undefined ? undefined : DateTime.fromMillis(at, { zone }).toISO());
    const between = (column: string, from: number | undefined, to: number | undefined) => (q: any) =>
      q.$if(from !== undefined, (w: any) => w.where(column, '>=', from)).$if(to !== undefined, (w: any) => w.where(column, '<=', to));
    const tableCount = async (
      table: 'orders' | 'receipts' | 'order_confirmations' | 'receipt_confirmations' | 'acks' | 'inventory_ledger' | 'items',
      filter: (q: any) => any,
    ) =>
      Number(
        (
          await filter(
            db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('company_id', '=', tenant.companyId),
          )
            // Items belong to no facility.
            .$if(table !== 'items', (q: any) => q.where('facility_id', '=', tenant.facilityIds[0]!))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const totalCount = async (path: string, body: Record<string, unknown>, key = world.customer) => {
      const response = await ctx().post(path, { ...scope, ...body }, key);
      // The ACK searches answer 404 when nothing matches (spec 2.7).
      if (response.statusCode === 404 && (path === ORDER_ACK_SEARCH || path === RECEIPT_ACK_SEARCH)) return 0;
      expect(response.statusCode, response.body).toBe(200);
      const json = response.json();
      return Number(json.paging?.totalCount ?? json.Paging?.totalCount ?? response.headers['x-total-count']);
    };

    for (const [from, to] of windows) {
      const created = { CreatedWhenFrom: local(from), CreatedWhenTo: local(to) };
      const updated = { UpdatedWhenFrom: offset(from), UpdatedWhenTo: offset(to) };
      const customer = (q: any) => q.where('customer_id', '=', tenant.customerIds[0]);
      const label = `${dialect} window ${from} – ${to}`;
      expect(await totalCount(ORDER_LEVEL_SEARCH, updated), label).toBe(
        await tableCount('orders', (q) => between('updated_at', from, to)(customer(q))),
      );
      expect(await totalCount(RECEIPT_LEVEL_SEARCH, { ...updated, Status: 'Closed' }), label).toBe(
        await tableCount('receipts', (q) => between('updated_at', from, to)(customer(q)).where('status', '=', 'Closed')),
      );
      expect(await totalCount(ORDER_DC_SEARCH, created), label).toBe(
        await tableCount('order_confirmations', (q) => between('created_at', from, to)(customer(q))),
      );
      expect(await totalCount(RECEIPT_RC_SEARCH, created), label).toBe(
        await tableCount('receipt_confirmations', (q) => between('created_at', from, to)(customer(q))),
      );
      for (const [path, type] of [
        [ORDER_ACK_SEARCH, 'DN'],
        [RECEIPT_ACK_SEARCH, 'RN'],
      ] as const) {
        expect(await totalCount(path, created), label).toBe(
          await tableCount('acks', (q) => between('created_at', from, to)(customer(q)).where('document_type', '=', type)),
        );
      }
      const statuses = ['Shipped', 'Short Shipped', 'Open'];
      expect(
        await totalCount(`${THREEPL_ORDER}/list`, { CustomerID: undefined, Status: statuses, ...updated }, world.operator),
        label,
      ).toBe(await tableCount('orders', (q) => between('updated_at', from, to)(q).where('status', 'in', statuses)));
      expect(await totalCount(`${THREEPL_RECEIPT}/list`, { CustomerID: undefined, ...updated }, world.operator), label).toBe(
        await tableCount('receipts', (q) => between('updated_at', from, to)(q)),
      );
      // The ledger: one customer's postings, every customer's, and a source type's (counted through the index).
      expect(await totalCount(LEDGER_SEARCH, created, world.operator), label).toBe(
        await tableCount('inventory_ledger', (q) => between('created_at', from, to)(customer(q))),
      );
      expect(await totalCount(LEDGER_SEARCH, { CustomerID: undefined, ...created }, world.operator), label).toBe(
        await tableCount('inventory_ledger', (q) => between('created_at', from, to)(q)),
      );
      expect(await totalCount(LEDGER_SEARCH, { ...created, Source: { Type: 'shipment' } }, world.operator), label).toBe(
        await tableCount('inventory_ledger', (q) => between('created_at', from, to)(customer(q)).where('source_type', '=', 'shipment')),
      );
      // The item master: every status, and each.
      expect(await totalCount(ITEM_SEARCH, updated), label).toBe(
        await tableCount('items', (q) => between('updated_at', from, to)(customer(q))),
      );
      for (const status of ['Active', 'Inactive'])
        expect(await totalCount(ITEM_SEARCH, { ...updated, Status: status }), label).toBe(
          await tableCount('items', (q) => between('updated_at', from, to)(customer(q)).where('status', '=', status)),
        );
    }
  });

  it('stay equal to their rows when one customer’s writes run at once, in the same day rows', async () => {
    const { tenant } = world;
    const opts = { tenant, key: world.customer, operatorKey: world.operator };
    const sku = uniqueId('SKU');
    await stock(ctx(), { tenant, items: [{ ItemNumber: sku, Qty: '1000' }], key: world.admin });
    const items = [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }];
    // Imports, shipments, operator cancels and MarkOpen lists of one customer at once: every one of
    // them writes today's count rows, last and in key order, so none waits on another in a cycle.
    const writes = [
      ...Array.from({ length: 6 }, () => buildOrder(ctx(), { ...opts, content: { Items: items } })),
      ...Array.from({ length: 4 }, () => buildOrder(ctx(), { ...opts, status: 'Shipped', content: { Items: items } })),
      ...Array.from({ length: 3 }, () => buildOrder(ctx(), { ...opts, status: 'Cancelled' })),
      ...Array.from({ length: 4 }, () => buildReceipt(ctx(), { ...opts, status: 'In Progress' })),
      ...Array.from({ length: 3 }, () =>
        expectOk(
          ctx().post(
            `${THREEPL_ORDER}/list`,
            { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], MarkOpen: true },
            world.operator,
          ),
        ),
      ),
    ];
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(await keptCounts(ctx().database.db)).toEqual(await countedRows(ctx().database.db));
  });

  // Last: the counts it fills replace those the writes kept, which the tests before it check.
  it('are filled from the rows that exist when the migration runs', async () => {
    const { db } = ctx().database;
    const migrator = migratorOf(db);
    // The migration of the document searches' counts (and every one after it), then that of the ledger's and the items'.
    for (const migration of ['2026-12-08T1100-search-counts', '2026-12-08T1200-ledger-item-counts']) {
      const down = await migrator.migrateTo(migrationBefore(migration));
      expect(down.error).toBeUndefined();
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect(await keptCounts(db), migration).toEqual(await countedRows(db));
    }
  });
});
