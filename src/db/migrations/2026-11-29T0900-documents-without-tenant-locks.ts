import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * On PostgreSQL the documents (receipts, orders, inventory adjustments) keep no foreign keys to
 * customers and facilities. PostgreSQL checks such a key by locking the customer's and the
 * facility's rows FOR KEY SHARE until the commit; every concurrent writer of one customer then
 * shares those two rows' locks, which PostgreSQL records as a MultiXact written into the row: work
 * and WAL on two hot rows in every RN import, DN import and adjustment. Dropping them cut PostgreSQL's
 * CPU a one-line adjustment by 12 to 14% and a DN import by 8% (docs/performance.md). What the keys
 * guarded still holds: every document is written after its request's customer and facility were
 * found in the same company, and nothing deletes a customer or a facility.
 *
 * SQLite keeps them: its writers take turns and lock nothing per row, its check is one index seek,
 * and dropping a constraint there means rebuilding the tables that the lines refer to.
 */

const DOCUMENT_TENANT_KEYS = [
  ['receipts', 'receipts_customer_fk', 'receipts_facility_fk'],
  ['orders', 'orders_customer_fk', 'orders_facility_fk'],
  ['inventory_adjustments', 'inventory_adjustments_customer_fk', 'inventory_adjustments_facility_fk'],
] as const;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, customerKey, facilityKey] of DOCUMENT_TENANT_KEYS) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(customerKey)}, drop constraint ${sql.ref(facilityKey)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, customerKey, facilityKey] of DOCUMENT_TENANT_KEYS) {
    await db.schema
      .alterTable(table)
      .addForeignKeyConstraint(customerKey, ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
      .execute();
    await db.schema
      .alterTable(table)
      .addForeignKeyConstraint(facilityKey, ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
      .execute();
  }
}
