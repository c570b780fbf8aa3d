import type { Migration } from 'kysely';
import * as tenants from './2026-11-22T2100-tenants.js';
import * as items from './2026-11-22T2101-items.js';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '2026-11-22T2100-tenants': tenants,
  '2026-11-22T2101-items': items,
};
