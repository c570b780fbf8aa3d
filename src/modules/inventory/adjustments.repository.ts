import type { Insertable, Selectable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import { writeLater } from '../../db/trailing-writes.js';
import type { Db } from '../../db/database.js';
import type { InventoryAdjustmentTable } from './adjustments.tables.js';

/** All SQL of the applied adjustments; the stock they post goes through the inventory service. */

export type AdjustmentRow = Selectable<InventoryAdjustmentTable>;
export type NewAdjustmentRow = Insertable<InventoryAdjustmentTable>;

/** An AdjustmentNo is applied once per customer in a facility. */
export interface AdjustmentNumber {
  companyId: string;
  facilityId: string;
  customerId: string;
  adjustmentNo: string;
}

const findAdjustmentQuery = compiledOnce((db: Db, key: AdjustmentNumber) =>
  db
    .selectFrom('inventory_adjustments')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('facility_id', '=', key.facilityId)
    .where('customer_id', '=', key.customerId)
    .where('adjustment_no', '=', key.adjustmentNo),
);

export async function findAdjustment(db: Db, key: AdjustmentNumber): Promise<AdjustmentRow | undefined> {
  return (await findAdjustmentQuery(db, key)).rows[0];
}

/**
 * By the adjustment's number, not its id: the unique key of the number is the index that serves
 * it whatever the statistics say. By (company_id, id) PostgreSQL planned it, with the statistics of
 * a table analyzed while it was nearly empty, through that same index on company_id alone, and read
 * every adjustment of the company (1.4 ms an update after 9,000 of them, docs/performance.md).
 */
const setAnswerQuery = boundOnce((db: Db, change: AdjustmentNumber & { answer: string }) =>
  db
    .updateTable('inventory_adjustments')
    .set({ answer: change.answer })
    .where('company_id', '=', change.companyId)
    .where('facility_id', '=', change.facilityId)
    .where('customer_id', '=', change.customerId)
    .where('adjustment_no', '=', change.adjustmentNo),
);

const claimNumberQuery = compiledOnce((db: Db, row: NewAdjustmentRow) =>
  db
    .insertInto('inventory_adjustments')
    .values(row)
    .onConflict((oc) => oc.columns(['company_id', 'facility_id', 'customer_id', 'adjustment_no']).doNothing())
    .returning('id'),
);

/**
 * Inserts the adjustment's row and answers whether it did: false (writing nothing) when its number
 * was applied before. A concurrent request with the same number waits on the unique key until this
 * transaction ends, then finds the number applied.
 */
export async function claimNumber(db: Db, row: NewAdjustmentRow): Promise<boolean> {
  const { rows } = await claimNumberQuery(db, row);
  return rows.length > 0;
}

const insertNumberQuery = boundOnce((db: Db, row: NewAdjustmentRow) => db.insertInto('inventory_adjustments').values(row));

/**
 * Inserts the adjustment's row as a trailing write (db/trailing-writes.ts): its answer is awaited
 * with the statements after it. A number applied before fails the transaction with a unique
 * violation (on PostgreSQL at the next statement, which never runs: the transaction is aborted);
 * a concurrent request with the same number waits on the unique key, then fails the same way.
 */
export async function insertNumber(db: Db, row: NewAdjustmentRow): Promise<void> {
  await writeLater(db, insertNumberQuery(db, row));
}

/** In a transaction, a trailing write (db/trailing-writes.ts): the answer is read by a later request with the same number. */
export async function setAnswer(db: Db, key: AdjustmentNumber, answer: string): Promise<void> {
  await writeLater(db, setAnswerQuery(db, { ...key, answer }));
}
