import { sql, type RawBuilder } from 'kysely';

/**
 * Keyset paging (docs/paging.md): a page that starts after a row is found through the search's
 * index at the row's place, at the cost of a first page however deep it is, instead of skipping
 * the rows before it.
 */

/** Where a page ended in its search's order: the last row's time, and the value that breaks ties on it. */
export interface PagePosition {
  at: number;
  tie: number | string;
}

/**
 * Where a page ended in a search ordered by one unique key alone, with no time before it (the item
 * master, in itemID order): that key.
 */
export interface KeyPosition {
  key: string;
}

/** Which rows of a search a page holds: `limit` rows after `after`, else after skipping `offset`. */
export interface PageSlice<Position = PagePosition> {
  offset: number;
  limit: number;
  after?: Position;
}

/** A column by name, or an expression that stands for it (one written so that no index matches it). */
type Column = string | RawBuilder<unknown>;

const columnOf = (column: Column) => (typeof column === 'string' ? sql.ref(column) : column);

/**
 * The rows after `after` in the order (time, tie): written as a range on the time and a condition
 * on the tie, which both databases match to the index that orders the search.
 */
export function afterPosition(time: Column, tie: Column, after: PagePosition): RawBuilder<boolean> {
  const [at, by] = [columnOf(time), columnOf(tie)];
  return sql<boolean>`(${at} >= ${after.at} and (${at} > ${after.at} or ${by} > ${after.tie}))`;
}

/** The rows after `after` in the order of one unique key: a range on the index that the key ends. */
export function afterKey(key: string, after: KeyPosition): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(key)} > ${after.key}`;
}

/**
 * The time a page is ordered by. A search narrowed to a document number orders its few rows by an
 * expression of the time instead: neither planner can then walk the time index for the order, and
 * both find the rows through the number's index (SQLite, without statistics, prefers an index that
 * spares a sort, and read every document of the scope to find one).
 */
export function timeOrder(column: string, narrowed: boolean): RawBuilder<number> {
  return narrowed ? sql<number>`${sql.ref(column)} + 0` : sql<number>`${sql.ref(column)}`;
}
