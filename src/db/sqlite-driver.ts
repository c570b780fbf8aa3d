import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { LRUCache } from 'lru-cache';

/** Prepared statements kept per SQLite connection; a miss costs one compilation by SQLite. */
const SQLITE_STATEMENT_CACHE_SIZE = 500;

/**
 * The most transactions one commit carries. A member waits for its group's commit before it is
 * answered, so the bound keeps a burst from making the first member wait for all the others.
 */
const COMMIT_GROUP_MAX_MEMBERS = 32;

export interface SqliteDriverConfig {
  /** Opens the connection that writes (and reads inside transactions). */
  openWriter: () => SqliteDatabase.Database;
  /**
   * Opens a second connection to the same file for reads outside transactions; given, the driver
   * commits transactions in groups (see GroupCommittingSqliteDriver). An in-memory database has no
   * second connection to the same data, and no fsync to share.
   */
  openReader?: () => SqliteDatabase.Database;
}

/**
 * Kysely's SQLite connection prepares every query anew, so better-sqlite3 has SQLite compile the
 * same SQL text on every call. This one keeps the prepared statements of the most recent SQL texts
 * and otherwise executes exactly as Kysely's does. A cached statement stays valid across schema
 * changes: SQLite re-prepares it by itself when the schema it was compiled against changed.
 */
class CachingSqliteConnection implements DatabaseConnection {
  readonly #db: SqliteDatabase.Database;
  readonly #statements = new LRUCache<string, SqliteDatabase.Statement>({ max: SQLITE_STATEMENT_CACHE_SIZE });

  constructor(db: SqliteDatabase.Database) {
    this.#db = db;
  }

  #prepared(sqlText: string): SqliteDatabase.Statement {
    let statement = this.#statements.get(sqlText);
    if (!statement) {
      statement = this.#db.prepare(sqlText);
      this.#statements.set(sqlText, statement);
    }
    return statement;
  }

  /** Whether a transaction is open on the connection. */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** Runs a statement now, synchronously, as better-sqlite3 does. */
  run<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    const { sql: sqlText, parameters } = compiledQuery;
    const statement = this.#prepared(sqlText);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    };
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.run<R>(compiledQuery));
  }

  /**
   * A statement being iterated is busy until the iteration ends, and another query of the same text
   * may run meanwhile; so a stream prepares a statement of its own, as Kysely's connection does.
   */
  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { sql: sqlText, parameters, query } = compiledQuery;
    if (!SelectQueryNode.is(query)) throw new Error('Sqlite driver only supports streaming of select queries');
    for (const row of this.#db.prepare(sqlText).iterate(parameters)) {
      yield { rows: [row as R] };
    }
  }

  close(): void {
    this.#db.close();
  }
}

/** SQLite has one connection per database handle: callers take turns on it, in the order they asked. */
class ConnectionTurns {
  readonly #waiting: (() => void)[] = [];
  #taken = false;

  async take(): Promise<void> {
    if (!this.#taken) {
      this.#taken = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the connection to the next in line, or frees it. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#taken = false;
  }
}

const begin = CompiledQuery.raw('begin immediate');
const commit = CompiledQuery.raw('commit');
const rollback = CompiledQuery.raw('rollback');
const memberBegin = CompiledQuery.raw('savepoint member');
const memberRelease = CompiledQuery.raw('release member');
const memberRollback = CompiledQuery.raw('rollback to member');

/** Transactions whose writes one COMMIT (one fsync of the WAL) makes durable together. */
class CommitGroup {
  members = 0;
  /** The rows its members that ended well left for the commit. */
  readonly pending = new PendingRows();
  /** Settles when the group has committed, or failed to: what the members that deferred wait for. */
  readonly durable: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A group nobody waits for (its one member took the commit itself) must not reject unheard.
    this.durable.catch(() => {});
  }
}

/**
 * What compiles the statements that write `rows` (in chunks of its choosing) for `db`: one
 * function per kind of row, whose rows a commit writes together (see writeRowsAtCommit).
 */
export type RowsWriter<Row> = (db: Kysely<any>, rows: Row[]) => CompiledQuery[];

/** Rows that wait for a commit, by their writer, each writer's in the order they came. */
class PendingRows {
  readonly #byWriter = new Map<RowsWriter<any>, { db: Kysely<any>; rows: unknown[] }>();

  add<Row>(writer: RowsWriter<Row>, db: Kysely<any>, rows: readonly Row[]): void {
    const pending = this.#byWriter.get(writer);
    if (!pending) this.#byWriter.set(writer, { db, rows: [...rows] });
    // Not push(...rows): a change may leave more rows than a call takes arguments.
    else for (const row of rows) pending.rows.push(row);
  }

  /** Moves these rows behind `other`'s: a member's join its group's when the member ends well. */
  moveTo(other: PendingRows): void {
    for (const [writer, { db, rows }] of this.#byWriter) other.add(writer, db, rows);
    this.#byWriter.clear();
  }

  /** The statements that write them all, each writer's once. */
  statements(): CompiledQuery[] {
    return [...this.#byWriter].flatMap(([writer, { db, rows }]) => writer(db, rows));
  }
}

/**
 * Kysely's SQLite driver, with four changes.
 *
 * Its connection prepares every query anew: this one caches the prepared statements (above).
 *
 * It opens transactions with a plain BEGIN, which takes the write lock only at the first write and
 * can then fail with SQLITE_BUSY while another process (the CLI) writes. BEGIN IMMEDIATE takes the
 * lock up front, so busy_timeout applies and the transaction never has to be abandoned half-way.
 *
 * And, on a file database, transactions that run one after another share a commit. With
 * `synchronous=FULL` every COMMIT waits for an fsync of the WAL, the larger part of a small write's
 * time; concurrent requests that each pay their own fsync spend most of it waiting in turn. Here a
 * transaction is a savepoint inside a group's transaction: when its work ends it releases the
 * savepoint, and the group commits once a turn of the event loop brings it no new member (or it
 * has COMMIT_GROUP_MAX_MEMBERS members). A transaction whose caller called `deferCommit` during it is
 * answered only after that commit, through the promise `deferCommit` returns (`inTransaction`
 * awaits it); any other transaction commits its group itself before it returns, as before. Either
 * way nothing is answered before it is durable, and a member that fails rolls back to its savepoint
 * without touching the others. What a group has written but not yet committed stays invisible
 * outside it: reads outside transactions run on a second connection, which sees committed data
 * only, and a write outside a transaction commits the group first.
 *
 * Last, rows a transaction leaves for its commit (writeRowsAtCommit) are written just before it:
 * the rows of every member of a group that ended well, in one statement for each kind.
 */
class GroupCommittingSqliteDriver implements Driver {
  readonly #config: SqliteDriverConfig;
  readonly #turns = new ConnectionTurns();
  #writer: CachingSqliteConnection | undefined;
  #reader: CachingSqliteConnection | undefined;
  /** The open transaction whose savepoints the transactions are, when grouping. */
  #group: CommitGroup | undefined;
  /** The transaction that holds the connection now: the group it is a member of, if any. */
  #current: { group: CommitGroup | undefined; deferred: boolean; pending: PendingRows } | undefined;
  #commitScheduled = false;

  constructor(config: SqliteDriverConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    this.#writer = new CachingSqliteConnection(this.#config.openWriter());
    if (this.#config.openReader) this.#reader = new CachingSqliteConnection(this.#config.openReader());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#turns.take();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#turns.release();
    this.#scheduleCommit();
  }

  #scheduleCommit(): void {
    if (!this.#group || this.#commitScheduled) return;
    this.#commitScheduled = true;
    this.#commitWhenQuiet(this.#group);
  }

  /**
   * Commits `group` once a whole turn of the event loop has brought it no new member: the requests
   * that arrived meanwhile join it first. While its members' clients all wait for their answers no
   * more arrive, so the group commits; it cannot wait for ever, since it commits at
   * COMMIT_GROUP_MAX_MEMBERS.
   */
  #commitWhenQuiet(group: CommitGroup, membersBefore = -1): void {
    setImmediate(() => {
      if (this.#group !== group) {
        // Committed meanwhile by a transaction or a write that would not wait: a newer group waits anew.
        this.#commitScheduled = false;
        return this.#scheduleCommit();
      }
      if (group.members !== membersBefore) return this.#commitWhenQuiet(group, group.members);
      void this.#commitWhenFree();
    });
  }

  /** The connection Kysely is handed: the writer, except for reads outside transactions. */
  readonly #connection: DatabaseConnection = {
    executeQuery: <R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> => {
      if (!this.#current) {
        if (this.#reader && SelectQueryNode.is(compiledQuery.query)) return Promise.resolve(this.#reader.run<R>(compiledQuery));
        this.#commitGroup();
      }
      return Promise.resolve(this.#writer!.run<R>(compiledQuery));
    },
    streamQuery: <R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> =>
      (this.#current || !this.#reader ? this.#writer! : this.#reader).streamQuery<R>(compiledQuery),
  };

  async beginTransaction(): Promise<void> {
    if (!this.#reader) {
      this.#writer!.run(begin);
      this.#current = { group: undefined, deferred: false, pending: new PendingRows() };
      return;
    }
    if (this.#group && this.#group.members >= COMMIT_GROUP_MAX_MEMBERS) this.#commitGroup();
    if (!this.#group) {
      this.#writer!.run(begin);
      this.#group = new CommitGroup();
    }
    this.#writer!.run(memberBegin);
    this.#group.members += 1;
    this.#current = { group: this.#group, deferred: false, pending: new PendingRows() };
  }

  async commitTransaction(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (!current?.group) {
      // A failure here is the transaction's: Kysely rolls it back.
      for (const statement of current?.pending.statements() ?? []) this.#writer!.run(statement);
      this.#writer!.run(commit);
      return;
    }
    this.#writer!.run(memberRelease);
    current.pending.moveTo(current.group.pending);
    if (!current.deferred) this.#commitGroup();
  }

  async rollbackTransaction(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (!current?.group) {
      // After a commit that failed (Kysely rolls back then) SQLite may have rolled back already,
      // and a group that failed to commit has: a second ROLLBACK would hide the failure.
      if (this.#writer!.inTransaction) this.#writer!.run(rollback);
      return;
    }
    // A group whose commit failed has rolled back already, this member with it.
    if (current.group !== this.#group) return;
    this.#writer!.run(memberRollback);
    this.#writer!.run(memberRelease);
  }

  /**
   * Called during a transaction: the transaction will not commit its group itself; the promise
   * answered settles when its group has committed (or failed to). Undefined when not grouping.
   */
  deferCommit(): Promise<void> | undefined {
    const current = this.#current;
    if (!current?.group) return undefined;
    current.deferred = true;
    return current.group.durable;
  }

  /** Keeps rows of the transaction that holds the connection for its commit; false when none holds it. */
  writeRowsAtCommit<Row>(writer: RowsWriter<Row>, db: Kysely<any>, rows: readonly Row[]): boolean {
    if (!this.#current) return false;
    this.#current.pending.add(writer, db, rows);
    return true;
  }

  /** Commits the open group now; the caller holds the connection. */
  #commitGroup(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    try {
      for (const statement of group.pending.statements()) this.#writer!.run(statement);
      this.#writer!.run(commit);
    } catch (error) {
      try {
        this.#writer!.run(rollback);
      } catch {
        // SQLite rolled back by itself.
      }
      group.reject(error);
      throw error;
    }
    group.resolve();
  }

  /** Takes a turn on the connection, behind whoever waits for it, and commits the open group. */
  async #commitWhenFree(): Promise<void> {
    await this.#turns.take();
    this.#commitScheduled = false;
    try {
      this.#commitGroup();
    } catch {
      // The members hear of it through their group's promise.
    } finally {
      this.#turns.release();
    }
  }

  /**
   * Opens the reading connection again, on its turn. SQLite loads the planner's statistics with
   * the schema, once per connection: an ANALYZE on the writer reaches the reader only when it
   * reopens (or the schema changes).
   */
  async reopenReader(): Promise<void> {
    if (!this.#config.openReader) return;
    await this.#turns.take();
    try {
      this.#reader?.close();
      this.#reader = new CachingSqliteConnection(this.#config.openReader());
    } finally {
      this.#turns.release();
    }
  }

  async destroy(): Promise<void> {
    await this.#turns.take();
    try {
      this.#commitGroup();
    } finally {
      this.#reader?.close();
      this.#writer?.close();
    }
  }
}

/** The driver of each SQLite database, by its adapter: a database and its transactions share one. */
const driversOfAdapters = new WeakMap<DialectAdapter, GroupCommittingSqliteDriver>();

const driverOf = (db: Kysely<any>) => driversOfAdapters.get(db.getExecutor().adapter);

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator would
 * run migrations without one (and its SQLite migration lock does nothing). Saying yes makes every
 * migration run in a BEGIN IMMEDIATE transaction: migrators in several processes take turns, and a
 * migration that fails half-way leaves no half schema.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class WharfSqliteDialect extends SqliteDialect {
  readonly #driver: GroupCommittingSqliteDriver;

  constructor(config: SqliteDriverConfig) {
    // Kysely's own driver is never created; its config is unused.
    super({ database: {} as never });
    this.#driver = new GroupCommittingSqliteDriver(config);
  }

  override createDriver(): Driver {
    return this.#driver;
  }

  override createAdapter(): DialectAdapter {
    const adapter = new TransactionalDdlSqliteAdapter();
    driversOfAdapters.set(adapter, this.#driver);
    return adapter;
  }
}

/**
 * Called during a transaction of `db`: its caller will await the promise answered before taking
 * the transaction's writes as durable, and the transaction may share its commit with others
 * meanwhile. Undefined where commits are not grouped (PostgreSQL, in-memory SQLite).
 */
export function deferCommit(db: Kysely<any>): Promise<void> | undefined {
  return driverOf(db)?.deferCommit();
}

/**
 * Has the reads outside transactions plan with the statistics the writer gathered last (see
 * reopenReader); nothing on PostgreSQL or an in-memory database.
 */
export async function reloadReaderStatistics(db: Kysely<any>): Promise<void> {
  await driverOf(db)?.reopenReader();
}

/**
 * Keeps `rows` of the transaction `trx` of a SQLite database for its commit, where `writer`'s
 * statements write them, with the rows of every other transaction of the commit's group (and of
 * no transaction that rolled back), just before the COMMIT; false on PostgreSQL and outside a
 * transaction. For rows nothing reads before the commit: one statement for a group where each
 * transaction ran its own is cheaper by much more than its share, because between two
 * transactions' statements the rest of each request has taken the caches (docs/performance.md). A
 * failure of those statements fails the commit, and so every transaction of the group.
 */
export function writeRowsAtCommit<Row>(trx: Kysely<any>, writer: RowsWriter<Row>, rows: readonly Row[]): boolean {
  return trx.isTransaction && (driverOf(trx)?.writeRowsAtCommit(writer, trx, rows) ?? false);
}
