import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import {
  sql,
  PostgresAdapter,
  PostgresDialect,
  type DialectAdapter,
  type Dialect,
  type Driver,
  type Kysely,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import { createOwnerOnlyFile, makeOwnerOnlyDirectory, publishNewFile, somethingAt } from '../lib/owner-only-files.js';
import { boundOnce, compiledOnce } from './compiled-queries.js';
import { reloadReaderStatistics, WharfSqliteDialect } from './sqlite-driver.js';
import { sendAhead, TRANSACTION_START, TrailingWritesDriver, writeLater } from './trailing-writes.js';

/** Every difference between the two supported databases lives in this file (migrations aside). */
export type DialectName = 'sqlite' | 'postgres';

export interface DialectOptions {
  /** SQLite `synchronous` pragma: FULL (default) survives power loss, NORMAL only a process crash. */
  sqliteSynchronous?: 'FULL' | 'NORMAL';
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * PostgreSQL: send each parameterized statement prepared under a name (default), so that every
   * connection parses it once; false behind a pooler that does not keep prepared statements.
   */
  preparedStatements?: boolean;
}

/** better-sqlite3 blocks the event loop while it waits for a lock, so the wait stays short. */
const SQLITE_BUSY_TIMEOUT_MS = 2000;

export function dialectNameOf(url: string): DialectName {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

/** Where a DATABASE_URL points, for messages: SQLite's path, or PostgreSQL's URL without its password. */
export function databaseLocation(url: string): string {
  if (dialectNameOf(url) === 'sqlite') return url.slice('sqlite:'.length);
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

/** PostgreSQL's answer to a connection for a database that does not exist (invalid_catalog_name). */
const NO_SUCH_DATABASE = '3D000';

/**
 * Whether the database a URL names exists, found without creating it: SQLite's file (opening one
 * creates it), or a PostgreSQL database that accepts a connection. An in-memory SQLite database
 * always exists.
 */
export async function databaseExists(url: string): Promise<boolean> {
  if (dialectNameOf(url) === 'sqlite') {
    const path = url.slice('sqlite:'.length);
    return path === ':memory:' || existsSync(path);
  }
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if (errorCode(error) === NO_SUCH_DATABASE) return false;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/** What `backup` did: SQLite's online backup wrote the file; for PostgreSQL, the command that would. */
export type Backup = { written: true } | { command: string };

const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

const backupExists = (file: string) => new Error(`${file} already exists; a backup is written to a new file`);

/**
 * Backs the database up to `file`, a file that does not exist yet: anything at that name (a file,
 * a symbolic link, even one that points nowhere) is refused and left as it is. SQLite: its online
 * backup, a consistent copy taken while servers keep writing (commits still in the WAL file
 * included), written owner-only into a new file of a random name beside `file` and given the name
 * `file` only once complete, without replacing anything that appeared there meanwhile.
 * PostgreSQL: Wharf copies nothing itself and answers the pg_dump command to run, its URL without
 * the password (pg_dump reads it from PGPASSWORD or ~/.pgpass).
 */
export async function backupDatabase(url: string, file: string): Promise<Backup> {
  if (somethingAt(file)) throw backupExists(file);
  if (dialectNameOf(url) === 'postgres') {
    return { command: `pg_dump --format=custom --file=${shellQuoted(file)} --dbname=${shellQuoted(databaseLocation(url))}` };
  }
  const path = url.slice('sqlite:'.length);
  if (path === ':memory:') throw new Error('an in-memory database has nothing to back up');
  const target = resolve(file);
  if (!somethingAt(dirname(target))) throw new Error(`${dirname(file)} does not exist: a backup is written into a directory that does`);
  const partial = join(dirname(target), `.${basename(target)}.${randomBytes(8).toString('hex')}.partial`);
  const db = new SqliteDatabase(path, { fileMustExist: true });
  try {
    if (!createOwnerOnlyFile(partial)) throw new Error(`${partial} already exists`);
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // SQLite writes into the empty file as it is, keeping its owner-only mode.
    await db.backup(partial);
    if (!publishNewFile(partial, target)) throw backupExists(file);
  } finally {
    db.close();
    for (const leftover of [partial, `${partial}-journal`]) rmSync(leftover, { force: true });
  }
  return { written: true };
}

export function dialectNameOfDb(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function createDialect(url: string, options: DialectOptions = {}): Dialect {
  return dialectNameOf(url) === 'sqlite' ? createSqliteDialect(url.slice('sqlite:'.length), options) : createPostgresDialect(url, options);
}

function createSqliteDialect(path: string, options: DialectOptions): Dialect {
  const inMemory = path === ':memory:';
  return new WharfSqliteDialect({
    openWriter: () => {
      if (!inMemory) {
        // A new database is created owner-only, and SQLite gives its -wal and -shm files the same mode.
        makeOwnerOnlyDirectory(dirname(path));
        createOwnerOnlyFile(path);
      }
      const db = new SqliteDatabase(path);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.sqliteSynchronous ?? 'FULL'}`);
      db.pragma('foreign_keys = ON');
      // Each grouped transaction is a savepoint (sqlite-driver.ts), whose journal of the pages it
      // changes SQLite spills to a temporary file past 64 KiB: a 20-line adjustment wrote some 33
      // pages there that nothing ever reads back unless it rolls back. In memory they cost no syscalls.
      db.pragma('temp_store = MEMORY');
      db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      return db;
    },
    openReader: inMemory
      ? undefined
      : () => {
          const db = new SqliteDatabase(path, { readonly: true });
          db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
          return db;
        },
  });
}

/** pg returns int8 and numeric as strings; Wharf's scaled integers and counts fit a JS number. */
function parseSafeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError('integer value beyond the exact range');
  return value;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** How a PostgreSQL pool's connections are used at a moment (the pool metrics of /metrics). */
export interface PoolStats {
  total: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

/** pg's pipeline mode (pg 8.23), which @types/pg does not describe yet. */
type PipelinedPoolConfig = pg.PoolConfig & { pipeline: boolean };

const poolsOfDialects = new WeakMap<Dialect, pg.Pool>();
const poolsOfDatabases = new WeakMap<Kysely<any>, pg.Pool>();

/** Keeps the pool of `dialect` (PostgreSQL's) findable from the database opened on it. */
export function rememberPool(db: Kysely<any>, dialect: Dialect): void {
  const pool = poolsOfDialects.get(dialect);
  if (pool) poolsOfDatabases.set(db, pool);
}

/** The pool's use now; undefined on SQLite, whose one connection is not pooled. */
export function poolStats(db: Kysely<any>): PoolStats | undefined {
  const pool = poolsOfDatabases.get(db);
  return pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

function createPostgresDialect(url: string, options: DialectOptions): Dialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // pg writes a statement without waiting for the answers to those before it (trailing-writes.ts).
    pipeline: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? parseSafeInteger
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  } as PipelinedPoolConfig);
  // An idle client that loses its connection emits 'error'; without a listener the process dies.
  pool.on('error', () => {});
  const dialect = new TransactionLockPostgresDialect({ pool: new PreparingPool(pool, options.preparedStatements !== false) });
  poolsOfDialects.set(dialect, pool);
  return dialect;
}

/**
 * The most statements a process names. PostgreSQL keeps each named statement's plan on every
 * connection that ran it, so the names stop here: a statement beyond them is sent unnamed.
 */
const NAMED_STATEMENTS_MAX = 500;

/**
 * PostgreSQL refused a prepared statement whose result a schema change altered (0A000, "cached plan
 * must not change result type"): a `select *` after another process's migration added a column.
 */
function isStalePlan(error: unknown): boolean {
  return errorCode(error) === '0A000' && /cached plan/.test((error as Error).message);
}

/**
 * A pg pool whose clients send every parameterized statement under a name given to its SQL text,
 * the same on every connection of the process (unless `named` is false, for a pooler that does not
 * keep prepared statements): pg then has PostgreSQL parse and plan it once per connection, and
 * later sends only its values. Parsing and planning each statement anew was half of PostgreSQL's
 * work for a write (docs/performance.md). The statements a client is given in one turn of the
 * event loop go out in one socket write (sendsTogether).
 *
 * A statement gone stale on one connection is stale on all of them: the pool then closes each
 * connection it had before, as it is released or before it is handed out again, so that the retry
 * of the failed transaction (isTransientConflict) runs on a connection that parses anew; a statement
 * outside a transaction runs again at once, unnamed.
 */
class PreparingPool implements PostgresPool {
  readonly #names = new Map<string, string>();
  readonly #clients = new WeakMap<pg.PoolClient, { client: PostgresPoolClient; generation: number }>();
  /** Bumped when a statement goes stale: connections of an earlier generation are closed. */
  #generation = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly named: boolean,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    for (;;) {
      const client = await this.pool.connect();
      const known = this.#clients.get(client);
      if (known && known.generation === this.#generation) return known.client;
      if (!known) {
        const preparing = { client: this.#preparing(client), generation: this.#generation };
        this.#clients.set(client, preparing);
        return preparing.client;
      }
      client.release(true);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  /** The name of the statement `text`, given on its first run; undefined past the most names. */
  #nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.named && this.#names.size < NAMED_STATEMENTS_MAX)
      this.#names.set(text, (name = `wharf_${this.#names.size + 1}`));
    return name;
  }

  #preparing(client: pg.PoolClient): PostgresPoolClient {
    const generation = this.#generation;
    // Kysely opens and ends a transaction with these statements (its PostgresDriver).
    let inTransaction = false;
    const together = sendsTogether(client);
    const query = async (text: string, values: readonly unknown[]) => {
      together();
      const name = values.length === 0 ? undefined : this.#nameOf(text);
      if (name === undefined) {
        if (TRANSACTION_START.test(text)) inTransaction = true;
        else if (TRANSACTION_END.test(text)) inTransaction = false;
        return client.query(text, [...values]);
      }
      try {
        return await client.query({ name, text, values: [...values] });
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        if (generation === this.#generation) this.#generation += 1;
        // Outside a transaction nothing was aborted: the statement runs again, unnamed.
        if (inTransaction) throw error;
        return client.query(text, [...values]);
      }
    };
    return {
      // Kysely passes a cursor only to a dialect configured with one, which Wharf's is not.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(generation !== this.#generation),
    };
  }
}

/**
 * Has what a client writes until the end of this turn of the event loop (its microtasks included)
 * go out in one socket write: a pipelined BEGIN with the statement after it, the trailing writes
 * with the statement that follows them. Each write is a system call, and on a small virtual machine
 * the socket writes were a quarter of the server's CPU for a write (docs/performance.md).
 */
function sendsTogether(client: pg.PoolClient): () => void {
  // A pool's clients are pg Clients; @types/pg gives only Client its connection.
  const { stream } = (client as unknown as pg.Client).connection;
  let corked = false;
  return () => {
    if (corked) return;
    corked = true;
    stream.cork();
    process.nextTick(() => {
      corked = false;
      stream.uncork();
    });
  };
}

const TRANSACTION_END = /^(?:commit|rollback)$/i;

/**
 * Kysely's key for its migration lock, kept: a Wharf that still takes Kysely's session lock on it
 * and this one exclude each other (session and transaction advisory locks share one key space).
 */
const MIGRATION_LOCK_KEY = BigInt('3853314791062309107');

/**
 * Takes the migration lock until the transaction ends (PostgreSQL; SQLite's BEGIN IMMEDIATE already
 * makes migrators take turns). Outside a transaction it would end with its own statement.
 */
export async function lockMigrations(trx: Kysely<any>): Promise<void> {
  if (dialectNameOfDb(trx) !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
}

/**
 * Kysely's adapter takes its migration lock with `pg_advisory_lock` — a session lock — before the
 * migrations' transaction and releases it with another statement after it. Behind a pooler in
 * transaction mode (PgBouncer) each of those statements may reach another server session: the
 * unlock then releases nothing, the lock stays with a session no client owns, and the next migrator
 * whose lock reaches another session waits (for up to Kysely's one-hour lock_timeout). This adapter
 * takes a lock that ends with its transaction instead, and `migrateToLatest` (migrate.ts) runs the
 * migrator inside one transaction so that the lock covers it. Wharf takes no other session state:
 * no SET, no LISTEN, advisory locks only per transaction; its named prepared statements can be
 * turned off (`preparedStatements`) for a pooler that does not keep them.
 */
class TransactionLockPostgresAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await lockMigrations(db);
  }

  override async releaseMigrationLock(): Promise<void> {
    // The lock ends with the transaction that took it.
  }
}

/** PostgreSQL as Wharf runs it: migration locks of a transaction, and trailing writes (trailing-writes.ts). */
class TransactionLockPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionLockPostgresAdapter();
  }

  override createDriver(): Driver {
    return new TrailingWritesDriver(super.createDriver());
  }
}

/** Where a kind of document gets its numbers: a prefix, and a service-wide sequence of this name. */
export interface DocumentNumbers {
  prefix: string;
  /** PostgreSQL's sequence, or on SQLite the counter row of the same name. */
  sequence: string;
}

const nextCounterValue = compiledOnce((trx: Kysely<any>, counter: { name: string }) =>
  trx
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', counter.name)
    .returning('value'),
);

const nextSequenceValue = boundOnce(
  (trx: Kysely<any>, sequence: { name: string }) => sql<{ value: number }>`select nextval(${sequence.name}::regclass) as value`,
);

/** A new document's number, taken ahead (numberAhead): awaited once the document is certain to be new. */
export type NumberAhead = () => Promise<string>;

/**
 * Takes a new document's number ahead of the lookup that decides whether the document is new. On
 * PostgreSQL the sequence's next value is sent at once (sendAhead) and goes out with the lookup, so
 * it costs no round trip of its own; a number the request then does not use is a gap in the
 * sequence, as a rolled-back transaction's is (docs/receipts.md, docs/orders.md: a sequence). On SQLite the counter row is
 * bumped only when the number is awaited, inside the caller's write transaction, so its numbers
 * stay without gaps.
 */
export async function numberAhead(trx: Kysely<any>, numbers: DocumentNumbers): Promise<NumberAhead> {
  if (dialectNameOfDb(trx) === 'postgres') {
    const answer = await sendAhead(trx, nextSequenceValue(trx, { name: numbers.sequence }));
    return async () => `${numbers.prefix}${Number((await answer()).rows[0]!.value)}`;
  }
  return async () => {
    const { rows } = await nextCounterValue(trx, { name: numbers.sequence });
    return `${numbers.prefix}${Number((rows[0] as { value: number }).value)}`;
  };
}

/**
 * Takes the locks named by `names`, in that order, until the transaction ends: PostgreSQL advisory
 * locks on each name's 64-bit hash (two names sharing a hash only wait for each other), in one
 * statement. Nothing reads its answer, so it is sent as a trailing write (trailing-writes.ts): it
 * goes out with the statement after it, which PostgreSQL runs only once the locks are held. SQLite
 * needs none: its write transactions already run one at a time.
 */
export async function lockNames(trx: Kysely<any>, names: readonly string[]): Promise<void> {
  if (names.length === 0 || dialectNameOfDb(trx) !== 'postgres') return;
  await writeLater(trx, lockNamesQuery(trx, { names: JSON.stringify(names) }));
}

const lockNamesQuery = boundOnce((trx: Kysely<any>, lock: { names: string }) =>
  trx
    .selectFrom((eb) => eb.fn('jsonb_array_elements_text', [eb.val(lock.names)]).as('name'))
    .select((eb) => eb.fn('pg_advisory_xact_lock', [eb.fn('hashtextextended', [eb.ref('name.value'), eb.lit(0)])]).as('locked')),
);

/**
 * Locks the rows a select reads until the transaction ends: FOR UPDATE on PostgreSQL. SQLite has
 * no row locks and needs none: its write transactions (BEGIN IMMEDIATE) already run one at a time.
 */
export function forUpdate<Q extends { forUpdate(): Q }>(db: Kysely<any>, query: Q): Q {
  return dialectNameOfDb(db) === 'postgres' ? query.forUpdate() : query;
}

/**
 * Locks the rows of `table` that a select reads, skipping those another transaction holds: on
 * PostgreSQL, FOR UPDATE OF … SKIP LOCKED, so that processes sharing a queue each take other rows.
 * SQLite's write transactions already run one at a time.
 */
export function takeUnlocked<T extends string, Q extends { forUpdate(of: T[]): Q; skipLocked(): Q }>(
  db: Kysely<any>,
  query: Q,
  table: T,
): Q {
  return dialectNameOfDb(db) === 'postgres' ? query.forUpdate([table]).skipLocked() : query;
}

/**
 * Whether a writer must lock rows itself, in one order, before changing several: PostgreSQL's
 * writers run side by side. SQLite's write transactions (BEGIN IMMEDIATE) run one at a time.
 */
export function writersLockRows(db: Kysely<any>): boolean {
  return dialectNameOfDb(db) === 'postgres';
}

/**
 * Whether the ledger's item index is a table filled behind the writes (SQLite, where that index
 * cost a posting a page per line; migration 2026-11-29T1000) rather than an index (PostgreSQL).
 */
export function indexesLedgerItemsBehind(db: Kysely<any>): boolean {
  return dialectNameOfDb(db) === 'sqlite';
}

/**
 * Whether an event's Sequence is its row id (SQLite, where writers take turns and a new row's id is
 * the next Sequence; migration 2026-11-29T1100) rather than given by the sequencer once the event
 * has committed (PostgreSQL, whose writers commit in any order).
 */
export function numbersEventsByRowId(db: Kysely<any>): boolean {
  return dialectNameOfDb(db) === 'sqlite';
}

/**
 * Whether several processes may serve this database at once (PostgreSQL), so that what they count
 * between them must be counted in it. One process writes a SQLite database.
 */
export function sharedByProcesses(db: Kysely<any>): boolean {
  return dialectNameOfDb(db) === 'postgres';
}

/**
 * Whether PostgreSQL's autovacuum is off on the server (`show autovacuum`), so that nothing gathers
 * the planner's statistics or vacuums unless Wharf or the operator does. False on SQLite, which has
 * no autovacuum (Wharf keeps its statistics: refreshStatistics).
 */
export async function autovacuumIsOff(db: Kysely<any>): Promise<boolean> {
  if (dialectNameOfDb(db) !== 'postgres') return false;
  const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(db);
  return rows[0]?.autovacuum === 'off';
}

/**
 * PRAGMA optimize's mask (docs/operations.md, "Maintenance"): 0x02 analyses the tables that may
 * benefit, 0x10 bounds each analysis (a temporary analysis_limit: the statistics are sampled in
 * milliseconds, not read from every row of a large table, and the write lock is held that long),
 * 0x10000 looks at the size of every table, not only those this connection's queries used. SQLite
 * advises 0x10002 at open and the default mask (0xfffe) after; Wharf adds 0x10 at open, so that the
 * first start on a large database never analysed (every database of an earlier Wharf) takes
 * milliseconds, not minutes, and keeps 0x10000 every hour: with the default mask SQLite 3.53 never
 * analysed again a table that had grown from 1 row to 1,000 since its analysis, and most of
 * Wharf's reads run on the other connection.
 */
const OPTIMIZE = 0x10012;
/** Added to the mask: list what it would do, and do nothing. */
const OPTIMIZE_DEBUG = 0x1;

/**
 * Below this many rows a table keeps no statistics. Statistics say how large a table was when
 * analysed, and SQLite plans for that size until it has grown some twentyfold: one analysed with a
 * single row had the update of an adjustment's answer scan the whole table rather than seek its
 * unique index. Without statistics SQLite plans for a large table, which Wharf's statements were
 * written for; a table this large gets plans that hold as it grows on to its next analysis.
 */
const SQLITE_STATISTICS_MIN_ROWS = 1000;

/**
 * What autovacuum's formula with its default threshold would call due for an analysis: more rows
 * changed (inserted, updated, deleted) since the table's last one than 50 and a tenth of its rows.
 */
const tablesDueForAnalysis = sql<{ table: string }>`select relname as table from pg_stat_user_tables
  where schemaname = current_schema() and n_mod_since_analyze > 50 + 0.1 * n_live_tup
  order by relname`;

/**
 * Gathers the query planner's statistics where they are missing or stale (docs/operations.md,
 * "Maintenance"); answers the tables that have new statistics. SQLite: PRAGMA optimize on the
 * writing connection, the statistics of tables too small to keep them dropped again, then the
 * reading connection opened anew to load them (SQLite loads statistics with the schema, once per
 * connection). PostgreSQL: ANALYZE of each table of the schema that changed by a tenth since its
 * last analysis, as autovacuum would (the caller runs it where autovacuum is off). Neither takes a
 * lock that stops writes for longer than an analysis of a sample.
 */
export async function refreshStatistics(db: Kysely<any>): Promise<string[]> {
  if (dialectNameOfDb(db) === 'postgres') {
    const { rows } = await tablesDueForAnalysis.execute(db);
    for (const { table } of rows) await sql`analyze ${sql.table(table)}`.execute(db);
    return rows.map((row) => row.table);
  }
  const { rows } = await sql.raw<{ optimize: string }>(`pragma optimize = ${OPTIMIZE | OPTIMIZE_DEBUG}`).execute(db);
  if (rows.length === 0) return [];
  // Each line is a statement it would run: ANALYZE "main"."orders".
  const tables = rows.map((row) => /"([^"]+)"$/.exec(row.optimize)?.[1] ?? row.optimize);
  await sql.raw(`pragma optimize = ${OPTIMIZE}`).execute(db);
  // A statistics row starts with the rows it counted.
  await sql`delete from sqlite_stat1 where tbl in (${sql.join(tables)}) and cast(stat as integer) < ${SQLITE_STATISTICS_MIN_ROWS}`.execute(
    db,
  );
  // Loads them again on the writing connection, then on the reading one.
  await sql`analyze sqlite_schema`.execute(db);
  await reloadReaderStatistics(db);
  const { rows: kept } = await sql<{
    tbl: string;
  }>`select distinct tbl from sqlite_stat1 where tbl in (${sql.join(tables)}) order by tbl`.execute(db);
  return kept.map((row) => row.tbl);
}

interface DriverError {
  code?: unknown;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as DriverError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** An error raised by either database driver; its message may quote SQL, so it is not logged. */
export function isDatabaseError(error: unknown): boolean {
  const name = (error as Error | null)?.name;
  const code = errorCode(error) ?? '';
  return name === 'SqliteError' || name === 'DatabaseError' || code.startsWith('SQLITE_') || /^[0-9A-Z]{5}$/.test(code);
}

/** A unique or primary-key violation, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A transaction that lost a race and may succeed when run again from the start. */
export function isTransientConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40001' || code === '40P01' || code === 'SQLITE_BUSY' || isUniqueViolation(error) || isStalePlan(error);
}
