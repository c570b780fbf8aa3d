import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Wharf's own X12 ids in a company's interchanges (docs/x12.md): its ISA qualifier and id and its GS
 * id, when the company sets them; without a row they are ZZ and the CompanyID.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x12_identities')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull().primaryKey())
    .addColumn('qualifier', 'varchar(2)', (col) => col.notNull())
    .addColumn('isa_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('gs_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('x12_identities_company_fk', ['company_id'], 'companies', ['company_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x12_identities').execute();
}
