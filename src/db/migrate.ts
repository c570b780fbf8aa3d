import { Migrator, type Kysely } from 'kysely';
import { isTransientConflict } from './dialect.js';
import { migrations } from './migrations/index.js';

const ATTEMPTS = 5;

/**
 * Brings the schema to the latest migration. Migrations run in one transaction under a lock
 * (PostgreSQL: Kysely's advisory lock; SQLite: BEGIN IMMEDIATE), so processes starting at once take
 * turns; one that loses the race to create Kysely's own bookkeeping tables simply runs again.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error instanceof Error ? error : new Error(String(error));
  }
}
