import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  // The ledger search by item when no customer is named (an operator looking up an item in its
  // facility): oldest first within the item, as the other ledger indexes are ordered. Without it
  // that search walks every posting of the facility.
  await db.schema
    .createIndex('inventory_ledger_facility_item_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'facility_id', 'item_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('inventory_ledger_facility_item_idx').execute();
}
