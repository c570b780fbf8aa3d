import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { nextSequenceValue } from '../../db/dialect.js';
import type { ReceiptEventTable, ReceiptLineTable, ReceiptTable } from './receipts.tables.js';

/** All SQL of receipts and their lines. */

export type ReceiptRow = Selectable<ReceiptTable>;
export type ReceiptLineRow = Selectable<ReceiptLineTable>;

export async function nextSvcpoid(db: Db): Promise<string> {
  return `RN-${await nextSequenceValue(db, 'receipt_svcpoid_seq')}`;
}

/** The live (not Cancelled) receipt of a customer in a facility with this PONo. */
export async function findLiveByPoNo(
  db: Db,
  key: { companyId: string; customerId: string; facilityId: string; poNo: string },
): Promise<ReceiptRow | undefined> {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('facility_id', '=', key.facilityId)
    .where('po_no', '=', key.poNo)
    .where('status', '<>', 'Cancelled')
    .executeTakeFirst();
}

/** The live receipts of a customer, in any facility, with this ReferenceNo. */
export async function findLiveByReferenceNo(
  db: Db,
  key: { companyId: string; customerId: string; referenceNo: string },
): Promise<ReceiptRow[]> {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('reference_no', '=', key.referenceNo)
    .where('status', '<>', 'Cancelled')
    .execute();
}

export async function insertReceipt(db: Db, row: Insertable<ReceiptTable>): Promise<void> {
  await db.insertInto('receipts').values(row).execute();
}

export async function updateReceipt(
  db: Db,
  key: { companyId: string; svcpoid: string },
  changes: Updateable<ReceiptTable>,
): Promise<void> {
  await db
    .updateTable('receipts')
    .set(changes)
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .execute();
}

export async function replaceLines(db: Db, key: { companyId: string; svcpoid: string }, lines: Insertable<ReceiptLineTable>[]): Promise<void> {
  await db.deleteFrom('receipt_lines').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
  if (lines.length > 0) await db.insertInto('receipt_lines').values(lines).execute();
}

export async function insertEvent(db: Db, row: Insertable<ReceiptEventTable>): Promise<void> {
  await db.insertInto('receipt_events').values(row).execute();
}

/** The live receipts of a customer in a facility matching every given number. */
export async function findLiveByNumbers(
  db: Db,
  key: { companyId: string; customerId: string; facilityId: string; poNo?: string; referenceNo?: string },
): Promise<ReceiptRow[]> {
  return db
    .selectFrom('receipts')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('facility_id', '=', key.facilityId)
    .where('status', '<>', 'Cancelled')
    .$if(key.poNo !== undefined, (q) => q.where('po_no', '=', key.poNo!))
    .$if(key.referenceNo !== undefined, (q) => q.where('reference_no', '=', key.referenceNo!))
    .orderBy('svcpoid')
    .execute();
}
