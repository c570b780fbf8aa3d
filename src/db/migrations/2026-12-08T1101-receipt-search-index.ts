import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // The RN header search and the 3PL receipt list order a facility's receipts (of a customer) by
  // update time, then SVCPOID, as the orders' searches do (2026-11-23T2200-order-search-index):
  // ending the index at SVCPOID gives that order straight from it, so a deep page or a page after a
  // cursor reads index entries alone instead of sorting every receipt before it (docs/paging.md).
  await db.schema
    .createIndex('receipts_updated_svcpoid_idx')
    .on('receipts')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at', 'svcpoid'])
    .execute();
  await db.schema.dropIndex('receipts_updated_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('receipts_updated_idx')
    .on('receipts')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at'])
    .execute();
  await db.schema.dropIndex('receipts_updated_svcpoid_idx').execute();
}
