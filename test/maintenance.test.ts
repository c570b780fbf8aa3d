import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshStatistics } from '../src/db/dialect.js';
import { startMaintenance } from '../src/db/maintenance.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * The maintenance of a serving or working process (docs/operations.md, "Maintenance"): SQLite gets
 * PRAGMA optimize at start and every hour; PostgreSQL, where its autovacuum is off, a warning at
 * start and an ANALYZE of each table that changed by a tenth since its last one, as autovacuum
 * would have done; a table that did not change is left alone.
 */

const RECORDS = 2000;

/** A log that keeps what it is told. */
function capturingLog() {
  const lines: { level: 'info' | 'warn'; fields: unknown; message: string }[] = [];
  return {
    lines,
    info: (fields: object, message: string) => void lines.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields, message }),
  };
}

const record = (i: number) => ({
  company_id: 'CO',
  key_id: 1,
  idempotency_key: `k-${i}`,
  request_hash: 'h'.repeat(64),
  refusal_kind: null,
  response_body: '{}',
  created_at: i,
});

const WARNING =
  "PostgreSQL's autovacuum is off: Wharf analyses the tables that changed by a tenth every hour, but nothing vacuums them; turn autovacuum on, or run vacuumdb on a schedule (docs/operations.md)";

describeEachDialect('database maintenance', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database?.destroy());

  it.runIf(dialect === 'sqlite')('gathers what statistics are missing at start, and nothing again while nothing changed', async () => {
    const { db } = database;
    for (let i = 0; i < RECORDS; i += 250)
      await db
        .insertInto('idempotency_records')
        .values(Array.from({ length: 250 }, (_, j) => record(i + j)))
        .execute();
    const statistics = async () =>
      (
        await sql<{ tbl: string; stat: string }>`select tbl, stat from sqlite_stat1 where tbl = 'idempotency_records' order by idx`.execute(
          db,
        )
      ).rows;
    await expect(statistics()).rejects.toThrow(/no such table: sqlite_stat1/);

    const log = capturingLog();
    const maintenance = await startMaintenance(db, log);
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual([]);
    const [gathered] = log.lines;
    expect(gathered).toMatchObject({ level: 'info', message: 'planner statistics gathered' });
    expect((gathered!.fields as { analysed: string[] }).analysed).toEqual(['idempotency_records']);
    // Its two indexes, each with the rows it counted.
    expect((await statistics()).map((row) => row.stat.split(' ')[0])).toEqual([String(RECORDS), String(RECORDS)]);
    // A table of a few rows keeps none: SQLite would plan for that few as it grows.
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    expect(await maintenance.run()).toEqual([]);
    const { rows } = await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1 order by tbl`.execute(db);
    expect(rows).toEqual([{ tbl: 'idempotency_records' }]);

    expect(await maintenance.run()).toEqual([]);
    expect(log.lines).toHaveLength(1);
  });

  it.runIf(dialect === 'postgres')('warns at start when autovacuum is off, and analyses only what it would analyse', async () => {
    const { db } = database;
    const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(db);
    const off = rows[0]!.autovacuum === 'off';
    const log = capturingLog();
    await startMaintenance(db, log);
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual(
      off ? [{ level: 'warn', fields: { autovacuum: 'off' }, message: WARNING }] : [],
    );
  });

  it.runIf(dialect === 'postgres')('analyses a table that changed by a tenth since its last analysis, once', async () => {
    const { db } = database;
    // Whatever the server's setting, autovacuum leaves this table to the test.
    await sql`alter table idempotency_records set (autovacuum_enabled = false)`.execute(db);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (let i = 0; i < RECORDS; i++) {
        const row = record(i);
        await client.query(
          'insert into idempotency_records (company_id, key_id, idempotency_key, request_hash, refusal_kind, response_body, created_at) values ($1, $2, $3, $4, $5, $6, $7)',
          Object.values(row),
        );
      }
      // The counts of this session's changes reach pg_stat_user_tables now, not within a second.
      await client.query('select pg_stat_force_next_flush()');
    } finally {
      await client.end();
    }
    const analyses = async () =>
      (
        await sql<{ analyses: number; last: Date | null }>`select analyze_count as analyses, last_analyze as last
          from pg_stat_user_tables where relname = 'idempotency_records'`.execute(db)
      ).rows.map((row) => ({ analyses: Number(row.analyses), analysed: row.last !== null }));
    expect(await analyses()).toEqual([{ analyses: 0, analysed: false }]);

    expect(await refreshStatistics(db)).toContain('idempotency_records');
    expect(await analyses()).toEqual([{ analyses: 1, analysed: true }]);
    expect(await refreshStatistics(db)).not.toContain('idempotency_records');
    expect(await analyses()).toEqual([{ analyses: 1, analysed: true }]);
  });

  it.runIf(dialect === 'postgres')('gives the hot tables their autovacuum thresholds', async () => {
    const options = async (table: string) =>
      (await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = ${table}`.execute(database.db)).rows[0]!
        .options;
    expect(await options('events')).toEqual(
      expect.arrayContaining(['autovacuum_vacuum_scale_factor=0.01', 'autovacuum_analyze_scale_factor=0.05', 'fillfactor=50']),
    );
    expect(await options('inventory_ledger')).toEqual([
      'autovacuum_vacuum_insert_scale_factor=0.05',
      'autovacuum_analyze_scale_factor=0.02',
    ]);
    expect(await options('orders')).toEqual(['autovacuum_vacuum_scale_factor=0.05', 'autovacuum_analyze_scale_factor=0.02']);
  });
});
