import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as receipts from '../src/modules/receipts/receipts.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * An RN import finds the receipt its PONo names and the holder of its ReferenceNo in one statement
 * (receipts.findLiveForImport). Each of its two terms must seek an index of its number, on either
 * database, or the statement would read every receipt of the customer and grow with them.
 */

const RECEIPTS = 2000;

describeEachDialect('the live receipts an import looks up', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    await db.insertInto('customers').values({ company_id: 'CO', customer_id: 'CU', name: 'Cu', created_at: 0 }).execute();
    await db.insertInto('facilities').values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 0 }).execute();
    const rows = Array.from({ length: RECEIPTS }, (_, i) => ({
      company_id: 'CO',
      svcpoid: `RN-${i + 1}`,
      customer_id: 'CU',
      facility_id: 'F1',
      po_no: `P-${i + 1}`,
      reference_no: `R-${i + 1}`,
      status: i % 4 === 0 ? 'Cancelled' : 'Imported',
      receipt_type: 'Regular Receipt',
      document: '{}',
      created_at: i,
      updated_at: i,
      created_by_key_id: 1,
      updated_by_key_id: 1,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('receipts')
        .values(rows.slice(i, i + 500))
        .execute();
    await sql`analyze`.execute(db);
  });

  afterAll(() => database.destroy());

  const key = { companyId: 'CO', customerId: 'CU', facilityId: 'F1', poNo: 'P-10', referenceNo: 'R-7' };

  it('answers the receipt of the PONo and the holder of the ReferenceNo, live ones only', async () => {
    const found = await database.db.transaction().execute((trx) => receipts.findLiveForImport(trx, key));
    expect(found.map((r) => [r.svcpoid, r.po_no, r.reference_no])).toEqual([
      ['RN-10', 'P-10', 'R-10'],
      ['RN-7', 'P-7', 'R-7'],
    ]);
    const cancelled = await database.db
      .transaction()
      .execute((trx) => receipts.findLiveForImport(trx, { ...key, poNo: 'P-1', referenceNo: 'R-5' }));
    expect(cancelled).toEqual([]);
  });

  it('seeks each partial unique index and reads no other receipt', async () => {
    const [sent] = await sentBy(dialect, (db) => receipts.findLiveForImport(db, key));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
    const plan = rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
    // The PONo term may seek the live receipts' PONo index or the PONo index of the searches
    // (migration 2026-12-08T1102): either reads the receipts of that PONo alone.
    expect(plan).toMatch(/receipts_live_po_uq|receipts_facility_po_idx/);
    expect(plan).toContain('receipts_live_reference_uq');
    expect(plan).not.toMatch(/SCAN receipts|Seq Scan/);
  });
});
