import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshStatistics } from '../src/db/dialect.js';
import * as adjustments from '../src/modules/inventory/adjustments.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * An adjustment writes its answer after posting (adjustments.setAnswer). The update must seek the
 * adjustment's number in its unique index on either database, even with the statistics of a table
 * analyzed while it held one adjustment (autovacuum off, as on a CI server, or not come round yet):
 * by (company_id, id) PostgreSQL then took that index on company_id alone and read every
 * adjustment of the company, a cost that grew with each one applied. On PostgreSQL the table's
 * pages keep room for the answer, so that the update stays on the row's page (migration
 * 2026-11-28T0900).
 */

const ADJUSTMENTS = 2000;

describeEachDialect('the update of an adjustment’s answer', (dialect) => {
  let database: TestDatabase;

  const row = (n: number) => ({
    company_id: 'CO',
    facility_id: 'F1',
    customer_id: 'CU',
    adjustment_no: `A-${n}`,
    kind: 'qty',
    reason_code: null,
    note: null,
    request_hash: 'h'.repeat(64),
    answer: '{}',
    key_id: 1,
    created_at: n,
  });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    await db.insertInto('customers').values({ company_id: 'CO', customer_id: 'CU', name: 'Cu', created_at: 0 }).execute();
    await db.insertInto('facilities').values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 0 }).execute();
    await db.insertInto('inventory_adjustments').values(row(0)).execute();
    // Statistics of the table as it was then: PostgreSQL's as autovacuum or the bench's seeding
    // leaves them, SQLite's as a process that started then gathered them (docs/operations.md, "Maintenance").
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    // SQLite's planner scanned a table analysed with one row: a table that small keeps none.
    else expect(await refreshStatistics(db)).toEqual([]);
    for (let n = 1; n <= ADJUSTMENTS; n += 500) {
      await db
        .insertInto('inventory_adjustments')
        .values(Array.from({ length: 500 }, (_, i) => row(n + i)))
        .execute();
    }
  });

  afterAll(() => database.destroy());

  const number = { companyId: 'CO', facilityId: 'F1', customerId: 'CU', adjustmentNo: 'A-7' };

  it('writes the answer of that adjustment only', async () => {
    await adjustments.setAnswer(database.db, number, '{"Adjustment":{}}');
    const answers = await database.db.selectFrom('inventory_adjustments').select('adjustment_no').where('answer', '<>', '{}').execute();
    expect(answers).toEqual([{ adjustment_no: 'A-7' }]);
  });

  it('seeks the number in its unique index, with statistics from when the table held one adjustment', async () => {
    const [sent] = await sentBy(dialect, (db) => adjustments.setAnswer(db, number, '{}'));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
    const plan = rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
    expect(plan).toMatch(
      dialect === 'sqlite'
        ? /USING INDEX inventory_adjustments_number_uq \(company_id=\? AND facility_id=\? AND customer_id=\? AND adjustment_no=\?\)/
        : /Index Scan using inventory_adjustments_number_uq[^\n]*\n\s*Index Cond: [^\n]*adjustment_no/,
    );
    expect(plan).not.toMatch(/SCAN inventory_adjustments|Seq Scan|Filter/);
  });

  it.runIf(dialect === 'postgres')('finds room on the row’s page: the table’s pages are filled to 70%', async () => {
    const { rows } = await sql<{ reloptions: string[] }>`select reloptions from pg_class where relname = 'inventory_adjustments'`.execute(
      database.db,
    );
    // Beside the autovacuum thresholds of a document's table (migration 2026-12-08T1001).
    expect(rows).toEqual([
      { reloptions: ['fillfactor=70', 'autovacuum_vacuum_scale_factor=0.05', 'autovacuum_analyze_scale_factor=0.02'] },
    ]);
  });
});
