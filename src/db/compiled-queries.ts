import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { LRUCache } from 'lru-cache';

/**
 * Queries that Kysely builds and compiles once per database and shape of their parameters, then
 * only binds (docs/architecture.md: faster writes). Building a query's operation tree and compiling it to SQL
 * costs tens of microseconds a statement, more than SQLite takes to run most of them; the hot
 * statements of the write path run thousands of times with the same SQL text and other values.
 *
 * `compiledOnce(build)` calls `build` with a mirror of its parameters in which every value that
 * SQL binds — a string, a number, a bigint, null — is a placeholder naming its path. The compiled
 * SQL and its parameter list are kept; a later call with parameters of the same shape binds the
 * values at those paths. The shape is everything that can change the SQL text: which keys an object
 * has and which of them are undefined (Kysely leaves undefined columns out), the length of every
 * array (an IN list, the rows of an insert), and the value of every boolean (a flag such as a lock).
 *
 * So `build` must depend on its parameters only through that shape: it may test a value for
 * `undefined`, map an array, or branch on a boolean, but never compare a bound value or pass it
 * where Kysely reads a string as SQL (a column reference, `sql.lit`, `sql.ref`). Such a misuse shows
 * at once: Kysely refuses a placeholder where it wants a reference, and the compiled-SQL tests
 * compare every converted query with Kysely's own compilation of the same call.
 */

/** A value of the parameters that the compiled query binds, named by its path. */
class Placeholder {
  constructor(readonly path: readonly (string | number)[]) {}
}

/** Distinct shapes kept per query and database: a multi-row statement makes one per row count. */
const SHAPES_PER_QUERY = 256;

type Shaped = { query: CompiledQuery; bindings: (Placeholder | unknown)[] };

/** `value` with a placeholder for each value that SQL binds, and everything of its shape as it is. */
function mirror(value: unknown, path: (string | number)[]): unknown {
  if (value === undefined || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((element, index) => mirror(element, [...path, index]));
  if (value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const mirrored: Record<string, unknown> = {};
    for (const key in value) mirrored[key] = mirror((value as Record<string, unknown>)[key], [...path, key]);
    return mirrored;
  }
  return new Placeholder(path);
}

/** The shape alone, without building a mirror: what every call works out before it finds its SQL. */
function shapeOf(value: unknown): string {
  if (value === undefined) return 'u';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Array.isArray(value)) {
    let shape = `[${value.length}`;
    for (const element of value) shape += shapeOf(element);
    return shape;
  }
  if (value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    let shape = '{';
    for (const key in value) shape += `${key}:${shapeOf((value as Record<string, unknown>)[key])},`;
    return `${shape}}`;
  }
  return '';
}

function valueAt(params: unknown, path: readonly (string | number)[]): unknown {
  let value = params;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

/** A compiled parameter with this call's values: an array bound as one value (a PostgreSQL array) element by element. */
function bind(binding: unknown, params: unknown): unknown {
  if (binding instanceof Placeholder) return valueAt(params, binding.path);
  return Array.isArray(binding) ? binding.map((element) => bind(element, params)) : binding;
}

/** Kysely's executor outlives each transaction's; its adapter names the database's dialect. */
type Database = Kysely<any>;
const adapterOf = (db: Database): object => db.getExecutor().adapter;

/**
 * Wraps a query builder so that each database compiles it once per shape of its parameters (see
 * above); the returned function answers the compiled query with `params` bound, for `db` (a
 * transaction or the pool) to run.
 */
export function boundOnce<D extends Database, P, O>(
  // A query builder's compile() takes nothing; an sql`…` template's takes the database.
  build: (db: D, params: P) => { compile(db: D): CompiledQuery<O> },
): (db: D, params: P) => CompiledQuery<O> {
  const byAdapter = new WeakMap<object, LRUCache<string, Shaped>>();
  return (db, params) => {
    const adapter = adapterOf(db);
    let shapes = byAdapter.get(adapter);
    if (!shapes) byAdapter.set(adapter, (shapes = new LRUCache({ max: SHAPES_PER_QUERY })));
    const shape = shapeOf(params);
    let shaped = shapes.get(shape);
    if (!shaped) {
      const query = build(db, mirror(params, []) as P).compile(db);
      shaped = { query, bindings: [...query.parameters] };
      shapes.set(shape, shaped);
    }
    const parameters = shaped.bindings.map((binding) => bind(binding, params));
    return { ...shaped.query, parameters } as CompiledQuery<O>;
  };
}

/** boundOnce, run: the returned function runs the query in `db` with `params`. */
export function compiledOnce<D extends Database, P, O>(
  build: (db: D, params: P) => { compile(db: D): CompiledQuery<O> },
): (db: D, params: P) => Promise<QueryResult<O>> {
  const bound = boundOnce(build);
  return async (db, params) => db.executeQuery<O>(bound(db, params));
}
