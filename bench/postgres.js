/**
 * The benchmark's PostgreSQL: temporary databases on the server that BENCH_POSTGRES_URL names (by
 * default postgres://postgres@127.0.0.1:5432/postgres), created for one run and dropped at its end,
 * the server's durability and maintenance settings for the report, and the statistics a seeded
 * database is measured with.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `work` with a client connected to `url`, closing it afterwards. */
async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The databases one run creates; dropAll() removes each of them, and is safe to call more than once. */
export class TemporaryDatabases {
  #names = [];

  constructor(adminUrl) {
    this.adminUrl = adminUrl;
    this.prefix = `wharf_bench_${randomBytes(4).toString('hex')}`;
  }

  /**
   * What the server runs, how durable a commit is and whether autovacuum runs (it keeps the
   * planner's statistics; see vacuumAnalyze), read before anything is created.
   */
  async describeServer() {
    try {
      return await withClient(this.adminUrl, async (client) => {
        const setting = async (name) => (await client.query(`show ${name}`)).rows[0][name];
        return {
          version: await setting('server_version'),
          fsync: await setting('fsync'),
          synchronousCommit: await setting('synchronous_commit'),
          walSync: await setting('wal_sync_method'),
          autovacuum: await setting('autovacuum'),
        };
      });
    } catch (error) {
      throw new Error(
        `PostgreSQL at ${redact(this.adminUrl)} is not reachable (${error.message}); ` +
          'start it or set BENCH_POSTGRES_URL to a server where the user may create databases',
      );
    }
  }

  /** Creates `<prefix>_<suffix>` and returns its URL. */
  async create(suffix) {
    const name = `${this.prefix}_${suffix}`;
    // Remembered before CREATE, so that an interrupted run still drops it.
    this.#names.push(name);
    await withClient(this.adminUrl, (client) => client.query(`create database "${name}"`));
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** Drops every database created (closing any connection still open to it); returns the problems. */
  async dropAll() {
    const names = this.#names.splice(0);
    if (names.length === 0) return [];
    const problems = [];
    await withClient(this.adminUrl, async (client) => {
      for (const name of names) {
        try {
          await client.query(`drop database if exists "${name}" with (force)`);
        } catch (error) {
          problems.push(`could not drop ${name}: ${error.message}`);
        }
      }
    }).catch((error) => problems.push(`could not drop ${names.join(', ')}: ${error.message}`));
    return problems;
  }
}

/**
 * VACUUM ANALYZE of the database at `url`, once its seeding is done: what autovacuum does on its own
 * after a bulk load (it analyzes a table after 10% of it changed and vacuums one after 20% was
 * inserted), done at a fixed point so that every run measures with the same statistics, whether
 * autovacuum is off (as on a CI server) or merely has not come round yet. Without statistics the
 * planner takes a table of 100,000 seeded orders for an empty one: page 1 of the DN header query
 * sorts all of them, and the plan each pooled connection keeps for the foreign-key check of a new
 * order line (made while the table was empty) scans every order of the company through
 * orders_po_idx, so the seeding slows down as it goes. Answers how long it took, in seconds.
 */
export async function vacuumAnalyze(url) {
  const started = performance.now();
  await withClient(url, (client) => client.query('vacuum analyze'));
  return (performance.now() - started) / 1000;
}

/**
 * Readies the database at `url` for a measured run: ANALYZE, as autovacuum would have by then (it is
 * off on the bench's server, as on a CI server), and a CHECKPOINT (it needs a superuser, as the
 * bench's admin URL is). Without the ANALYZE the statistics stay those of the seeding: a table
 * seeded empty (the outbox bench's order lines) keeps looking empty, and a pooled connection's
 * cached plan for a foreign-key check into it can stay a sequential scan while it grows. After the
 * CHECKPOINT a run writes the same full pages to the WAL whichever side it measures, and the next
 * checkpoint the WAL's volume starts is minutes away.
 */
export async function readyForRun(url) {
  await withClient(url, async (client) => {
    await client.query('analyze');
    await client.query('checkpoint');
  });
}

/** The URL without its password, for messages. */
export function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** The size of the database at `url` on disk, in bytes (pg_database_size). */
export async function databaseBytes(url) {
  return withClient(url, async (client) =>
    Number((await client.query('select pg_database_size(current_database()) as bytes')).rows[0].bytes),
  );
}
