import type { Db, Trx } from '../../db/database.js';
import { indexesLedgerItemsBehind } from '../../db/dialect.js';
import { countAfterMark, indexLedgerItemsAfterMark } from './ledger-items.repository.js';

/**
 * When the ledger's item index catches up with the ledger on SQLite (migration
 * 2026-11-29T1000): a posting only appends its rows, and the posting that brings the rows after the
 * mark to LEDGER_ITEMS_BATCH copies them all, in its own transaction. The batch is large because a
 * catch-up writes about one page of the index per item it touches, whatever the number of rows: ten
 * thousand rows over a thousand items write a tenth of the pages that posting them one by one did.
 *
 * One process writes a SQLite database, so it counts the rows it posts, starting from the rows it
 * finds after the mark at its first posting (a rolled-back change may leave the count a little
 * ahead). The count is kept per opened database, so that a process that opens two (the tests) keeps
 * them apart. The item search reads the rows after the mark as well, so the count decides only when
 * the work is done, never what a search finds.
 */

/** Rows after the mark that make a catch-up due: what an item search reads past the index, at most. */
export const LEDGER_ITEMS_BATCH = 10_000;

/** The rows after the mark, by opened database (its adapter, which its transactions share). */
const afterMark = new WeakMap<object, number>();

/** Counts the ledger rows a posting wrote in `trx`; catches the item index up when a batch is due. */
export async function noteLedgerRowsPosted(trx: Trx, rows: number): Promise<void> {
  if (!indexesLedgerItemsBehind(trx)) return;
  const database = trx.getExecutor().adapter;
  const counted = afterMark.get(database);
  // The first posting to a database counts what is there, its own rows included.
  const rowsAfterMark = counted === undefined ? await countAfterMark(trx) : counted + rows;
  if (rowsAfterMark < LEDGER_ITEMS_BATCH) {
    afterMark.set(database, rowsAfterMark);
    return;
  }
  afterMark.set(database, 0);
  await indexLedgerItemsAfterMark(trx);
}

/** Copies every ledger row after the mark into the item index where it is kept behind (SQLite); answers how many. */
export async function catchUpLedgerItems(db: Db): Promise<number> {
  return indexesLedgerItemsBehind(db) ? indexLedgerItemsAfterMark(db) : 0;
}
