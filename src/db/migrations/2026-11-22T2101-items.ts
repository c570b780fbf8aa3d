import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('items')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(30)', (col) => col.notNull())
    .addColumn('status', 'varchar(10)', (col) => col.notNull())
    .addColumn('attributes', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by_key_id', 'bigint')
    .addColumn('updated_by_key_id', 'bigint')
    .addPrimaryKeyConstraint('items_pk', ['company_id', 'customer_id', 'item_id'])
    .addForeignKeyConstraint('items_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .execute();
  // The status-filtered search walks this index in item order; the unfiltered one walks the key.
  await db.schema.createIndex('items_status_idx').on('items').columns(['company_id', 'customer_id', 'status', 'item_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('items').execute();
}
