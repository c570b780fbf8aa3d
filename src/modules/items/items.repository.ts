import type { Insertable, Selectable } from 'kysely';
import { compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import type { ItemTable } from './items.tables.js';

/** All SQL of the item master. */

export type ItemRow = Selectable<ItemTable>;
export type StoredItem = Pick<ItemRow, 'item_id' | 'status' | 'attributes'>;

export interface ItemFilter {
  companyId: string;
  customerId: string;
  status?: string;
  /** Only the item of this itemID. */
  itemId?: string;
  /** Only items created or changed in this window (epoch ms, inclusive): delta sync. */
  updatedFrom?: number;
  updatedTo?: number;
}

export async function findItemsById(db: Db, companyId: string, customerId: string, itemIds: string[]): Promise<StoredItem[]> {
  return db
    .selectFrom('items')
    .select(['item_id', 'status', 'attributes'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('item_id', 'in', itemIds)
    .execute();
}

export async function insertItems(db: Db, rows: Insertable<ItemTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('items').values(rows).execute();
}

export async function updateItem(
  db: Db,
  key: { companyId: string; customerId: string; itemId: string },
  changes: Pick<ItemRow, 'status' | 'attributes' | 'updated_at' | 'updated_by_key_id'>,
): Promise<void> {
  await db
    .updateTable('items')
    .set(changes)
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    .where('item_id', '=', key.itemId)
    .execute();
}

function filtered(db: Db, filter: ItemFilter) {
  return db
    .selectFrom('items')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.itemId !== undefined, (q) => q.where('item_id', '=', filter.itemId!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!));
}

export async function countItems(db: Db, filter: ItemFilter): Promise<number> {
  const { count } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** One page in item order; the order follows an index, so a deep page costs no sort. */
export async function pageItems(db: Db, filter: ItemFilter, offset: number, limit: number): Promise<ItemRow[]> {
  return filtered(db, filter).selectAll().orderBy('item_id').limit(limit).offset(offset).execute();
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
