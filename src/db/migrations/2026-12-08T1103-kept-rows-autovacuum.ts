import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The two tables that Wharf keeps beside its documents get autovacuum thresholds of their own, as
 * the other hot tables have (2026-12-08T1001-autovacuum-settings; docs/operations.md,
 * "Maintenance"): search_counts has few rows, each updated by every write of its day (left room on
 * its pages, so that an update stays on its page); order_line_shortages is a queue, its rows
 * inserted and deleted as lines fall short and are filled.
 */

const SETTINGS: Record<string, string> = {
  search_counts: 'fillfactor = 70, autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.05',
  order_line_shortages: 'autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05',
};

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, settings] of Object.entries(SETTINGS))
    await sql`alter table ${sql.table(table)} set (${sql.raw(settings)})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, settings] of Object.entries(SETTINGS)) {
    const names = settings.split(',').map((setting) => setting.split('=')[0]!.trim());
    await sql`alter table ${sql.table(table)} reset (${sql.raw(names.join(', '))})`.execute(db);
  }
}
