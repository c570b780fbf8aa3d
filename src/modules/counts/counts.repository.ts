import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { writeLater } from '../../db/trailing-writes.js';
import type { SearchCountTable } from './counts.tables.js';

/** All SQL of the kept counts (docs/paging.md). */

export type SearchCountRow = Insertable<SearchCountTable>;

/** The primary key of search_counts, in its order. */
const COUNT_KEY = ['company_id', 'counted', 'facility_id', 'customer_id', 'status', 'day'] as const;

/** Count rows per statement: 7 parameters a row stays far below SQLite's 32,766. */
const COUNTS_PER_STATEMENT = 1000;

/**
 * Adds each row's count to the kept one (a new key starts at it). No key twice in one call: the
 * caller sums first. In a transaction, a trailing write (db/trailing-writes.ts).
 */
export async function addToCounts(db: Db, rows: readonly SearchCountRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += COUNTS_PER_STATEMENT) {
    const query = db
      .insertInto('search_counts')
      .values(rows.slice(i, i + COUNTS_PER_STATEMENT))
      .onConflict((oc) => oc.columns(COUNT_KEY).doUpdateSet((eb) => ({ count: eb('search_counts.count', '+', eb.ref('excluded.count')) })))
      .compile();
    await writeLater(db, query);
  }
}

/** Which kept counts a search adds up: its kind and scope; a bound left out is open. */
export interface CountScope {
  companyId: string;
  counted: string;
  facilityId: string;
  customerId?: string;
  statuses?: readonly string[];
  fromDay?: number;
  toDay?: number;
}

/** The sum of the kept counts in a scope, days inclusive (search_counts' primary key). */
export async function sumCounts(db: Db, scope: CountScope): Promise<number> {
  const { total } = await db
    .selectFrom('search_counts')
    .select(sql<number | string | null>`sum(count)`.as('total'))
    .where('company_id', '=', scope.companyId)
    .where('counted', '=', scope.counted)
    .where('facility_id', '=', scope.facilityId)
    .$if(scope.customerId !== undefined, (q) => q.where('customer_id', '=', scope.customerId!))
    .$if(scope.statuses !== undefined, (q) => q.where('status', 'in', scope.statuses!))
    .$if(scope.fromDay !== undefined, (q) => q.where('day', '>=', scope.fromDay!))
    .$if(scope.toDay !== undefined, (q) => q.where('day', '<=', scope.toDay!))
    .executeTakeFirstOrThrow();
  return Number(total ?? 0);
}
