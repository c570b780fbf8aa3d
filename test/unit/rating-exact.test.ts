import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divideRounded, divideRoundedBig, formatAmount, formatPrice, toCents } from '../../src/modules/rating/exact.js';

describe('the rate engine’s exact arithmetic', () => {
  it('rounds a quotient up or half-up, exactly, also where the floating division lands on the wrong side', () => {
    expect(divideRounded(7, 2, 'up')).toBe(4);
    expect(divideRounded(6, 2, 'up')).toBe(3);
    expect(divideRounded(5, 2, 'halfUp')).toBe(3);
    expect(divideRounded(4, 3, 'halfUp')).toBe(1);
    expect(divideRounded(0, 7, 'up')).toBe(0);
    // Near the top of the safe integers the floor of the floating quotient is still the true one.
    const big = Number.MAX_SAFE_INTEGER;
    expect(divideRounded(big - 1, big, 'up')).toBe(1);
    expect(divideRounded(big - 1, big, 'halfUp')).toBe(1);
    expect(divideRounded(1, big, 'halfUp')).toBe(0);
    expect(divideRounded(1, big, 'up')).toBe(1);
    expect(divideRounded(big, 3, 'up')).toBe(3002399751580331);
    expect(divideRounded(big - 1, 3, 'halfUp')).toBe(3002399751580330);
  });

  it('does the same on bigints, of any size', () => {
    expect(divideRoundedBig(10n ** 30n + 1n, 10n ** 15n, 'up')).toBe(10n ** 15n + 1n);
    expect(divideRoundedBig(10n ** 30n + 1n, 10n ** 15n, 'halfUp')).toBe(10n ** 15n);
    expect(divideRoundedBig(15n, 10n, 'halfUp')).toBe(2n);
    expect(divideRoundedBig(14n, 10n, 'halfUp')).toBe(1n);
    // Odd divisors: half of 3 is 1.5, so a remainder of 2 rounds up and 1 does not.
    expect(divideRoundedBig(7n, 3n, 'halfUp')).toBe(2n);
    expect(divideRoundedBig(8n, 3n, 'halfUp')).toBe(3n);
    expect(divideRoundedBig(0n, 7n, 'up')).toBe(0n);
    expect(divideRoundedBig(7n, 7n, 'up')).toBe(1n);
    expect(divideRoundedBig(8n, 7n, 'up')).toBe(2n);
  });

  it('agrees with the quotient-and-remainder definition of rounding for every a ≥ 0 and b > 0', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.bigInt({ min: 1n, max: 10n ** 20n }), (a, b) => {
        const quotient = a / b;
        const remainder = a - quotient * b;
        expect(divideRoundedBig(a, b, 'up')).toBe(remainder > 0n ? quotient + 1n : quotient);
        expect(divideRoundedBig(a, b, 'halfUp')).toBe(remainder * 2n >= b ? quotient + 1n : quotient);
      }),
    );
  });

  it('rounds an amount half-up to cents and prints a Price with four decimals', () => {
    expect(toCents(6_290_375n, 6)).toBe(629n); // 6.290375 → 6.29
    expect(toCents(6_295_000n, 6)).toBe(630n); // 6.295 → 6.30
    expect(toCents(6_294_999n, 6)).toBe(629n);
    expect(toCents(4_532_500_000_000_000_000_000n, 20)).toBe(4533n); // the engine's scale: 45.325 → 45.33
    expect(formatPrice(3879n)).toBe('38.7900');
    expect(formatPrice(5n)).toBe('0.0500');
    expect(formatPrice(0n)).toBe('0.0000');
  });

  it('prints an amount as plain decimal text without trailing zeros', () => {
    expect(formatAmount(26_553_875n, 6)).toBe('26.553875');
    expect(formatAmount(5_850_000n, 6)).toBe('5.85');
    expect(formatAmount(10_000_000n, 6)).toBe('10');
    expect(formatAmount(1n, 6)).toBe('0.000001');
  });
});
