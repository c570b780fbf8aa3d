import { Migrator } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';

/**
 * For the tests of one migration: the migration that runs just before it (a database is brought
 * there, given rows of that time, then migrated past it), and a migrator over every migration.
 */
export function migrationBefore(name: string): string {
  const names = Object.keys(migrations);
  const index = names.indexOf(name);
  if (index < 1) throw new Error(`no migration runs before ${name}`);
  return names[index - 1]!;
}

export function migratorOf(db: Db): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}
