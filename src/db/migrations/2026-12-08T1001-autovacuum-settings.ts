import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * PostgreSQL's autovacuum works on a table once a share of it has changed: by default it analyses
 * after 10% and vacuums after 20% dead rows (or 20% new ones). On a table of tens of millions of
 * rows that is millions of changes with stale plans or dead rows in every index. The hot tables
 * get thresholds of their own, by how they are written (docs/operations.md, "Maintenance", says
 * why each). SQLite has no autovacuum; its statistics are kept by PRAGMA optimize.
 */

const QUEUE = 'autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05';
const DOCUMENT = 'autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02';
const BOOK = 'autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02';
const SETTINGS: Record<string, string> = {
  // Written twice (inserted, then numbered), purged after their retention.
  events: 'autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.05',
  // Inserted, updated, purged: rows live days, so most of each table turns over.
  webhook_deliveries: QUEUE,
  webhook_attempts: QUEUE,
  idempotency_records: QUEUE,
  x12_outbox: QUEUE,
  order_allocations: QUEUE,
  // Documents: inserted, updated through their lives, never purged.
  orders: DOCUMENT,
  order_lines: DOCUMENT,
  receipts: DOCUMENT,
  receipt_lines: DOCUMENT,
  inventory_adjustments: DOCUMENT,
  items: DOCUMENT,
  // The books: appended to, never changed.
  inventory_ledger: BOOK,
  acks: BOOK,
  order_confirmations: BOOK,
  receipt_confirmations: BOOK,
  order_events: BOOK,
  receipt_events: BOOK,
  x12_interchanges: BOOK,
  // Few rows, each updated by every change of its stock.
  inventory_balances: 'autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.05',
};

const RESET = 'autovacuum_vacuum_scale_factor, autovacuum_analyze_scale_factor, autovacuum_vacuum_insert_scale_factor';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, settings] of Object.entries(SETTINGS))
    await sql`alter table ${sql.table(table)} set (${sql.raw(settings)})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of Object.keys(SETTINGS)) await sql`alter table ${sql.table(table)} reset (${sql.raw(RESET)})`.execute(db);
}
