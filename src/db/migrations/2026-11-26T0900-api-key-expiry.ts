import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * A key may stop working at an instant (`key create --expires`, the old key of `key rotate`):
 * epoch milliseconds, null for a key that never expires. Keys made before never expire.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
}
