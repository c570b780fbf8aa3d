import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The X12 advices waiting for partners (docs/x12.md): each a whole interchange (944, 945, 947 or
 * 846) written in the transaction of the change it tells, until the partner takes it; or, when its
 * data cannot be written in X12, the problem instead. Partners are found by their customer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const table = db.schema
    .createTable('x12_outbox')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)')
    .addColumn('qualifier', 'varchar(2)', (col) => col.notNull())
    .addColumn('partner_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('set_id', 'varchar(3)', (col) => col.notNull())
    .addColumn('document_no', 'varchar(120)', (col) => col.notNull())
    // ISA13 and the interchange; both null when the advice could not be written (`problem` says why).
    .addColumn('control_no', 'varchar(9)')
    .addColumn('interchange', 'text')
    .addColumn('problem', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('taken_at', 'bigint')
    .addForeignKeyConstraint('x12_outbox_partner_fk', ['company_id', 'qualifier', 'partner_id'], 'x12_partners', [
      'company_id',
      'qualifier',
      'partner_id',
    ]);
  await (postgres ? table.addPrimaryKeyConstraint('x12_outbox_pk', ['company_id', 'id']) : table).execute();
  // A customer's advices, oldest first, waiting ones apart (taken_at null).
  await db.schema.createIndex('x12_outbox_customer_idx').on('x12_outbox').columns(['company_id', 'customer_id', 'taken_at', 'id']).execute();
  // The partners of a customer: looked up by every change that may owe one an advice.
  await db.schema.createIndex('x12_partners_customer_idx').on('x12_partners').columns(['company_id', 'customer_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('x12_partners_customer_idx').execute();
  await db.schema.dropTable('x12_outbox').execute();
}
