import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // As the ledger: PostgreSQL keys the table by (company_id, id) for sharding; SQLite's
  // AUTOINCREMENT must be the whole primary key, and SQLite is never distributed.
  const table = db.schema
    .createTable('inventory_adjustments')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('adjustment_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('kind', 'varchar(10)', (col) => col.notNull())
    .addColumn('reason_code', 'varchar(50)')
    .addColumn('note', 'text')
    .addColumn('request_hash', 'char(64)', (col) => col.notNull())
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('inventory_adjustments_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .addForeignKeyConstraint('inventory_adjustments_facility_fk', ['company_id', 'facility_id'], 'facilities', [
      'company_id',
      'facility_id',
    ]);
  await (postgres ? table.addPrimaryKeyConstraint('inventory_adjustments_pk', ['company_id', 'id']) : table).execute();
  // An AdjustmentNo applies once per customer and facility: the replay check, and the race's referee.
  await db.schema
    .createIndex('inventory_adjustments_number_uq')
    .on('inventory_adjustments')
    .columns(['company_id', 'facility_id', 'customer_id', 'adjustment_no'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inventory_adjustments').execute();
}
