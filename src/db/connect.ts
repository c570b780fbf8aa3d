import { Kysely } from 'kysely';
import type { Database } from './database.js';
import { createDialect, type DialectOptions } from './dialect.js';

/** Opens the database a DATABASE_URL names; the caller destroys it. */
export function connectDatabase(url: string, options: DialectOptions = {}): Kysely<Database> {
  return new Kysely<Database>({ dialect: createDialect(url, options) });
}
