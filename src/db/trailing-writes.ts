import type { CompiledQuery, DatabaseConnection, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';
import { writeRowsAtCommit, type RowsWriter } from './sqlite-driver.js';

/**
 * Trailing writes on PostgreSQL: a write that nothing after it in its transaction waits for is
 * sent at once and its answer awaited only with the transaction's next other statement (a read, a
 * write whose result is used, COMMIT). pg's pipeline mode writes a statement without waiting for
 * the answers to those before it, and the pool sends what is written in one turn of the event loop
 * in one socket write (dialect.ts): so a document's lines, its ACK, its events and the answer to an
 * Idempotency-Key travel with the statement after them, and cost no round trip of their own. BEGIN
 * is sent the same way, with the transaction's first statement, and so are the item locks
 * (dialect.ts lockNames), whose answer nothing reads either.
 *
 * PostgreSQL runs the statements in the order they were written, each as if it had been awaited:
 * a read sees the writes before it, and nothing is reordered. A write that fails aborts the
 * transaction; the statements behind it then fail too ("current transaction is aborted"), and the
 * statement that awaits it throws the write's own error, so a caller sees the failure it would have
 * seen had it waited (a unique violation still retries the transaction). A COMMIT behind a failed
 * write ends the transaction with a rollback, and throws the write's error. A rollback awaits what
 * is in flight and drops its failures: they are undone with it.
 *
 * SQLite runs a statement in microseconds without a round trip: there a trailing write runs at once.
 */

/** The queries writeLater and sendAhead hand to a connection: their answers are not awaited. */
const trailing = new WeakSet<CompiledQuery>();
/** The answers of the queries sendAhead handed to a connection, for the caller to await later. */
const answers = new WeakMap<CompiledQuery, Promise<QueryResult<unknown>>>();

/**
 * Runs `query` in the transaction `trx` as a trailing write (see above): on PostgreSQL it is sent
 * and its answer awaited with the transaction's next statement; elsewhere, and outside a
 * transaction, it runs now.
 */
export async function writeLater(trx: Kysely<any>, query: CompiledQuery): Promise<void> {
  if (trx.isTransaction) trailing.add(query);
  await trx.executeQuery(query);
}

/**
 * Writes `rows` with the statements `writer` compiles for them as trailing writes (above). On
 * SQLite, in a transaction, the rows wait for its commit instead, where they go in with those of
 * every transaction sharing the commit (sqlite-driver.ts writeRowsAtCommit): for rows that nothing
 * reads before the commit, such as a change's events.
 */
export async function writeRowsLater<Row>(trx: Kysely<any>, writer: RowsWriter<Row>, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0 || writeRowsAtCommit(trx, writer, rows)) return;
  for (const query of writer(trx, [...rows])) await writeLater(trx, query);
}

/** The result of a statement sent ahead, awaited when the caller needs it. */
export type Answer<R> = () => Promise<QueryResult<R>>;

/**
 * Sends the read `query` in the transaction `trx` now, like a trailing write, and answers a function
 * that awaits its result: on PostgreSQL it goes out with the transaction's next statement, which
 * it does not depend on, and costs no round trip of its own. Elsewhere, and outside a transaction,
 * it runs now.
 */
export async function sendAhead<R>(trx: Kysely<any>, query: CompiledQuery<R>): Promise<Answer<R>> {
  if (trx.isTransaction) trailing.add(query);
  const result = await trx.executeQuery(query);
  const answer = (answers.get(query) as Promise<QueryResult<R>> | undefined) ?? Promise.resolve(result);
  return () => answer;
}

const NO_ROWS: QueryResult<never> = { rows: [] };
/** Kysely's PostgresDriver opens a transaction with one of these; its answer is awaited later too. */
export const TRANSACTION_START = /^\s*(?:begin|start transaction)\b/i;
const ROLLBACK = /^\s*rollback\b/i;
const ignore = () => {};

/** A connection whose trailing writes (and BEGIN) are sent without awaiting their answers. */
class TrailingWritesConnection implements DatabaseConnection {
  /** Sent, not yet awaited, in the order they were sent. */
  #inFlight: Promise<unknown>[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const answer = this.inner.executeQuery<R>(query);
    if (trailing.has(query) || TRANSACTION_START.test(query.sql)) {
      // Awaited by the next statement; until then a failure must not count as unhandled.
      answer.catch(ignore);
      this.#inFlight.push(answer);
      answers.set(query, answer);
      return NO_ROWS;
    }
    if (this.#inFlight.length === 0) return answer;
    // Its own failure, if the ones before it failed, is only their consequence.
    answer.catch(ignore);
    await this.#awaitInFlight(ROLLBACK.test(query.sql));
    return answer;
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    await this.#awaitInFlight(false);
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  /** Awaits everything in flight; throws the first failure unless it is to be dropped. */
  async #awaitInFlight(dropFailures: boolean): Promise<void> {
    const inFlight = this.#inFlight;
    this.#inFlight = [];
    const outcomes = await Promise.allSettled(inFlight);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed && !dropFailures) throw failed.reason;
  }

  /** Whether answers are still awaited: a transaction that ended with them would not know its outcome. */
  get awaitsAnswers(): boolean {
    return this.#inFlight.length > 0;
  }
}

/** A driver whose connections send trailing writes without awaiting them (see above); everything else is `inner`'s. */
export class TrailingWritesDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, TrailingWritesConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapped = this.#connections.get(connection);
    if (!wrapped) this.#connections.set(connection, (wrapped = new TrailingWritesConnection(connection)));
    return wrapped;
  }

  // The inner driver runs each of these through the wrapped connection, which awaits what is in flight.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>): Promise<void> {
    return this.inner.savepoint!(...args);
  }

  rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>): Promise<void> {
    return this.inner.rollbackToSavepoint!(...args);
  }

  releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>): Promise<void> {
    return this.inner.releaseSavepoint!(...args);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const wrapped = connection as TrailingWritesConnection;
    const unanswered = wrapped.awaitsAnswers;
    await this.inner.releaseConnection(wrapped.inner);
    if (unanswered) throw new Error('a connection was released with statements whose answers were not awaited');
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
