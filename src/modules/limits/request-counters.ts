import type { Db } from '../../db/database.js';
import { sharedByProcesses } from '../../db/dialect.js';
import type { Clock } from '../../lib/clock.js';
import type { MaybePromise } from '../../lib/maybe-promise.js';
import * as repo from './limits.repository.js';

/**
 * Counts each API key's requests in fixed windows (docs/operations.md): in memory when one process serves
 * the database (SQLite), in the database when several may (PostgreSQL).
 */

/** A request counted: how many of the window's requests are taken, and how long the window lasts. */
export interface Count {
  current: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

/** Counts one more request of a key in its current window, up to `limit`. */
export type RequestCounter = (keyId: number, limit: number) => MaybePromise<Count>;

export const WINDOW_MS = 60_000;

function windowOf(clock: Clock): { windowStart: number; ttlMs: number } {
  const now = clock.now();
  const windowStart = now - (now % WINDOW_MS);
  return { windowStart, ttlMs: windowStart + WINDOW_MS - now };
}

/** Exact counts in this process. */
export function countInMemory(clock: Clock): RequestCounter {
  const windows = new Map<number, { windowStart: number; used: number }>();
  return (keyId) => {
    const { windowStart, ttlMs } = windowOf(clock);
    let window = windows.get(keyId);
    if (window?.windowStart !== windowStart) windows.set(keyId, (window = { windowStart, used: 0 }));
    return { current: ++window.used, ttlMs };
  };
}

/** How many requests a process leases at once: a twentieth of the limit, so a lease is rare and an idle process holds little. */
const leaseSize = (limit: number) => Math.max(1, Math.floor(limit / 20));

/** A key's window as this process knows it. */
interface SharedWindow {
  windowStart: number;
  /** Requests the window had leased, across processes, as of this process's last lease. */
  leased: number;
  /** Requests of this process's leases not yet served. */
  left: number;
  /** No lease is left in the window: every process's requests are refused until it ends. */
  spent: boolean;
  /** The lease under way: the requests that find none left wait for it rather than lease again. */
  leasing?: Promise<void>;
}

/**
 * Counts shared by every process on the database. A process leases a few requests of the window at
 * a time (one statement, one lease under way per key) and serves them from memory: a request never
 * passes the limit across processes, and most requests cost no round trip. Requests leased but not
 * served before the window ends are lost to it, so a key spread over processes may get a little
 * less than its limit.
 */
export function countShared(db: Db, clock: Clock, routeGroup: string): RequestCounter {
  const windows = new Map<number, SharedWindow>();
  let forgottenBefore = 0;

  const lease = async (window: SharedWindow, keyId: number, limit: number): Promise<void> => {
    if (window.windowStart - WINDOW_MS > forgottenBefore) {
      forgottenBefore = window.windowStart - WINDOW_MS;
      await repo.forgetWindowsBefore(db, forgottenBefore);
    }
    const leased = await repo.leaseRequests(db, { keyId, routeGroup, windowStart: window.windowStart }, leaseSize(limit), limit);
    if (!leased) window.spent = true;
    else {
      window.leased = leased.used;
      window.left += leased.granted;
    }
  };

  const count: RequestCounter = (keyId, limit) => {
    const { windowStart, ttlMs } = windowOf(clock);
    let window = windows.get(keyId);
    if (window?.windowStart !== windowStart) windows.set(keyId, (window = { windowStart, leased: 0, left: 0, spent: false }));
    if (window.left > 0) {
      window.left--;
      return { current: window.leased - window.left, ttlMs };
    }
    if (window.spent) return { current: limit + 1, ttlMs };
    const current = window;
    current.leasing ??= lease(current, keyId, limit).finally(() => {
      current.leasing = undefined;
    });
    return current.leasing.then(() => count(keyId, limit));
  };
  return count;
}

/** The counter that suits the database: shared where several processes may serve it. */
export function requestCounter(db: Db, clock: Clock, routeGroup: string): RequestCounter {
  return sharedByProcesses(db) ? countShared(db, clock, routeGroup) : countInMemory(clock);
}
