import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Webhooks (docs/webhooks.md): endpoints, one delivery per event and endpoint, every attempt of it, and
 * the Sequence up to which events have been fanned out to deliveries.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // As the other tables: PostgreSQL keys by (company_id, id) for sharding; SQLite's AUTOINCREMENT
  // must be the whole primary key.
  const table = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
      .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
        postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
      );
  const keyed = <T extends { addPrimaryKeyConstraint(name: string, columns: string[]): T }>(name: string, builder: T) =>
    postgres ? builder.addPrimaryKeyConstraint(`${name}_pk`, ['company_id', 'id']) : builder;

  await keyed(
    'webhook_endpoints',
    table('webhook_endpoints')
      .addColumn('endpoint_id', 'varchar(30)', (col) => col.notNull())
      .addColumn('customer_id', 'varchar(15)')
      .addColumn('url', 'varchar(2000)', (col) => col.notNull())
      .addColumn('event_types', 'text')
      .addColumn('description', 'varchar(500)')
      .addColumn('enabled', 'integer', (col) => col.notNull())
      .addColumn('disabled_reason', 'varchar(200)')
      .addColumn('secret', 'varchar(100)', (col) => col.notNull())
      .addColumn('previous_secret', 'varchar(100)')
      .addColumn('previous_secret_until', 'bigint')
      .addColumn('failing_since', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .addColumn('key_id', 'bigint'),
  ).execute();
  await db.schema
    .createIndex('webhook_endpoints_endpoint_id_idx')
    .on('webhook_endpoints')
    .columns(['company_id', 'endpoint_id'])
    .unique()
    .execute();

  await keyed(
    'webhook_deliveries',
    table('webhook_deliveries')
      .addColumn('delivery_id', 'varchar(30)', (col) => col.notNull())
      .addColumn('endpoint_id', 'bigint', (col) => col.notNull())
      .addColumn('event_id', 'bigint', (col) => col.notNull())
      .addColumn('event_type', 'varchar(30)', (col) => col.notNull())
      .addColumn('sequence', 'bigint', (col) => col.notNull())
      .addColumn('status', 'varchar(10)', (col) => col.notNull())
      .addColumn('attempt_count', 'integer', (col) => col.notNull())
      .addColumn('retry_step', 'integer', (col) => col.notNull())
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('leased_until', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('webhook_deliveries_delivery_id_idx')
    .on('webhook_deliveries')
    .columns(['company_id', 'delivery_id'])
    .unique()
    .execute();
  // The dispatcher's queue: deliveries still to attempt, the earliest due first.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql<boolean>`next_attempt_at is not null`)
    .execute();
  // The delivery search and the replay of an endpoint: an endpoint's deliveries in order.
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['company_id', 'endpoint_id', 'id'])
    .execute();

  await keyed(
    'webhook_attempts',
    table('webhook_attempts')
      .addColumn('delivery_id', 'bigint', (col) => col.notNull())
      .addColumn('attempt_no', 'integer', (col) => col.notNull())
      .addColumn('started_at', 'bigint', (col) => col.notNull())
      .addColumn('duration_ms', 'integer', (col) => col.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'varchar(500)')
      .addColumn('response', 'text'),
  ).execute();
  await db.schema
    .createIndex('webhook_attempts_delivery_idx')
    .on('webhook_attempts')
    .columns(['company_id', 'delivery_id', 'attempt_no'])
    .execute();

  await db.schema
    .createTable('webhook_fanout')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('last_sequence', 'bigint', (col) => col.notNull())
    .execute();
  await db.insertInto('webhook_fanout').values({ id: 1, last_sequence: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['webhook_fanout', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints'])
    await db.schema.dropTable(name).execute();
}
