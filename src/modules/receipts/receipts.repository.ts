import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import { forUpdate, nextSequenceValue } from '../../db/dialect.js';
import type { ReceiptConfirmationTable, ReceiptEventTable, ReceiptLineTable, ReceiptTable } from './receipts.tables.js';

/** All SQL of receipts and their lines. */

export type ReceiptRow = Selectable<ReceiptTable>;
export type ReceiptLineRow = Selectable<ReceiptLineTable>;

export async function nextSvcpoid(db: Db): Promise<string> {
  return `RN-${await nextSequenceValue(db, 'receipt_svcpoid_seq')}`;
}

/** Which live receipts of a customer to find: every number given must match. */
export interface LiveReceiptKey {
  companyId: string;
  customerId: string;
  facilityId?: string;
  poNo?: string;
  referenceNo?: string;
}

const findLiveQuery = compiledOnce((db: Db, key: LiveReceiptKey & { lock: boolean }) => {
  const query = db
    .selectFrom('receipts')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    // A literal, so that SQLite can use the partial unique index of live documents (a parameter it cannot match).
    .where('status', '<>', sql.lit('Cancelled'))
    .$if(key.facilityId !== undefined, (q) => q.where('facility_id', '=', key.facilityId!))
    .$if(key.poNo !== undefined, (q) => q.where('po_no', '=', key.poNo!))
    .$if(key.referenceNo !== undefined, (q) => q.where('reference_no', '=', key.referenceNo!))
    .orderBy('svcpoid');
  return key.lock ? forUpdate(db, query) : query;
});

/**
 * The live (not Cancelled) receipts of a customer matching every number given, in one facility or,
 * without a FacilityID, in all of them. The natural keys make that at most one per number.
 */
export async function findLive(db: Db, key: LiveReceiptKey, options: { lock?: boolean } = {}): Promise<ReceiptRow[]> {
  return (await findLiveQuery(db, { ...key, lock: options.lock ?? false })).rows;
}

const insertReceiptQuery = compiledOnce((db: Db, row: Insertable<ReceiptTable>) => db.insertInto('receipts').values(row));

export async function insertReceipt(db: Db, row: Insertable<ReceiptTable>): Promise<void> {
  await insertReceiptQuery(db, row);
}

export async function updateReceipt(db: Db, key: { companyId: string; svcpoid: string }, changes: Updateable<ReceiptTable>): Promise<void> {
  await db.updateTable('receipts').set(changes).where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
}

export async function deleteLines(db: Db, key: { companyId: string; svcpoid: string }): Promise<void> {
  await db.deleteFrom('receipt_lines').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
}

const insertLinesQuery = compiledOnce((db: Db, lines: Insertable<ReceiptLineTable>[]) => db.insertInto('receipt_lines').values(lines));

export async function insertLines(db: Db, lines: Insertable<ReceiptLineTable>[]): Promise<void> {
  if (lines.length > 0) await insertLinesQuery(db, lines);
}

export async function insertEvent(db: Db, row: Insertable<ReceiptEventTable>): Promise<void> {
  await db.insertInto('receipt_events').values(row).execute();
}

/** One receipt; with `lock`, held until the transaction ends so that no other writer moves it meanwhile. */
export async function findReceipt(
  db: Db,
  companyId: string,
  svcpoid: string,
  options: { lock?: boolean } = {},
): Promise<ReceiptRow | undefined> {
  const query = db.selectFrom('receipts').selectAll().where('company_id', '=', companyId).where('svcpoid', '=', svcpoid);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function findLines(db: Db, companyId: string, svcpoid: string): Promise<ReceiptLineRow[]> {
  return db
    .selectFrom('receipt_lines')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('svcpoid', '=', svcpoid)
    .orderBy('line_no')
    .execute();
}

/**
 * Moves a receipt to `to` only if its status is one of `from` (one statement, so two movers cannot
 * both win); answers whether it moved.
 */
export async function moveStatus(
  db: Db,
  key: { companyId: string; svcpoid: string },
  from: readonly string[],
  to: string,
  at: number,
  keyId: number,
): Promise<boolean> {
  const result = await db
    .updateTable('receipts')
    .set({ status: to, updated_at: at, updated_by_key_id: keyId })
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function addReceivedQuantity(
  db: Db,
  key: { companyId: string; svcpoid: string },
  lineNo: number,
  quantity: number,
): Promise<void> {
  await db
    .updateTable('receipt_lines')
    .set((eb) => ({ received_qty: eb('received_qty', '+', quantity) }))
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('line_no', '=', lineNo)
    .execute();
}

export async function findConfirmation(
  db: Db,
  key: { companyId: string; svcpoid: string; confirmationNo: string },
): Promise<Selectable<ReceiptConfirmationTable> | undefined> {
  return db
    .selectFrom('receipt_confirmations')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('confirmation_no', '=', key.confirmationNo)
    .executeTakeFirst();
}

export async function insertConfirmation(db: Db, row: Insertable<ReceiptConfirmationTable>): Promise<void> {
  await db.insertInto('receipt_confirmations').values(row).execute();
}

export interface ReceiptListFilter {
  companyId: string;
  facilityId: string;
  customerId?: string;
  customerIds?: string[];
  statuses?: string[];
  poNo?: string;
  referenceNo?: string;
  updatedFrom?: number;
  updatedTo?: number;
}

function listed(db: Db, filter: ReceiptListFilter) {
  return db
    .selectFrom('receipts')
    .where('company_id', '=', filter.companyId)
    .where('facility_id', '=', filter.facilityId)
    .$if(filter.customerId !== undefined, (q) => q.where('customer_id', '=', filter.customerId!))
    .$if(filter.statuses !== undefined, (q) => q.where('status', 'in', filter.statuses!))
    .$if(filter.poNo !== undefined, (q) => q.where('po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('reference_no', '=', filter.referenceNo!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!));
}

export async function countReceipts(db: Db, filter: ReceiptListFilter): Promise<number> {
  const { count } = await listed(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest update first; SVCPOIDs break ties, so pages are stable while nothing changes. */
export async function pageReceipts(db: Db, filter: ReceiptListFilter, offset: number, limit: number): Promise<ReceiptRow[]> {
  return listed(db, filter).selectAll().orderBy('updated_at').orderBy('svcpoid').limit(limit).offset(offset).execute();
}
