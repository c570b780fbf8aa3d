import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_records')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('idempotency_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('request_hash', 'char(64)', (col) => col.notNull())
    .addColumn('status_code', 'integer', (col) => col.notNull())
    .addColumn('response_body', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pk', ['company_id', 'key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_records_created_idx').on('idempotency_records').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_records').execute();
}
