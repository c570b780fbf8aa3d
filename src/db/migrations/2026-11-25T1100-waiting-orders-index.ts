import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Backorders: when stock becomes Available, the customer's orders in the facility that still
 * allocate (Imported, Open) are read oldest first. Few orders are in those statuses at a time, so a
 * partial index keeps the read small however many orders have shipped or been cancelled.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('orders_allocating_idx')
    .on('orders')
    .columns(['company_id', 'customer_id', 'facility_id', 'created_at'])
    .where(sql<boolean>`status in ('Imported', 'Open')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_allocating_idx').execute();
}
