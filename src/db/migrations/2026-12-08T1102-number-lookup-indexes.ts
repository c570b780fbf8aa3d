import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * A search that names a PONo or ReferenceNo finds the few documents with it through an index that
 * starts with the search's scope and the number (docs/paging.md), on either database and without
 * statistics: before, the ACK, DC and RC searches had no index on their numbers, and the header
 * searches and 3PL lists had only the live documents' (partial) ones or one without the facility,
 * so SQLite read every document of the customer (or facility) to find one.
 */
const LOOKUPS: { table: string; name: string; columns: string[] }[] = [
  { table: 'orders', name: 'orders_facility_po_idx', columns: ['company_id', 'facility_id', 'po_no', 'customer_id'] },
  { table: 'orders', name: 'orders_facility_reference_idx', columns: ['company_id', 'facility_id', 'reference_no', 'customer_id'] },
  { table: 'receipts', name: 'receipts_facility_po_idx', columns: ['company_id', 'facility_id', 'po_no', 'customer_id'] },
  {
    table: 'receipts',
    name: 'receipts_facility_reference_idx',
    columns: ['company_id', 'facility_id', 'reference_no', 'customer_id'],
  },
  { table: 'acks', name: 'acks_po_idx', columns: ['company_id', 'customer_id', 'facility_id', 'document_type', 'po_no'] },
  {
    table: 'acks',
    name: 'acks_reference_idx',
    columns: ['company_id', 'customer_id', 'facility_id', 'document_type', 'reference_no'],
  },
  { table: 'order_confirmations', name: 'order_confirmations_po_idx', columns: ['company_id', 'customer_id', 'facility_id', 'po_no'] },
  {
    table: 'order_confirmations',
    name: 'order_confirmations_reference_idx',
    columns: ['company_id', 'customer_id', 'facility_id', 'reference_no'],
  },
  { table: 'receipt_confirmations', name: 'receipt_confirmations_po_idx', columns: ['company_id', 'customer_id', 'facility_id', 'po_no'] },
  {
    table: 'receipt_confirmations',
    name: 'receipt_confirmations_reference_idx',
    columns: ['company_id', 'customer_id', 'facility_id', 'reference_no'],
  },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, name, columns } of LOOKUPS) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { name } of LOOKUPS) await db.schema.dropIndex(name).execute();
}
