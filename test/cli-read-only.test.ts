import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DialectName } from '../src/db/dialect.js';
import { migrations } from '../src/db/migrations/index.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect, postgresDatabaseExists, postgresDatabaseUrl } from './helpers/dialects.js';

/**
 * The commands that only read never create or change a database: one that does not exist is
 * refused (SQLite's file would otherwise be created empty), and so is one whose schema is behind.
 * Writing commands still create and migrate.
 */

/** Every read-only command, with the arguments it needs. */
const READ_ONLY: string[][] = [
  ['key', 'list'],
  ['key', 'list', '--json', '--company', 'CO1'],
  ['ratecard', 'list', '--company', 'CO1'],
  ['company', 'list'],
  ['customer', 'list'],
  ['customer', 'list', '--company', 'CO1', '--json'],
  ['facility', 'list'],
  ['facility', 'list', '--company', 'CO1', '--json'],
  // It deletes, but only what is past its retention: it never creates or migrates either.
  ['purge'],
];

/** Backup reads too; it takes a database whose schema is behind (a copy before migrating is the point). */
const BACKUP = ['backup', 'never-written.db'];

/** A database URL that names nothing yet, where a message shows it, and a check that it is still absent. */
interface Missing {
  url: string;
  where: string;
  stillMissing(): Promise<boolean>;
}

function missingDatabase(dialect: DialectName, target: CliTarget): Missing {
  if (dialect === 'sqlite') {
    const path = join(target.dir, 'nowhere', 'wharf.db');
    return { url: `sqlite:${path}`, where: path, stillMissing: async () => !existsSync(join(target.dir, 'nowhere')) };
  }
  const name = `wharf_missing_${randomBytes(6).toString('hex')}`;
  const where = postgresDatabaseUrl(name);
  const withPassword = new URL(where);
  withPassword.password = 'not-to-be-shown';
  return { url: withPassword.toString(), where, stillMissing: async () => !(await postgresDatabaseExists(name)) };
}

describeEachDialect('read-only commands', (dialect) => {
  let target: CliTarget;

  beforeAll(async () => {
    target = await createCliTarget(dialect);
  });
  afterAll(async () => {
    await target?.destroy();
  });

  it('refuse a database that does not exist with exit 1 and "no database at …" (never a password), creating nothing', async () => {
    const missing = missingDatabase(dialect, target);
    for (const argv of [...READ_ONLY, BACKUP]) {
      expect({ argv, ...(await run([...argv, '--db', missing.url])) }).toEqual({
        argv,
        code: 1,
        out: [],
        err: [`error: no database at ${missing.where}`],
      });
    }
    expect(await missing.stillMissing()).toBe(true);
  });

  it.runIf(dialect === 'sqlite')('leave creating the database to the writing commands, as before', async () => {
    const missing = missingDatabase(dialect, target);
    expect(await run(['company', 'add', 'CO1', '--db', missing.url])).toEqual({ code: 0, out: ['company CO1 added'], err: [] });
    expect(await missing.stillMissing()).toBe(false);
    expect(await run(['key', 'list', '--db', missing.url])).toEqual({ code: 0, out: ['no keys'], err: [] });
  });

  it('refuse a database whose schema is behind, saying how many migrations it lacks, and change nothing', async () => {
    await sql`select 1`.execute(target.db); // the database exists (SQLite's file too), without any table
    const all = Object.keys(migrations);
    for (const argv of READ_ONLY) {
      expect({ argv, ...(await run([...argv, '--db', target.url])) }).toEqual({
        argv,
        code: 1,
        out: [],
        err: [
          `error: the database at ${target.url.replace(/^sqlite:/, '')} is not up to date (${all.length} migrations to run): run wharf migrate`,
        ],
      });
    }
    expect(await target.db.introspection.getTables({ withInternalKyselyTables: true })).toEqual([]);
    expect((await run(['backup', join(target.dir, 'before-migrating.db'), '--db', target.url])).code).toBe(0);

    const migrator = new Migrator({ db: target.db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo(all.at(-2)!)).error).toBeUndefined();
    expect(await run(['key', 'list', '--db', target.url])).toEqual({
      code: 1,
      out: [],
      err: [`error: the database at ${target.url.replace(/^sqlite:/, '')} is not up to date (1 migration to run): run wharf migrate`],
    });
    expect((await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name)).toEqual([all.at(-1)]);

    expect(await run(['migrate', '--db', target.url])).toEqual({ code: 0, out: [`applied: ${all.at(-1)}`], err: [] });
    expect(await run(['key', 'list', '--db', target.url])).toEqual({ code: 0, out: ['no keys'], err: [] });
    expect(await run(['ratecard', 'list', '--company', 'NOSUCHCO', '--db', target.url])).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOSUCHCO not found'],
    });
  });
});
