import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshStatistics } from '../src/db/dialect.js';
import type { Db } from '../src/db/database.js';
import * as orders from '../src/modules/orders/orders.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * Every change that makes stock Available looks for the lines waiting for it (backorders): the
 * short lines of the customer's Imported and Open orders in the facility with the items freed
 * (orders.findWaitingLines). It read every line of every such order and kept the short ones: with
 * 100,000 fully allocated open orders of one customer, a one-line adjustment took 0.5 s. It must
 * read the short lines only, through order_line_shortages and its index, on either database,
 * without statistics: SQLite has none unless someone runs ANALYZE, and PostgreSQL may run with
 * autovacuum off.
 *
 * Customer CUI has thousands of fully allocated open orders of the item and two short ones;
 * customer CUO has thousands of short open orders of the same item, so that a read that does not
 * seek the customer's own short lines would read theirs.
 */

const FULL_ORDERS = 3000;
const OTHER_SHORT_ORDERS = 3000;
const ORDERED = 10_000;
const filter = { companyId: 'CO', customerId: 'CUI', facilityId: 'F1', items: [{ itemId: 'ITEM-1', uom: 'EA' }] };
const ORDER_TABLES = ['orders', 'order_lines', 'order_allocations', 'order_line_shortages'];

/** One plan node of PostgreSQL's EXPLAIN (ANALYZE, FORMAT JSON), as far as these tests read it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describeEachDialect('the lines waiting for freed stock', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    // No statistics on PostgreSQL either until the test asks for them: autovacuum would analyse the tables it fills.
    if (dialect === 'postgres')
      for (const table of ORDER_TABLES) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db);
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    for (const customer of ['CUI', 'CUO'])
      await db.insertInto('customers').values({ company_id: 'CO', customer_id: customer, name: customer, created_at: 0 }).execute();
    await db.insertInto('facilities').values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 0 }).execute();

    /** An open one-line order of ITEM-1 holding `allocated` of its 1 EA, short when that is less. */
    const orderOf = (svcpoid: string, customer: string, at: number, allocated: number) => ({ svcpoid, customer, at, allocated });
    const mine = Array.from({ length: FULL_ORDERS }, (_, i) => orderOf(`DN-F${i + 1}`, 'CUI', 2 * i + 1, ORDERED));
    // Two short ones among them, the later one older by creation time than the first: oldest first, whatever the SVCPOID.
    mine.push(orderOf('DN-S1', 'CUI', 2 * FULL_ORDERS, 0), orderOf('DN-S2', 'CUI', 100, 4_000));
    const theirs = Array.from({ length: OTHER_SHORT_ORDERS }, (_, i) => orderOf(`DN-O${i + 1}`, 'CUO', 2 * i, 0));
    const all = [...mine, ...theirs];
    for (let i = 0; i < all.length; i += 500) {
      const chunk = all.slice(i, i + 500);
      await db
        .insertInto('orders')
        .values(
          chunk.map(({ svcpoid, customer, at }) => ({
            company_id: 'CO',
            svcpoid,
            customer_id: customer,
            facility_id: 'F1',
            reference_no: svcpoid,
            reference_no_type: 'string',
            po_no: null,
            status: 'Open',
            document: '{}',
            created_at: at,
            updated_at: at,
            created_by_key_id: 1,
            updated_by_key_id: 1,
          })),
        )
        .execute();
      const line = {
        company_id: 'CO',
        line_no: 1,
        customer_line_no: null,
        item_id: 'ITEM-1',
        uom: 'EA',
        lot_no: '',
        goods_type: '',
        title_id: '',
      };
      await db
        .insertInto('order_lines')
        .values(chunk.map(({ svcpoid }) => ({ ...line, svcpoid, ordered_qty: ORDERED })))
        .execute();
      const holding = chunk.filter(({ allocated }) => allocated > 0);
      if (holding.length > 0)
        await db
          .insertInto('order_allocations')
          .values(
            holding.map(({ svcpoid, customer, allocated }) => ({
              company_id: 'CO',
              svcpoid,
              line_no: 1,
              customer_id: customer,
              facility_id: 'F1',
              item_id: 'ITEM-1',
              uom: 'EA',
              lot_no: '',
              goods_type: '',
              title_id: '',
              inventory_status: 'Available',
              expiration_date: '',
              quantity: allocated,
            })),
          )
          .execute();
      const short = chunk.filter(({ allocated }) => allocated < ORDERED);
      if (short.length > 0)
        await db
          .insertInto('order_line_shortages')
          .values(
            short.map(({ svcpoid, customer, at }) => ({
              company_id: 'CO',
              svcpoid,
              line_no: 1,
              customer_id: customer,
              facility_id: 'F1',
              item_id: 'ITEM-1',
              uom: 'EA',
              order_created_at: at,
            })),
          )
          .execute();
    }
  });

  afterAll(() => database.destroy());

  /** The plan of the waiting-lines read as the database runs it now. */
  const explained = async (db: Db) => {
    const [sent] = await sentBy(dialect, (recording) => orders.findWaitingLines(recording, filter));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain (analyze, format json) ';
    return (await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]))).rows;
  };

  /** SQLite: seeks the customer's short lines of the item in their index, then each line by its key. */
  const expectSqlitePlan = (rows: Record<string, unknown>[]) => {
    const plan = rows.map((row) => String(row.detail));
    expect(plan[0]).toMatch(
      /^SEARCH s USING (COVERING )?INDEX order_line_shortages_waiting_idx \(company_id=\? AND customer_id=\? AND facility_id=\? AND item_id=\? AND uom=\?\)$/,
    );
    expect(plan[1]).toMatch(/^SEARCH l USING INDEX \S+ \(company_id=\? AND svcpoid=\? AND line_no=\?\)$/);
    expect(plan.filter((step) => step.startsWith('SCAN'))).toEqual([]);
  };

  /**
   * PostgreSQL, run for real: the two short lines in their index, each line by its key, and the
   * allocations of those two lines alone (a loop each; EXPLAIN rounds the rows of a loop, so those
   * are counted by loops).
   */
  const expectPostgresPlan = (rows: Record<string, unknown>[]) => {
    const [{ Plan: root }] = rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode }];
    const nodes = nodesOf(root);
    const scans = nodes
      .filter((node) => node['Relation Name'] !== undefined)
      .map((node) => ({
        relation: node['Relation Name'],
        index: node['Index Name'],
        read:
          node['Actual Rows'] * node['Actual Loops'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0),
        loops: node['Actual Loops'],
      }))
      .sort((a, b) => a.relation!.localeCompare(b.relation!));
    expect(scans).toEqual([
      { relation: 'order_allocations', index: 'order_allocations_pk', read: expect.any(Number), loops: 2 },
      { relation: 'order_line_shortages', index: 'order_line_shortages_waiting_idx', read: 2, loops: 1 },
      { relation: 'order_lines', index: 'order_lines_pk', read: 2, loops: 2 },
    ]);
  };

  it("answers the customer's short lines of the item, the oldest order first, with what they hold", async () => {
    const lines = await orders.findWaitingLines(database.db, filter);
    expect(lines.map((l) => [l.svcpoid, l.line_no, l.ordered_qty, l.allocated])).toEqual([
      ['DN-S2', 1, ORDERED, 4_000],
      ['DN-S1', 1, ORDERED, 0],
    ]);
  });

  it('reads the short lines only, through their index, without statistics', async () => {
    const rows = await explained(database.db);
    if (dialect === 'sqlite') expectSqlitePlan(rows);
    else expectPostgresPlan(rows);
  });

  it.runIf(dialect === 'postgres')('reads the short lines only once the tables are analysed too', async () => {
    await sql`analyze`.execute(database.db);
    expectPostgresPlan(await explained(database.db));
  });

  it.runIf(dialect === 'sqlite')('keeps that plan once SQLite has the statistics a process gathers (PRAGMA optimize)', async () => {
    // What Wharf's maintenance gathers (docs/operations.md, "Maintenance").
    expect(await refreshStatistics(database.db)).toEqual(expect.arrayContaining(['orders', 'order_lines']));
    expectSqlitePlan(await explained(database.db));
  });
});
