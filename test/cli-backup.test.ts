import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase } from '../src/db/connect.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { createTestDatabase, describeEachDialect } from './helpers/dialects.js';

/**
 * `wharf backup <file>`: on SQLite an online copy that opens as the database, with everything
 * committed (the WAL's last commits included), in a new owner-only file; on PostgreSQL the pg_dump
 * command to run, whose dump restores. Neither writes over anything at the name, nor through a
 * symbolic link. Without pg_dump or pg_restore that restore is skipped with a message, except under
 * CI, where that fails.
 */

/** The permission bits of a file, as `ls` shows them in octal. */
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

const execFileAsync = promisify(execFile);
const installed = async (program: string) =>
  execFileAsync(program, ['--version']).then(
    () => true,
    () => false,
  );

describeEachDialect('wharf backup', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget(dialect);
    expect((await wharf('company', 'add', 'ACME', '--name', 'Acme Logistics')).code).toBe(0);
    expect((await wharf('customer', 'add', 'ACME', 'CU1')).code).toBe(0);
    expect((await wharf('key', 'create', '--role', 'admin', '--company', 'ACME', '--label', 'kept')).code).toBe(0);
  });
  afterAll(async () => {
    await target?.destroy();
  });

  it('refuses a file that exists with exit 1, leaving it as it was', async () => {
    const file = join(target.dir, 'precious.db');
    writeFileSync(file, 'precious');
    expect(await wharf('backup', file)).toEqual({
      code: 1,
      out: [],
      err: [`error: ${file} already exists; a backup is written to a new file`],
    });
    expect(readFileSync(file, 'utf8')).toBe('precious');
  });

  it('refuses a symbolic link at the name, even one that points nowhere, with exit 1, writing nothing through it', async () => {
    const elsewhere = join(target.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const dangling = join(target.dir, 'dangling.db');
    symlinkSync(join(elsewhere, 'made-through-the-link.db'), dangling);
    expect(await wharf('backup', dangling)).toEqual({
      code: 1,
      out: [],
      err: [`error: ${dangling} already exists; a backup is written to a new file`],
    });
    const kept = join(elsewhere, 'kept.db');
    writeFileSync(kept, 'kept');
    const pointing = join(target.dir, 'pointing.db');
    symlinkSync(kept, pointing);
    expect(await wharf('backup', pointing)).toEqual({
      code: 1,
      out: [],
      err: [`error: ${pointing} already exists; a backup is written to a new file`],
    });
    expect(readdirSync(elsewhere)).toEqual(['kept.db']);
    expect(readFileSync(kept, 'utf8')).toBe('kept');
    expect(readlinkSync(dangling)).toBe(join(elsewhere, 'made-through-the-link.db'));
    expect(lstatSync(pointing).isSymbolicLink()).toBe(true);
  });

  it.runIf(dialect === 'sqlite')('copies the database while it is open; the copy opens as the database and reads back', async () => {
    // A commit of a connection that stays open, so that it may still be in the WAL file.
    await target.db.insertInto('customers').values({ company_id: 'ACME', customer_id: 'CU2', name: 'CU2', created_at: 0 }).execute();
    const file = join(target.dir, 'backup.db');
    expect(await wharf('backup', file)).toEqual({
      code: 0,
      out: [`database ${target.url.slice('sqlite:'.length)} backed up to ${file}`],
      err: [],
    });
    const restored = (...argv: string[]) => run([...argv, '--db', `sqlite:${file}`]);
    expect((await restored('company', 'list')).out).toEqual([expect.stringMatching(/^ACME {2}"Acme Logistics" {2}created /)]);
    expect((await restored('customer', 'list', '--json')).out.join('\n')).toBe((await wharf('customer', 'list', '--json')).out.join('\n'));
    expect((await restored('key', 'list', '--json')).out.join('\n')).toBe((await wharf('key', 'list', '--json')).out.join('\n'));
    expect(await restored('customer', 'list', '--company', 'ACME')).toMatchObject({
      code: 0,
      out: [expect.stringContaining('CU1'), expect.stringContaining('CU2')],
    });
  });

  it.runIf(dialect === 'sqlite')('writes the copy owner-only (0600) and leaves nothing else beside it', async () => {
    const dir = join(target.dir, 'backups');
    mkdirSync(dir);
    const file = join(dir, 'owner-only.db');
    expect((await wharf('backup', file)).code).toBe(0);
    expect(modeOf(file)).toBe('600');
    expect(readdirSync(dir)).toEqual(['owner-only.db']);
    // A second backup to the same name is refused, and the first stays whole.
    const size = statSync(file).size;
    expect(await wharf('backup', file)).toMatchObject({
      code: 1,
      err: [`error: ${file} already exists; a backup is written to a new file`],
    });
    expect(statSync(file).size).toBe(size);
    expect(readdirSync(dir)).toEqual(['owner-only.db']);
  });

  it.runIf(dialect === 'sqlite')('refuses a folder that does not exist, with exit 1', async () => {
    const file = join(target.dir, 'no-such-folder', 'backup.db');
    expect(await wharf('backup', file)).toEqual({
      code: 1,
      out: [],
      err: [`error: ${join(target.dir, 'no-such-folder')} does not exist: a backup is written into a directory that does`],
    });
    expect(existsSync(join(target.dir, 'no-such-folder'))).toBe(false);
  });

  it.runIf(dialect === 'postgres')('prints the pg_dump command to use, without the password, and writes nothing', async () => {
    const file = join(target.dir, "wharf's.dump");
    const withPassword = new URL(target.url);
    withPassword.password = 'not-to-be-shown';
    const result = await run(['backup', file, '--db', withPassword.toString()]);
    expect(result).toEqual({
      code: 0,
      out: [`pg_dump --format=custom --file='${file.replace("'", "'\\''")}' --dbname='${target.url}'`],
      err: ['Wharf does not copy a PostgreSQL database itself; back it up with (the password from PGPASSWORD or ~/.pgpass):'],
    });
    expect(JSON.stringify(result)).not.toContain('not-to-be-shown');
    expect(existsSync(file)).toBe(false);
  });

  it.runIf(dialect === 'postgres')(
    'prints a pg_dump command whose dump restores as the database (skipped without pg_dump, except under CI)',
    async (context) => {
      const missing = [];
      for (const program of ['pg_dump', 'pg_restore']) if (!(await installed(program))) missing.push(program);
      if (missing.length > 0) {
        // Required under CI, like PostgreSQL itself and pgbouncer: a missing tool fails there rather than skipping.
        if (process.env.CI) {
          throw new Error(`CI needs pg_dump and pg_restore (Debian package postgresql-client) on the PATH; missing: ${missing.join(', ')}`);
        }
        console.warn(`\n*** ${missing.join(' and ')} not installed: the pg_dump restore test is SKIPPED ***\n`);
        return context.skip(`${missing.join(' and ')} not installed`);
      }
      const file = join(target.dir, 'wharf.dump');
      const printed = await wharf('backup', file);
      expect(printed.code).toBe(0);
      await execFileAsync('sh', ['-c', printed.out[0]!]);
      const copy = await createTestDatabase('postgres', { migrate: false });
      try {
        await execFileAsync('pg_restore', ['--no-owner', `--dbname=${copy.url}`, file]);
        const restored = (...argv: string[]) => run([...argv, '--db', copy.url]);
        expect((await restored('customer', 'list', '--json')).out).toEqual((await wharf('customer', 'list', '--json')).out);
        expect((await restored('key', 'list', '--json')).out).toEqual((await wharf('key', 'list', '--json')).out);
      } finally {
        await copy.destroy();
      }
    },
  );
});

describeEachDialect('database files', (dialect) => {
  it.runIf(dialect === 'sqlite')(
    'a new SQLite database, its WAL and shared-memory files are owner-only (0600), in an owner-only folder',
    async () => {
      const target = await createCliTarget(dialect);
      try {
        const dir = join(target.dir, 'data');
        const url = `sqlite:${join(dir, 'wharf.db')}`;
        expect((await run(['company', 'add', 'ACME', '--db', url])).code).toBe(0);
        // The -wal and -shm files exist while a connection is open.
        const open = connectDatabase(url);
        try {
          expect((await open.selectFrom('companies').select('company_id').execute()).map((row) => row.company_id)).toEqual(['ACME']);
          expect(readdirSync(dir).sort()).toEqual(['wharf.db', 'wharf.db-shm', 'wharf.db-wal']);
          expect(readdirSync(dir).map((name) => [name, modeOf(join(dir, name))])).toEqual(readdirSync(dir).map((name) => [name, '600']));
        } finally {
          await open.destroy();
        }
        expect(modeOf(dir)).toBe('700');
      } finally {
        await target.destroy();
      }
    },
  );
});
