import { DateTime } from 'luxon';

/**
 * When a failed delivery is tried again (docs/webhooks.md): the attempts come at once, then 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h and 10 h after the one before, each wait ±10% at random so that many
 * deliveries failing together do not come back together; never sooner than the receiver's
 * Retry-After. After the eighth attempt fails, the delivery is given up.
 */

export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const JITTER = 0.1;

/**
 * When to try again after `failedAttempts` attempts in a row failed, the last at `at`; undefined
 * once all eight have. `random` is in [0, 1) (Math.random in service; fixed in tests).
 */
export function nextAttemptAt(failedAttempts: number, at: number, random: () => number, retryAfterMs = 0): number | undefined {
  const delay = RETRY_DELAYS_MS[failedAttempts - 1];
  if (delay === undefined) return undefined;
  const jittered = Math.round(delay * (1 - JITTER + 2 * JITTER * random()));
  return at + Math.max(jittered, retryAfterMs);
}

/** A Retry-After header as milliseconds from `at`: delay-seconds or an HTTP date; 0 when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, at: number): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return 0;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = DateTime.fromHTTP(value.trim());
  return date.isValid ? Math.max(0, date.toMillis() - at) : 0;
}
