import type { Db, Trx } from './database.js';
import { inTransaction } from './transaction.js';

/**
 * How a purge deletes (docs/operations.md, "Retention"): a batch of rows per transaction, so that
 * each transaction is short and holds its locks (SQLite's one write lock, PostgreSQL's row locks)
 * for a moment only, however much there is to purge; servers keep writing between two batches.
 */
export interface PurgeBatches {
  /** Rows deleted per transaction. */
  size: number;
  /** Once aborted, the purge ends after the batch in flight (the process is stopping). */
  signal?: AbortSignal;
}

export interface Purged {
  rows: number;
  transactions: number;
}

/**
 * Runs `deleteBatch` (which deletes at most `limit` rows and answers how many) one transaction at a
 * time until a batch comes back short or the purge is stopped. Two processes may purge at once:
 * each deletes what the other has not, and a row deleted by both is counted by one.
 */
export async function purgeInBatches(
  db: Db,
  batches: PurgeBatches,
  deleteBatch: (trx: Trx, limit: number) => Promise<number>,
): Promise<Purged> {
  const purged: Purged = { rows: 0, transactions: 0 };
  while (!batches.signal?.aborted) {
    const deleted = await inTransaction(db, (trx) => deleteBatch(trx, batches.size));
    purged.rows += deleted;
    purged.transactions += 1;
    if (deleted < batches.size) break;
  }
  return purged;
}
