import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The ledger keeps no foreign keys to customers and facilities. Every ledger row is written by a
 * posting together with the change of its balance, whose own foreign keys name the same company,
 * customer and facility, and nothing deletes a customer or a facility; the ledger, like the events
 * and the ACKs, is an append-only record. The two checks a row cost every posting line a lookup
 * and a lock of the customer's and the facility's rows: a third of PostgreSQL's time for the
 * ledger insert of a 20-line adjustment (docs/performance.md).
 *
 * SQLite cannot drop a constraint: the table is rebuilt without them (its documented procedure:
 * create, copy, drop, rename), with the same columns, ids and indexes. Nothing refers to the
 * ledger, so dropping the old table checks nothing.
 */

const LEDGER_INDEXES = [
  ['inventory_ledger_customer_idx', ['company_id', 'customer_id', 'created_at', 'id']],
  ['inventory_ledger_item_idx', ['company_id', 'customer_id', 'item_id', 'created_at', 'id']],
  ['inventory_ledger_facility_idx', ['company_id', 'facility_id', 'created_at', 'id']],
  ['inventory_ledger_source_idx', ['company_id', 'source_type', 'source_id']],
  ['inventory_ledger_facility_item_idx', ['company_id', 'facility_id', 'item_id', 'created_at', 'id']],
] as const;

const COLUMNS = [
  'id',
  'company_id',
  'customer_id',
  'facility_id',
  'item_id',
  'uom',
  'lot_no',
  'goods_type',
  'title_id',
  'inventory_status',
  'expiration_date',
  'quantity',
  'on_hand_after',
  'source_type',
  'source_id',
  'source_line',
  'key_id',
  'created_at',
] as const;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** SQLite: the ledger rebuilt with its columns, ids and indexes, and with the foreign keys or without. */
async function rebuildSqliteLedger(db: Kysely<any>, withForeignKeys: boolean): Promise<void> {
  await db.schema
    .createTable('inventory_ledger_rebuilt')
    .addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement())
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('lot_no', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('goods_type', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('title_id', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('inventory_status', 'varchar(20)', (col) => col.notNull())
    .addColumn('expiration_date', 'varchar(10)', (col) => col.notNull().defaultTo(''))
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('on_hand_after', 'bigint', (col) => col.notNull())
    .addColumn('source_type', 'varchar(20)', (col) => col.notNull())
    .addColumn('source_id', 'varchar(100)', (col) => col.notNull())
    .addColumn('source_line', 'varchar(100)', (col) => col.notNull().defaultTo(''))
    .addColumn('key_id', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .$call((table) =>
      withForeignKeys
        ? table
            .addForeignKeyConstraint('inventory_ledger_customer_fk', ['company_id', 'customer_id'], 'customers', [
              'company_id',
              'customer_id',
            ])
            .addForeignKeyConstraint('inventory_ledger_facility_fk', ['company_id', 'facility_id'], 'facilities', [
              'company_id',
              'facility_id',
            ])
        : table,
    )
    .execute();
  await db
    .insertInto('inventory_ledger_rebuilt')
    .columns([...COLUMNS])
    .expression((eb) => eb.selectFrom('inventory_ledger').select([...COLUMNS]))
    .execute();
  await db.schema.dropTable('inventory_ledger').execute();
  // SQLite renames the table's AUTOINCREMENT counter with it: ids are never reused.
  await db.schema.alterTable('inventory_ledger_rebuilt').renameTo('inventory_ledger').execute();
  for (const [name, columns] of LEDGER_INDEXES) {
    await db.schema
      .createIndex(name)
      .on('inventory_ledger')
      .columns([...columns])
      .execute();
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return rebuildSqliteLedger(db, false);
  await sql`alter table inventory_ledger drop constraint inventory_ledger_customer_fk, drop constraint inventory_ledger_facility_fk`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return rebuildSqliteLedger(db, true);
  await db.schema
    .alterTable('inventory_ledger')
    .addForeignKeyConstraint('inventory_ledger_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .execute();
  await db.schema
    .alterTable('inventory_ledger')
    .addForeignKeyConstraint('inventory_ledger_facility_fk', ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
    .execute();
}
