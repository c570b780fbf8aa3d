import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshStatistics } from '../src/db/dialect.js';
import * as orders from '../src/modules/orders/orders.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * Every change that makes stock Available looks for the lines waiting for it (backorders): the
 * short lines of the customer's Imported and Open orders in the facility with the items freed
 * (orders.findWaitingLines). That read must start from the customer's allocating orders, through
 * their partial index, on either database, with statistics or without. Planned freely without them,
 * SQLite read every order line of the company by its primary key: with 100,000 orders of another
 * customer, a one-line adjustment took 9 ms instead of 0.5.
 */

const OTHER_ORDERS = 2000;
const filter = {
  companyId: 'CO',
  customerId: 'CUI',
  facilityId: 'F1',
  items: [{ itemId: 'ITEM-1', uom: 'EA' }],
  statuses: ['Imported', 'Open'],
};

describeEachDialect('the lines waiting for freed stock', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    for (const customer of ['CUI', 'CUO'])
      await db.insertInto('customers').values({ company_id: 'CO', customer_id: customer, name: customer, created_at: 0 }).execute();
    await db.insertInto('facilities').values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 0 }).execute();
    // Customer CUO's open orders of the same item; CUI has one open order and one shipped.
    const order = (svcpoid: string, customer: string, status: string, at: number) => ({
      company_id: 'CO',
      svcpoid,
      customer_id: customer,
      facility_id: 'F1',
      reference_no: svcpoid,
      reference_no_type: 'SO',
      po_no: null,
      status,
      document: '{}',
      created_at: at,
      updated_at: at,
      created_by_key_id: 1,
      updated_by_key_id: 1,
    });
    const line = (svcpoid: string) => ({
      company_id: 'CO',
      svcpoid,
      line_no: 1,
      customer_line_no: null,
      item_id: 'ITEM-1',
      uom: 'EA',
      lot_no: '',
      goods_type: '',
      title_id: '',
      ordered_qty: 10_000,
    });
    const others = Array.from({ length: OTHER_ORDERS }, (_, i) => `DN-O${i + 1}`);
    const mine = [
      { svcpoid: 'DN-I1', status: 'Open' },
      { svcpoid: 'DN-I2', status: 'Shipped' },
    ];
    for (let i = 0; i < others.length; i += 500) {
      const chunk = others.slice(i, i + 500);
      await db
        .insertInto('orders')
        .values(chunk.map((svcpoid, j) => order(svcpoid, 'CUO', 'Open', i + j)))
        .execute();
      await db.insertInto('order_lines').values(chunk.map(line)).execute();
    }
    await db
      .insertInto('orders')
      .values(mine.map(({ svcpoid, status }, j) => order(svcpoid, 'CUI', status, OTHER_ORDERS + j)))
      .execute();
    await db
      .insertInto('order_lines')
      .values(mine.map(({ svcpoid }) => line(svcpoid)))
      .execute();
    // As a production database has them: PostgreSQL's autovacuum analyses; SQLite is analysed by
    // Wharf's maintenance at start, which the last test runs.
    if (dialect === 'postgres') await sql`analyze`.execute(db);
  });

  afterAll(() => database.destroy());

  it("answers the short lines of the customer's allocating orders only", async () => {
    const lines = await orders.findWaitingLines(database.db, filter);
    expect(lines.map((l) => [l.svcpoid, l.line_no, l.allocated])).toEqual([['DN-I1', 1, 0]]);
  });

  const expectPlanFromAllocatingOrders = async () => {
    const [sent] = await sentBy(dialect, (db) => orders.findWaitingLines(db, filter));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
    const plan = rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
    expect(plan).toContain('orders_allocating_idx');
    expect(plan).not.toMatch(/SCAN (o|l)\b|SEARCH l USING INDEX \S+ \(company_id=\?\)|Seq Scan on order(s|_lines)\b/);
  };

  it("starts from the customer's allocating orders, through their partial index", expectPlanFromAllocatingOrders);

  it('keeps that plan once SQLite has the statistics a process gathers at start (PRAGMA optimize)', async () => {
    // PostgreSQL's were gathered above; SQLite's are what Wharf's maintenance gathers (docs/operations.md, "Maintenance").
    if (dialect === 'sqlite') expect(await refreshStatistics(database.db)).toEqual(expect.arrayContaining(['orders', 'order_lines']));
    await expectPlanFromAllocatingOrders();
  });
});
