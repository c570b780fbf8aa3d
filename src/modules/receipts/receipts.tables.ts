import type { ColumnType, Generated } from 'kysely';

/**
 * Inbound receipts (RN). The header columns are what searches filter and show; `document` keeps
 * the whole import as it came (ASNContent with its unknown keys, the root TitleID). Quantities are
 * scaled integers (×10⁴); times are epoch milliseconds.
 */
export interface ReceiptTable {
  company_id: string;
  svcpoid: string;
  customer_id: string;
  facility_id: string;
  po_no: string;
  reference_no: string | null;
  status: string;
  receipt_type: string;
  supplier_id: string | null;
  carrier_name: string | null;
  scac_code: string | null;
  bol_no: string | null;
  container_no: string | null;
  scheduled_at: number | null;
  document: string;
  created_at: number;
  updated_at: number;
  created_by_key_id: number;
  updated_by_key_id: number;
}

/** One expected line; `received_qty` grows with each confirmation. */
export interface ReceiptLineTable {
  company_id: string;
  svcpoid: string;
  line_no: number;
  po_line_no: number | null;
  item_id: string;
  uom: string;
  lot_no: string;
  goods_type: string;
  title_id: string;
  expected_qty: number;
  received_qty: ColumnType<number, number | undefined, number>;
}

/** A move of a receipt's status by a person or system, with its note. */
export interface ReceiptEventTable {
  company_id: string;
  id: Generated<number>;
  svcpoid: string;
  action: string;
  from_status: string;
  to_status: string;
  note: string | null;
  key_id: number;
  created_at: number;
}

/** A receiving confirmation (RC): what one ConfirmationNo received, as the RC search shows it. */
export interface ReceiptConfirmationTable {
  company_id: string;
  id: Generated<number>;
  svcpoid: string;
  confirmation_no: string;
  customer_id: string;
  facility_id: string;
  po_no: string;
  reference_no: string | null;
  /** SHA-256 of the confirmation request: a replay of the same body answers `answer` again. */
  request_hash: string;
  answer: string;
  /** The RC object (spec 2.6) without its time fields, which are rendered in the facility's zone. */
  rc: string;
  received_at: number;
  key_id: number;
  created_at: number;
}

/** SQLite's stand-in for a sequence: one row per counter, bumped inside the transaction. */
export interface CounterTable {
  name: string;
  value: number;
}

export interface ReceiptTables {
  receipts: ReceiptTable;
  receipt_lines: ReceiptLineTable;
  receipt_events: ReceiptEventTable;
  receipt_confirmations: ReceiptConfirmationTable;
  counters: CounterTable;
}
