import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The fair claim of due webhook deliveries reads each enabled endpoint's earliest due delivery, and
 * counts the attempts in flight to each endpoint. Both indexes hold only the rows they are for:
 * deliveries still to attempt, and deliveries under a lease; so a claim costs a seek per endpoint
 * and a read of the leases, however long one endpoint's queue has grown.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due_idx')
    .on('webhook_deliveries')
    .columns(['company_id', 'endpoint_id', 'next_attempt_at'])
    .where(sql<boolean>`next_attempt_at is not null`)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_leased_idx')
    .on('webhook_deliveries')
    .column('leased_until')
    .where(sql<boolean>`leased_until is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_leased_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_endpoint_due_idx').execute();
}
