import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** 99999999999.9999 scaled by 10⁴: the largest quantity (11 integer digits). */
const MAX_SCALED = 999_999_999_999_999;

/**
 * The balance key after (company, customer, facility). Absent values are '' (inventory status
 * 'Available' by the service's default) and every column is NOT NULL, so that the primary key and
 * the upserts on it match on both databases (NULLs never compare equal in a unique key).
 */
function addBalanceKeyColumns<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  return table
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('lot_no', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('goods_type', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('title_id', 'varchar(50)', (col) => col.notNull().defaultTo(''))
    .addColumn('inventory_status', 'varchar(20)', (col) => col.notNull())
    .addColumn('expiration_date', 'varchar(10)', (col) => col.notNull().defaultTo(''));
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  // Quantities are BIGINT × 10⁴ (docs/decisions.md). The CHECKs are the last line of defence: the service
  // never lets a balance go below its allocation or past 11 integer digits, and reports why (409).
  await addBalanceKeyColumns(db.schema.createTable('inventory_balances'))
    .addColumn('on_hand', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('allocated', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('first_received_at', 'bigint')
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('inventory_balances_pk', [
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
    ])
    .addForeignKeyConstraint('inventory_balances_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .addForeignKeyConstraint('inventory_balances_facility_fk', ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
    .addCheckConstraint('inventory_balances_on_hand_check', sql`on_hand >= 0 and on_hand <= ${sql.lit(MAX_SCALED)}`)
    .addCheckConstraint('inventory_balances_allocated_check', sql`allocated >= 0 and allocated <= ${sql.lit(MAX_SCALED)}`)
    .addCheckConstraint('inventory_balances_allocated_on_hand_check', sql`allocated <= on_hand`)
    .execute();

  // The ledger's id orders postings (ties of created_at break on it). PostgreSQL: an identity
  // column under the key (company_id, id), which a table distributed by company_id needs (docs/operations.md, "Ready to shard").
  // SQLite: AUTOINCREMENT works only on a single-column INTEGER PRIMARY KEY (the rowid, never
  // reused); that key alone already makes (company_id, id) unique, and SQLite is never
  // distributed, so a second (company_id, id) index would cost every insert and buy nothing.
  const ledger = db.schema
    .createTable('inventory_ledger')
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    );
  await addBalanceKeyColumns(ledger)
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('on_hand_after', 'bigint', (col) => col.notNull())
    .addColumn('source_type', 'varchar(20)', (col) => col.notNull())
    .addColumn('source_id', 'varchar(100)', (col) => col.notNull())
    .addColumn('source_line', 'varchar(100)', (col) => col.notNull().defaultTo(''))
    .addColumn('key_id', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('inventory_ledger_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .addForeignKeyConstraint('inventory_ledger_facility_fk', ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
    .$call((table) => (postgres ? table.addPrimaryKeyConstraint('inventory_ledger_pk', ['company_id', 'id']) : table))
    .execute();

  // The ledger search (oldest first, ties by id) by customer, by customer and item, and by facility
  // when no customer is named; and the lookup of the postings of one source document.
  await db.schema
    .createIndex('inventory_ledger_customer_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'customer_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('inventory_ledger_item_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'customer_id', 'item_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('inventory_ledger_facility_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'facility_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('inventory_ledger_source_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'source_type', 'source_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inventory_ledger').execute();
  await db.schema.dropTable('inventory_balances').execute();
}
