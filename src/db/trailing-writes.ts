import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type OperationNode,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Trailing writes on PostgreSQL: a write that nothing after it in its transaction waits for waits
 * on the transaction's connection and goes out with the transaction's next statement of any other
 * kind (a read, a write whose result is used, COMMIT). Each round trip costs both processes a
 * wake-up and a socket write, and most commands end with several such writes: a document's lines,
 * its ACK, its events, the answer to an Idempotency-Key.
 *
 * Queued writes are joined as data-modifying WITH clauses (`with trailing_1 as (insert …),
 * trailing_2 as (update …) select …`), which PostgreSQL runs against one snapshot, to completion,
 * and checks (foreign keys included) at the end of the statement. The next statement is their main
 * statement when it is built by Kysely without raw SQL and names none of the tables they name: it
 * could not see their rows. Otherwise they go out alone just before it, joined the same way (the
 * last one main) in as many statements as it takes for no two writes naming one table to share
 * one; COMMIT always waits for them. A trailing write's result is not seen: its promise settles at
 * once with no rows. A write that fails fails the statement that carried it, which fails the transaction as
 * it would have failed anyway. A rollback (to a savepoint or of the whole) drops what is queued:
 * every statement before it, the SAVEPOINT included, sent what came earlier.
 *
 * SQLite runs a statement in microseconds without a round trip: there a trailing write runs at once.
 */

/** The queries writeLater hands to a connection: they wait there instead of running. */
const trailing = new WeakSet<CompiledQuery>();

/**
 * Runs `query` in the transaction `trx` as a trailing write (see above): on PostgreSQL it waits for
 * the transaction's next statement; elsewhere, and outside a transaction, it runs now.
 */
export async function writeLater(trx: Kysely<any>, query: CompiledQuery): Promise<void> {
  if (trx.isTransaction) trailing.add(query);
  await trx.executeQuery(query);
}

/** PostgreSQL takes at most 65,535 parameters a statement; a joined statement keeps well below. */
const PARAMETERS_PER_STATEMENT = 30_000;

/** A placeholder, outside the string literals and quoted names where `$1` is text. */
const PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;
const DATA_MODIFYING = /^\s*(?:insert|update|delete)\b/i;
/** A main statement's own WITH, which the joined statement's list continues. */
const OWN_WITH = /^\s*with\s+(recursive\s+)?/i;
const ROLLBACK = /^\s*rollback\b/i;

/**
 * The queries joined into one statement: the last one its main statement (any statement Kysely
 * builds), the others, each an insert, an update or a delete, its WITH clauses.
 */
export function joinWrites(queries: readonly CompiledQuery[]): CompiledQuery {
  if (queries.length === 1) return queries[0]!;
  const parameters: unknown[] = [];
  const parts = queries.map((query) => {
    const offset = parameters.length;
    parameters.push(...query.parameters);
    return query.sql.replace(PLACEHOLDER, (text, index?: string) => (index === undefined ? text : `$${Number(index) + offset}`));
  });
  let main = parts.pop()!;
  const clauses = parts.map((part, i) => {
    if (!DATA_MODIFYING.test(part)) throw new Error('a trailing write must be an insert, an update or a delete');
    return `trailing_${i + 1} as (${part})`;
  });
  const own = OWN_WITH.exec(main);
  let head = 'with ';
  if (own) {
    head = `with ${own[1] ?? ''}`;
    main = main.slice(own[0].length);
    clauses.push('');
  }
  return CompiledQuery.raw(`${head}${clauses.join(', ')}${own ? '' : ' '}${main}`, parameters);
}

/** The tables each statement names, by its operation tree; null for one with raw SQL, whose tables are unknown. */
const tablesOfNodes = new WeakMap<OperationNode, ReadonlySet<string> | null>();

function tablesOf(node: OperationNode): ReadonlySet<string> | null {
  let tables = tablesOfNodes.get(node);
  if (tables === undefined) {
    const found = new Set<string>();
    tables = collectTables(node, found) ? found : null;
    tablesOfNodes.set(node, tables);
  }
  return tables;
}

/** Adds the tables under `value` to `found`; false when raw SQL is met. */
function collectTables(value: unknown, found: Set<string>): boolean {
  if (Array.isArray(value)) return value.every((element) => collectTables(element, found));
  if (value === null || typeof value !== 'object' || typeof (value as OperationNode).kind !== 'string') return true;
  const node = value as OperationNode & { table?: { identifier: { name: string } }; sqlFragments?: readonly string[] };
  // Raw SQL may name tables in its text; a fragment-free one (sql.lit) only wraps its values.
  if (node.kind === 'RawNode' && node.sqlFragments!.some((fragment) => fragment.trim() !== '')) return false;
  if (node.kind === 'TableNode') found.add(node.table!.identifier.name);
  // ValueNodes hold the bound values: nothing under them names a table.
  if (node.kind === 'ValueNode' || node.kind === 'PrimitiveValueListNode') return true;
  return Object.values(node).every((child) => collectTables(child, found));
}

/** The statements a WITH list may precede. */
const MAY_FOLLOW_WITH = new Set(['SelectQueryNode', 'InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);

/**
 * Whether `next` may carry the queued writes as its WITH clauses: a select, an insert, an update or
 * a delete that names none of their tables, and with them within PARAMETERS_PER_STATEMENT.
 */
function mayCarry(queued: readonly CompiledQuery[], next: CompiledQuery): boolean {
  if (!MAY_FOLLOW_WITH.has(next.query.kind)) return false;
  const nextTables = tablesOf(next.query);
  if (nextTables === null) return false;
  let parameters = next.parameters.length;
  for (const query of queued) {
    parameters += query.parameters.length;
    const tables = tablesOf(query.query);
    if (tables === null || [...tables].some((table) => nextTables.has(table))) return false;
  }
  return parameters <= PARAMETERS_PER_STATEMENT;
}

/**
 * The queued writes in joined statements, in their order: a statement ends before a write that
 * names a table its writes name (joined, it would not see their rows), that has raw SQL, or that
 * would take it past PARAMETERS_PER_STATEMENT parameters.
 */
function joinedStatements(queued: readonly CompiledQuery[]): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  let batch: CompiledQuery[] = [];
  for (const query of queued) {
    if (batch.length > 0 && !mayCarry(batch, query)) {
      statements.push(joinWrites(batch));
      batch = [];
    }
    batch.push(query);
  }
  if (batch.length > 0) statements.push(joinWrites(batch));
  return statements;
}

const NO_ROWS: QueryResult<never> = { rows: [] };

/** A connection that keeps trailing writes until its next other statement. */
class TrailingWritesConnection implements DatabaseConnection {
  #queued: CompiledQuery[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (trailing.has(query)) {
      this.#queued.push(query);
      return NO_ROWS;
    }
    if (this.#queued.length > 0) {
      if (mayCarry(this.#queued, query)) {
        const queued = this.#queued;
        this.#queued = [];
        return this.inner.executeQuery<R>(joinWrites([...queued, query]));
      }
      await this.#flush(ROLLBACK.test(query.sql));
    }
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    await this.#flush(false);
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  async #flush(drop: boolean): Promise<void> {
    if (this.#queued.length === 0) return;
    const queued = this.#queued;
    this.#queued = [];
    if (drop) return;
    for (const statement of joinedStatements(queued)) await this.inner.executeQuery(statement);
  }

  /** Whether writes still wait: a transaction that ended with them would have lost them. */
  get holdsWrites(): boolean {
    return this.#queued.length > 0;
  }
}

/** A driver whose connections keep trailing writes (see above); everything else is `inner`'s. */
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

  // The inner driver runs each of these through the wrapped connection, which flushes first.
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
    const lost = wrapped.holdsWrites;
    await this.inner.releaseConnection(wrapped.inner);
    if (lost) throw new Error('a connection was released with trailing writes not sent');
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
