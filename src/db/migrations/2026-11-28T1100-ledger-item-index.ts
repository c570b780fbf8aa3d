import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The ledger loses its (company_id, customer_id, item_id, created_at, id) index. The ledger search
 * always names a facility, so (company_id, facility_id, item_id, created_at, id) seeks an item's
 * postings as well, with the customer checked on the rows it yields (an item number is the
 * customer's own: another customer's postings of the same number in the facility are few). The
 * dropped index cost every posting line a write at a random place of a large index: in a 20-line
 * adjustment on SQLite, 20 of the pages its commit wrote (docs/performance.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('inventory_ledger_item_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('inventory_ledger_item_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'customer_id', 'item_id', 'created_at', 'id'])
    .execute();
}
