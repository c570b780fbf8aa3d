import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.js';
import type { MaybePromise } from './maybe-promise.js';

/**
 * Remembers for `ttlMs` what `lookup` found for its arguments. docs/access.md lets a process trust keys
 * and tenant facts for about a second, so a revocation or a change reaches every process within
 * that time. What it did not find is asked again every time: a new key or facility works at once.
 * A value that says when it ends (`endsAt`, e.g. a key's expiry) is never remembered past that
 * instant. An answer from memory comes back as the value itself, without a turn of the microtask queue.
 */
export function rememberFound<A extends string[], V extends object>(
  lookup: (...args: A) => MaybePromise<V | undefined>,
  clock: Clock,
  ttlMs: number,
  endsAt: (value: V) => number | null = () => null,
): (...args: A) => MaybePromise<V | undefined> {
  const found = new LRUCache<string, V>({ max: 10_000, ttl: ttlMs, ttlResolution: 0, perf: { now: () => clock.now() } });
  const lookUpAndRemember = async (name: string, args: A) => {
    const value = await lookup(...args);
    if (value !== undefined) {
      // The cache serves an entry while its age is at most its ttl, and a value ending at instant E
      // must not be served at E: so it lives E - now - 1 ms. Less than 1 is not remembered (a ttl
      // of 0 would mean forever).
      const end = endsAt(value);
      const ttl = end === null ? ttlMs : Math.min(ttlMs, end - clock.now() - 1);
      if (ttl >= 1) found.set(name, value, { ttl });
    }
    return value;
  };
  return (...args) => {
    const name = args.length === 1 ? args[0]! : JSON.stringify(args);
    return found.get(name) ?? lookUpAndRemember(name, args);
  };
}
