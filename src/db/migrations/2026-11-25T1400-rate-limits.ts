import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Rate limits (docs/operations.md): a key may carry its own limit a minute (null: the route's default, 0:
 * none), and the processes sharing a PostgreSQL database count each key's minute in one table. On
 * SQLite one process serves and counts in memory; the table stays empty there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('rate_limit', 'integer').execute();
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key_id', 'integer', (column) => column.notNull())
    .addColumn('route_group', 'text', (column) => column.notNull())
    .addColumn('window_start', 'bigint', (column) => column.notNull())
    .addColumn('used', 'integer', (column) => column.notNull())
    .addColumn('last_lease', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('rate_limit_windows_pk', ['key_id', 'route_group', 'window_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').execute();
  await db.schema.alterTable('api_keys').dropColumn('rate_limit').execute();
}
