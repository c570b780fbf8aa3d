import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findWaitingLines } from '../src/modules/orders/orders.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * Backorders are found in order_line_shortages (migration 2026-12-08T0900), which holds the short
 * lines of Imported and Open orders; a database of before it already has orders waiting, and the
 * migration fills the table with exactly those lines, so that the next stock to arrive still goes
 * to them. Migration 2026-12-08T0901 drops the index of allocating orders that the old read used.
 * The down steps put back what was there.
 */

const MIGRATION = '2026-12-08T0900-order-line-shortages';
const BEFORE = migrationBefore(MIGRATION);
const INDEX_DROPPED = '2026-12-08T0901-drop-allocating-orders-index';

/** An order of ITEM-1 (and ITEM-2 where a line says so); each line: ordered, shipped, and what it holds in each balance. */
interface OrderCase {
  svcpoid: string;
  customer: string;
  status: string;
  createdAt: number;
  lines: { item?: string; ordered: number; shipped?: number; held?: number[] }[];
}

const CASES: OrderCase[] = [
  // Waiting: one line short, one full; a line short of all it ordered; another customer's short line.
  {
    svcpoid: 'DN-1',
    customer: 'CU',
    status: 'Open',
    createdAt: 30,
    lines: [
      { ordered: 10, held: [4] },
      { ordered: 5, held: [5] },
    ],
  },
  {
    svcpoid: 'DN-2',
    customer: 'CU',
    status: 'Imported',
    createdAt: 20,
    lines: [{ ordered: 3 }, { item: 'ITEM-2', ordered: 2, held: [1] }],
  },
  { svcpoid: 'DN-7', customer: 'CV', status: 'Open', createdAt: 10, lines: [{ ordered: 1 }] },
  // Not waiting: full in two balances; past allocating, or cancelled, short or not.
  { svcpoid: 'DN-5', customer: 'CU', status: 'Open', createdAt: 5, lines: [{ ordered: 6, held: [2, 4] }] },
  { svcpoid: 'DN-3', customer: 'CU', status: 'Partial Shipped', createdAt: 1, lines: [{ ordered: 10, shipped: 2, held: [3] }] },
  { svcpoid: 'DN-4', customer: 'CU', status: 'Cancelled', createdAt: 2, lines: [{ ordered: 4 }] },
  { svcpoid: 'DN-6', customer: 'CU', status: 'Short Shipped', createdAt: 3, lines: [{ ordered: 4, shipped: 1 }] },
];

describeEachDialect('the order-line-shortages migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);

  const tableExists = async () =>
    (dialect === 'sqlite'
      ? await sql`select name from sqlite_master where type = 'table' and name = 'order_line_shortages'`.execute(database.db)
      : await sql`select tablename from pg_tables where tablename = 'order_line_shortages'`.execute(database.db)
    ).rows.length === 1;
  const ordersIndexes = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'orders' and sql is not null`.execute(database.db)
        : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'orders'`.execute(database.db);
    return rows.map((row) => row.name);
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    const { db } = database;
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    for (const customer of ['CU', 'CV'])
      await db.insertInto('customers').values({ company_id: 'CO', customer_id: customer, name: customer, created_at: 0 }).execute();
    await db.insertInto('facilities').values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 0 }).execute();
    for (const { svcpoid, customer, status, createdAt, lines } of CASES) {
      await db
        .insertInto('orders')
        .values({
          company_id: 'CO',
          svcpoid,
          customer_id: customer,
          facility_id: 'F1',
          reference_no: svcpoid,
          reference_no_type: 'string',
          po_no: null,
          status,
          document: '{}',
          created_at: createdAt,
          updated_at: createdAt,
          created_by_key_id: 1,
          updated_by_key_id: 1,
        })
        .execute();
      for (const [index, { item = 'ITEM-1', ordered, shipped = 0, held = [] }] of lines.entries()) {
        const line = { company_id: 'CO', svcpoid, line_no: index + 1, item_id: item, uom: 'EA', lot_no: '', goods_type: '', title_id: '' };
        await db
          .insertInto('order_lines')
          .values({ ...line, customer_line_no: null, ordered_qty: ordered * 10_000, shipped_qty: shipped * 10_000 })
          .execute();
        for (const [balance, quantity] of held.entries())
          await db
            .insertInto('order_allocations')
            .values({
              ...line,
              customer_id: customer,
              facility_id: 'F1',
              inventory_status: 'Available',
              expiration_date: balance === 0 ? '' : '2027-01-01',
              quantity: quantity * 10_000,
            })
            .execute();
      }
    }
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('fills order_line_shortages with the short lines of Imported and Open orders, and no other line', async () => {
    expect(await tableExists()).toBe(false);
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    const rows = await database.db.selectFrom('order_line_shortages').selectAll().orderBy('svcpoid').orderBy('line_no').execute();
    expect(rows.map((row) => ({ ...row, line_no: Number(row.line_no), order_created_at: Number(row.order_created_at) }))).toEqual([
      {
        company_id: 'CO',
        svcpoid: 'DN-1',
        line_no: 1,
        customer_id: 'CU',
        facility_id: 'F1',
        item_id: 'ITEM-1',
        uom: 'EA',
        order_created_at: 30,
      },
      {
        company_id: 'CO',
        svcpoid: 'DN-2',
        line_no: 1,
        customer_id: 'CU',
        facility_id: 'F1',
        item_id: 'ITEM-1',
        uom: 'EA',
        order_created_at: 20,
      },
      {
        company_id: 'CO',
        svcpoid: 'DN-2',
        line_no: 2,
        customer_id: 'CU',
        facility_id: 'F1',
        item_id: 'ITEM-2',
        uom: 'EA',
        order_created_at: 20,
      },
      {
        company_id: 'CO',
        svcpoid: 'DN-7',
        line_no: 1,
        customer_id: 'CV',
        facility_id: 'F1',
        item_id: 'ITEM-1',
        uom: 'EA',
        order_created_at: 10,
      },
    ]);
  });

  it('lets the backorder read find the orders that were waiting, the oldest first, without the index of allocating orders', async () => {
    expect(await ordersIndexes()).toContain('orders_allocating_idx');
    expect((await migrator().migrateTo(INDEX_DROPPED)).error).toBeUndefined();
    expect(await ordersIndexes()).not.toContain('orders_allocating_idx');
    const waiting = await findWaitingLines(database.db, {
      companyId: 'CO',
      customerId: 'CU',
      facilityId: 'F1',
      items: [
        { itemId: 'ITEM-1', uom: 'EA' },
        { itemId: 'ITEM-2', uom: 'EA' },
      ],
    });
    expect(waiting.map((line) => [line.svcpoid, line.line_no, line.item_id, Number(line.allocated)])).toEqual([
      ['DN-2', 1, 'ITEM-1', 0],
      ['DN-2', 2, 'ITEM-2', 10_000],
      ['DN-1', 1, 'ITEM-1', 40_000],
    ]);
  });

  it('goes back down to the index of allocating orders, without the table', async () => {
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    expect(await ordersIndexes()).toContain('orders_allocating_idx');
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    expect(await tableExists()).toBe(false);
    expect(await ordersIndexes()).toContain('orders_allocating_idx');
  });
});
