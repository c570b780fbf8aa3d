import type { Db, Trx } from './database.js';
import { isTransientConflict } from './dialect.js';
import { deferCommit } from './sqlite-driver.js';

const ATTEMPTS = 5;

/** Transactions run again after losing a race, in this process (the retry counter of /metrics). */
export const transactionRetries = { count: 0 };

/**
 * Runs `work` in one transaction; a transaction that loses a race (serialization failure,
 * deadlock, busy database, unique violation) runs again from the start and then sees the winner.
 * Called inside a transaction, `work` joins it: a service that opens its own transaction can then
 * be one step of a larger one (the admin API records each change in the change's transaction),
 * and the outer transaction owns the retry.
 *
 * On a SQLite file the transaction may share its commit with others that run beside it
 * (sqlite-driver.ts). Its outcome, an answer or an error, is returned only once that commit is
 * done: an answer is then durable, and a refusal or a lost race that rests on another member's
 * writes rests on committed ones, which whatever the caller reads next will see.
 */
export async function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Trx);
  for (let attempt = 1; ; attempt++) {
    let committed: Promise<void> | undefined;
    try {
      const result = await db.transaction().execute((trx) => {
        committed = deferCommit(db);
        return work(trx);
      });
      await committed;
      return result;
    } catch (error) {
      await committed?.catch(() => {});
      if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error;
      transactionRetries.count += 1;
    }
  }
}
