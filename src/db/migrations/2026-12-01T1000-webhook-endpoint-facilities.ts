import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The facilities a webhook endpoint is limited to: one row per endpoint and facility;
 * an endpoint without rows takes the events of every facility (every endpoint made before this
 * migration). Rows rather than a JSON list, so that the endpoints a key limited to facilities may
 * manage (those limited to a subset of its facilities) are found by SQL on both databases.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoint_facilities')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    // The endpoint's row id (webhook_endpoints.id), as deliveries name it.
    .addColumn('endpoint_id', 'bigint', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addPrimaryKeyConstraint('webhook_endpoint_facilities_pk', ['company_id', 'endpoint_id', 'facility_id'])
    .addForeignKeyConstraint('webhook_endpoint_facilities_facility_fk', ['company_id', 'facility_id'], 'facilities', [
      'company_id',
      'facility_id',
    ])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_endpoint_facilities').execute();
}
