import type { Db } from '../../src/db/database.js';
import type { NewLedgerRow } from '../../src/modules/inventory/inventory.repository.js';

/**
 * Postings written straight into the ledger, for the tests of what reads it (searches, the item
 * index): many rows fast, without the services. (The migrations' tests keep their own rows: they
 * write the table as it stood at their migration.)
 */

/** A posting of an adjustment: the key's absent values '', 1 EA on hand, at a fixed time, unless given. */
export function ledgerRow(
  row: Pick<NewLedgerRow, 'company_id' | 'customer_id' | 'facility_id' | 'item_id'> & Partial<NewLedgerRow>,
): NewLedgerRow {
  return {
    uom: 'EA',
    lot_no: '',
    goods_type: '',
    title_id: '',
    inventory_status: 'Available',
    expiration_date: '',
    quantity: 10_000,
    on_hand_after: 10_000,
    source_type: 'adjustment',
    source_id: 'A-1',
    source_line: '',
    key_id: null,
    created_at: 1_700_000_000_000,
    ...row,
  };
}

/** Inserts postings 500 a statement (within either database's limit of parameters); answers their ids in order. */
export async function insertLedgerRows(db: Db, rows: NewLedgerRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += 500) {
    const inserted = await db
      .insertInto('inventory_ledger')
      .values(rows.slice(start, start + 500))
      .returning('id')
      .execute();
    ids.push(...inserted.map((row) => Number(row.id)));
  }
  return ids;
}
