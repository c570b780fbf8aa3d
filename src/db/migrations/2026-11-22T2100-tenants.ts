import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  await db.schema
    .createTable('companies')
    .addColumn('company_id', 'varchar(15)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull().references('companies.company_id'))
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('customers_pk', ['company_id', 'customer_id'])
    .execute();

  await db.schema
    .createTable('facilities')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull().references('companies.company_id'))
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('time_zone', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('facilities_pk', ['company_id', 'facility_id'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.primaryKey().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('key_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('role', 'varchar(16)', (col) => col.notNull())
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull().references('companies.company_id'))
    .addColumn('customer_ids', 'text', (col) => col.notNull().defaultTo(sql`'[]'`))
    .addColumn('facility_ids', 'text', (col) => col.notNull().defaultTo(sql`'[]'`))
    .addColumn('user_ids', 'text', (col) => col.notNull().defaultTo(sql`'[]'`))
    .addColumn('label', 'varchar(200)', (col) => col.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_company_idx').on('api_keys').columns(['company_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_keys', 'facilities', 'customers', 'companies']) {
    await db.schema.dropTable(table).execute();
  }
}
