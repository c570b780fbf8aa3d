import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';
import { expectGracefulStops, freePorts, runWharf, startWharf, waitReady, type Wharf } from './helpers/processes.js';
import { createTenant, itKeepsTheInvariants, PROCESS_TEST_MS, type Tenant } from './helpers/two-processes.js';

/**
 * docs/operations.md, proven item 4: two `wharf serve` processes behind PgBouncer in transaction pooling
 * (Debian's `pgbouncer`) keep every invariant they keep on PostgreSQL directly
 * (test/helpers/two-processes.ts). The test runs its own pgbouncer on a free port in front of a
 * fresh database, with a pool smaller than the processes' connections so that server connections
 * really pass from client to client, and handed out round robin so that two transactions of one
 * client rarely meet the same server session: whatever relied on session state (SET, session
 * advisory locks, LISTEN) would break here, and so would named prepared statements, which Wharf
 * therefore sends unnamed behind it (PG_PREPARED_STATEMENTS=false). The schema is migrated
 * through it too, by the CLI and by both processes starting at once.
 *
 * Without the pgbouncer binary the test is skipped with a message, except under CI, where that fails.
 */

const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;
/** Server connections PgBouncer keeps to the database: fewer than the processes' 2 × 10. */
const POOL_SIZE = 4;

/** Debian installs pgbouncer in /usr/sbin, which a PATH other than root's may leave out. */
function findPgbouncer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin']) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'pgbouncer'), constants.X_OK);
      return join(dir, 'pgbouncer');
    } catch {
      // Not there.
    }
  }
  return undefined;
}

const PGBOUNCER = postgresEnabled ? findPgbouncer() : undefined;
if (postgresEnabled && !PGBOUNCER) {
  if (process.env.CI) throw new Error('CI needs pgbouncer (Debian package pgbouncer, which .ci/run installs), and none is installed');
  console.warn('\n*** pgbouncer is not installed (apt-get install pgbouncer): the PgBouncer test is SKIPPED ***\n');
}

interface PgBouncer {
  child: ChildProcess;
  /** Everything it logged (it logs to stderr when it has no logfile). */
  output: string[];
  exit: Promise<unknown>;
  exited: boolean;
}

/** A connection string for `database` on the server `url` names, through the pgbouncer on `port`. */
function throughPort(url: string, port: number, database?: string): string {
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  if (database) through.pathname = `/${database}`;
  return through.toString();
}

/**
 * Starts pgbouncer on `port` in front of the database `databaseUrl` names, in transaction pooling,
 * with its ini and userlist files in `dir`. It trusts its clients and logs in to PostgreSQL as the
 * URL's user (with its password, if it has one). It refuses to run as root: root starts it as `nobody`.
 */
function startPgbouncer(dir: string, port: number, databaseUrl: string): PgBouncer {
  const target = new URL(databaseUrl);
  const database = decodeURIComponent(target.pathname.slice(1));
  const user = decodeURIComponent(target.username) || 'postgres';
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
  writeFileSync(join(dir, 'userlist.txt'), `${quoted(user)} ${quoted(decodeURIComponent(target.password))}\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // TCP only: no socket file in a directory the test does not own.
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      // Every idle server connection in turn, not the most recent one: a client's next transaction
      // lands on another server session whenever there is one.
      'server_round_robin = 1',
      `default_pool_size = ${POOL_SIZE}`,
      `max_db_connections = ${POOL_SIZE}`,
      'reserve_pool_size = 0',
      // Two processes × 10 connections, and the CLI's.
      'max_client_conn = 50',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(PGBOUNCER!, [...asRoot, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const bouncer: PgBouncer = {
    child,
    output: [],
    exited: false,
    exit: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        bouncer.exited = true;
        resolve({ code, signal });
      }),
    ),
  };
  child.stdout!.on('data', (chunk) => bouncer.output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => bouncer.output.push(String(chunk)));
  return bouncer;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once a query through pgbouncer reaches the database; rejects with its log if it exits first. */
async function waitAccepting(bouncer: PgBouncer, url: string): Promise<void> {
  for (;;) {
    if (bouncer.exited) throw new Error(`pgbouncer exited before it accepted connections:\n${bouncer.output.join('')}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch {
      // Not listening yet.
    } finally {
      await client.end().catch(() => {});
    }
    await pause(50);
  }
}

/** Rows of a SHOW command of pgbouncer's admin console (simple queries only, as pg sends without parameters). */
async function adminShow(url: string, command: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(command)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgresEnabled || !PGBOUNCER)('two Wharf processes behind PgBouncer in transaction pooling', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-pgbouncer-'));
  // Debian's PgBouncer (1.18) keeps no prepared statements in transaction pooling (docs/operations.md).
  const env = { ...process.env, LOG_LEVEL: 'warn', PG_PREPARED_STATEMENTS: 'false' };
  let database: TestDatabase | undefined;
  let bouncer: PgBouncer | undefined;
  let bouncerPort: number;
  let databaseName: string;
  const wharfs: Wharf[] = [];
  let tenant: Tenant;

  /** The test database, through pgbouncer: what the CLI and both processes are given as `--db`. */
  const viaBouncer = () => throughPort(database!.url, bouncerPort);
  const cli = (...args: string[]): Promise<string> => runWharf([...args, '--db', viaBouncer()], env);

  beforeAll(async () => {
    // Not migrated here: the first CLI command migrates through pgbouncer, and so do both processes.
    database = await createTestDatabase('postgres', { migrate: false });
    databaseName = decodeURIComponent(new URL(database.url).pathname.slice(1));
    const [portA, portB, portBouncer] = await freePorts(3);
    bouncerPort = portBouncer!;
    bouncer = startPgbouncer(workDir, bouncerPort, database.url);
    await waitAccepting(bouncer, viaBouncer());

    tenant = await createTenant(cli);
    wharfs.push(startWharf('wharf A', viaBouncer(), portA!, [], env), startWharf('wharf B', viaBouncer(), portB!, [], env));
    await Promise.all(wharfs.map(waitReady));
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    try {
      // Graceful shutdown through pgbouncer too.
      await expectGracefulStops(wharfs);
    } finally {
      try {
        if (bouncer && !bouncer.exited) {
          bouncer.child.kill('SIGTERM');
          await bouncer.exit;
        }
      } finally {
        // Drops the database even if pgbouncer still held connections to it (WITH (FORCE)).
        await database?.destroy();
        rmSync(workDir, { recursive: true, force: true });
      }
    }
  }, PROCESS_TEST_MS);

  itKeepsTheInvariants(() => ({ database: database!, wharfs: wharfs as [Wharf, Wharf], tenant, cli }));

  it(
    'pgbouncer carried all of it in transaction pooling, for more clients than server connections, and no lock outlived its transaction',
    async () => {
      const admin = throughPort(database!.url, bouncerPort, 'pgbouncer');
      const pools = (await adminShow(admin, 'SHOW POOLS')).filter((row) => row.database === databaseName);
      expect(pools.map((row) => row.pool_mode)).toEqual(['transaction']);
      const [stats] = (await adminShow(admin, 'SHOW STATS')).filter((row) => row.database === databaseName);
      // Every request above made at least one transaction, and every one went through pgbouncer.
      expect(Number(stats!.total_xact_count)).toBeGreaterThan(500);
      // The CLI commands and both processes logged in as more clients than the pool has server connections.
      const logins = bouncer!.output.join('').match(new RegExp(`login attempt: db=${databaseName} `, 'g')) ?? [];
      expect(logins.length).toBeGreaterThan(POOL_SIZE);

      // A session-level advisory lock (one taken by a statement, released by another that may reach
      // another server session) would still be held by some server session now.
      const { rows } = await sql<{ locks: number }>`
        select count(*)::int as locks from pg_locks
        where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
      `.execute(database!.db);
      expect(rows).toEqual([{ locks: 0 }]);
    },
    PROCESS_TEST_MS,
  );
});
