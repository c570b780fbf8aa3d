import { Option } from 'commander';
import { loadConfig, type Config } from './config.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { openDatabase, openExistingDatabase } from './server.js';

/** What the `wharf` commands share, apart from cli.ts so that the files adding commands to it need not import the program's entry. */

/** Where the command writes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const dbOption = () => new Option('--db <url>', 'database URL (default: DATABASE_URL or sqlite:./data/wharf.db)');

/** Runs `work` on the configured database, migrated to the latest schema, and closes it. */
export async function withDatabase<T>(options: { db?: string }, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig({ databaseUrl: options.db });
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
    return await work(db, config);
  } finally {
    await db.destroy();
  }
}

/**
 * Runs `work` on the configured database as it is, for the commands that only read: a database
 * that does not exist is refused, not created (opening SQLite's file would make it), and so is one
 * whose schema is behind, which `migrate` or a writing command brings up to date.
 */
export async function withExistingDatabase<T>(options: { db?: string }, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig({ databaseUrl: options.db });
  const db = await openExistingDatabase(config);
  try {
    return await work(db, config);
  } finally {
    await db.destroy();
  }
}

/** Prints what a list command found: a JSON array with --json, else a line a row (its non-empty fields), or `none`. */
export function printList<T>(io: CliIo, json: boolean | undefined, rows: T[], none: string, fields: (row: T) => string[]): void {
  if (json) return io.out(JSON.stringify(rows, null, 2));
  if (rows.length === 0) return io.out(none);
  for (const row of rows) io.out(fields(row).filter(Boolean).join('  '));
}
