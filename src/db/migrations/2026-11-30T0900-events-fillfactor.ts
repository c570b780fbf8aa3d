import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * On PostgreSQL every event is written twice: inserted unnumbered by its change, then updated with
 * its Sequence by the sequencer once committed. The update sets an indexed column, so it is never
 * HOT; but when the new version fits on the old one's page, PostgreSQL logs only the bytes that
 * changed instead of the whole row, payload and all. Pages filled to 50% by inserts leave room for
 * every row's one update: for a DN import's two events that cut the update's WAL from 2.0 to 0.7 KB
 * (docs/performance.md), where the import itself, without events, writes about 6 KB. SQLite numbers
 * an event as it is written and has no such setting.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table events set (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table events reset (fillfactor)`.execute(db);
}
