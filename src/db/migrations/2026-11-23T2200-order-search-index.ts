import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // Header searches and the 3PL list order a facility's orders (of a customer) by update time, then
  // SVCPOID. Ending the index at SVCPOID gives that order straight from the index, so a deep page
  // skips index entries alone instead of sorting (and reading) every order before it. The 3PL list
  // without a customer uses its (company, facility) prefix, as it used orders_updated_idx's, which
  // the new index makes redundant.
  await db.schema
    .createIndex('orders_updated_svcpoid_idx')
    .on('orders')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at', 'svcpoid'])
    .execute();
  await db.schema.dropIndex('orders_updated_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('orders_updated_idx')
    .on('orders')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at'])
    .execute();
  await db.schema.dropIndex('orders_updated_svcpoid_idx').execute();
}
