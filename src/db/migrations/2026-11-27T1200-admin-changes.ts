import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * What the admin API changed, and with which key (docs/admin.md: every call recorded with the key
 * that made it): one row a change, written in the change's own transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // As the other tables: PostgreSQL keys by (company_id, id) for sharding; SQLite's AUTOINCREMENT
  // must be the whole primary key.
  const table = db.schema
    .createTable('admin_changes')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('action', 'varchar(40)', (col) => col.notNull())
    .addColumn('subject', 'varchar(100)', (col) => col.notNull())
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull());
  await (postgres ? table.addPrimaryKeyConstraint('admin_changes_pk', ['company_id', 'id']) : table).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('admin_changes').execute();
}
