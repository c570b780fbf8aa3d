import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { createTestDatabase, describeEachDialect } from './helpers/dialects.js';

/**
 * `wharf backup <file>`: on SQLite an online copy that opens as the database, with everything
 * committed (the WAL's last commits included); on PostgreSQL the pg_dump command to run, whose dump
 * restores. Without pg_dump or pg_restore that restore is skipped with a message, except under CI,
 * where that fails.
 */

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
