/** One item of a customer's item master; `attributes` is the JSON object of every other spec key. */
export interface ItemTable {
  company_id: string;
  customer_id: string;
  item_id: string;
  status: string;
  attributes: string;
  created_at: number;
  updated_at: number;
  created_by_key_id: number | null;
  updated_by_key_id: number | null;
}

export interface ItemTables {
  items: ItemTable;
}
