import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * On SQLite the ledger's item index became a table filled behind the writes (migration
 * 2026-11-29T1000): the migration fills it with every posting already there and marks the last;
 * PostgreSQL keeps the index. The down step puts the index back.
 */

const MIGRATION = '2026-11-29T1000-ledger-items-behind';
const BEFORE = migrationBefore(MIGRATION);
const ITEM_INDEX = 'inventory_ledger_facility_item_idx';

describeEachDialect('the ledger-items-behind migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);

  const ledgerIndexes = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'inventory_ledger' and sql is not null`.execute(database.db)
        : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'inventory_ledger'`.execute(database.db);
    return rows.map((row) => row.name).sort();
  };
  const tables = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like 'inventory_ledger_items%'`.execute(
            database.db,
          )
        : await sql<{ name: string }>`select tablename as name from pg_tables where tablename like 'inventory_ledger_items%'`.execute(
            database.db,
          );
    return rows.map((row) => row.name).sort();
  };

  const posting = (n: number) => ({
    company_id: 'CO',
    customer_id: 'CU',
    facility_id: `F${n % 2}`,
    item_id: `I${n % 3}`,
    uom: 'EA',
    lot_no: '',
    goods_type: '',
    title_id: '',
    inventory_status: 'Available',
    expiration_date: '',
    quantity: 10_000,
    on_hand_after: 10_000 * n,
    source_type: 'adjustment',
    source_id: `A-${n}`,
    source_line: '',
    key_id: null,
    created_at: 1_700_000_000_000 + n,
  });

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    await database.db.insertInto('inventory_ledger').values([1, 2, 3, 4, 5].map(posting)).execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it(
    dialect === 'sqlite' ? 'moves the item index into a table holding every posting, marked up to the last' : 'keeps the item index',
    async () => {
      expect(await ledgerIndexes()).toContain(ITEM_INDEX);
      expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
      if (dialect === 'postgres') {
        expect(await ledgerIndexes()).toContain(ITEM_INDEX);
        expect(await tables()).toEqual([]);
        return;
      }
      expect(await ledgerIndexes()).not.toContain(ITEM_INDEX);
      expect(await tables()).toEqual(['inventory_ledger_items', 'inventory_ledger_items_mark']);
      const items =
        await sql`select * from inventory_ledger_items order by company_id, facility_id, item_id, created_at, ledger_id`.execute(
          database.db,
        );
      expect(items.rows).toEqual([
        { company_id: 'CO', facility_id: 'F0', item_id: 'I1', created_at: 1_700_000_000_004, ledger_id: 4 },
        { company_id: 'CO', facility_id: 'F0', item_id: 'I2', created_at: 1_700_000_000_002, ledger_id: 2 },
        { company_id: 'CO', facility_id: 'F1', item_id: 'I0', created_at: 1_700_000_000_003, ledger_id: 3 },
        { company_id: 'CO', facility_id: 'F1', item_id: 'I1', created_at: 1_700_000_000_001, ledger_id: 1 },
        { company_id: 'CO', facility_id: 'F1', item_id: 'I2', created_at: 1_700_000_000_005, ledger_id: 5 },
      ]);
      expect((await sql`select * from inventory_ledger_items_mark`.execute(database.db)).rows).toEqual([{ id: 1, last_ledger_id: 5 }]);
    },
  );

  it('goes back down to the item index', async () => {
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    expect(await ledgerIndexes()).toContain(ITEM_INDEX);
    expect(await tables()).toEqual([]);
  });
});
