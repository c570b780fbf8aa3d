import { formatDecimal, SCALE } from '../../lib/decimal.js';

/**
 * The rate engine's exact arithmetic, on lib/decimal's scaled integers (a value × 10⁴): sizes and
 * weights are safe-integer numbers; money is a bigint, because products (a weight beyond the last
 * break × a price a unit, fuel %, markup %) need more digits than a number keeps exactly. Every
 * division rounds on purpose, by a rule of the card; nothing is cut short.
 */

export type RoundingMode = 'up' | 'halfUp';

/**
 * a ÷ b rounded to a whole number (a ≥ 0, b > 0, both safe integers), exactly: the floating
 * quotient of two safe integers never rounds across a whole number (that would take a × b > 2⁵³
 * … and a < 2⁵³), so its floor is the true one, and the remainder a − q × b is exact.
 */
export function divideRounded(a: number, b: number, mode: RoundingMode): number {
  const quotient = Math.floor(a / b);
  const remainder = a - quotient * b;
  const up = mode === 'up' ? remainder > 0 : remainder * 2 >= b;
  return up ? quotient + 1 : quotient;
}

/** The same for bigints (a ≥ 0, b > 0); floor division only, since every bigint operation allocates. */
export function divideRoundedBig(a: bigint, b: bigint, mode: RoundingMode): bigint {
  // ⌊(a + b − 1) ÷ b⌋ rounds up; ⌊(a + ⌊b ÷ 2⌋) ÷ b⌋ rounds half up, for odd b too.
  return mode === 'up' ? (a + b - 1n) / b : (a + b / 2n) / b;
}

/** 10^(digits − 2) and half of it, by digits: a power per charge line would cost as much as the rest of the line. */
const centDivisors: { divisor: bigint; half: bigint }[] = [];

/** Money in cents from an amount ≥ 0 at 10^digits (half-up). */
export function toCents(amount: bigint, digits: number): bigint {
  let cents = centDivisors[digits];
  if (!cents) {
    const divisor = 10n ** BigInt(digits - 2);
    centDivisors[digits] = cents = { divisor, half: divisor / 2n };
  }
  return (amount + cents.half) / cents.divisor;
}

/** "12.3400": cents with the four decimals the spec's Price has. */
export function formatPrice(cents: bigint): string {
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}00`;
}

/** The plain decimal text of an amount at 10^digits, without trailing zeros: "26.553875". */
export function formatAmount(amount: bigint, digits: number): string {
  const unit = 10n ** BigInt(digits);
  const fraction = String(amount % unit)
    .padStart(digits, '0')
    .replace(/0+$/, '');
  return fraction ? `${amount / unit}.${fraction}` : String(amount / unit);
}

/** A scaled size or weight as text: 52000 → "5.2". */
export const formatMeasure = formatDecimal;

/** The scale of a scaled value, as a bigint. */
export const SCALE_BIG = BigInt(SCALE);
