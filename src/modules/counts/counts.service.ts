import type { Db, Trx } from '../../db/database.js';
import type { KeyPosition, PagePosition } from '../../db/keyset.js';
import { writeBeforeCommit } from '../../db/transaction.js';
import { pageAt, type PageRequest } from '../../http/paging.js';
import * as repo from './counts.repository.js';

/**
 * Exact totalCounts that cost the same at any size (docs/paging.md). Each kind of row that a search
 * counts is also counted per company, facility, customer, status and UTC day, by the transaction
 * that writes it: a search adds up the days its window covers whole and counts only the rows of the
 * partial days at its edges through its index. The counts of a transaction are summed in it and
 * written last, in key order, just before its commit: two transactions take the rows' locks in the
 * same order, and hold them only for the commit.
 */

/** The kinds of rows counted, each named after what it counts (docs/paging.md has their table). */
export type CountedKind =
  | 'orders'
  | 'receipts'
  | 'order_confirmations'
  | 'receipt_confirmations'
  | 'acks:RN'
  | 'acks:DN'
  | 'ledger'
  | 'items';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** What a count needs of a row: where it is, its status (for kinds that have one), and its time. */
export interface CountedRow {
  companyId: string;
  facilityId: string;
  customerId: string;
  status?: string;
  /** The time that the kind's searches window on, in epoch milliseconds. */
  at: number;
}

const dayOf = (at: number) => Math.floor(at / DAY_MS);

/** The counts each open transaction will add, by key. */
const pending = new WeakMap<Db | Trx, Map<string, repo.SearchCountRow>>();

function countIn(trx: Db | Trx, kind: CountedKind, row: CountedRow, delta: number): Promise<void> {
  const keyed: repo.SearchCountRow = {
    company_id: row.companyId,
    counted: kind,
    facility_id: row.facilityId,
    customer_id: row.customerId,
    status: row.status ?? '',
    day: dayOf(row.at),
    count: delta,
  };
  let counts = pending.get(trx);
  if (!counts) {
    const fresh = new Map<string, repo.SearchCountRow>();
    // Outside a transaction of inTransaction (a statement of its own) the count goes in at once.
    if (!writeBeforeCommit(trx, () => writeCounts(trx, fresh))) return repo.addToCounts(trx as Db, [keyed]);
    pending.set(trx, (counts = fresh));
  }
  const key = JSON.stringify([keyed.company_id, keyed.counted, keyed.facility_id, keyed.customer_id, keyed.status, keyed.day]);
  const kept = counts.get(key);
  if (kept) kept.count += delta;
  else counts.set(key, keyed);
  return Promise.resolve();
}

async function writeCounts(trx: Db | Trx, counts: Map<string, repo.SearchCountRow>): Promise<void> {
  const rows = [...counts.keys()]
    .sort()
    .map((key) => counts.get(key)!)
    .filter((row) => row.count !== 0);
  await repo.addToCounts(trx as Db, rows);
}

/** What a document's count depends on (orders, receipts): where it is, its status and its last update. */
export interface CountedDocument {
  company_id: string;
  facility_id: string;
  customer_id: string;
  status: string;
  updated_at: number;
}

export const countedDocument = (document: CountedDocument): CountedRow => ({
  companyId: document.company_id,
  facilityId: document.facility_id,
  customerId: document.customer_id,
  status: document.status,
  at: document.updated_at,
});

/**
 * Moves a document's count from the row as it was, read locked with its change (none: it does not
 * exist), to the row with `changes`.
 */
export async function countDocumentChange(
  trx: Db | Trx,
  kind: CountedKind,
  before: CountedDocument | undefined,
  changes: Partial<CountedDocument>,
): Promise<void> {
  if (before) await countChange(trx, kind, countedDocument(before), countedDocument({ ...before, ...changes }));
}

/** Counts a new row (or `rows` new rows alike), in the transaction that inserts it. */
export function countNew(trx: Db | Trx, kind: CountedKind, row: CountedRow, rows = 1): Promise<void> {
  return countIn(trx, kind, row, rows);
}

/** Moves a row's count from what it was to what it is now, in the transaction that changes it. */
export async function countChange(trx: Db | Trx, kind: CountedKind, before: CountedRow, after: CountedRow): Promise<void> {
  if ((before.status ?? '') === (after.status ?? '') && dayOf(before.at) === dayOf(after.at)) return;
  await countIn(trx, kind, before, -1);
  await countIn(trx, kind, after, 1);
}

/** The rows a search counts: its kind, where, and optionally which statuses. */
export interface CountedScope {
  companyId: string;
  counted: CountedKind;
  facilityId: string;
  customerId?: string;
  statuses?: readonly string[];
}

/** Counts the search's rows between two times, inclusive, through the search's own index. */
export type RangeCounter = (from: number | undefined, to: number | undefined) => Promise<number>;

/** A search's time window (inclusive; a bound left out is open), and whether a number filter narrows it. */
export interface CountedWindow {
  from?: number;
  to?: number;
  /** A filter few rows match (PONo, ReferenceNo; the ledger's item, lot or source): the search's index counts them at once. */
  narrowed?: boolean;
}

/**
 * The exact number of rows in `scope` whose time is in the window: the kept counts of every whole
 * day in it, and `countRange` for the rest of the days at its edges. A window inside one day, or
 * one that a number narrows, is counted by `countRange` alone.
 */
export async function countMatching(db: Db, scope: CountedScope, window: CountedWindow, countRange: RangeCounter): Promise<number> {
  const firstWholeDay = window.from === undefined ? undefined : Math.ceil(window.from / DAY_MS);
  const lastWholeDay = window.to === undefined ? undefined : Math.floor((window.to + 1) / DAY_MS) - 1;
  if (window.narrowed || (firstWholeDay !== undefined && lastWholeDay !== undefined && firstWholeDay > lastWholeDay))
    return countRange(window.from, window.to);
  const parts = [repo.sumCounts(db, { ...scope, fromDay: firstWholeDay, toDay: lastWholeDay })];
  if (firstWholeDay !== undefined && window.from! < firstWholeDay * DAY_MS) parts.push(countRange(window.from, firstWholeDay * DAY_MS - 1));
  if (lastWholeDay !== undefined && window.to! >= (lastWholeDay + 1) * DAY_MS)
    parts.push(countRange((lastWholeDay + 1) * DAY_MS, window.to));
  return (await Promise.all(parts)).reduce((sum, part) => sum + part, 0);
}

/** How a search counts its own rows through its index: in a time range, and at one time up to a tie. */
export interface SearchCounters {
  range: RangeCounter;
  /** The rows at exactly `at` whose tie-breaking value is at most `tie`. */
  through: (at: number, tie: PagePosition['tie']) => Promise<number>;
}

/**
 * A search's totalCount, and its page placed: a page after a cursor starts after the rows up to the
 * cursor's row, counted like the total (the kept counts of whole days and the index for the rest),
 * so that its startIndex and pageNo say where it is now, however the rows before it changed.
 */
export async function countSearch(
  db: Db,
  scope: CountedScope,
  window: CountedWindow,
  page: PageRequest,
  counters: SearchCounters,
): Promise<{ totalCount: number; page: PageRequest }> {
  const totalCount = await countMatching(db, scope, window, counters.range);
  if (page.after === undefined) return { totalCount, page };
  const { at, tie } = page.after;
  if (window.to !== undefined && at > window.to) return { totalCount, page: pageAt(page, totalCount) };
  if (window.from !== undefined && at < window.from) return { totalCount, page: pageAt(page, 0) };
  const before = (await countMatching(db, scope, { ...window, to: at - 1 }, counters.range)) + (await counters.through(at, tie));
  return { totalCount, page: pageAt(page, before) };
}

/**
 * countSearch for a search ordered by one unique key alone, not by the time its window is on (the
 * item master, in itemID order): its totalCount likewise, but the rows before a cursor's key cannot
 * be told by day, and `through` counts them through the index that the key ends (docs/paging.md).
 */
export async function countKeyedSearch(
  db: Db,
  scope: CountedScope,
  window: CountedWindow,
  page: PageRequest<KeyPosition>,
  counters: { range: RangeCounter; through: (key: string) => Promise<number> },
): Promise<{ totalCount: number; page: PageRequest<KeyPosition> }> {
  const totalCount = await countMatching(db, scope, window, counters.range);
  if (page.after === undefined) return { totalCount, page };
  return { totalCount, page: pageAt(page, await counters.through(page.after.key)) };
}
