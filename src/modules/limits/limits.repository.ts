import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** One key's window of one group of routes. */
export interface WindowRef {
  keyId: number;
  routeGroup: string;
  windowStart: number;
}

export interface Lease {
  /** Requests the window has leased, this lease included. */
  used: number;
  /** Requests this lease may serve (1 or more). */
  granted: number;
}

/**
 * Leases up to `wanted` more requests of the window, never past `limit`, in one statement:
 * undefined when the window is spent. Concurrent leases serialize on the window's row, so the
 * requests leased across every process never pass the limit.
 */
export async function leaseRequests(db: Db, window: WindowRef, wanted: number, limit: number): Promise<Lease | undefined> {
  const first = Math.min(wanted, limit);
  // Both right-hand sides read the row as it was: last_lease is what this lease adds to used.
  const added = sql<number>`case when rate_limit_windows.used + ${wanted} <= ${limit} then ${wanted} else ${limit} - rate_limit_windows.used end`;
  const row = await db
    .insertInto('rate_limit_windows')
    .values({ key_id: window.keyId, route_group: window.routeGroup, window_start: window.windowStart, used: first, last_lease: first })
    .onConflict((conflict) =>
      conflict
        .columns(['key_id', 'route_group', 'window_start'])
        .doUpdateSet({ used: sql`rate_limit_windows.used + ${added}`, last_lease: added })
        .where('rate_limit_windows.used', '<', limit),
    )
    .returning(['used', 'last_lease'])
    .executeTakeFirst();
  return row && { used: Number(row.used), granted: Number(row.last_lease) };
}

/** Drops the windows that ended before `windowStart`: nothing reads them again. */
export async function forgetWindowsBefore(db: Db, windowStart: number): Promise<void> {
  await db.deleteFrom('rate_limit_windows').where('window_start', '<', windowStart).execute();
}
