import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Db } from '../../db/database.js';
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
 * | an item (with or without a customer) | facility_item_idx (facility_id, item_id, created_at, id)     |
 * | a customer, no item                  | customer_idx (customer_id, created_at, id)                   |
 * | neither                              | facility_idx (facility_id, created_at, id)                   |
 *
 * The time window is a range on created_at in all but the source path, whose few rows are sorted.
 * A lot (a lot belongs to an item), a source type alone and every filter off the chosen index are
 * checked on the rows the index yields.
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
}

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

type LedgerColumn = 'facility_id' | 'customer_id' | 'item_id' | 'lot_no' | 'source_type' | 'source_id';

function postings(db: Db, filter: LedgerSearchFilter) {
  const seek = SEEK_COLUMNS[ledgerAccessPath(filter)];
  // A column of the chosen index as itself; any other as an expression no index matches.
  const column = (eb: ExpressionBuilder<Database, 'inventory_ledger'>, name: LedgerColumn) =>
    seek.includes(name) ? eb.ref(name) : sql<string>`${sql.ref(name)} || ''`;
  // created_at likewise on the source path, whose rows are few: an index on it must not win there.
  const createdAt = seek.includes('created_at') ? sql.ref('created_at') : sql<number>`${sql.ref('created_at')} + 0`;
  const types = filter.sourceTypes;
  const equalities: [LedgerColumn, string | undefined][] = [
    ['facility_id', filter.facilityId],
    ['customer_id', filter.customerId],
    ['item_id', filter.itemId],
    ['lot_no', filter.lotNo],
    ['source_type', types?.length === 1 ? types[0] : undefined],
    ['source_id', filter.sourceId],
  ];

  let query = db.selectFrom('inventory_ledger').where('company_id', '=', filter.companyId);
  for (const [name, value] of equalities) {
    if (value !== undefined) query = query.where((eb) => eb(column(eb, name), '=', value));
  }
  if (types !== undefined && types.length > 1) query = query.where((eb) => eb(column(eb, 'source_type'), 'in', [...types]));
  if (filter.createdFrom !== undefined) query = query.where(createdAt, '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where(createdAt, '<=', filter.createdTo);
  return query;
}

/** The count query, exported (as the page query) so that a test can ask each database for its plan. */
export function countLedgerQuery(db: Db, filter: LedgerSearchFilter) {
  return postings(db, filter).select((eb) => eb.fn.countAll<number>().as('count'));
}

export async function countLedger(db: Db, filter: LedgerSearchFilter): Promise<number> {
  const { count } = await countLedgerQuery(db, filter).executeTakeFirstOrThrow();
  return Number(count);
}

export function pageLedgerQuery(db: Db, filter: LedgerSearchFilter, offset: number, limit: number) {
  return postings(db, filter).selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset);
}

/** One page of postings, oldest first; the id breaks ties, so pages neither overlap nor skip. */
export async function pageLedger(db: Db, filter: LedgerSearchFilter, offset: number, limit: number): Promise<LedgerRow[]> {
  return pageLedgerQuery(db, filter, offset, limit).execute();
}
