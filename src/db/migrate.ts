import { Migrator, sql, type Kysely, type MigrationResultSet } from 'kysely';
import { dialectNameOfDb, isTransientConflict, lockMigrations } from './dialect.js';
import { migrations } from './migrations/index.js';

const ATTEMPTS = 5;

function migratorOn(db: Kysely<any>, options: { disableTransactions?: boolean } = {}): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations }, ...options });
}

/**
 * Brings the schema to the latest migration. Migrations run in one transaction under a lock
 * (PostgreSQL: an advisory lock held until that transaction ends; SQLite: BEGIN IMMEDIATE), so
 * processes starting at once take turns; one that loses the race to create Kysely's own
 * bookkeeping tables simply runs again.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const { error, results } =
      dialectNameOfDb(db) === 'postgres' ? await migrateInOneTransaction(db) : await migratorOn(db).migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * PostgreSQL: the lock and every step of Kysely's migrator, its bookkeeping tables included, in
 * one transaction on one connection, begun and ended here. A transaction is all that a
 * transaction-pooling PgBouncer keeps on one server session, so the lock is one that ends with it
 * (dialect.ts says why Kysely's own does not do).
 */
async function migrateInOneTransaction(db: Kysely<any>): Promise<MigrationResultSet> {
  return db.connection().execute(async (connection) => {
    try {
      await sql`begin`.execute(connection);
      await lockMigrations(connection);
      const outcome = await migratorOn(connection, { disableTransactions: true }).migrateToLatest();
      await sql.raw(outcome.error ? 'rollback' : 'commit').execute(connection);
      return outcome;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      return { error };
    }
  });
}

/** The migrations the database has not run yet, by name; it reads only (no bookkeeping table is made). */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  return (await migratorOn(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
