import { Kysely } from 'kysely';
import type { Database } from './database.js';
import { createDialect, rememberPool, type DialectOptions } from './dialect.js';
import { rememberSqliteDriver } from './sqlite-driver.js';

/** Opens the database a DATABASE_URL names; the caller destroys it. */
export function connectDatabase(url: string, options: DialectOptions = {}): Kysely<Database> {
  const dialect = createDialect(url, options);
  const db = new Kysely<Database>({ dialect });
  rememberPool(db, dialect);
  rememberSqliteDriver(db, dialect);
  return db;
}
