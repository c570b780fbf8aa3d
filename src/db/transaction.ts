import type { Db, Trx } from './database.js';
import { isTransientConflict } from './dialect.js';
import { deferCommit } from './sqlite-driver.js';

const ATTEMPTS = 5;

/** Transactions run again after losing a race, in this process (the retry counter of /metrics). */
export const transactionRetries = { count: 0 };

/** What each open transaction of inTransaction writes last, just before its commit. */
const lastWrites = new WeakMap<Trx, Array<() => Promise<void>>>();

/**
 * Has `write` run once `trx`'s work is done, just before its commit: for rows that many
 * transactions update, such as counters, so that their locks are taken last and held only for the
 * commit (docs/paging.md). Answers false when `trx` is not a transaction of inTransaction, which
 * alone has a last moment: the caller then writes at once.
 */
export function writeBeforeCommit(trx: Db | Trx, write: () => Promise<void>): boolean {
  const writes = lastWrites.get(trx as Trx);
  writes?.push(write);
  return writes !== undefined;
}

async function runLastWrites(trx: Trx): Promise<void> {
  const writes = lastWrites.get(trx)!;
  // A last write may ask for another (none does today); each runs once.
  while (writes.length > 0) await writes.shift()!();
}

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
      const result = await db.transaction().execute(async (trx) => {
        committed = deferCommit(db);
        lastWrites.set(trx, []);
        const result = await work(trx);
        await runLastWrites(trx);
        return result;
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
