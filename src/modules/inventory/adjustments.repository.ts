import type { Insertable, Selectable } from 'kysely';
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

export async function findAdjustment(db: Db, key: AdjustmentNumber): Promise<AdjustmentRow | undefined> {
  return db
    .selectFrom('inventory_adjustments')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('facility_id', '=', key.facilityId)
    .where('customer_id', '=', key.customerId)
    .where('adjustment_no', '=', key.adjustmentNo)
    .executeTakeFirst();
}

/**
 * Inserts the adjustment's row and answers its id. A concurrent request with the same number waits
 * on the unique key until this transaction ends, then fails on it (and runs again as a replay).
 */
export async function insertAdjustment(db: Db, row: NewAdjustmentRow): Promise<number> {
  const { id } = await db.insertInto('inventory_adjustments').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

export async function setAnswer(db: Db, key: { companyId: string; id: number }, answer: string): Promise<void> {
  await db.updateTable('inventory_adjustments').set({ answer }).where('company_id', '=', key.companyId).where('id', '=', key.id).execute();
}
