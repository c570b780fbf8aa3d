/**
 * Exact decimals as scaled integers: a value with at most 11 integer and 4 fractional digits is
 * kept as the integer value × 10⁴, so 12.5 is 125000. Every such integer (at most 15 digits) is an
 * exact JS number, and so is every sum of up to nine of them (2⁵³ ≈ 9.007 × 10¹⁵), so additions,
 * comparisons and database arithmetic on them never round.
 */

declare const scaledBrand: unique symbol;

/** An integer count of 10⁻⁴ units. The brand keeps plain numbers (12.5) from passing for one. */
export type Scaled = number & { readonly [scaledBrand]: true };

/** Fractional digits kept. */
export const SCALE_DIGITS = 4;
/** 10⁴: the scaled form of 1. */
export const SCALE = 10_000;
/** The largest value, 99999999999.9999, scaled. */
export const MAX_SCALED = 999_999_999_999_999 as Scaled;

/** The decimal text every quantity must match: up to 11 integer and 4 fractional digits, no exponent. */
export const DECIMAL_PATTERN = /^-?\d{1,11}(\.\d{1,4})?$/;
/** {@link DECIMAL_PATTERN} as a JSON-schema pattern string. */
export const DECIMAL_PATTERN_SOURCE = DECIMAL_PATTERN.source;

/**
 * The plain decimal text of `value`, or undefined when it has none that the pattern allows: a
 * string is taken as it is; a number by its shortest round-trip form (`String(n)`), so 0.1 is
 * "0.1", and a number that JavaScript writes with an exponent (1e21, 1e-7), NaN or Infinity is
 * refused. Anything else (null, booleans, objects) is refused.
 */
export function decimalText(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return undefined;
  return DECIMAL_PATTERN.test(text) ? text : undefined;
}

/** Whether `value` is decimal text or a number that {@link parseDecimal} accepts. */
export function isDecimal(value: unknown): value is string | number {
  return decimalText(value) !== undefined;
}

const MINUS = '-'.charCodeAt(0);
/** What one unit of the last fractional digit is worth, by the number of fractional digits. */
const FRACTION_UNIT = Array.from({ length: SCALE_DIGITS + 1 }, (_, digits) => 10 ** (SCALE_DIGITS - digits));

/** The scaled integer of decimal text or a number, or undefined when it is not one (see {@link decimalText}). */
export function tryParseDecimal(value: unknown): Scaled | undefined {
  const text = decimalText(value);
  if (text === undefined) return undefined;
  // The text matched DECIMAL_PATTERN: an optional '-', digits, and a '.' with 1 to 4 digits after it.
  // Slicing it (rather than splitting and padding) keeps this cheap: every quantity goes through here.
  const negative = text.charCodeAt(0) === MINUS;
  const start = negative ? 1 : 0;
  const dot = text.indexOf('.', start);
  const scaled =
    dot < 0
      ? Number(text.slice(start)) * SCALE
      : Number(text.slice(start, dot)) * SCALE + Number(text.slice(dot + 1)) * FRACTION_UNIT[text.length - dot - 1]!;
  // `0 - 0` would be -0; keep zero unsigned so that `Object.is` and formatting agree.
  return (negative && scaled !== 0 ? -scaled : scaled) as Scaled;
}

/** The scaled integer of decimal text or a number; a RangeError names the value when it is not one. */
export function parseDecimal(value: string | number): Scaled {
  const scaled = tryParseDecimal(value);
  if (scaled === undefined) {
    throw new RangeError(`${JSON.stringify(value) ?? String(value)} is not a decimal with at most 11 integer and 4 fractional digits`);
  }
  return scaled;
}

/** Brands a safe integer as scaled (a value read from the database, a sum, a negation). */
export function asScaled(value: number): Scaled {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a scaled integer`);
  return (value === 0 ? 0 : value) as Scaled;
}

/** Whether a scaled integer lies within ±99999999999.9999. */
export function isWithinDecimalRange(value: number): boolean {
  return Number.isSafeInteger(value) && Math.abs(value) <= MAX_SCALED;
}

/** Decimal text of a scaled integer without trailing zeros: 125000 → "12.5", 30000 → "3", -1 → "-0.0001". */
export function formatDecimal(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a scaled integer`);
  const magnitude = Math.abs(value);
  const fraction = magnitude % SCALE;
  const whole = (magnitude - fraction) / SCALE; // an exact division: no rounding near 2⁵³
  const sign = value < 0 ? '-' : '';
  if (fraction === 0) return `${sign}${whole}`;
  return `${sign}${whole}.${String(fraction).padStart(SCALE_DIGITS, '0').replace(/0+$/, '')}`;
}

/**
 * The JS number nearest to the decimal value (what a JSON answer carries): 125000 → 12.5. The
 * division is correctly rounded, so this is the same number as `Number(formatDecimal(value))`.
 */
export function decimalToNumber(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a scaled integer`);
  return value === 0 ? 0 : value / SCALE;
}

/** The shape a decimal field allows: digits before and after the point, and the sign. */
export interface DecimalRule {
  integerDigits: number;
  fractionDigits: number;
  sign: 'positive' | 'nonnegative' | 'any';
}

const shapes = new WeakMap<DecimalRule, RegExp>();

/** The pattern of a rule's decimals, built once per rule: validation runs it on every request. */
function decimalShape(rule: DecimalRule): RegExp {
  let shape = shapes.get(rule);
  if (!shape) {
    shape = new RegExp(`^-?\\d{1,${rule.integerDigits}}(?:\\.\\d{1,${rule.fractionDigits}})?$`);
    shapes.set(rule, shape);
  }
  return shape;
}

const NONZERO_DIGIT = /[1-9]/;

/**
 * Whether `value` (decimal text, or a JSON number by its shortest round-trip form, never an
 * exponent) has at most the rule's digits and the sign it allows.
 */
export function fitsDecimalRule(value: unknown, rule: DecimalRule): boolean {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return false;
  if (!decimalShape(rule).test(text)) return false;
  const negative = text.charCodeAt(0) === MINUS;
  const zero = !NONZERO_DIGIT.test(text);
  if (rule.sign === 'positive') return !negative && !zero;
  if (rule.sign === 'nonnegative') return !negative || zero;
  return true;
}
