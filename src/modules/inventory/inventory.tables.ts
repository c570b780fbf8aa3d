import type { ColumnType, Generated } from 'kysely';

/**
 * Quantities are scaled integers (value × 10⁴, src/lib/decimal.ts); times are epoch milliseconds
 * (UTC). The key columns hold '' for an absent lot, goods type, title or expiration date.
 */
export interface BalanceKeyColumns {
  company_id: string;
  customer_id: string;
  facility_id: string;
  item_id: string;
  uom: string;
  lot_no: string;
  goods_type: string;
  title_id: string;
  inventory_status: string;
  /** ISO yyyy-MM-dd, or ''. */
  expiration_date: string;
}

/** What is in stock per balance key; changed only by conditional single statements. */
export interface InventoryBalanceTable extends BalanceKeyColumns {
  on_hand: ColumnType<number, number | undefined, number>;
  allocated: ColumnType<number, number | undefined, number>;
  /** When the balance first received stock (allocation takes older stock first); kept after. */
  first_received_at: number | null;
  updated_at: number;
}

/** One posting: a signed change of one balance, its source document and the key that made it. */
export interface InventoryLedgerTable extends BalanceKeyColumns {
  id: Generated<number>;
  quantity: number;
  on_hand_after: number;
  source_type: string;
  source_id: string;
  source_line: string;
  key_id: number | null;
  created_at: number;
}

/**
 * SQLite only: the ledger's item index, kept as a table filled behind the writes
 * (ledger-items.ts): one row per posting up to the mark, in the order the item search reads.
 */
export interface InventoryLedgerItemTable {
  company_id: string;
  facility_id: string;
  item_id: string;
  created_at: number;
  ledger_id: number;
}

/** SQLite only: one row, the last ledger id that inventory_ledger_items holds. */
export interface InventoryLedgerItemsMarkTable {
  id: number;
  last_ledger_id: number;
}

export interface InventoryTables {
  inventory_balances: InventoryBalanceTable;
  inventory_ledger: InventoryLedgerTable;
  inventory_ledger_items: InventoryLedgerItemTable;
  inventory_ledger_items_mark: InventoryLedgerItemsMarkTable;
}
