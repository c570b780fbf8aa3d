import { Migrator, type Kysely } from 'kysely';
import { migrations } from './migrations/index.js';

/** Brings the schema to the latest migration; Kysely's lock makes concurrent starts safe. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
