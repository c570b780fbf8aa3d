import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import { dialectNameOf, dialectNameOfDb, isTransientConflict, isUniqueViolation } from '../src/db/dialect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { inTransaction } from '../src/db/transaction.js';
import { openDatabase } from '../src/server.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';

const MIGRATION_NAMES = Object.keys(migrations);
const TABLES = [
  'acks',
  'admin_changes',
  'api_keys',
  'companies',
  'customers',
  'event_sequencer',
  'events',
  'facilities',
  'idempotency_records',
  'inventory_adjustments',
  'inventory_balances',
  'inventory_ledger',
  'items',
  'order_allocations',
  'order_confirmations',
  'order_events',
  'order_line_shortages',
  'order_lines',
  'orders',
  'rate_cards',
  'rate_limit_windows',
  'receipt_confirmations',
  'receipt_events',
  'receipt_lines',
  'receipts',
  'search_counts',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoint_facilities',
  'webhook_endpoints',
  'webhook_fanout',
  'x12_identities',
  'x12_interchanges',
  'x12_outbox',
  'x12_partners',
];
/**
 * SQLite has no sequences: a counters table stands in for them. Its ledger's item index is a table
 * kept behind the writes, with its mark.
 */
const tablesOf = (dialect: string) =>
  dialect === 'sqlite' ? [...TABLES, 'counters', 'inventory_ledger_items', 'inventory_ledger_items_mark'].sort() : TABLES;

async function tableNames(db: Db): Promise<string[]> {
  return (await db.introspection.getTables()).map((t) => t.name).sort();
}

describeEachDialect('migrations', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('create every table, in order, and are idempotent', async () => {
    expect(await tableNames(database.db)).toEqual([]);
    expect(await migrateToLatest(database.db)).toEqual(MIGRATION_NAMES);
    expect(MIGRATION_NAMES).toEqual([...MIGRATION_NAMES].sort());
    expect(await tableNames(database.db)).toEqual(tablesOf(dialect));

    expect(await migrateToLatest(database.db)).toEqual([]);
    expect(await tableNames(database.db)).toEqual(tablesOf(dialect));
    const executed = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
    expect(executed.rows.map((r) => r.name)).toEqual(MIGRATION_NAMES);
  });

  it('give api_keys a unique key_hash and the tenant tables their keys', async () => {
    const db = database.db;
    const clock = new TestClock();
    const companyId = uniqueId('CO');
    await tenants.addCompany(db, clock, { companyId });
    const row = {
      key_hash: 'a'.repeat(64),
      role: 'admin',
      company_id: companyId,
      label: '',
      created_at: 1,
      customer_ids: '[]',
      facility_ids: '[]',
      user_ids: '[]',
    };
    await db.insertInto('api_keys').values(row).execute();
    const duplicate = await db
      .insertInto('api_keys')
      .values(row)
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    // a key of an unknown company is refused by the foreign key on both databases
    const orphan = await db
      .insertInto('api_keys')
      .values({ ...row, key_hash: 'b'.repeat(64), company_id: 'NOPE' })
      .execute()
      .catch((e: unknown) => e);
    expect(orphan).toBeInstanceOf(Error);
  });
});

describeEachDialect('migrations run in a transaction', (dialect) => {
  // On SQLite this is what serialises migrators in several processes (BEGIN IMMEDIATE) and keeps a
  // failed migration from leaving half a schema; Kysely's own SQLite adapter runs them bare.
  it('rolls back a migration that fails half-way', async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: {
          getMigrations: async () => ({
            '0001-half': {
              up: async (db: Kysely<any>) => {
                await db.schema.createTable('half_done').addColumn('id', 'integer').execute();
                throw new Error('second statement fails');
              },
            },
          }),
        },
      });
      const { error } = await migrator.migrateToLatest();
      expect((error as Error).message).toBe('second statement fails');
      const tables = (await database.db.introspection.getTables()).map((t) => t.name);
      expect(tables).not.toContain('half_done');
    } finally {
      await database.destroy();
    }
  });
});

describeEachDialect('concurrent migrations', (dialect) => {
  it.skipIf(dialect !== 'postgres')('two pools migrating one fresh PostgreSQL database at once both succeed', async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    const other = connectDatabase(database.url, { poolSize: 2 });
    try {
      const results = await Promise.allSettled([migrateToLatest(database.db), migrateToLatest(other)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      expect(applied.sort()).toEqual(MIGRATION_NAMES);
      expect(await tableNames(database.db)).toEqual(TABLES);
    } finally {
      await other.destroy();
      await database.destroy();
    }
  });
});

describe('SQLite file database', () => {
  let dir: string;
  let file: string;
  const opened: Db[] = [];
  const raw: SqliteDatabase.Database[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wharf-db-'));
    file = join(dir, 'nested', 'wharf.db');
  });
  afterAll(async () => {
    for (const r of raw) r.close();
    for (const db of opened) await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (options: Parameters<typeof connectDatabase>[1] = {}) => {
    const db = connectDatabase(`sqlite:${file}`, options);
    opened.push(db);
    return db;
  };
  const rawConnection = () => {
    const r = new SqliteDatabase(file);
    r.pragma('busy_timeout = 0');
    raw.push(r);
    return r;
  };
  const pragma = async (db: Db, name: string) => {
    const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db);
    return Object.values(rows[0] ?? {})[0];
  };

  it('prepares a statement once per SQL text and runs it again with new parameters', async () => {
    const db = open();
    await migrateToLatest(db);
    const prepare = vi.spyOn(SqliteDatabase.prototype, 'prepare');
    try {
      const names = [];
      for (const companyId of ['CO-A', 'CO-B', 'CO-C']) {
        await db.insertInto('companies').values({ company_id: companyId, name: companyId, created_at: 1 }).execute();
        names.push((await db.selectFrom('companies').select('name').where('company_id', '=', companyId).executeTakeFirst())?.name);
      }
      expect(names).toEqual(['CO-A', 'CO-B', 'CO-C']);
      const texts = prepare.mock.calls.map(([text]) => text);
      expect(texts.filter((text) => text.startsWith('insert into "companies"'))).toHaveLength(1);
      expect(texts.filter((text) => text.startsWith('select "name" from "companies"'))).toHaveLength(1);
    } finally {
      prepare.mockRestore();
    }
  });

  it('is created with its directory and opened with WAL, synchronous FULL, foreign keys, temporary files in memory and a busy timeout', async () => {
    const db = open();
    expect(dialectNameOfDb(db)).toBe('sqlite');
    await migrateToLatest(db);
    expect(await pragma(db, 'journal_mode')).toBe('wal');
    expect(await pragma(db, 'synchronous')).toBe(2);
    expect(await pragma(db, 'foreign_keys')).toBe(1);
    expect(await pragma(db, 'temp_store')).toBe(2);
    expect(await pragma(db, 'busy_timeout')).toBe(2000);
  });

  it('uses synchronous NORMAL when asked, directly or through SQLITE_SYNCHRONOUS', async () => {
    expect(await pragma(open({ sqliteSynchronous: 'NORMAL' }), 'synchronous')).toBe(1);
    expect(await pragma(open({ sqliteSynchronous: 'FULL' }), 'synchronous')).toBe(2);
    const viaConfig = openDatabase(loadConfig({ databaseUrl: `sqlite:${file}` }, { SQLITE_SYNCHRONOUS: 'NORMAL' }));
    opened.push(viaConfig);
    expect(await pragma(viaConfig, 'synchronous')).toBe(1);
    const byDefault = openDatabase(loadConfig({ databaseUrl: `sqlite:${file}` }, {}));
    opened.push(byDefault);
    expect(await pragma(byDefault, 'synchronous')).toBe(2);
  });

  it('starts transactions with BEGIN IMMEDIATE: the write lock is held before anything is written', async () => {
    const db = open();
    await migrateToLatest(db);
    const other = rawConnection();
    let inside: unknown;
    await db.transaction().execute(async () => {
      // nothing read or written yet in this transaction
      try {
        other.exec('BEGIN IMMEDIATE');
        other.exec('ROLLBACK');
      } catch (error) {
        inside = error;
      }
    });
    expect(inside).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(isTransientConflict(inside)).toBe(true);
    // once the transaction has ended the lock is free again
    other.exec('BEGIN IMMEDIATE');
    other.exec('ROLLBACK');
  });

  it('(control) a plain deferred BEGIN would not have taken the lock', () => {
    const first = rawConnection();
    const other = rawConnection();
    first.exec('BEGIN');
    try {
      expect(() => {
        other.exec('BEGIN IMMEDIATE');
        other.exec('ROLLBACK');
      }).not.toThrow();
    } finally {
      first.exec('ROLLBACK');
    }
  });

  it('waits up to busy_timeout for a writer instead of failing at once', async () => {
    const db = open();
    await migrateToLatest(db);
    const other = rawConnection();
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const error = await db
      .transaction()
      .execute(async () => {})
      .catch((e: unknown) => e);
    const waited = Date.now() - started;
    other.exec('ROLLBACK');
    expect(error).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(waited).toBeGreaterThanOrEqual(1500);
    expect(waited).toBeLessThan(5000);
  });
});

describe('database URLs', () => {
  it('name their dialect and refuse anything else', () => {
    expect(dialectNameOf('sqlite::memory:')).toBe('sqlite');
    expect(dialectNameOf('sqlite:./data/wharf.db')).toBe('sqlite');
    expect(dialectNameOf('postgres://u@h/d')).toBe('postgres');
    expect(dialectNameOf('postgresql://u@h/d')).toBe('postgres');
    expect(() => dialectNameOf('mysql://x')).toThrow(/sqlite: or postgres/);
  });
});

describeEachDialect('database access', (dialect) => {
  let database: TestDatabase;
  const clock = new TestClock();
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('returns counts, sums and bigint columns as JS numbers', async () => {
    const db = database.db;
    expect(dialectNameOfDb(db)).toBe(dialect);
    const companyId = uniqueId('CO');
    await tenants.addCompany(db, clock, { companyId });
    await tenants.addCustomer(db, clock, { companyId, customerId: 'C1' });
    await tenants.addCustomer(db, clock, { companyId, customerId: 'C2' });
    const counted = await db
      .selectFrom('customers')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('created_at').as('total'), eb.fn.max('created_at').as('latest')])
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    expect(counted).toEqual({ n: 2, total: 2 * clock.now(), latest: clock.now() });
    const company = await db.selectFrom('companies').select('created_at').where('company_id', '=', companyId).executeTakeFirstOrThrow();
    expect(company.created_at).toBe(clock.now());
    const { rows } = await sql<{
      big: unknown;
      dec: unknown;
    }>`select cast(${2 ** 52} as bigint) + 1 as big, cast(12.0 as numeric) as dec`.execute(db);
    expect(rows[0]).toEqual({ big: 2 ** 52 + 1, dec: 12 });
  });

  it.skipIf(dialect !== 'postgres')('refuses an int8 beyond the exact range instead of rounding it', async () => {
    await expect(sql`select cast('9007199254740993' as bigint) as v`.execute(database.db)).rejects.toThrow(RangeError);
  });

  it('inTransaction runs a transaction that lost to a unique violation again, and it then succeeds', async () => {
    const db = database.db;
    const taken = uniqueId('CO');
    const fresh = uniqueId('CO');
    await tenants.addCompany(db, clock, { companyId: taken });
    let attempts = 0;
    const result = await inTransaction(db, async (trx) => {
      attempts++;
      await trx.insertInto('companies').values({ company_id: fresh, name: 'x', created_at: 1 }).execute();
      // the first attempt collides with a row "a concurrent writer" inserted; the retry sees it
      const id = attempts === 1 ? taken : uniqueId('CO');
      await trx.insertInto('companies').values({ company_id: id, name: 'x', created_at: 1 }).execute();
      return id;
    });
    expect(attempts).toBe(2);
    const stored = await db.selectFrom('companies').select('company_id').where('company_id', 'in', [fresh, result]).execute();
    expect(stored.map((r) => r.company_id).sort()).toEqual([fresh, result].sort());
  });

  it('inTransaction does not retry an ordinary error, and rolls it back', async () => {
    const db = database.db;
    const companyId = uniqueId('CO');
    let attempts = 0;
    const error = await inTransaction(db, async (trx) => {
      attempts++;
      await trx.insertInto('companies').values({ company_id: companyId, name: 'x', created_at: 1 }).execute();
      throw new Error('boom');
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'boom' });
    expect(attempts).toBe(1);
    expect(await db.selectFrom('companies').select('company_id').where('company_id', '=', companyId).executeTakeFirst()).toBeUndefined();
  });

  it('inTransaction gives up on a conflict that does not go away', async () => {
    const db = database.db;
    const taken = uniqueId('CO');
    await tenants.addCompany(db, clock, { companyId: taken });
    let attempts = 0;
    const error = await inTransaction(db, async (trx) => {
      attempts++;
      await trx.insertInto('companies').values({ company_id: taken, name: 'x', created_at: 1 }).execute();
    }).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThanOrEqual(10);
  });
});
