import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withRulesWritten } from '../helpers/quotations.js';
import { quoteParcel, type Parcel, type Quotation } from '../../src/modules/rating/engine.js';
import { findZip3Place, greatCircleMiles, type Zip3Place } from '../../src/modules/rating/geography.js';
import { compileRateCard, type CompiledCard } from '../../src/modules/rating/rate-card.compile.js';
import type { RateCard } from '../../src/modules/rating/rate-card.schemas.js';
import { presentQuotation } from '../../src/modules/rating/rating.present.js';

/** Properties of the rate engine over the example card: what must hold for any parcel. */

const EXAMPLE: RateCard = JSON.parse(readFileSync(new URL('../../examples/rate-card.json', import.meta.url), 'utf8'));
const example = compileRateCard(EXAMPLE);
const SERVICES = ['Ground', 'Economy'];
const DATES = ['2026-11-23', '2026-06-01'];

const RUNS = 300;

// --- Decimal text, built from integers only (never from floats) -------------------------------------

const SCALE = 10_000;

/** The decimal text of `n` ten-thousandths: 125000 → "12.5", 30000 → "3", 1 → "0.0001". */
function decimalText(n: number): string {
  const whole = Math.floor(n / SCALE);
  const fraction = n % SCALE;
  return fraction === 0 ? String(whole) : `${whole}.${String(fraction).padStart(4, '0').replace(/0+$/, '')}`;
}

/** A positive amount in ten-thousandths, up to `max` units, with 0 to 4 fractional digits. */
const scaled = (max: number) =>
  fc.integer({ min: 0, max: 4 }).chain((digits) => {
    const step = 10 ** (4 - digits);
    return fc.integer({ min: 1, max: Math.floor((max * SCALE) / step) }).map((k) => k * step);
  });

/** Sides up to 130 in and weights up to 180 lb: within the card's limits and beyond them (108 in, 150 lb). */
const side = scaled(130);
const weight = scaled(180);

/** Destinations of every kind: near and far, DAS/EDAS lists, zone 9 (AK, HI, PR, GU), and a ZIP3 nobody knows. */
const DESTINATIONS = [
  '10001',
  '07001',
  '60601',
  '90001',
  '33101',
  '98101',
  '04401',
  '59001',
  '99501',
  '99701',
  '96813',
  '00901',
  '96910',
  '00012',
];

interface ParcelNumbers {
  destZip: string;
  sides: [number, number, number];
  weight: number;
}

const parcelNumbers: fc.Arbitrary<ParcelNumbers> = fc.record({
  destZip: fc.constantFrom(...DESTINATIONS),
  sides: fc.tuple(side, side, side),
  weight,
});

function parcelOf({ destZip, sides, weight }: ParcelNumbers, originZip = '10001'): Parcel {
  return {
    originZip,
    destZip,
    length: decimalText(sides[0]),
    width: decimalText(sides[1]),
    height: decimalText(sides[2]),
    weight: decimalText(weight),
  };
}

/** Each service's total, or undefined when it was refused (or nothing could be quoted). */
function totals(quotation: Quotation): Map<string, bigint> {
  return new Map(quotation.quotes.map((q) => [q.service, q.total]));
}

/** For each service: a refused first parcel means a refused second; quoted both, the second costs at least as much. */
function neverCheaper(first: Quotation, second: Quotation) {
  const a = totals(first);
  const b = totals(second);
  for (const service of SERVICES) {
    const before = a.get(service);
    const after = b.get(service);
    if (before === undefined) expect(after, `${service} refused, then quoted ${after}`).toBeUndefined();
    else if (after !== undefined) expect(after >= before, `${service}: ${before} then ${after} cents`).toBe(true);
  }
}

describe('decimalText (the generator)', () => {
  it('writes ten-thousandths as plain decimal text', () => {
    expect([1, 5000, 125000, 30000, 1234567, 10_0000].map(decimalText)).toEqual(['0.0001', '0.5', '12.5', '3', '123.4567', '10']);
  });
});

describe('rate engine properties (example card)', () => {
  it('(a) is deterministic: the same input twice gives deep-equal quotations', () => {
    fc.assert(
      fc.property(parcelNumbers, fc.constantFrom(...DATES), fc.integer({ min: 1, max: 5000 }), (numbers, date, userId) => {
        const parcel = parcelOf(numbers);
        const first = quoteParcel(example, parcel, { date, userId });
        const second = quoteParcel(example, { ...parcel }, { date, userId });
        expect(withRulesWritten(second)).toEqual(withRulesWritten(first));
        expect(presentQuotation(example, second)).toEqual(presentQuotation(example, first));
      }),
      { numRuns: RUNS },
    );
  });

  it('(b) heavier is never cheaper', () => {
    fc.assert(
      fc.property(parcelNumbers, scaled(60), fc.constantFrom(...DATES), (numbers, extra, date) => {
        const lighter = quoteParcel(example, parcelOf(numbers), { date, userId: 1 });
        const heavier = quoteParcel(example, parcelOf({ ...numbers, weight: numbers.weight + extra }), { date, userId: 1 });
        neverCheaper(lighter, heavier);
      }),
      { numRuns: RUNS },
    );
  });

  it('(c) bigger is never cheaper: one side increased', () => {
    fc.assert(
      fc.property(parcelNumbers, fc.integer({ min: 0, max: 2 }), scaled(40), fc.constantFrom(...DATES), (numbers, which, extra, date) => {
        const sides = numbers.sides.map((length, i) => (i === which ? length + extra : length)) as [number, number, number];
        const smaller = quoteParcel(example, parcelOf(numbers), { date, userId: 1 });
        const bigger = quoteParcel(example, parcelOf({ ...numbers, sides }), { date, userId: 1 });
        neverCheaper(smaller, bigger);
      }),
      { numRuns: RUNS },
    );
  });

  describe('(d) farther is never cheaper', () => {
    const ORIGIN = '10001';
    const origin = findZip3Place(ORIGIN.slice(0, 3))!;
    // Outside every ZIP list of the card (das, edas, remote: these ZIP3s hold their ranges) and the
    // zone 9 override (995-999, 967-968, 006-009, 969).
    const LISTED = ['044', '580', '597', '832', '880', '978', '590', '823', '893', '979'];
    const ZONE_9 = ['995', '996', '997', '998', '999', '967', '968', '006', '007', '008', '009', '969'];
    const places: Zip3Place[] = [];
    for (let n = 0; n < 1000; n++) {
      const zip3 = String(n).padStart(3, '0');
      const place = findZip3Place(zip3);
      if (place && !LISTED.includes(zip3) && !ZONE_9.includes(zip3)) places.push(place);
    }

    it('has the ZIP3s of the geography to choose from', () => {
      // Every ZIP3 left out is one the geography knows (so leaving it out means something), and most are left in.
      for (const zip3 of [...LISTED, ...ZONE_9]) expect(findZip3Place(zip3), zip3).toBeDefined();
      expect(places.length).toBeGreaterThan(850);
    });

    it('for two destinations, the nearer costs no more for each service', () => {
      const destination = fc.tuple(fc.constantFrom(...places), fc.integer({ min: 0, max: 99 })).map(([place, suffix]) => ({
        zip: `${place.zip3}${String(suffix).padStart(2, '0')}`,
        miles: greatCircleMiles(origin, place),
      }));
      const size = fc.record({ sides: fc.tuple(scaled(60), scaled(40), scaled(30)), weight: scaled(80) });
      fc.assert(
        fc.property(destination, destination, size, fc.constantFrom(...DATES), (first, second, { sides, weight }, date) => {
          const [near, far] = first.miles <= second.miles ? [first, second] : [second, first];
          const nearQuote = quoteParcel(example, parcelOf({ destZip: near.zip, sides, weight }, ORIGIN), { date, userId: 1 });
          const farQuote = quoteParcel(example, parcelOf({ destZip: far.zip, sides, weight }, ORIGIN), { date, userId: 1 });
          // Outside the lists and zone 9, a service refuses a parcel for its size and weight alone: at both or neither.
          expect([...totals(farQuote).keys()].sort()).toEqual([...totals(nearQuote).keys()].sort());
          neverCheaper(nearQuote, farQuote);
        }),
        { numRuns: RUNS },
      );
    });
  });

  it('(e) perCharge lines always sum exactly to the perService total (variants with markups)', () => {
    const withMarkup = (result: 'perService' | 'perCharge'): CompiledCard => {
      const card = structuredClone(EXAMPLE);
      card.result = result;
      card.markup = { percent: '7.5', byUserId: { '42': '12.3456' } };
      return compileRateCard(card);
    };
    const perService = withMarkup('perService');
    const perCharge = withMarkup('perCharge');
    const tenThousandths = (price: string) => Number(price.replace('.', ''));
    fc.assert(
      fc.property(parcelNumbers, fc.constantFrom(...DATES), fc.constantFrom(1, 42), (numbers, date, userId) => {
        const parcel = parcelOf(numbers);
        const byService = presentQuotation(perService, quoteParcel(perService, parcel, { date, userId }));
        const byCharge = presentQuotation(perCharge, quoteParcel(perCharge, parcel, { date, userId }));
        expect({ ...byCharge, Result: [] }).toEqual({ ...byService, Result: [] });
        // The lines, service by service in the same order, each summing to the service's Price.
        const services = [...new Set(byCharge.Result.map((entry) => entry.name.split(' - ')[0]))];
        expect(services).toEqual(byService.Result.map((entry) => entry.name));
        for (const { name, Price } of byService.Result) {
          const lines = byCharge.Result.filter((entry) => entry.name.startsWith(`${name} - `));
          expect(lines.map((line) => line.name)).toContain(`${name} - Base`);
          expect(lines.reduce((sum, line) => sum + tenThousandths(line.Price), 0)).toBe(tenThousandths(Price));
        }
      }),
      { numRuns: RUNS },
    );
  });
});
