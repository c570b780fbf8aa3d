import { Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { createDialect, rememberPool, type DialectOptions } from './dialect.js';

/** Opens the database a DATABASE_URL names; the caller destroys it. */
export function connectDatabase(url: string, options: DialectOptions = {}): Kysely<Database> {
  const dialect = createDialect(url, options);
  const db = new Kysely<Database>({ dialect });
  rememberPool(db, dialect);
  return db;
}

/** Runs `select 1`: resolves when the database answers, rejects with the driver's error when it does not. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
