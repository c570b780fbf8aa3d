import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The retention purges (docs/operations.md, "Retention") delete the oldest rows of a kind a batch at
 * a time; each batch must find its rows by an index of the time it is judged by, or every batch
 * would read the whole table. The idempotency records have theirs already, and the events are
 * read in Sequence order. These hold only the rows a purge may take: ended deliveries by when they
 * ended, taken advices by when they were taken.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_ended_idx')
    .on('webhook_deliveries')
    .column('updated_at')
    .where(sql<boolean>`next_attempt_at is null`)
    .execute();
  await db.schema.createIndex('x12_interchanges_created_idx').on('x12_interchanges').column('created_at').execute();
  await db.schema
    .createIndex('x12_outbox_taken_idx')
    .on('x12_outbox')
    .column('taken_at')
    .where(sql<boolean>`taken_at is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('x12_outbox_taken_idx').execute();
  await db.schema.dropIndex('x12_interchanges_created_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_ended_idx').execute();
}
