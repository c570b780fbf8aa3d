import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * On PostgreSQL the documents dropped their foreign keys to customers and facilities (migration
 * 2026-11-29T0900); SQLite keeps them. The down step puts them back.
 */

const MIGRATION = '2026-11-29T0900-documents-without-tenant-locks';
const BEFORE = migrationBefore(MIGRATION);
const DOCUMENTS = ['inventory_adjustments', 'orders', 'receipts'];
const TENANT_KEYS = [
  'inventory_adjustments.customers',
  'inventory_adjustments.facilities',
  'orders.customers',
  'orders.facilities',
  'receipts.customers',
  'receipts.facilities',
];

describeEachDialect('the documents-without-tenant-locks migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);

  /** Each document table's foreign keys to the tenant tables, as `table.referenced`. */
  const tenantKeys = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{ key: string }>`
            select distinct m.name || '.' || f."table" as key from sqlite_master m, pragma_foreign_key_list(m.name) f
            where m.type = 'table' and m.name in (${sql.join(DOCUMENTS)}) and f."table" in ('customers', 'facilities')`.execute(database.db)
        : await sql<{ key: string }>`
            select c.conrelid::regclass::text || '.' || c.confrelid::regclass::text as key from pg_constraint c
            where c.contype = 'f' and c.conrelid::regclass::text in (${sql.join(DOCUMENTS)})
              and c.confrelid::regclass::text in ('customers', 'facilities')`.execute(database.db);
    return rows.map((row) => row.key).sort();
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it(dialect === 'postgres' ? 'drops the six keys' : 'keeps the six keys', async () => {
    expect(await tenantKeys()).toEqual(TENANT_KEYS);
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    expect(await tenantKeys()).toEqual(dialect === 'postgres' ? [] : TENANT_KEYS);
  });

  it('goes back down to the six keys', async () => {
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    expect(await tenantKeys()).toEqual(TENANT_KEYS);
  });
});
