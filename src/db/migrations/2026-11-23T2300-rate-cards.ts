import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Rate cards are versioned: every load adds a row, none is changed. user_id 0 is the company's
  // default card (UserIDs are positive), so the version key needs no NULL handling.
  const table = db.schema
    .createTable('rate_cards')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull().references('companies.company_id'))
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('user_id', 'bigint', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('effective_from', 'varchar(10)', (col) => col.notNull())
    .addColumn('effective_to', 'varchar(10)')
    .addColumn('time_zone', 'varchar(64)', (col) => col.notNull())
    .addColumn('card', 'text', (col) => col.notNull())
    .addColumn('card_hash', 'char(64)', (col) => col.notNull())
    .addColumn('loaded_by_key_id', 'bigint')
    .addColumn('loaded_at', 'bigint', (col) => col.notNull());
  await (postgres ? table.addPrimaryKeyConstraint('rate_cards_pk', ['company_id', 'id']) : table).execute();
  // A quote reads the versions of the company's default card and of one UserID's card.
  await db.schema.createIndex('rate_cards_version_uq').on('rate_cards').columns(['company_id', 'user_id', 'version']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_cards').execute();
}
