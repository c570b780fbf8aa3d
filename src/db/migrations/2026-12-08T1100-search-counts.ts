import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The kept counts of the document searches (docs/paging.md): per company, kind, facility,
 * customer, status and UTC day, filled from the rows that exist, so that the counts are exact from
 * the first search after the upgrade.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('search_counts')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('counted', 'varchar(30)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('status', 'varchar(30)', (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('search_counts_pk', ['company_id', 'counted', 'facility_id', 'customer_id', 'status', 'day'])
    .execute();

  const fill = (table: string, counted: string, status: string | undefined, time: string, where?: string) =>
    sql`insert into search_counts (company_id, counted, facility_id, customer_id, status, day, count)
        select company_id, ${counted}, facility_id, customer_id, ${status === undefined ? sql.lit('') : sql.ref(status)},
               ${sql.ref(time)} / ${sql.lit(DAY_MS)}, count(*)
        from ${sql.table(table)}
        ${where === undefined ? sql`` : sql`where ${sql.raw(where)}`}
        group by company_id, facility_id, customer_id, ${status === undefined ? sql`` : sql`${sql.ref(status)}, `}${sql.ref(time)} / ${sql.lit(DAY_MS)}`.execute(
      db,
    );
  await fill('orders', 'orders', 'status', 'updated_at');
  await fill('receipts', 'receipts', 'status', 'updated_at');
  await fill('order_confirmations', 'order_confirmations', undefined, 'created_at');
  await fill('receipt_confirmations', 'receipt_confirmations', undefined, 'created_at');
  await fill('acks', 'acks:RN', undefined, 'created_at', `document_type = 'RN'`);
  await fill('acks', 'acks:DN', undefined, 'created_at', `document_type = 'DN'`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('search_counts').execute();
}
