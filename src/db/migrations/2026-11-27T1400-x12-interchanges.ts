import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The interchanges X12 partners sent (docs/x12.md): one row per partner and ISA13, with what the
 * body hashed to and the 997 it was answered, so that the same interchange sent again is answered
 * with its first 997 and applied once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x12_interchanges')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('qualifier', 'varchar(2)', (col) => col.notNull())
    .addColumn('partner_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('control_no', 'varchar(9)', (col) => col.notNull())
    .addColumn('request_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('x12_interchanges_pk', ['company_id', 'qualifier', 'partner_id', 'control_no'])
    .addForeignKeyConstraint('x12_interchanges_partner_fk', ['company_id', 'qualifier', 'partner_id'], 'x12_partners', [
      'company_id',
      'qualifier',
      'partner_id',
    ])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x12_interchanges').execute();
}
