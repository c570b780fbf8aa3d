import { Migrator, type Kysely } from 'kysely';
import { isTransientConflict } from './dialect.js';
import { migrations } from './migrations/index.js';

const ATTEMPTS = 5;

const migratorOf = (db: Kysely<any>) => new Migrator({ db, provider: { getMigrations: async () => migrations } });

/**
 * Brings the schema to the latest migration. Migrations run in one transaction under a lock
 * (PostgreSQL: Kysely's advisory lock; SQLite: BEGIN IMMEDIATE), so processes starting at once take
 * turns; one that loses the race to create Kysely's own bookkeeping tables simply runs again.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = migratorOf(db);
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error instanceof Error ? error : new Error(String(error));
  }
}

/** The migrations the database has not run yet, by name; it reads only (no bookkeeping table is made). */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  return (await migratorOf(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
