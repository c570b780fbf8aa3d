import type { Generated } from 'kysely';

/**
 * Applied 3PL adjustments (docs/compatibility.md): one row per AdjustmentNo of a customer in a facility, the
 * replay check's record and the race's referee. Times are epoch milliseconds.
 */
export interface InventoryAdjustmentTable {
  company_id: string;
  id: Generated<number>;
  facility_id: string;
  customer_id: string;
  adjustment_no: string;
  /** 'qty' (inventory-adjust-qty-incremental) or 'property' (inventory-adjust-property). */
  kind: string;
  reason_code: string | null;
  note: string | null;
  /** SHA-256 of the request: a replay of the same body answers `answer` again. */
  request_hash: string;
  /** The JSON answer of the first request. */
  answer: string;
  key_id: number;
  created_at: number;
}

export interface AdjustmentTables {
  inventory_adjustments: InventoryAdjustmentTable;
}
