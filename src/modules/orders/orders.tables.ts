import type { ColumnType, Generated } from 'kysely';
import type { BalanceKeyColumns } from '../inventory/inventory.tables.js';

/**
 * Outbound orders (DN). The columns are what searches filter on and what the service itself
 * changes; `document` keeps the whole import as it came (POContent with its unknown keys, the root
 * TitleID), from which the header columns are shown. Quantities are scaled integers (×10⁴); times
 * are epoch milliseconds.
 */
export interface OrderTable {
  company_id: string;
  svcpoid: string;
  customer_id: string;
  facility_id: string;
  /** Compared as text; `reference_no_type` 'number' when it came as a JSON number, so it is echoed as one. */
  reference_no: string;
  reference_no_type: string;
  po_no: string | null;
  status: string;
  document: string;
  created_at: number;
  updated_at: number;
  created_by_key_id: number;
  updated_by_key_id: number;
}

/** One ordered line; `shipped_qty` grows with each shipment confirmation. */
export interface OrderLineTable {
  company_id: string;
  svcpoid: string;
  line_no: number;
  /** The LineNo the customer sent, if any. */
  customer_line_no: number | null;
  item_id: string;
  uom: string;
  lot_no: string;
  goods_type: string;
  title_id: string;
  ordered_qty: number;
  shipped_qty: ColumnType<number, number | undefined, number>;
}

/** What one line holds allocated in one balance (the balance's key without company, customer, facility). */
export interface OrderAllocationTable extends BalanceKeyColumns {
  svcpoid: string;
  line_no: number;
  quantity: number;
}

/**
 * A line that waits for stock (docs/orders.md, backorders): one row for each line of an Imported or
 * Open order that holds less allocated than it ordered, and for no other line. The customer,
 * facility and order creation time are the order's, kept here so that the backorder read finds an
 * item's waiting lines, oldest order first, in one index without reading any line that is not short.
 */
export interface OrderLineShortageTable {
  company_id: string;
  svcpoid: string;
  line_no: number;
  customer_id: string;
  facility_id: string;
  item_id: string;
  uom: string;
  order_created_at: number;
}

/** A move of an order's status by a person or system, with its note. */
export interface OrderEventTable {
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

/** A shipment confirmation (DC): what one ConfirmationNo shipped, as the DC search shows it. */
export interface OrderConfirmationTable {
  company_id: string;
  id: Generated<number>;
  svcpoid: string;
  confirmation_no: string;
  customer_id: string;
  facility_id: string;
  po_no: string | null;
  reference_no: string;
  reference_no_type: string;
  /** SHA-256 of the confirmation request: a replay of the same body answers `answer` again. */
  request_hash: string;
  answer: string;
  /** The DC object without its time fields, which are rendered in the facility's zone. */
  dc: string;
  carrier_name: string | null;
  scac_code: string | null;
  pro_no: string | null;
  shipped_at: number;
  key_id: number;
  created_at: number;
}

export interface OrderTables {
  orders: OrderTable;
  order_lines: OrderLineTable;
  order_allocations: OrderAllocationTable;
  order_line_shortages: OrderLineShortageTable;
  order_events: OrderEventTable;
  order_confirmations: OrderConfirmationTable;
}
