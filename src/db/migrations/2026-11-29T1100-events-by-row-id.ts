import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * On SQLite an event's Sequence becomes its row id. Writers take turns there, so a change's events
 * can be numbered as they are written (docs/decisions.md); the row id SQLite gives a new row, one
 * above the highest, is that number already. `sequence` stays as a column that reads the row id
 * (generated, stored nowhere), and a write touches two B-trees, the table and the events search's
 * index, where it touched four: the Sequence's index and the AUTOINCREMENT counter were the other
 * two, each a page more in every commit with events (docs/performance.md). The index of unnumbered
 * events, empty on SQLite, goes too.
 *
 * The rebuild keeps every event and its Sequence. An event an older build left unnumbered is
 * numbered first, after the highest Sequence, in id order, as the sequencer would have; each
 * event's row then takes its Sequence for id, and the deliveries that name an event by id follow.
 * (Where a row's id and Sequence already agree, as they should wherever SQLite numbered, nothing
 * moves.) PostgreSQL keeps its sequencer, its indexes and its ids.
 */

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

const COLUMNS = ['company_id', 'event_id', 'type', 'customer_id', 'facility_id', 'data', 'key_id', 'created_at'] as const;

/** The events table with its columns; `sequence` the row id itself, or a column of its own beside an AUTOINCREMENT id. */
async function createEventsTable(db: Kysely<any>, name: string, sequenceIsRowId: boolean): Promise<void> {
  await db.schema
    .createTable(name)
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('id', 'integer', (col) => (sequenceIsRowId ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('event_id', 'varchar(30)', (col) => col.notNull())
    .addColumn('sequence', sequenceIsRowId ? 'integer' : 'bigint', (col) => (sequenceIsRowId ? col.generatedAlwaysAs(sql`id`) : col))
    .addColumn('type', 'varchar(30)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)')
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('key_id', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
}

/** The events search: one customer's events after a Sequence, oldest first. */
async function createSearchIndex(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('events_search_idx')
    .on('events')
    .columns(['company_id', 'customer_id', 'sequence'])
    .where(sql<boolean>`sequence is not null`)
    .execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  const { last } = await db
    .selectFrom('events')
    .select((eb) => eb.fn.coalesce(eb.fn.max('sequence'), sql.lit(0)).as('last'))
    .executeTakeFirstOrThrow();
  const unnumbered = await db.selectFrom('events').select('id').where('sequence', 'is', null).orderBy('id').execute();
  for (const [index, { id }] of unnumbered.entries()) {
    await db
      .updateTable('events')
      .set({ sequence: Number(last) + index + 1 })
      .where('id', '=', id)
      .execute();
  }
  await sql`update webhook_deliveries
    set event_id = (select sequence from events where events.id = webhook_deliveries.event_id)
    where event_id in (select id from events where sequence <> id)`.execute(db);
  await createEventsTable(db, 'events_by_row_id', true);
  await db
    .insertInto('events_by_row_id')
    .columns(['id', ...COLUMNS])
    .expression((eb) => eb.selectFrom('events').select(['sequence', ...COLUMNS]))
    .execute();
  await db.schema.dropTable('events').execute();
  await db.schema.alterTable('events_by_row_id').renameTo('events').execute();
  await createSearchIndex(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await createEventsTable(db, 'events_numbered', false);
  // Inserting ids into an AUTOINCREMENT table sets its counter to the highest.
  await db
    .insertInto('events_numbered')
    .columns(['id', 'sequence', ...COLUMNS])
    .expression((eb) => eb.selectFrom('events').select(['id', 'sequence', ...COLUMNS]))
    .execute();
  await db.schema.dropTable('events').execute();
  await db.schema.alterTable('events_numbered').renameTo('events').execute();
  await db.schema
    .createIndex('events_unsequenced_idx')
    .on('events')
    .column('id')
    .where(sql<boolean>`sequence is null`)
    .execute();
  await createSearchIndex(db);
  await db.schema
    .createIndex('events_sequence_idx')
    .on('events')
    .column('sequence')
    .where(sql<boolean>`sequence is not null`)
    .execute();
}
