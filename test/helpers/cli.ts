import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.js';
import { connectDatabase } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialect.js';
import { createTestDatabase } from './dialects.js';

/** The `wharf` command line, run in-process: its exit code and what it printed, line by line. */
export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

export async function run(argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out, err };
}

/** A database the CLI opens by URL, and a connection of the test's own to look inside it. */
export interface CliTarget {
  url: string;
  db: Db;
  /** A directory of the test's own for files (SQLite's database lives there too). */
  dir: string;
  destroy(): Promise<void>;
}

/** An empty database of the dialect (not migrated), and a scratch directory. */
export async function createCliTarget(dialect: DialectName): Promise<CliTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'wharf-cli-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (dialect === 'postgres') {
    const database = await createTestDatabase('postgres', { migrate: false });
    return {
      url: database.url,
      db: database.db,
      dir,
      destroy: async () => {
        await database.destroy();
        removeDir();
      },
    };
  }
  // sqlite::memory: would be a new empty database per connection, so the CLI gets a file.
  const url = `sqlite:${join(dir, 'wharf.db')}`;
  const db = connectDatabase(url);
  return {
    url,
    db,
    dir,
    destroy: async () => {
      await db.destroy();
      removeDir();
    },
  };
}
