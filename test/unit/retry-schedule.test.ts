import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS, retryAfterMs } from '../../src/modules/webhooks/retry-schedule.js';

/** docs/webhooks.md: attempts at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the one before, ±10%. */

const AT = Date.parse('2026-03-05T14:07:09.123Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('the retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up after the eighth attempt', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_DELAYS_MS).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((failed) => nextAttemptAt(failed, AT, middle)! - AT)).toEqual([...RETRY_DELAYS_MS]);
    expect(nextAttemptAt(8, AT, middle)).toBeUndefined();
  });

  it('jitters each wait by at most 10% either way', () => {
    expect(nextAttemptAt(1, AT, () => 0)! - AT).toBe(4_500);
    expect(nextAttemptAt(1, AT, () => 0.999999)! - AT).toBe(5_500);
    expect(nextAttemptAt(7, AT, () => 0.75)! - AT).toBe(10.5 * HOUR);
    expect(nextAttemptAt(7, AT, () => 0)! - AT).toBe(9 * HOUR);
    expect(nextAttemptAt(7, AT, () => 0.999999)! - AT).toBeLessThan(11 * HOUR);
  });

  it('never comes back sooner than the receiver’s Retry-After, and no later than the schedule when it asks less', () => {
    expect(nextAttemptAt(1, AT, () => 0.5, 120 * SECOND)! - AT).toBe(120 * SECOND);
    expect(nextAttemptAt(3, AT, () => 0.5, 120 * SECOND)! - AT).toBe(30 * MINUTE);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and an HTTP date; anything else asks nothing', () => {
    expect(retryAfterMs('120', AT)).toBe(120_000);
    expect(retryAfterMs(' 7 ', AT)).toBe(7_000);
    expect(retryAfterMs('Thu, 05 Mar 2026 14:17:09 GMT', AT)).toBe(10 * MINUTE - 123);
    expect(retryAfterMs('Thu, 05 Mar 2026 14:00:00 GMT', AT)).toBe(0);
    expect(retryAfterMs(undefined, AT)).toBe(0);
    expect(retryAfterMs('soon', AT)).toBe(0);
    expect(retryAfterMs('-5', AT)).toBe(0);
  });
});
