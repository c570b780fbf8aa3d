import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { indexesLedgerItemsBehind } from '../../db/dialect.js';
import { afterPosition, type PagePosition, type PageSlice } from '../../db/keyset.js';
import { KEY_COLUMNS } from './balance-keys.js';
import type { LedgerRow } from './inventory.repository.js';

/**
 * The SQL of the ledger search (the balance search is inventory.repository's pageBalances, which
 * walks the balances' primary key). Oldest first; ties on the posting time break on the id.
 *
 * Every filter combination seeks one index of inventory_ledger, chosen here (the facility is
 * always given):
 *
 * | filters (besides the facility)       | index inventory_ledger_… (its columns after company_id)      |
 * |--------------------------------------|-------------------------------------------------------------|
 * | a source ID (with or without a type) | source_idx (source_type, source_id)                          |
 * | an item (with or without a customer) | facility_item_idx (facility_id, item_id, created_at, id) [1] |
 * | a customer, no item                  | customer_idx (customer_id, created_at, id)                   |
 * | neither                              | facility_idx (facility_id, created_at, id)                   |
 *
 * [1] On SQLite that index is the table inventory_ledger_items, kept behind the writes
 * (ledger-items.ts): the item path reads it and the ledger's rows after its mark (itemPostingsBehind).
 *
 * The time window is a range on created_at in all but the source path, whose few rows are sorted.
 * A lot (a lot belongs to an item), a source type alone and every filter off the chosen index are
 * checked on the rows the index yields.
 *
 * A page after a cursor (docs/paging.md) starts at the cursor's (created_at, id) on the chosen
 * index, which ends at the id on every path but the source's.
 *
 * Those other filters are written as expressions (`column || ''`, `created_at + 0`), which no
 * index matches, so the database seeks the chosen index and no other. Without that, SQLite without ANALYZE statistics
 * (Wharf never runs ANALYZE) takes (company_id, facility_id) for every combination, because that
 * index yields the rows already in order: a search for one receipt's postings would walk every
 * posting of the facility. PostgreSQL would pick well given statistics; the path fixes its plan too.
 */

export interface LedgerSearchFilter {
  companyId: string;
  facilityId: string;
  customerId?: string;
  itemId?: string;
  lotNo?: string;
  /** Epoch ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
  /**
   * The source types to match. A source ID without a type comes with every type, so that the
   * (company_id, source_type, source_id) index seeks it with an IN list on its second column.
   */
  sourceTypes?: readonly string[];
  sourceId?: string;
  /** With a time bound at one instant: only the rows at it up to this id (a cursor's place). */
  idThrough?: number;
}

/** A filter, and where a page after a cursor starts. */
type LedgerQuery = LedgerSearchFilter & { after?: PagePosition };

export type LedgerAccessPath = 'source' | 'item' | 'customer' | 'facility';

/** The index columns (after company_id) each path seeks, as in the table above. */
const SEEK_COLUMNS: Record<LedgerAccessPath, readonly string[]> = {
  source: ['source_type', 'source_id'],
  item: ['facility_id', 'item_id', 'created_at'],
  customer: ['customer_id', 'created_at'],
  facility: ['facility_id', 'created_at'],
};

/** The most selective index the filter can seek. */
export function ledgerAccessPath(filter: LedgerSearchFilter): LedgerAccessPath {
  if (filter.sourceId !== undefined) return 'source';
  if (filter.itemId !== undefined) return 'item';
  return filter.customerId !== undefined ? 'customer' : 'facility';
}

type LedgerColumn = 'company_id' | 'facility_id' | 'customer_id' | 'item_id' | 'lot_no' | 'source_type' | 'source_id';

/** A ledger row's columns, in the one order both parts of the item search on SQLite select them. */
const LEDGER_COLUMNS = [
  'id',
  ...KEY_COLUMNS,
  'quantity',
  'on_hand_after',
  'source_type',
  'source_id',
  'source_line',
  'key_id',
  'created_at',
] as const satisfies readonly (keyof LedgerRow)[];

/**
 * The filter's conditions: the columns in `seek` (those of the index to seek) as themselves, read
 * from `seekTable`; every other as an expression no index matches, read from `table`. Unqualified
 * when no table is named (the ledger alone). `seekId` is the ledger id's name in `seekTable`.
 */
function conditionsOf(
  filter: LedgerQuery,
  seek: readonly string[],
  table?: string,
  seekTable = table,
  seekId = 'id',
): Expression<SqlBool>[] {
  const ref = (name: string, from: string | undefined) => sql.ref(from ? `${from}.${name}` : name);
  const column = (name: LedgerColumn) => (seek.includes(name) ? ref(name, seekTable) : sql<string>`${ref(name, table)} || ''`);
  // created_at likewise on the source path, whose rows are few: an index on it must not win there.
  // The id ends every index that holds created_at (the item table names it ledger_id): it is
  // sought, or written as an expression, as created_at is.
  const bySeek = seek.includes('created_at');
  const createdAt = bySeek ? ref('created_at', seekTable) : sql<number>`${ref('created_at', table)} + 0`;
  const id = bySeek ? ref(seekId, seekTable) : sql<number>`${ref('id', table)} + 0`;
  const types = filter.sourceTypes;
  const equalities: [LedgerColumn, string | undefined][] = [
    ['company_id', filter.companyId],
    ['facility_id', filter.facilityId],
    ['customer_id', filter.customerId],
    ['item_id', filter.itemId],
    ['lot_no', filter.lotNo],
    ['source_type', types?.length === 1 ? types[0] : undefined],
    ['source_id', filter.sourceId],
  ];
  const conditions: Expression<SqlBool>[] = [];
  for (const [name, value] of equalities) if (value !== undefined) conditions.push(sql<SqlBool>`${column(name)} = ${value}`);
  if (types !== undefined && types.length > 1) conditions.push(sql<SqlBool>`${column('source_type')} in (${sql.join([...types])})`);
  if (filter.createdFrom !== undefined) conditions.push(sql<SqlBool>`${createdAt} >= ${filter.createdFrom}`);
  if (filter.createdTo !== undefined) conditions.push(sql<SqlBool>`${createdAt} <= ${filter.createdTo}`);
  if (filter.idThrough !== undefined) conditions.push(sql<SqlBool>`${id} <= ${filter.idThrough}`);
  if (filter.after !== undefined) conditions.push(afterPosition(createdAt, id, filter.after));
  return conditions;
}

/** The postings the filter selects, from the ledger's index its access path seeks. */
function ledgerPostings(db: Db, filter: LedgerQuery) {
  const seek = ['company_id', ...SEEK_COLUMNS[ledgerAccessPath(filter)]];
  return db.selectFrom('inventory_ledger').where((eb) => eb.and(conditionsOf(filter, seek)));
}

/** Whether the filter's postings are read through the item table kept behind the writes (SQLite). */
const readsItemsBehind = (db: Db, filter: LedgerSearchFilter) => ledgerAccessPath(filter) === 'item' && indexesLedgerItemsBehind(db);

/**
 * An item's postings on SQLite, where the item index is a table kept behind the writes
 * (ledger-items.ts): those it holds, in its order, and the ledger's rows after its mark, a short
 * run of the newest ids. The two parts never share a row; SQLite merges their ordered outputs.
 */
function itemPostingsBehind(db: Db, filter: LedgerQuery) {
  const seek = ['company_id', ...SEEK_COLUMNS.item];
  // The index's own id and time, so that its order is the one the search asks for.
  const indexedColumns = LEDGER_COLUMNS.map((name) =>
    name === 'id' ? 'items.ledger_id as id' : name === 'created_at' ? 'items.created_at as created_at' : (`ledger.${name}` as const),
  );
  const indexed = db
    .selectFrom('inventory_ledger_items as items')
    .innerJoin('inventory_ledger as ledger', 'ledger.id', 'items.ledger_id')
    .select(indexedColumns)
    .where((eb) => eb.and(conditionsOf(filter, seek, 'ledger', 'items', 'ledger_id')));
  const afterMark = db
    .selectFrom('inventory_ledger')
    .select(LEDGER_COLUMNS)
    .where('id', '>', (eb) => eb.selectFrom('inventory_ledger_items_mark').select('last_ledger_id').where('id', '=', 1))
    .where((eb) => eb.and(conditionsOf(filter, [])));
  return indexed.unionAll(afterMark);
}

/** The count query, exported (as the page query) so that a test can ask each database for its plan. */
export function countLedgerQuery(db: Db, filter: LedgerSearchFilter) {
  return readsItemsBehind(db, filter)
    ? db.selectFrom(itemPostingsBehind(db, filter).as('postings')).select((eb) => eb.fn.countAll<number>().as('count'))
    : ledgerPostings(db, filter).select((eb) => eb.fn.countAll<number>().as('count'));
}

export async function countLedger(db: Db, filter: LedgerSearchFilter): Promise<number> {
  const { count } = await countLedgerQuery(db, filter).executeTakeFirstOrThrow();
  return Number(count);
}

export function pageLedgerQuery(db: Db, filter: LedgerSearchFilter, slice: PageSlice) {
  const query: LedgerQuery = { ...filter, after: slice.after };
  const offset = slice.after === undefined ? slice.offset : 0;
  return readsItemsBehind(db, filter)
    ? itemPostingsBehind(db, query).orderBy('created_at').orderBy('id').limit(slice.limit).offset(offset)
    : ledgerPostings(db, query).select(LEDGER_COLUMNS).orderBy('created_at').orderBy('id').limit(slice.limit).offset(offset);
}

/** One page of postings, oldest first; the id breaks ties, so pages neither overlap nor skip. */
export async function pageLedger(db: Db, filter: LedgerSearchFilter, slice: PageSlice): Promise<LedgerRow[]> {
  return pageLedgerQuery(db, filter, slice).execute();
}
