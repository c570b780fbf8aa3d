import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The partial index of orders that still allocate (Imported, Open) served only the backorder read,
 * which now seeks `order_line_shortages` (migration 2026-12-08T0900). Every order's import and
 * every move in or out of those statuses wrote it for nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_allocating_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('orders_allocating_idx')
    .on('orders')
    .columns(['company_id', 'customer_id', 'facility_id', 'created_at'])
    .where(sql<boolean>`status in ('Imported', 'Open')`)
    .execute();
}
