import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type QueryResult,
} from 'kysely';
import type { Database, Db } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialect.js';

/**
 * A database that never connects: it records the SQL and parameters of every statement sent to it
 * and answers no rows. For compiled-SQL tests in the style of Kysely's own testSql.
 */

export interface Sent {
  sql: string;
  parameters: readonly unknown[];
}

class RecordingDriver extends DummyDriver {
  constructor(private readonly sent: Sent[]) {
    super();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const sent = this.sent;
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        sent.push({ sql: query.sql, parameters: query.parameters });
        return { rows: [] };
      },
      async *streamQuery() {},
    };
  }
}

function recordingDialect(name: DialectName, sent: Sent[]): Dialect {
  return name === 'postgres'
    ? {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new RecordingDriver(sent),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      }
    : {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new RecordingDriver(sent),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      };
}

/** What `run` sends to a fresh database of the given dialect. */
export async function sentBy(name: DialectName, run: (db: Db) => Promise<unknown>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const db = new Kysely<Database>({ dialect: recordingDialect(name, sent) });
  await run(db);
  await db.destroy();
  return sent;
}

/** A recording database of the given dialect that stays open, and what was sent to it so far. */
export function recordingDb(name: DialectName): { db: Db; sent: Sent[] } {
  const sent: Sent[] = [];
  return { db: new Kysely<Database>({ dialect: recordingDialect(name, sent) }), sent };
}

/** A balance's key for the statements' tests: company CO, customer CU, facility F1, item A-1 in EA, lot L1. */
export const BALANCE_KEY = {
  company_id: 'CO',
  customer_id: 'CU',
  facility_id: 'F1',
  item_id: 'A-1',
  uom: 'EA',
  lot_no: 'L1',
  goods_type: '',
  title_id: '',
  inventory_status: 'Available',
  expiration_date: '',
};
