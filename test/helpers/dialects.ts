import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * One suite, every database: `describeEachDialect` runs a block once on SQLite and once on
 * PostgreSQL, each on a fresh, uniquely named database that is dropped afterwards. PostgreSQL runs
 * when a server answers at TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * without one the PostgreSQL blocks are skipped with a message, except under CI, where that fails.
 */

const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ONLY = process.env.TEST_DIALECTS?.split(',').map((d) => d.trim());

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const postgresReachable = ONLY && !ONLY.includes('postgres') ? false : await postgresAnswers();
if (!postgresReachable && (!ONLY || ONLY.includes('postgres'))) {
  if (process.env.CI) throw new Error(`CI needs PostgreSQL at ${POSTGRES_ADMIN_URL}, and none answers`);
  console.warn(`\n*** PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}: the PostgreSQL runs are SKIPPED ***\n`);
}

export const DIALECTS: { name: DialectName; enabled: boolean }[] = [
  { name: 'sqlite', enabled: !ONLY || ONLY.includes('sqlite') },
  { name: 'postgres', enabled: postgresReachable },
];

export interface TestDatabase {
  dialect: DialectName;
  url: string;
  db: Db;
  /** Closes the connection and drops the database. */
  destroy(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The URL of the PostgreSQL database `name` on the test server (which may not exist). */
export function postgresDatabaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Whether the test server has a PostgreSQL database of this name. */
export async function postgresDatabaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database of the given dialect. */
export async function createTestDatabase(dialect: DialectName, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `wharf_test_${randomBytes(6).toString('hex')}`;
  // A file, as Wharf runs: its commits are grouped, its reads outside transactions have a connection of their own.
  const file = join(tmpdir(), `${name}.db`);
  let url = `sqlite:${file}`;
  let drop = async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  };
  if (dialect === 'postgres') {
    await adminQuery(`create database ${name}`);
    url = postgresDatabaseUrl(name);
    drop = () => adminQuery(`drop database if exists ${name} with (force)`);
  }
  const db = connectDatabase(url, { poolSize: 5 });
  if (options.migrate !== false) await migrateToLatest(db);
  return {
    dialect,
    url,
    db,
    destroy: async () => {
      await db.destroy();
      await drop();
    },
  };
}

/** Runs `body` once per enabled dialect, inside a describe block named after it. */
export function describeEachDialect(title: string, body: (dialect: DialectName) => void): void {
  for (const { name, enabled } of DIALECTS) {
    describe.skipIf(!enabled)(`${title} [${name}]`, () => body(name));
  }
}
