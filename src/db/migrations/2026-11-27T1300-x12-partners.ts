import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * X12 trading partners (docs/x12.md): a partner is a customer's system that speaks X12, known by its
 * ISA qualifier and id (and its GS id), with the control numbers Wharf last gave in what it sent it
 * (ISA13 unique per partner, GS06, ST02).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x12_partners')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('qualifier', 'varchar(2)', (col) => col.notNull())
    .addColumn('partner_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('gs_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('last_interchange_no', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('last_group_no', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('last_set_no', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('x12_partners_pk', ['company_id', 'qualifier', 'partner_id'])
    .addForeignKeyConstraint('x12_partners_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x12_partners').execute();
}
