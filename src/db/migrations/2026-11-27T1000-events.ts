import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The outbox of events (docs/webhooks.md). A change inserts its events unnumbered; the sequencer numbers
 * committed ones in the order it finds them, so a Sequence is never given to an event that commits
 * after a higher one was read. The write path touches only the primary key and the small index of
 * unnumbered events; the search index takes an event once it has its Sequence.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // As the ledger: PostgreSQL keys the table by (company_id, id) for sharding; SQLite's
  // AUTOINCREMENT must be the whole primary key.
  const table = db.schema
    .createTable('events')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('event_id', 'varchar(30)', (col) => col.notNull())
    .addColumn('sequence', 'bigint')
    .addColumn('type', 'varchar(30)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)')
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('key_id', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull());
  await (postgres ? table.addPrimaryKeyConstraint('events_pk', ['company_id', 'id']) : table).execute();
  await db.schema
    .createIndex('events_unsequenced_idx')
    .on('events')
    .column('id')
    .where(sql<boolean>`sequence is null`)
    .execute();
  // The events search: one customer's events after a Sequence, oldest first.
  await db.schema
    .createIndex('events_search_idx')
    .on('events')
    .columns(['company_id', 'customer_id', 'sequence'])
    .where(sql<boolean>`sequence is not null`)
    .execute();
  // The webhook fan-out: every event after a Sequence, in order.
  await db.schema
    .createIndex('events_sequence_idx')
    .on('events')
    .column('sequence')
    .where(sql<boolean>`sequence is not null`)
    .execute();
  await db.schema
    .createTable('event_sequencer')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('last_sequence', 'bigint', (col) => col.notNull())
    .execute();
  await db.insertInto('event_sequencer').values({ id: 1, last_sequence: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_sequencer').execute();
  await db.schema.dropTable('events').execute();
}
