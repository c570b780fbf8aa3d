import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import { afterPosition, timeOrder, type PageSlice } from '../../db/keyset.js';
import { sendAhead, writeLater } from '../../db/trailing-writes.js';
import { forUpdate, numberAhead, type DocumentNumbers, type NumberAhead } from '../../db/dialect.js';
import * as counts from '../counts/counts.service.js';
import type { ReceiptConfirmationTable, ReceiptEventTable, ReceiptLineTable, ReceiptTable } from './receipts.tables.js';

/**
 * All SQL of receipts and their lines. Every write of a receipt or a receiving confirmation here
 * also keeps its search counts (docs/paging.md): a receipt is counted by status and update day, a
 * confirmation by creation day.
 */

export type ReceiptRow = Selectable<ReceiptTable>;
export type ReceiptLineRow = Selectable<ReceiptLineTable>;

/** A receipt's primary key. */
export interface ReceiptKey {
  companyId: string;
  svcpoid: string;
}

const SVCPOIDS: DocumentNumbers = { prefix: 'RN-', sequence: 'receipt_svcpoid_seq' };

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

const findImportedQuery = compiledOnce((db: Db, key: ImportedReceiptKey) =>
  forUpdate(
    db,
    db
      .selectFrom('receipts')
      .selectAll()
      // Each term whole, with the customer and the live status of its own: SQLite seeks one index
      // per term of an OR only when that term alone names the index's columns and its condition.
      .where((eb) => {
        const live = [
          eb('company_id', '=', key.companyId),
          eb('customer_id', '=', key.customerId),
          eb('status', '<>', sql.lit('Cancelled')),
        ];
        return eb.or([
          eb.and([...live, eb('facility_id', '=', key.facilityId), eb('po_no', '=', key.poNo)]),
          eb.and([...live, eb('reference_no', '=', key.referenceNo)]),
        ]);
      })
      .orderBy('svcpoid'),
  ),
);

/** The numbers an import gives its receipt: its PONo in its facility, and a ReferenceNo. */
export interface ImportedReceiptKey {
  companyId: string;
  customerId: string;
  facilityId: string;
  poNo: string;
  referenceNo: string;
}

/**
 * In one statement, locked until the transaction ends: the live receipt an import of these numbers
 * updates (its PONo in its facility) and any live receipt of the customer holding its ReferenceNo,
 * in any facility; at most two rows, or one that is both.
 */
export async function findLiveForImport(db: Db, key: ImportedReceiptKey): Promise<ReceiptRow[]> {
  return (await findImportedQuery(db, key)).rows;
}

const insertReceiptQuery = boundOnce((db: Db, row: Insertable<ReceiptTable>) => db.insertInto('receipts').values(row));

/** The next SVCPOID, taken ahead of the lookup that decides whether the receipt is new (numberAhead). */
export function svcpoidAhead(db: Db): Promise<NumberAhead> {
  return numberAhead(db, SVCPOIDS);
}

/** Inserts a new receipt under the SVCPOID svcpoidAhead took; in a transaction, a trailing write (db/trailing-writes.ts). */
export async function insertReceipt(db: Db, row: Insertable<ReceiptTable>): Promise<void> {
  await writeLater(db, insertReceiptQuery(db, row));
  await counts.countNew(db, 'receipts', counts.countedDocument(row as counts.CountedDocument));
}

/** A receipt as it is now, locked: what a change of it moves its count from, whatever the caller read before. */
const countedReceiptQuery = boundOnce((db: Db, key: ReceiptKey) =>
  forUpdate(
    db,
    db
      .selectFrom('receipts')
      .select(['company_id', 'customer_id', 'facility_id', 'status', 'updated_at'])
      .where('company_id', '=', key.companyId)
      .where('svcpoid', '=', key.svcpoid),
  ),
);

const updateReceiptQuery = compiledOnce((db: Db, update: { key: ReceiptKey; changes: Updateable<ReceiptTable> }) =>
  db.updateTable('receipts').set(update.changes).where('company_id', '=', update.key.companyId).where('svcpoid', '=', update.key.svcpoid),
);

export async function updateReceipt(db: Db, key: ReceiptKey, changes: Updateable<ReceiptTable>): Promise<void> {
  const before = await sendAhead(db, countedReceiptQuery(db, key));
  await updateReceiptQuery(db, { key, changes });
  const [row] = (await before()).rows;
  await counts.countDocumentChange(db, 'receipts', row, changes as Partial<counts.CountedDocument>);
}

export async function deleteLines(db: Db, key: ReceiptKey): Promise<void> {
  await db.deleteFrom('receipt_lines').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
}

const insertLinesQuery = boundOnce((db: Db, lines: Insertable<ReceiptLineTable>[]) => db.insertInto('receipt_lines').values(lines));

/** In a transaction, a trailing write (db/trailing-writes.ts): a later read of the lines sends it first. */
export async function insertLines(db: Db, lines: Insertable<ReceiptLineTable>[]): Promise<void> {
  if (lines.length > 0) await writeLater(db, insertLinesQuery(db, lines));
}

/** The moves of a document, oldest first: its timeline. */
export async function findMoves(db: Db, key: ReceiptKey) {
  return db
    .selectFrom('receipt_events')
    .select(['action', 'from_status', 'to_status', 'note', 'key_id', 'created_at'])
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .orderBy('id')
    .execute();
}

const insertEventQuery = compiledOnce((db: Db, row: Insertable<ReceiptEventTable>) => db.insertInto('receipt_events').values(row));

export async function insertEvent(db: Db, row: Insertable<ReceiptEventTable>): Promise<void> {
  await insertEventQuery(db, row);
}

const findReceiptQuery = compiledOnce((db: Db, key: ReceiptKey & { lock: boolean }) => {
  const query = db.selectFrom('receipts').selectAll().where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid);
  return key.lock ? forUpdate(db, query) : query;
});

/** One receipt; with `lock`, held until the transaction ends so that no other writer moves it meanwhile. */
export async function findReceipt(
  db: Db,
  companyId: string,
  svcpoid: string,
  options: { lock?: boolean } = {},
): Promise<ReceiptRow | undefined> {
  return (await findReceiptQuery(db, { companyId, svcpoid, lock: options.lock ?? false })).rows[0];
}

const findLinesQuery = compiledOnce((db: Db, key: ReceiptKey) =>
  db.selectFrom('receipt_lines').selectAll().where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).orderBy('line_no'),
);

export async function findLines(db: Db, companyId: string, svcpoid: string): Promise<ReceiptLineRow[]> {
  return (await findLinesQuery(db, { companyId, svcpoid })).rows;
}

const moveStatusQuery = compiledOnce((db: Db, move: ReceiptKey & { from: string[]; to: string; at: number; keyId: number }) =>
  db
    .updateTable('receipts')
    .set({ status: move.to, updated_at: move.at, updated_by_key_id: move.keyId })
    .where('company_id', '=', move.companyId)
    .where('svcpoid', '=', move.svcpoid)
    .where('status', 'in', move.from),
);

/**
 * Moves a receipt to `to` only if its status is one of `from` (one statement, so two movers cannot
 * both win); answers whether it moved.
 */
export async function moveStatus(
  db: Db,
  key: ReceiptKey,
  from: readonly string[],
  to: string,
  at: number,
  keyId: number,
): Promise<boolean> {
  const before = await sendAhead(db, countedReceiptQuery(db, key));
  const result = await moveStatusQuery(db, { ...key, from: [...from], to, at, keyId });
  const [row] = (await before()).rows;
  const moved = (result.numAffectedRows ?? 0n) > 0n;
  if (moved) await counts.countDocumentChange(db, 'receipts', row, { status: to, updated_at: at });
  return moved;
}

const addReceivedQuantityQuery = compiledOnce((db: Db, change: ReceiptKey & { lineNo: number; quantity: number }) =>
  db
    .updateTable('receipt_lines')
    .set((eb) => ({ received_qty: eb('received_qty', '+', change.quantity) }))
    .where('company_id', '=', change.companyId)
    .where('svcpoid', '=', change.svcpoid)
    .where('line_no', '=', change.lineNo),
);

export async function addReceivedQuantity(db: Db, key: ReceiptKey, lineNo: number, quantity: number): Promise<void> {
  await addReceivedQuantityQuery(db, { ...key, lineNo, quantity });
}

const findConfirmationQuery = compiledOnce((db: Db, key: ReceiptKey & { confirmationNo: string }) =>
  db
    .selectFrom('receipt_confirmations')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('confirmation_no', '=', key.confirmationNo),
);

export async function findConfirmation(
  db: Db,
  key: ReceiptKey & { confirmationNo: string },
): Promise<Selectable<ReceiptConfirmationTable> | undefined> {
  return (await findConfirmationQuery(db, key)).rows[0];
}

const insertConfirmationQuery = compiledOnce((db: Db, row: Insertable<ReceiptConfirmationTable>) =>
  db.insertInto('receipt_confirmations').values(row),
);

export async function insertConfirmation(db: Db, row: Insertable<ReceiptConfirmationTable>): Promise<void> {
  await insertConfirmationQuery(db, row);
  await counts.countNew(db, 'receipt_confirmations', {
    companyId: row.company_id,
    facilityId: row.facility_id,
    customerId: row.customer_id,
    at: row.created_at,
  });
}

export interface ReceiptListFilter {
  companyId: string;
  facilityId: string;
  customerId?: string;
  statuses?: string[];
  poNo?: string;
  referenceNo?: string;
  updatedFrom?: number;
  updatedTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  svcpoidThrough?: string;
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
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!))
    .$if(filter.svcpoidThrough !== undefined, (q) => q.where('svcpoid', '<=', filter.svcpoidThrough!));
}

export async function countReceipts(db: Db, filter: ReceiptListFilter): Promise<number> {
  const { count } = await listed(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest update first; SVCPOIDs break ties, so pages are stable while nothing changes. */
export async function pageReceipts(db: Db, filter: ReceiptListFilter, slice: PageSlice): Promise<ReceiptRow[]> {
  return listed(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('updated_at', 'svcpoid', slice.after!)))
    .selectAll()
    .orderBy(timeOrder('updated_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('svcpoid')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}
