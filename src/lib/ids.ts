import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** A URL-safe random token of `bytes` random bytes (256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Random fractions drawn from a pooled buffer of the system's CSPRNG: `ulid`'s own draws each of a
 * ULID's 16 random characters with a call of its own into OpenSSL, which cost a write as much as
 * one of its SQL statements (docs/performance.md).
 */
const randomPool = new Uint8Array(4096);
let randomPoolNext = randomPool.length;

function pooledRandom(): number {
  if (randomPoolNext === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolNext = 0;
  }
  // A byte ÷ 256 is what ulid's own generator gives: it takes 5 of its 8 bits.
  return randomPool[randomPoolNext++]! / 256;
}

/**
 * The next sortable id (ULID) of this process: ids grow with `at` and stay in order when the clock
 * stands still (a test's clock); the prefix says what it names (`evt_`, `dlv_`, `ep_`).
 */
export const nextSortableId: (at: number) => string = monotonicFactory(pooledRandom);
