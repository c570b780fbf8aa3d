import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // As the ledger: PostgreSQL keys the table by (company_id, id) for sharding; SQLite's
  // AUTOINCREMENT must be the whole primary key, and SQLite is never distributed.
  const table = db.schema
    .createTable('acks')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('document_type', 'varchar(2)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('po_no', 'varchar(50)')
    .addColumn('reference_no', 'varchar(50)')
    .addColumn('reference_no_type', 'varchar(6)')
    .addColumn('svcpoid', 'varchar(50)')
    .addColumn('status', 'varchar(30)')
    .addColumn('error', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('failure_error', 'text')
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull());
  await (postgres ? table.addPrimaryKeyConstraint('acks_pk', ['company_id', 'id']) : table).execute();
  // Searches filter one customer's ACKs of one facility and one document type, oldest first.
  await db.schema
    .createIndex('acks_search_idx')
    .on('acks')
    .columns(['company_id', 'customer_id', 'facility_id', 'document_type', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('acks').execute();
}
