import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_SCALED,
  SCALE,
  asScaled,
  decimalText,
  decimalToNumber,
  fitsDecimalRule,
  formatDecimal,
  isDecimal,
  isWithinDecimalRange,
  parseDecimal,
  tryParseDecimal,
} from '../../src/lib/decimal.js';

const scaledInRange = fc.integer({ min: -MAX_SCALED, max: MAX_SCALED });

/** An independent reference: the exact decimal value of a scaled integer, by BigInt. */
function referenceText(value: bigint): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const whole = magnitude / 10_000n;
  const fraction = (magnitude % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${negative && magnitude !== 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

describe('parseDecimal', () => {
  it('reads decimal text into an exact scaled integer', () => {
    expect(parseDecimal('12.5')).toBe(125_000);
    expect(parseDecimal('3')).toBe(30_000);
    expect(parseDecimal('-0.0001')).toBe(-1);
    expect(parseDecimal('0.0001')).toBe(1);
    expect(parseDecimal('12.3456')).toBe(123_456);
    expect(parseDecimal('00012.3400')).toBe(123_400);
    expect(parseDecimal('99999999999.9999')).toBe(MAX_SCALED);
    expect(parseDecimal('-99999999999.9999')).toBe(-MAX_SCALED);
    expect(MAX_SCALED).toBe(999_999_999_999_999);
    expect(Number.isSafeInteger(MAX_SCALED)).toBe(true);
  });

  it('never yields a negative zero', () => {
    for (const zero of ['0', '-0', '-0.0000', '0.0', -0, 0]) {
      expect(Object.is(parseDecimal(zero), 0)).toBe(true);
    }
  });

  it('reads a JSON number by its shortest round-trip decimal form', () => {
    expect(parseDecimal(12.5)).toBe(125_000);
    expect(parseDecimal(-3)).toBe(-30_000);
    expect(parseDecimal(0.0001)).toBe(1);
    expect(parseDecimal(0.1)).toBe(1_000);
    expect(parseDecimal(1.1)).toBe(11_000);
    expect(parseDecimal(99999999999.9999)).toBe(MAX_SCALED);
    expect(parseDecimal(-99999999999.9999)).toBe(-MAX_SCALED);
  });

  it.each([
    '',
    '1.',
    '.5',
    '+1',
    '1e3',
    '1E3',
    '123456789012',
    '1.23456',
    ' 1',
    '1 ',
    '1\n',
    'NaN',
    'Infinity',
    '0x10',
    '1,5',
    '--1',
    '١٢',
    '1_000',
  ])('refuses the text %j', (text) => {
    expect(tryParseDecimal(text)).toBeUndefined();
    expect(isDecimal(text)).toBe(false);
    expect(() => parseDecimal(text)).toThrow(RangeError);
  });

  it.each([NaN, Infinity, -Infinity, 1e21, -1e21, 1e-7, 5e-5, 1.23456, 123456789012, 0.1 + 0.2, 2 ** 53])(
    'refuses the number %s',
    (value) => {
      expect(tryParseDecimal(value)).toBeUndefined();
      expect(() => parseDecimal(value)).toThrow(RangeError);
    },
  );

  it('refuses values that are neither text nor numbers', () => {
    for (const value of [null, undefined, true, {}, [], [1], 10n, new Number(1), new String('1')]) {
      expect(tryParseDecimal(value)).toBeUndefined();
      expect(decimalText(value)).toBeUndefined();
    }
  });

  it('names the value it refuses', () => {
    expect(() => parseDecimal('1e3')).toThrow('"1e3" is not a decimal with at most 11 integer and 4 fractional digits');
  });
});

describe('formatDecimal and decimalToNumber', () => {
  it('write decimal text without trailing zeros', () => {
    expect(formatDecimal(125_000)).toBe('12.5');
    expect(formatDecimal(30_000)).toBe('3');
    expect(formatDecimal(-1)).toBe('-0.0001');
    expect(formatDecimal(0)).toBe('0');
    expect(formatDecimal(-0)).toBe('0');
    expect(formatDecimal(100)).toBe('0.01');
    expect(formatDecimal(1_234)).toBe('0.1234');
    expect(formatDecimal(10_000_000)).toBe('1000');
    expect(formatDecimal(-123_456)).toBe('-12.3456');
    expect(formatDecimal(MAX_SCALED)).toBe('99999999999.9999');
    // beyond the input range (a sum of balances) it still writes the exact value
    expect(formatDecimal(Number.MAX_SAFE_INTEGER)).toBe('900719925474.0991');
  });

  it('turn scaled integers into the nearest JS number', () => {
    expect(decimalToNumber(125_000)).toBe(12.5);
    expect(decimalToNumber(-1)).toBe(-0.0001);
    expect(Object.is(decimalToNumber(-0), 0)).toBe(true);
    expect(decimalToNumber(MAX_SCALED)).toBe(99999999999.9999);
  });

  it('refuse anything but a safe integer', () => {
    for (const bad of [1.5, NaN, Infinity, 2 ** 53]) {
      expect(() => formatDecimal(bad)).toThrow(RangeError);
      expect(() => decimalToNumber(bad)).toThrow(RangeError);
      expect(() => asScaled(bad)).toThrow(RangeError);
    }
    expect(Object.is(asScaled(-0), 0)).toBe(true);
  });

  it('bound the range at 11 integer digits', () => {
    expect(isWithinDecimalRange(MAX_SCALED)).toBe(true);
    expect(isWithinDecimalRange(-MAX_SCALED)).toBe(true);
    expect(isWithinDecimalRange(MAX_SCALED + 1)).toBe(false);
    expect(isWithinDecimalRange(0.5)).toBe(false);
    expect(tryParseDecimal(formatDecimal(MAX_SCALED + 1))).toBeUndefined();
  });
});

describe('fitsDecimalRule', () => {
  const positive = { integerDigits: 3, fractionDigits: 2, sign: 'positive' } as const;
  const nonnegative = { ...positive, sign: 'nonnegative' } as const;
  const any = { ...positive, sign: 'any' } as const;

  it.each([
    [
      positive,
      ['0.01', '1', '999.99', 12.5, '007'],
      ['0', '-0', '0.00', '-1', 0, '1000', '1.234', '1.', '.5', '1e2', 1e21, NaN, null, true],
    ],
    [nonnegative, ['0', '-0', '-0.00', '0.00', '5', 0], ['-0.01', '-5', -1, '']],
    [any, ['-999.99', '-0.5', '0', '12', -3], ['-1000', '--1', '+1', '1.001', ' 1']],
  ])('%o accepts and refuses exactly these', (rule, accepted, refused) => {
    for (const value of accepted) expect(fitsDecimalRule(value, rule), String(value)).toBe(true);
    for (const value of refused) expect(fitsDecimalRule(value, rule), String(value)).toBe(false);
  });
});

describe('decimal properties', () => {
  it('parse(format(x)) === x over the whole range', () => {
    fc.assert(
      fc.property(scaledInRange, (x) => {
        expect(parseDecimal(formatDecimal(x))).toBe(x);
      }),
      { numRuns: 5_000 },
    );
  });

  it('format writes the exact decimal value (checked against BigInt)', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (x) => {
        expect(formatDecimal(x)).toBe(referenceText(BigInt(x)));
      }),
      { numRuns: 5_000 },
    );
  });

  it('a scaled value survives the trip through a JSON number', () => {
    fc.assert(
      fc.property(scaledInRange, (x) => {
        const n = decimalToNumber(x);
        expect(String(n)).toBe(formatDecimal(x));
        expect(parseDecimal(n)).toBe(x);
        expect(parseDecimal(JSON.parse(JSON.stringify(n)) as number)).toBe(x);
      }),
      { numRuns: 5_000 },
    );
  });

  it('any decimal text reads back to its canonical form', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    fc.assert(
      fc.property(fc.boolean(), digits(1, 11), fc.option(digits(1, 4)), (negative, whole, fraction) => {
        const text = `${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}`;
        const expected = BigInt(`${negative ? '-' : ''}${whole}${(fraction ?? '').padEnd(4, '0')}`);
        expect(formatDecimal(parseDecimal(text))).toBe(referenceText(expected));
      }),
      { numRuns: 5_000 },
    );
  });

  it('any JS number is either refused or read exactly', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          fc.double({ min: -1e12, max: 1e12 }),
          scaledInRange.map((x) => x / SCALE),
        ),
        (n) => {
          const scaled = tryParseDecimal(n);
          if (scaled === undefined) return;
          expect(Number.isSafeInteger(scaled)).toBe(true);
          expect(decimalToNumber(scaled)).toBe(n === 0 ? 0 : n);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('sums of scaled values are exact', () => {
    // Up to nine values of the widest range stay below 2^53, so their sum is exact.
    fc.assert(
      fc.property(fc.array(scaledInRange, { maxLength: 9 }), (values) => {
        const sum = values.reduce((a, b) => a + b, 0);
        const exact = values.reduce((a, b) => a + BigInt(b), 0n);
        expect(Number.isSafeInteger(sum)).toBe(true);
        expect(BigInt(sum)).toBe(exact);
        expect(formatDecimal(sum)).toBe(referenceText(exact));
      }),
      { numRuns: 5_000 },
    );
    // where binary floating point is not: 0.1 + 0.2
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(formatDecimal(parseDecimal('0.1') + parseDecimal('0.2'))).toBe('0.3');
  });

  it('sums of parsed decimal text equal the decimal sum', () => {
    const decimalTexts = scaledInRange.map(formatDecimal);
    fc.assert(
      fc.property(fc.array(decimalTexts, { minLength: 1, maxLength: 9 }), (texts) => {
        const sum = texts.map((t) => parseDecimal(t)).reduce((a, b) => a + b, 0);
        const exact = texts.reduce(
          (a, t) => a + BigInt(t.replace(/^(-?)(\d+)(?:\.(\d+))?$/, (_, s, w, f = '') => `${s}${w}${f.padEnd(4, '0')}`)),
          0n,
        );
        expect(formatDecimal(sum)).toBe(referenceText(exact));
      }),
      { numRuns: 2_000 },
    );
  });
});
