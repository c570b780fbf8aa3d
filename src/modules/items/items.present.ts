import { ITEM_HEAD } from './items.fields.js';
import type { ItemRow } from './items.repository.js';
import type { ItemRecord } from './items.schemas.js';

const EMPTY_RECORD: ItemRecord = Object.fromEntries(ITEM_HEAD.map((key) => [key, null]));

/** An item row as the search returns it: every head key (null where unset), then any extra keys. */
export function presentItem(row: ItemRow): ItemRecord {
  return {
    ...EMPTY_RECORD,
    ...(JSON.parse(row.attributes) as ItemRecord),
    companyId: row.company_id,
    customerId: row.customer_id,
    itemID: row.item_id,
    status: row.status,
  };
}
