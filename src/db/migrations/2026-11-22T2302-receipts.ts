import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  // SVCPOIDs (RN-<n>) are unique in the whole service, not per company: a sequence on PostgreSQL,
  // a counter row updated inside the importing transaction on SQLite (one writer at a time).
  if (postgres) {
    await sql`create sequence receipt_svcpoid_seq`.execute(db);
  } else {
    await db.schema
      .createTable('counters')
      .addColumn('name', 'varchar(50)', (col) => col.primaryKey())
      .addColumn('value', 'bigint', (col) => col.notNull())
      .execute();
    await db.insertInto('counters').values({ name: 'receipt_svcpoid_seq', value: 0 }).execute();
  }

  await db.schema
    .createTable('receipts')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('po_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('reference_no', 'varchar(50)')
    .addColumn('status', 'varchar(30)', (col) => col.notNull())
    .addColumn('receipt_type', 'varchar(50)', (col) => col.notNull())
    .addColumn('supplier_id', 'varchar(15)')
    .addColumn('carrier_name', 'varchar(50)')
    .addColumn('scac_code', 'varchar(50)')
    .addColumn('bol_no', 'varchar(50)')
    .addColumn('container_no', 'varchar(50)')
    .addColumn('scheduled_at', 'bigint')
    .addColumn('document', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by_key_id', 'bigint', (col) => col.notNull())
    .addColumn('updated_by_key_id', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('receipts_pk', ['company_id', 'svcpoid'])
    .addForeignKeyConstraint('receipts_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .addForeignKeyConstraint('receipts_facility_fk', ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
    .execute();

  // Natural keys among live (not Cancelled) receipts: PONo per customer and facility; ReferenceNo,
  // when given, per customer across facilities. A cancelled receipt frees both.
  await db.schema
    .createIndex('receipts_live_po_uq')
    .on('receipts')
    .columns(['company_id', 'customer_id', 'facility_id', 'po_no'])
    .unique()
    .where(sql<boolean>`status <> 'Cancelled'`)
    .execute();
  await db.schema
    .createIndex('receipts_live_reference_uq')
    .on('receipts')
    .columns(['company_id', 'customer_id', 'reference_no'])
    .unique()
    .where(sql<boolean>`status <> 'Cancelled' and reference_no is not null`)
    .execute();
  // Header searches: a customer's receipts in a facility by update time.
  await db.schema
    .createIndex('receipts_updated_idx')
    .on('receipts')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at'])
    .execute();

  await db.schema
    .createTable('receipt_lines')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('line_no', 'integer', (col) => col.notNull())
    .addColumn('po_line_no', 'integer')
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('lot_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('goods_type', 'varchar(50)', (col) => col.notNull())
    .addColumn('title_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('expected_qty', 'bigint', (col) => col.notNull())
    .addColumn('received_qty', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('receipt_lines_pk', ['company_id', 'svcpoid', 'line_no'])
    .addForeignKeyConstraint('receipt_lines_receipt_fk', ['company_id', 'svcpoid'], 'receipts', ['company_id', 'svcpoid'])
    .execute();

  // Who moved a receipt and why: cancels, opens, force-closes, with their notes.
  const events = db.schema
    .createTable('receipt_events')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('action', 'varchar(30)', (col) => col.notNull())
    .addColumn('from_status', 'varchar(30)', (col) => col.notNull())
    .addColumn('to_status', 'varchar(30)', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('receipt_events_receipt_fk', ['company_id', 'svcpoid'], 'receipts', ['company_id', 'svcpoid']);
  await (postgres ? events.addPrimaryKeyConstraint('receipt_events_pk', ['company_id', 'id']) : events).execute();
  await db.schema.createIndex('receipt_events_receipt_idx').on('receipt_events').columns(['company_id', 'svcpoid', 'id']).execute();
  await createConfirmations(db, postgres);
}

/** Receiving confirmations (RC): one per applied ConfirmationNo of a receipt. */
async function createConfirmations(db: Kysely<any>, postgres: boolean): Promise<void> {
  const table = db.schema
    .createTable('receipt_confirmations')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('confirmation_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('po_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('reference_no', 'varchar(50)')
    .addColumn('request_hash', 'char(64)', (col) => col.notNull())
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('rc', 'text', (col) => col.notNull())
    .addColumn('received_at', 'bigint', (col) => col.notNull())
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('receipt_confirmations_receipt_fk', ['company_id', 'svcpoid'], 'receipts', ['company_id', 'svcpoid']);
  await (postgres ? table.addPrimaryKeyConstraint('receipt_confirmations_pk', ['company_id', 'id']) : table).execute();
  // A ConfirmationNo applies once per receipt: the replay check, and the race's referee.
  await db.schema
    .createIndex('receipt_confirmations_number_uq')
    .on('receipt_confirmations')
    .columns(['company_id', 'svcpoid', 'confirmation_no'])
    .unique()
    .execute();
  // The RC search: a customer's confirmations in a facility, oldest first.
  await db.schema
    .createIndex('receipt_confirmations_search_idx')
    .on('receipt_confirmations')
    .columns(['company_id', 'customer_id', 'facility_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('receipt_confirmations').execute();
  await db.schema.dropTable('receipt_events').execute();
  await db.schema.dropTable('receipt_lines').execute();
  await db.schema.dropTable('receipts').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop sequence receipt_svcpoid_seq`.execute(db);
  else await db.schema.dropTable('counters').execute();
}
