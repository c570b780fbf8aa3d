import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * The ledger dropped its foreign keys to customers and facilities (migration 2026-11-28T1000). Every
 * posting made before keeps its row and its id, the ids go on after the last one, the indexes stay,
 * and the down step puts the keys back, keeping the rows.
 */

const MIGRATION = '2026-11-28T1000-ledger-without-foreign-keys';
const BEFORE = migrationBefore(MIGRATION);

describeEachDialect('the ledger-without-foreign-keys migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);

  const posting = (n: number, customerId = 'CU') => ({
    company_id: 'CO',
    customer_id: customerId,
    facility_id: 'F1',
    item_id: `I-${n}`,
    uom: 'EA',
    lot_no: '',
    goods_type: '',
    title_id: '',
    inventory_status: 'Available',
    expiration_date: '',
    quantity: n * 10_000,
    on_hand_after: n * 10_000,
    source_type: 'adjustment',
    source_id: `A-${n}`,
    source_line: '1',
    key_id: 1,
    created_at: n,
  });
  const ledger = async () =>
    (await database.db.selectFrom('inventory_ledger').select(['id', 'customer_id', 'item_id', 'quantity']).orderBy('id').execute()).map(
      (row) => ({ ...row, id: Number(row.id) }),
    );
  const foreignKeys = async (): Promise<string[]> => {
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ table: string }>`select distinct "table" from pragma_foreign_key_list('inventory_ledger')`.execute(
        database.db,
      );
      return rows.map((row) => row.table).sort();
    }
    const { rows } = await sql<{ conname: string }>`
      select conname from pg_constraint where conrelid = 'inventory_ledger'::regclass and contype = 'f' order by conname`.execute(
      database.db,
    );
    return rows.map((row) => row.conname);
  };
  const indexes = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'inventory_ledger' and sql is not null order by name`.execute(
            database.db,
          )
        : await sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = 'inventory_ledger' and indexname <> 'inventory_ledger_pk' order by indexname`.execute(
            database.db,
          );
    return rows.map((row) => row.name);
  };
  const LEDGER_INDEXES = [
    'inventory_ledger_customer_idx',
    'inventory_ledger_facility_idx',
    'inventory_ledger_facility_item_idx',
    'inventory_ledger_item_idx',
    'inventory_ledger_source_idx',
  ];

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    await database.db.insertInto('companies').values({ company_id: 'CO', name: 'CO', created_at: 1 }).execute();
    await database.db.insertInto('customers').values({ company_id: 'CO', customer_id: 'CU', name: 'CU', created_at: 1 }).execute();
    await database.db
      .insertInto('facilities')
      .values({ company_id: 'CO', facility_id: 'F1', name: 'F', time_zone: 'UTC', created_at: 1 })
      .execute();
    await database.db
      .insertInto('inventory_ledger')
      .values([posting(1), posting(2)])
      .execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('keeps every posting and its id, and the indexes, without the two foreign keys', async () => {
    const before = await ledger();
    expect(await foreignKeys()).toEqual(
      dialect === 'sqlite' ? ['customers', 'facilities'] : ['inventory_ledger_customer_fk', 'inventory_ledger_facility_fk'],
    );
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    expect(await ledger()).toEqual(before);
    expect(await foreignKeys()).toEqual([]);
    expect(await indexes()).toEqual(LEDGER_INDEXES);
  });

  it('numbers the next posting after the last one', async () => {
    const [last] = (await ledger()).slice(-1);
    await database.db.insertInto('inventory_ledger').values(posting(3)).execute();
    expect((await ledger()).map((row) => row.id)).toEqual([last!.id - 1, last!.id, last!.id + 1]);
  });

  it('goes back down to the foreign keys, keeping the postings', async () => {
    const before = await ledger();
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    expect(await ledger()).toEqual(before);
    expect(await foreignKeys()).toEqual(
      dialect === 'sqlite' ? ['customers', 'facilities'] : ['inventory_ledger_customer_fk', 'inventory_ledger_facility_fk'],
    );
    expect(await indexes()).toEqual(LEDGER_INDEXES);
  });
});
