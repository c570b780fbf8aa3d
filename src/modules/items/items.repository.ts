import type { Insertable, Selectable } from 'kysely';
import { compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import { afterKey, type KeyPosition, type PageSlice } from '../../db/keyset.js';
import * as counts from '../counts/counts.service.js';
import type { ItemTable } from './items.tables.js';

/**
 * All SQL of the item master. Every write of an item here also keeps its search count
 * (docs/paging.md): an item is counted by status and update day, under no facility ('').
 */

export type ItemRow = Selectable<ItemTable>;
export type StoredItem = Pick<ItemRow, 'item_id' | 'status' | 'attributes' | 'updated_at'>;

export interface ItemFilter {
  companyId: string;
  customerId: string;
  status?: string;
  /** Only the item of this itemID. */
  itemId?: string;
  /** Only items created or changed in this window (epoch ms, inclusive): delta sync. */
  updatedFrom?: number;
  updatedTo?: number;
  /** Only the items up to this itemID (the rows before a cursor's place). */
  itemIdThrough?: string;
}

interface CustomerKey {
  companyId: string;
  customerId: string;
}

const countedOf = (key: CustomerKey, item: Pick<ItemRow, 'status' | 'updated_at'>): counts.CountedRow => ({
  companyId: key.companyId,
  facilityId: '',
  customerId: key.customerId,
  status: item.status,
  at: item.updated_at,
});

/**
 * The customer's items among `itemIds` as they are, locked until the commit, in item order (so that
 * two imports lock their common items in one order): what an import compares and changes, and what
 * each change's count moves from, whatever was read before.
 */
export async function lockItemsById(db: Db, key: CustomerKey, itemIds: string[]): Promise<StoredItem[]> {
  return forUpdate(
    db,
    db
      .selectFrom('items')
      .select(['item_id', 'status', 'attributes', 'updated_at'])
      .where('company_id', '=', key.companyId)
      .where('customer_id', '=', key.customerId)
      .where('item_id', 'in', itemIds)
      .orderBy('item_id'),
  ).execute();
}

export async function insertItems(db: Db, rows: Insertable<ItemTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('items').values(rows).execute();
  for (const row of rows) await counts.countNew(db, 'items', countedOf({ companyId: row.company_id, customerId: row.customer_id }, row));
}

/** Changes an item; `before` is the item as lockItemsById read it in this transaction. */
export async function updateItem(
  db: Db,
  key: CustomerKey & { itemId: string },
  before: Pick<ItemRow, 'status' | 'updated_at'>,
  changes: Pick<ItemRow, 'status' | 'attributes' | 'updated_at' | 'updated_by_key_id'>,
): Promise<void> {
  await db
    .updateTable('items')
    .set(changes)
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('item_id', '=', key.itemId)
    .execute();
  await counts.countChange(db, 'items', countedOf(key, before), countedOf(key, changes));
}

function filtered(db: Db, filter: ItemFilter) {
  return db
    .selectFrom('items')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.itemId !== undefined, (q) => q.where('item_id', '=', filter.itemId!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!))
    .$if(filter.itemIdThrough !== undefined, (q) => q.where('item_id', '<=', filter.itemIdThrough!));
}

export async function countItems(db: Db, filter: ItemFilter): Promise<number> {
  const { count } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * One page in item order; the order follows an index (the key, or the status's ending at the item),
 * so a deep page costs no sort, and a page after a cursor starts at its item on that index.
 */
export async function pageItems(db: Db, filter: ItemFilter, slice: PageSlice<KeyPosition>): Promise<ItemRow[]> {
  return filtered(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterKey('item_id', slice.after!)))
    .selectAll()
    .orderBy('item_id')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}

const findKnownItemIdsQuery = compiledOnce((db: Db, key: { companyId: string; customerId: string; itemIds: string[] }) =>
  db
    .selectFrom('items')
    .select('item_id')
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('item_id', 'in', key.itemIds),
);

/**
 * The item IDs among `itemIds` that the customer's item master has. It selects the key alone, which
 * the primary-key index can answer, never the attributes JSON, which may be large.
 */
export async function findKnownItemIds(db: Db, companyId: string, customerId: string, itemIds: string[]): Promise<string[]> {
  if (itemIds.length === 0) return [];
  const { rows } = await findKnownItemIdsQuery(db, { companyId, customerId, itemIds });
  return rows.map((row) => row.item_id);
}

export async function findItemAttributes(
  db: Db,
  companyId: string,
  customerId: string,
  itemIds: string[],
): Promise<Pick<ItemRow, 'item_id' | 'attributes'>[]> {
  if (itemIds.length === 0) return [];
  return db
    .selectFrom('items')
    .select(['item_id', 'attributes'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('item_id', 'in', itemIds)
    .execute();
}
