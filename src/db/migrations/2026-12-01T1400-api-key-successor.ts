import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * A rotated key names the key that replaced it, so that a key already being replaced (in its grace
 * period) is not rotated again. Null for every other key, and for keys rotated before this column:
 * which key replaced those was never written down.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('replaced_by', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('replaced_by').execute();
}
