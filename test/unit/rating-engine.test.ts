import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/lib/decimal.js';
import { formatPrice } from '../../src/modules/rating/exact.js';
import { findZone, quoteParcel, type Parcel, type Quotation } from '../../src/modules/rating/engine.js';
import { compileRateCard, type CompiledCard } from '../../src/modules/rating/rate-card.compile.js';
import type { RateCard } from '../../src/modules/rating/rate-card.schemas.js';
import { presentQuotation } from '../../src/modules/rating/rating.present.js';

/**
 * The rate engine against quotes computed by hand from examples/rate-card.json (and variants of
 * it). Every expected number below is written out from the card's tables; none is computed here.
 *
 * Reading the comments: "z5" is zone 5; "dim 14×12×10=1680/139=12.09→13" is the dimensional weight
 * rounded up; "row 13" is the weight break `upTo: "13"`; "fuel 19.75% × (a+b)" names its bases.
 * Every line is rounded half-up to cents; the total is the sum of the rounded lines.
 */

const EXAMPLE: RateCard = JSON.parse(readFileSync(new URL('../../examples/rate-card.json', import.meta.url), 'utf8'));
const example = compileRateCard(EXAMPLE);

/** A deep clone of the example card with a few keys changed, compiled. */
function variant(change: (card: RateCard) => void): CompiledCard {
  const card = structuredClone(EXAMPLE);
  change(card);
  return compileRateCard(card);
}

/** In the peak window 2026-10-05..2027-01-17. */
const PEAK = '2026-11-23';
/** Out of it. */
const OFF = '2026-06-01';

const NYC = '10001';

function parcel(originZip: string, destZip: string, sides: [string, string, string], weight: string): Parcel {
  return { originZip, destZip, length: sides[0], width: sides[1], height: sides[2], weight };
}

const quote = (card: CompiledCard, p: Parcel, date = PEAK, userId = 1): Quotation => quoteParcel(card, p, { date, userId });
const envelope = (card: CompiledCard, p: Parcel, date = PEAK, userId = 1) => presentQuotation(card, quote(card, p, date, userId));

/** The envelope of a quote without a warning: `[name, Price]` per entry. */
function quoted(...entries: [string, string][]) {
  return {
    Result: entries.map(([name, Price]) => ({ name, Price })),
    Page: null,
    ErrorMsg: '',
    ErrorSeverity: 0,
    ErrorSource: '',
    Status: true,
  };
}

function notServiceable(message: string) {
  return { Result: [], Page: null, ErrorMsg: message, ErrorSeverity: 3, ErrorSource: 'RateEngine.Service', Status: false };
}

/** A service's charge lines as `"<name> <amount>"`, in the order the engine writes them. */
function lines(quotation: Quotation, service: string): string[] {
  const found = quotation.quotes.find((q) => q.service === service);
  if (!found) throw new Error(`${service} was not quoted: ${JSON.stringify(quotation.refusals)}`);
  return found.charges.map((c) => `${c.name} ${formatPrice(c.amount).slice(0, -2)}`);
}

function weightsOf(quotation: Quotation, service: string) {
  const found = quotation.quotes.find((q) => q.service === service)!;
  return {
    sides: found.weights.sides.map(formatDecimal),
    rated: formatDecimal(found.weights.rated),
    dimensional: found.weights.dimensional === undefined ? undefined : formatDecimal(found.weights.dimensional),
    billable: formatDecimal(found.weights.billable),
    minimumFrom: found.weights.minimumFrom,
  };
}

interface Case {
  title: string;
  parcel: Parcel;
  date?: string;
  /** The expected `Result`, cheapest first. */
  result: [string, string][];
  ground?: string[];
  economy?: string[];
  /** Refusals of the services that were not quoted. */
  refusals?: { service: string; reason: string }[];
}

function checkCases(card: CompiledCard, cases: Case[]) {
  it.each(cases)('$title', (c) => {
    const quotation = quote(card, c.parcel, c.date ?? PEAK);
    expect(presentQuotation(card, quotation)).toEqual(quoted(...c.result));
    if (c.ground) expect(lines(quotation, 'Ground')).toEqual(c.ground);
    if (c.economy) expect(lines(quotation, 'Economy')).toEqual(c.economy);
    expect(quotation.refusals).toEqual(c.refusals ?? []);
  });
}

describe('zones from distance bands (example card, in peak)', () => {
  it('finds the zone of a short, a middle and a long distance, and of band edges (upToMiles inclusive)', () => {
    const zone = (from: string, to: string) => findZone(example, from, to);
    expect(zone(NYC, NYC)).toEqual({ zone: 2, source: 'distance', rule: 'zones.distanceBands[0]', miles: 0 });
    expect(zone(NYC, '07001')).toEqual({ zone: 2, source: 'distance', rule: 'zones.distanceBands[0]', miles: 13 });
    expect(zone(NYC, '60601')).toEqual({ zone: 5, source: 'distance', rule: 'zones.distanceBands[3]', miles: 714 });
    expect(zone(NYC, '90001')).toEqual({ zone: 8, source: 'distance', rule: 'zones.distanceBands[6]', miles: 2449 });
    // Band edges: 600 mi is zone 4 and 601/602 mi zone 5; 1000 mi is still zone 5.
    expect(zone(NYC, '29001')).toEqual({ zone: 4, source: 'distance', rule: 'zones.distanceBands[2]', miles: 600 });
    expect(zone(NYC, '40401')).toEqual({ zone: 5, source: 'distance', rule: 'zones.distanceBands[3]', miles: 602 });
    expect(zone(NYC, '38901')).toEqual({ zone: 5, source: 'distance', rule: 'zones.distanceBands[3]', miles: 1000 });
    expect(zone('90001', '81301')).toEqual({ zone: 4, source: 'distance', rule: 'zones.distanceBands[2]', miles: 600 });
    expect(zone('90001', '97601')).toEqual({ zone: 5, source: 'distance', rule: 'zones.distanceBands[3]', miles: 601 });
    // 150 mi edge: 148 mi (178) is zone 2, 151 mi (015) zone 3.
    expect(zone(NYC, '17801')?.zone).toBe(2);
    expect(zone(NYC, '01501')?.zone).toBe(3);
  });

  checkCases(example, [
    {
      // z2 (13 mi). Ground: dim 10×8×6=480/139=3.45→4 > 2 → row 4 z2 12.21; + Residential 5.85 + Peak 0.65;
      // fuel 19.75% × (12.21+5.85=18.06)=3.56685→3.57; total 12.21+5.85+0.65+3.57=22.28.
      // Economy: 480 ≤ 1728, no dim; row 2 z2 9.30; + Peak 0.65; fuel 19.75% × 9.30=1.83675→1.84; total 11.79.
      title: 'short: 10001 → 07001, zone 2',
      parcel: parcel(NYC, '07001', ['10', '8', '6'], '2'),
      result: [
        ['Economy', '11.7900'],
        ['Ground', '22.2800'],
      ],
      ground: ['Base 12.21', 'Residential 5.85', 'Peak - Residential 0.65', 'Fuel 3.57'],
      economy: ['Base 9.30', 'Peak - Residential 0.65', 'Fuel 1.84'],
    },
    {
      // z5 (714 mi). Ground: actual 7.2→8, dim 14×12×10=1680/139=12.09→13 → row 13 z5 26.80; + 5.85 + 0.65;
      // fuel 19.75% × (26.80+5.85=32.65)=6.448375→6.45; total 26.80+5.85+0.65+6.45=39.75.
      // Economy: 1680 ≤ 1728, no dim; 8 → row 8 z5 19.94; + 0.65; fuel 19.75% × 19.94=3.93815→3.94; total 24.53.
      title: 'middle: 10001 → 60601, zone 5',
      parcel: parcel(NYC, '60601', ['14', '12', '10'], '7.2'),
      result: [
        ['Economy', '24.5300'],
        ['Ground', '39.7500'],
      ],
      ground: ['Base 26.80', 'Residential 5.85', 'Peak - Residential 0.65', 'Fuel 6.45'],
      economy: ['Base 19.94', 'Peak - Residential 0.65', 'Fuel 3.94'],
    },
    {
      // z8 (2,449 mi). Ground: dim 12×10×8=960/139=6.9→7 > 6 → row 7 z8 26.00; + Residential 5.85 + Peak 0.65;
      // fuel 19.75% × (26.00+5.85)=6.290375→6.29 (Peak is not a base: with it 6.42); total 38.79.
      // Economy: 960 ≤ 1728; row 6 z8 22.90; + 0.65; fuel 19.75% × 22.90=4.52275→4.52; total 28.07.
      title: 'long: 10001 → 90001, zone 8',
      parcel: parcel(NYC, '90001', ['12', '10', '8'], '6'),
      result: [
        ['Economy', '28.0700'],
        ['Ground', '38.7900'],
      ],
      ground: ['Base 26.00', 'Residential 5.85', 'Peak - Residential 0.65', 'Fuel 6.29'],
      economy: ['Base 22.90', 'Peak - Residential 0.65', 'Fuel 4.52'],
    },
    {
      // z4 (600 mi, the band's inclusive edge). 1×1×1, 0.5 lb → 1 lb (dim 1/139 → 1).
      // Ground: row 1 z4 11.40 + 5.85 + 0.65; fuel 19.75% × 17.25=3.406875→3.41; total 21.31.
      // Economy: row 1 z4 8.95 + 0.65; fuel 19.75% × 8.95=1.767625→1.77; total 11.37.
      title: 'band edge: 90001 → 81301, 600 mi, zone 4',
      parcel: parcel('90001', '81301', ['1', '1', '1'], '0.5'),
      result: [
        ['Economy', '11.3700'],
        ['Ground', '21.3100'],
      ],
    },
    {
      // z5 (601 mi). Ground: row 1 z5 11.80 + 5.85 + 0.65; fuel 19.75% × 17.65=3.485875→3.49; total 21.79.
      // Economy: row 1 z5 9.30 + 0.65; fuel 1.83675→1.84; total 11.79.
      title: 'band edge: 90001 → 97601, 601 mi, zone 5',
      parcel: parcel('90001', '97601', ['1', '1', '1'], '0.5'),
      result: [
        ['Economy', '11.7900'],
        ['Ground', '21.7900'],
      ],
    },
  ]);
});

describe('zone 9 overrides: Ground quoted, Economy refused (no zone-9 column, or remote)', () => {
  const economyRefused = (reason: string) => [{ service: 'Economy', reason }];

  it('finds zone 9 from the override, not from distance', () => {
    expect(findZone(example, NYC, '99501')).toEqual({ zone: 9, source: 'override', rule: 'zones.overrides[0]' });
    expect(findZone(example, NYC, '96813')).toEqual({ zone: 9, source: 'override', rule: 'zones.overrides[0]' });
    expect(findZone(example, NYC, '00901')).toEqual({ zone: 9, source: 'override', rule: 'zones.overrides[0]' });
    expect(findZone(example, NYC, '96910')).toEqual({ zone: 9, source: 'override', rule: 'zones.overrides[0]' });
  });

  checkCases(example, [
    {
      // AK 99501 is not in the remote list (99540-99950). Ground: dim 480/139→4 → row 4 z9 53.20 + 5.85 + 0.65;
      // fuel 19.75% × (53.20+5.85=59.05)=11.662375→11.66; total 53.20+5.85+0.65+11.66=71.36.
      title: 'AK 99501: Economy has no zone 9 prices',
      parcel: parcel(NYC, '99501', ['10', '8', '6'], '2'),
      result: [['Ground', '71.3600']],
      ground: ['Base 53.20', 'Residential 5.85', 'Peak - Residential 0.65', 'Fuel 11.66'],
      refusals: economyRefused('it has no prices for zone 9'),
    },
    {
      // AK 99701 is remote. Ground: 53.20 + Residential 5.85 + Remote 15.50 + Peak 0.65;
      // fuel 19.75% × (53.20+5.85+15.50=74.55)=14.723625→14.72; total 89.92.
      title: 'AK 99701 (remote): Economy outside its service area',
      parcel: parcel(NYC, '99701', ['10', '8', '6'], '2'),
      result: [['Ground', '89.9200']],
      ground: ['Base 53.20', 'Residential 5.85', 'Remote Area 15.50', 'Peak - Residential 0.65', 'Fuel 14.72'],
      refusals: economyRefused('99701 in zone 9 is outside its service area'),
    },
    {
      // HI 96813 is remote: the same Ground lines as 99701, total 89.92.
      title: 'HI 96813 (remote)',
      parcel: parcel(NYC, '96813', ['10', '8', '6'], '2'),
      result: [['Ground', '89.9200']],
      refusals: economyRefused('96813 in zone 9 is outside its service area'),
    },
    {
      // PR 00901 is remote. Ground: 5×5×5=125/139→1, 1 lb → row 1 z9 38.50 + 5.85 + 15.50 + 0.65;
      // fuel 19.75% × (38.50+5.85+15.50=59.85)=11.820375→11.82; total 72.32.
      title: 'PR 00901 (remote)',
      parcel: parcel(NYC, '00901', ['5', '5', '5'], '1'),
      result: [['Ground', '72.3200']],
      ground: ['Base 38.50', 'Residential 5.85', 'Remote Area 15.50', 'Peak - Residential 0.65', 'Fuel 11.82'],
      refusals: economyRefused('00901 in zone 9 is outside its service area'),
    },
    {
      // Guam 96910 (969, not remote). Ground: 38.50 + 5.85 + 0.65; fuel 19.75% × 44.35=8.759125→8.76; total 53.76.
      title: 'GU 96910: zone 9 by the override, not remote',
      parcel: parcel(NYC, '96910', ['5', '5', '5'], '1'),
      result: [['Ground', '53.7600']],
      refusals: economyRefused('it has no prices for zone 9'),
    },
  ]);
});

describe('billable weight: dimensional weight and rounding', () => {
  checkCases(example, [
    {
      // z5. Economy: 13×12×12=1872 > 1728 → dim 1872/166=11.28→12 > 3 → row 12 z5 26.02 + 0.65;
      // fuel 19.75% × 26.02=5.13895→5.14; total 31.81.
      // Ground: dim 1872/139=13.47→14 → row 14 z5 28.05 + 5.85 + 0.65; fuel 19.75% × 33.90=6.69525→6.70; total 41.25.
      title: 'Economy dim above 1728 cu in',
      parcel: parcel(NYC, '60601', ['13', '12', '12'], '3'),
      result: [
        ['Economy', '31.8100'],
        ['Ground', '41.2500'],
      ],
      ground: ['Base 28.05', 'Residential 5.85', 'Peak - Residential 0.65', 'Fuel 6.70'],
      economy: ['Base 26.02', 'Peak - Residential 0.65', 'Fuel 5.14'],
    },
    {
      // z5. Economy: 12×12×12=1728, not above → no dim; 3 lb → row 3 z5 12.34 + 0.65; fuel 2.43715→2.44; total 15.43.
      // Ground (always): 1728/139=12.43→13 → 26.80 + 5.85 + 0.65 + fuel 6.45; total 39.75.
      title: 'Economy dim not counted at exactly 1728 cu in; Ground always',
      parcel: parcel(NYC, '60601', ['12', '12', '12'], '3'),
      result: [
        ['Economy', '15.4300'],
        ['Ground', '39.7500'],
      ],
      economy: ['Base 12.34', 'Peak - Residential 0.65', 'Fuel 2.44'],
    },
    {
      // z5. The actual weight wins: 6×6×6=216/139=1.55→2 < 9. Ground: row 9 z5 21.80 + 5.85 + 0.65;
      // fuel 19.75% × 27.65=5.460875→5.46; total 33.76. Economy: row 9 z5 21.46 + 0.65; fuel 4.23835→4.24; total 26.35.
      title: 'Ground dim weight below the actual weight',
      parcel: parcel(NYC, '60601', ['6', '6', '6'], '9'),
      result: [
        ['Economy', '26.3500'],
        ['Ground', '33.7600'],
      ],
    },
    {
      // The side 12.5 rounds half-up to 13: 13×12×12=1872 > 1728, so the Economy dim counts: the same as 13×12×12 above.
      title: 'side 12.5 rounds up to 13 (crossing the Economy threshold)',
      parcel: parcel(NYC, '60601', ['12', '12.5', '12'], '3'),
      result: [
        ['Economy', '31.8100'],
        ['Ground', '41.2500'],
      ],
    },
    {
      // The side 12.49 rounds down to 12: 12×12×12=1728 (unrounded it would be 1798.56 > 1728): as 12×12×12 above.
      title: 'side 12.49 rounds down to 12 (staying at the Economy threshold)',
      parcel: parcel(NYC, '60601', ['12', '12', '12.49'], '3'),
      result: [
        ['Economy', '15.4300'],
        ['Ground', '39.7500'],
      ],
    },
    {
      // z2, 1×1×1. 5.01 → 6 lb. Ground: row 6 z2 13.45 + 5.85 + 0.65; fuel 19.75% × 19.30=3.81175→3.81; total 23.76.
      // Economy: row 6 z2 12.70 + 0.65; fuel 19.75% × 12.70=2.50825→2.51; total 15.86.
      title: 'weight 5.01 rounds up to 6',
      parcel: parcel(NYC, '07001', ['1', '1', '1'], '5.01'),
      result: [
        ['Economy', '15.8600'],
        ['Ground', '23.7600'],
      ],
    },
    {
      // z2, 1×1×1, 5 lb stays 5. Ground: row 5 z2 12.83 + 5.85 + 0.65; fuel 19.75% × 18.68=3.6893→3.69; total 23.02.
      // Economy: row 5 z2 11.85 + 0.65; fuel 19.75% × 11.85=2.340375→2.34; total 14.84.
      title: 'weight 5 stays 5',
      parcel: parcel(NYC, '07001', ['1', '1', '1'], '5'),
      result: [
        ['Economy', '14.8400'],
        ['Ground', '23.0200'],
      ],
    },
  ]);

  it('reports the rounded sides, rated, dimensional and billable weights', () => {
    const q = quote(example, parcel(NYC, '60601', ['12', '12.5', '12'], '3'));
    expect(weightsOf(q, 'Ground')).toEqual({
      sides: ['13', '12', '12'],
      rated: '3',
      dimensional: '14',
      billable: '14',
      minimumFrom: undefined,
    });
    expect(weightsOf(q, 'Economy')).toEqual({
      sides: ['13', '12', '12'],
      rated: '3',
      dimensional: '12',
      billable: '12',
      minimumFrom: undefined,
    });
    const small = quote(example, parcel(NYC, '60601', ['12', '12', '12.49'], '3'));
    expect(weightsOf(small, 'Economy')).toEqual({
      sides: ['12', '12', '12'],
      rated: '3',
      dimensional: undefined,
      billable: '3',
      minimumFrom: undefined,
    });
    const heavy = quote(example, parcel(NYC, '60601', ['6', '6', '6'], '9'));
    expect(weightsOf(heavy, 'Ground')).toEqual({
      sides: ['6', '6', '6'],
      rated: '9',
      dimensional: '2',
      billable: '9',
      minimumFrom: undefined,
    });
  });
});

describe('surcharges, each alone (out of peak unless said)', () => {
  checkCases(example, [
    {
      // z2, 1×1×1, 1 lb. Ground: row 1 z2 10.35 + Residential 5.85; fuel 19.75% × 16.20=3.1995→3.20; total 19.40.
      // Economy (Residential is Ground's only): 8.45; fuel 19.75% × 8.45=1.668875→1.67; total 10.12.
      title: 'Residential (assumeResidential: true), Ground only',
      parcel: parcel(NYC, '07001', ['1', '1', '1'], '1'),
      date: OFF,
      result: [
        ['Economy', '10.1200'],
        ['Ground', '19.4000'],
      ],
      ground: ['Base 10.35', 'Residential 5.85', 'Fuel 3.20'],
      economy: ['Base 8.45', 'Fuel 1.67'],
    },
    {
      // 04401 is on the das list; 402 mi → z4. Ground: row 1 z4 11.40 + 5.85 + DAS 5.45;
      // fuel 19.75% × 22.70=4.48325→4.48; total 27.18. Economy: 8.95 + 5.45; fuel 19.75% × 14.40=2.844→2.84; total 17.24.
      title: 'Delivery Area (das list)',
      parcel: parcel(NYC, '04401', ['1', '1', '1'], '1'),
      date: OFF,
      result: [
        ['Economy', '17.2400'],
        ['Ground', '27.1800'],
      ],
      ground: ['Base 11.40', 'Residential 5.85', 'Delivery Area 5.45', 'Fuel 4.48'],
      economy: ['Base 8.95', 'Delivery Area 5.45', 'Fuel 2.84'],
    },
    {
      // 59001 is on the edas list; 1,765 mi → z7. Ground: row 1 z7 12.70 + 5.85 + EDAS 7.25;
      // fuel 19.75% × 25.80=5.0955→5.10; total 30.90. Economy: 10.05 + 7.25; fuel 19.75% × 17.30=3.41675→3.42; total 20.72.
      title: 'Extended Delivery Area (edas list)',
      parcel: parcel(NYC, '59001', ['1', '1', '1'], '1'),
      date: OFF,
      result: [
        ['Economy', '20.7200'],
        ['Ground', '30.9000'],
      ],
      ground: ['Base 12.70', 'Residential 5.85', 'Extended Delivery Area 7.25', 'Fuel 5.10'],
      economy: ['Base 10.05', 'Extended Delivery Area 7.25', 'Fuel 3.42'],
    },
    {
      // AK 99701 (remote, z9), out of peak. Ground: 1×1×1, 1 lb → row 1 z9 38.50 + 5.85 + Remote 15.50;
      // fuel 19.75% × 59.85=11.820375→11.82; total 71.67. Economy is outside its service area.
      title: 'Remote Area (remote list)',
      parcel: parcel(NYC, '99701', ['1', '1', '1'], '1'),
      date: OFF,
      result: [['Ground', '71.6700']],
      ground: ['Base 38.50', 'Residential 5.85', 'Remote Area 15.50', 'Fuel 11.82'],
      refusals: [{ service: 'Economy', reason: '99701 in zone 9 is outside its service area' }],
    },
    {
      // z2, 10×10×10, 50.5 lb → 51 (> 50: AH weight z2 31.45). Ground: dim 1000/139→8 < 51; row 51 z2 41.35 + 5.85 + 31.45;
      // fuel 19.75% × 78.65=15.533375→15.53; total 94.18. Economy: row 51 z2 50.95 + 31.45; fuel 19.75% × 82.40=16.274→16.27; total 98.67.
      title: 'Additional Handling - Weight (actual > 50 lb)',
      parcel: parcel(NYC, '07001', ['10', '10', '10'], '50.5'),
      date: OFF,
      result: [
        ['Ground', '94.1800'],
        ['Economy', '98.6700'],
      ],
      ground: ['Base 41.35', 'Residential 5.85', 'Additional Handling - Weight 31.45', 'Fuel 15.53'],
      economy: ['Base 50.95', 'Additional Handling - Weight 31.45', 'Fuel 16.27'],
    },
    {
      // 50 lb exactly: no AH. Ground: row 50 z2 40.73 + 5.85; fuel 19.75% × 46.58=9.19955→9.20; total 55.78.
      // Economy: row 50 z2 50.10; fuel 19.75% × 50.10=9.89475→9.89; total 59.99.
      title: 'no Additional Handling - Weight at exactly 50 lb',
      parcel: parcel(NYC, '07001', ['10', '10', '10'], '50'),
      date: OFF,
      result: [
        ['Ground', '55.7800'],
        ['Economy', '59.9900'],
      ],
    },
    {
      // 49×10×10, 1 lb: longest 49 > 48 → AH dimensions z2 19.00. Ground: dim 4900/139=35.25→36; row 36 z2 32.05 + 5.85 + 19.00;
      // fuel 19.75% × 56.90=11.23775→11.24; total 68.14. Economy: dim 4900/166=29.52→30; row 30 z2 33.10 + 19.00;
      // fuel 19.75% × 52.10=10.28975→10.29; total 62.39.
      title: 'Additional Handling - Dimensions: longest side > 48',
      parcel: parcel(NYC, '07001', ['49', '10', '10'], '1'),
      date: OFF,
      result: [
        ['Economy', '62.3900'],
        ['Ground', '68.1400'],
      ],
      ground: ['Base 32.05', 'Residential 5.85', 'Additional Handling - Dimensions 19.00', 'Fuel 11.24'],
      economy: ['Base 33.10', 'Additional Handling - Dimensions 19.00', 'Fuel 10.29'],
    },
    {
      // 48.49 rounds to 48: no AH. Ground: dim 4800/139=34.53→35; row 35 z2 31.43 + 5.85; fuel 19.75% × 37.28=7.3628→7.36; total 44.64.
      // Economy: dim 4800/166=28.92→29; row 29 z2 32.25; fuel 19.75% × 32.25=6.369375→6.37; total 38.62.
      title: 'no Additional Handling - Dimensions at a longest side of 48.49 (→ 48)',
      parcel: parcel(NYC, '07001', ['48.49', '10', '10'], '1'),
      date: OFF,
      result: [
        ['Economy', '38.6200'],
        ['Ground', '44.6400'],
      ],
    },
    {
      // 31×31×5: second side 31 > 30 (longest 31, L+G 31+72=103). Ground: dim 4805/139=34.57→35; 31.43 + 5.85 + 19.00;
      // fuel 19.75% × 56.28=11.1153→11.12; total 67.40. Economy: 4805/166=28.95→29; 32.25 + 19.00;
      // fuel 19.75% × 51.25=10.121875→10.12; total 61.37.
      title: 'Additional Handling - Dimensions: second side > 30',
      parcel: parcel(NYC, '07001', ['5', '31', '31'], '1'),
      date: OFF,
      result: [
        ['Economy', '61.3700'],
        ['Ground', '67.4000'],
      ],
      ground: ['Base 31.43', 'Residential 5.85', 'Additional Handling - Dimensions 19.00', 'Fuel 11.12'],
    },
    {
      // 40×20×13: L+G 40+2×33=106 > 105. Ground: dim 10400/139=74.82→75; row 75 z2 56.23 + 5.85 + 19.00;
      // fuel 19.75% × 81.08=16.0133→16.01; total 97.09. Economy: 10400/166=62.65→63; row 63 z2 61.15 + 19.00;
      // fuel 19.75% × 80.15=15.829625→15.83; total 95.98.
      title: 'Additional Handling - Dimensions: length + girth > 105',
      parcel: parcel(NYC, '07001', ['13', '40', '20'], '1'),
      date: OFF,
      result: [
        ['Economy', '95.9800'],
        ['Ground', '97.0900'],
      ],
      economy: ['Base 61.15', 'Additional Handling - Dimensions 19.00', 'Fuel 15.83'],
    },
    {
      // 49×10×10, 55 lb: AH weight 31.45 and AH dimensions 19.00 both apply; the group keeps the higher.
      // Ground: billable max(55, 36)=55; row 55 z2 43.83 + 5.85 + 31.45; fuel 19.75% × 81.13=16.023175→16.02; total 97.15.
      // Economy: max(55, 30)=55; row 55 z2 54.35 + 31.45; fuel 19.75% × 85.80=16.9455→16.95; total 102.75.
      title: 'Additional Handling group keeps the highest (weight over dimensions)',
      parcel: parcel(NYC, '07001', ['49', '10', '10'], '55'),
      date: OFF,
      result: [
        ['Ground', '97.1500'],
        ['Economy', '102.7500'],
      ],
      ground: ['Base 43.83', 'Residential 5.85', 'Additional Handling - Weight 31.45', 'Fuel 16.02'],
      economy: ['Base 54.35', 'Additional Handling - Weight 31.45', 'Fuel 16.95'],
    },
    {
      // 97×8×8, 10 lb: longest 97 > 96 (L+G 129, 6208 cu in) → Large Package z2 110.00 (Ground only), min billable 90,
      // suppressing AH dimensions. Ground: dim 6208/139=44.66→45 → 90; row 90 z2 65.53 + 5.85 + 110.00;
      // fuel 19.75% × 181.38=35.82255→35.82; total 217.20.
      // Economy (no Large Package, so AH dimensions 19.00): dim 6208/166=37.40→38; row 38 z2 39.90 + 19.00;
      // fuel 19.75% × 58.90=11.63275→11.63; total 70.53.
      title: 'Large Package: longest > 96, billable raised to 90, AH suppressed',
      parcel: parcel(NYC, '07001', ['8', '97', '8'], '10'),
      date: OFF,
      result: [
        ['Economy', '70.5300'],
        ['Ground', '217.2000'],
      ],
      ground: ['Base 65.53', 'Residential 5.85', 'Large Package 110.00', 'Fuel 35.82'],
      economy: ['Base 39.90', 'Additional Handling - Dimensions 19.00', 'Fuel 11.63'],
    },
    {
      // 80×15×12, 20 lb: L+G 80+54=134 > 130 (longest 80, 14400 cu in). Ground: dim 14400/139=103.6→104 (above 90);
      // row 104 z2 74.21 + 5.85 + 110.00; fuel 19.75% × 190.06=37.53685→37.54; total 227.60. Economy: L+G over 130.
      title: 'Large Package: length + girth > 130, billable above the minimum',
      parcel: parcel(NYC, '07001', ['80', '15', '12'], '20'),
      date: OFF,
      result: [['Ground', '227.6000']],
      ground: ['Base 74.21', 'Residential 5.85', 'Large Package 110.00', 'Fuel 37.54'],
      refusals: [{ service: 'Economy', reason: 'length + girth 134 in is over the limit of 130 in' }],
    },
    {
      // 26×26×26=17576 > 17280 (L+G 130, not above). Ground: dim 17576/139=126.45→127; row 127 z2 88.47 + 5.85 + 110.00
      // (AH dimensions, L+G > 105, suppressed); fuel 19.75% × 204.32=40.3532→40.35; total 244.67.
      // Economy: dim 17576/166=105.88→106, beyond its last break (70).
      title: 'Large Package: cubic size > 17280',
      parcel: parcel(NYC, '07001', ['26', '26', '26'], '30'),
      date: OFF,
      result: [['Ground', '244.6700']],
      ground: ['Base 88.47', 'Residential 5.85', 'Large Package 110.00', 'Fuel 40.35'],
      refusals: [{ service: 'Economy', reason: 'the billable weight 106 lb is beyond its heaviest rate (70 lb)' }],
    },
  ]);

  it('Large Package raises the billable weight to 90 and says so', () => {
    const q = quote(example, parcel(NYC, '07001', ['8', '97', '8'], '10'), OFF);
    expect(weightsOf(q, 'Ground')).toEqual({
      sides: ['97', '8', '8'],
      rated: '10',
      dimensional: '45',
      billable: '90',
      minimumFrom: 'Large Package',
    });
    expect(weightsOf(q, 'Economy')).toEqual({
      sides: ['97', '8', '8'],
      rated: '10',
      dimensional: '38',
      billable: '38',
      minimumFrom: undefined,
    });
  });

  it('residential surcharges go when assumeResidential is false (variant)', () => {
    const card = variant((c) => {
      c.assumeResidential = false;
    });
    // In peak, yet no Peak - Residential. Ground: 10.35; fuel 19.75% × 10.35=2.044125→2.04; total 12.39.
    // Economy: 8.45 + fuel 1.67 = 10.12.
    const q = quote(card, parcel(NYC, '07001', ['1', '1', '1'], '1'), PEAK);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '10.1200'], ['Ground', '12.3900']));
    expect(lines(q, 'Ground')).toEqual(['Base 10.35', 'Fuel 2.04']);
  });
});

describe('a group keeps only its highest surcharge (variants with overlapping das and edas lists)', () => {
  const overlapping = (dasAmount?: string) =>
    variant((c) => {
      c.zipLists!.das!.push('59001-59099');
      if (dasAmount) c.surcharges![1]!.amount = dasAmount;
    });
  const p = parcel(NYC, '59001', ['1', '1', '1'], '1');

  it('DAS 5.45 and EDAS 7.25 both apply: only EDAS is charged', () => {
    // As EDAS alone: Ground 12.70 + 5.85 + 7.25 + fuel 5.10 = 30.90; Economy 10.05 + 7.25 + 3.42 = 20.72.
    const card = overlapping();
    const q = quote(card, p, OFF);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '20.7200'], ['Ground', '30.9000']));
    expect(lines(q, 'Ground')).toEqual(['Base 12.70', 'Residential 5.85', 'Extended Delivery Area 7.25', 'Fuel 5.10']);
  });

  it('DAS raised to 9.00 beats EDAS 7.25', () => {
    // Ground: 12.70 + 5.85 + 9.00; fuel 19.75% × 27.55=5.441125→5.44; total 32.99.
    // Economy: 10.05 + 9.00; fuel 19.75% × 19.05=3.762375→3.76; total 22.81.
    const card = overlapping('9.00');
    const q = quote(card, p, OFF);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '22.8100'], ['Ground', '32.9900']));
    expect(lines(q, 'Economy')).toEqual(['Base 10.05', 'Delivery Area 9.00', 'Fuel 3.76']);
  });

  it('of equal amounts the first in the card is charged', () => {
    const card = overlapping('7.25');
    const q = quote(card, p, OFF);
    expect(lines(q, 'Ground')).toEqual(['Base 12.70', 'Residential 5.85', 'Delivery Area 7.25', 'Fuel 5.10']);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '20.7200'], ['Ground', '30.9000']));
  });
});

describe('peak window 2026-10-05..2027-01-17, inclusive', () => {
  // z2, 1×1×1, 1 lb. In: Ground 10.35 + 5.85 + 0.65 + fuel 3.20 = 20.05; Economy 8.45 + 0.65 + 1.67 = 10.77.
  // Out: Ground 19.40, Economy 10.12 (as Residential alone).
  const p = parcel(NYC, '07001', ['1', '1', '1'], '1');
  const inPeak = quoted(['Economy', '10.7700'], ['Ground', '20.0500']);
  const outOfPeak = quoted(['Economy', '10.1200'], ['Ground', '19.4000']);
  it.each([
    ['2026-10-04', outOfPeak],
    ['2026-10-05', inPeak],
    ['2026-11-23', inPeak],
    ['2027-01-17', inPeak],
    ['2027-01-18', outOfPeak],
    ['2026-06-01', outOfPeak],
  ])('on %s', (date, expected) => {
    expect(envelope(example, p, date)).toEqual(expected);
  });
});

describe('fuel is charged on exactly the listed bases', () => {
  const p = parcel(NYC, '07001', ['1', '1', '1'], '1');

  it('Peak is not a base on the example card', () => {
    // 10001 → 90001, 12×10×8, 6 lb: fuel 19.75% × (26.00+5.85)=6.29; with Peak it would be 19.75% × 32.50=6.42.
    expect(lines(quote(example, parcel(NYC, '90001', ['12', '10', '8'], '6')), 'Ground')).toContain('Fuel 6.29');
  });

  it('only on Base when appliesTo is ["Base"] (variant)', () => {
    const card = variant((c) => {
      c.fuel!.appliesTo = ['Base'];
    });
    // Ground: 10.35 + 5.85 + 0.65; fuel 19.75% × 10.35=2.044125→2.04; total 18.89. Economy: 8.45 + 0.65 + 1.67 = 10.77.
    expect(envelope(card, p)).toEqual(quoted(['Economy', '10.7700'], ['Ground', '18.8900']));
  });

  it('on Peak when appliesTo names it (variant)', () => {
    const card = variant((c) => {
      c.fuel!.appliesTo = ['Base', 'Peak - Residential'];
    });
    // Ground: fuel 19.75% × (10.35+0.65=11.00)=2.1725→2.17; total 10.35+5.85+0.65+2.17=19.02.
    // Economy: fuel 19.75% × (8.45+0.65=9.10)=1.79725→1.80; total 8.45+0.65+1.80=10.90.
    expect(envelope(card, p)).toEqual(quoted(['Economy', '10.9000'], ['Ground', '19.0200']));
  });
});

describe('minimum charge (variant: Ground minimumCharge 20.00)', () => {
  const card = variant((c) => {
    c.services[0]!.minimumCharge = '20.00';
  });

  it('raises a lower base rate to the minimum, and fuel is charged on the minimum', () => {
    // Ground: row 1 z2 10.35 < 20.00 → 20.00 + 5.85; fuel 19.75% × 25.85=5.105375→5.11; total 30.96. Economy 10.12.
    const q = quote(card, parcel(NYC, '07001', ['1', '1', '1'], '1'), OFF);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '10.1200'], ['Ground', '30.9600']));
    expect(lines(q, 'Ground')).toEqual(['Base 20.00', 'Residential 5.85', 'Fuel 5.11']);
  });

  it('leaves a higher base rate alone', () => {
    // Ground: row 20 z2 22.13 > 20 + 5.85; fuel 19.75% × 27.98=5.52605→5.53; total 33.51.
    // Economy: row 20 z2 24.60; fuel 19.75% × 24.60=4.8585→4.86; total 29.46.
    expect(envelope(card, parcel(NYC, '07001', ['1', '1', '1'], '20'), OFF)).toEqual(quoted(['Economy', '29.4600'], ['Ground', '33.5100']));
  });
});

describe('markup (variant: percent 10, byUserId 42 → 2.5, 7 → 0)', () => {
  const card = variant((c) => {
    c.markup = { percent: '10', byUserId: { '42': '2.5', '7': '0' } };
  });
  const p = parcel(NYC, '07001', ['1', '1', '1'], '1');

  it('adds percent to every line, each rounded after the markup', () => {
    // Ground: Base 10.35×1.1=11.385→11.39; Residential 5.85×1.1=6.435→6.44; Fuel 3.1995×1.1=3.51945→3.52; total 21.35
    // (rounding only the total would give 19.3995×1.1=21.33945→21.34).
    // Economy: 8.45×1.1=9.295→9.30; fuel 1.668875×1.1=1.8357625→1.84; total 11.14.
    const q = quote(card, p, OFF, 1);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '11.1400'], ['Ground', '21.3500']));
    expect(lines(q, 'Ground')).toEqual(['Base 11.39', 'Residential 6.44', 'Fuel 3.52']);
  });

  it("uses the UserID's own markup instead", () => {
    // Ground: 10.35×1.025=10.60875→10.61; 5.85×1.025=5.99625→6.00; 3.1995×1.025=3.2794875→3.28; total 19.89.
    // Economy: 8.45×1.025=8.66125→8.66; 1.668875×1.025=1.710596875→1.71; total 10.37.
    const q = quote(card, p, OFF, 42);
    expect(presentQuotation(card, q)).toEqual(quoted(['Economy', '10.3700'], ['Ground', '19.8900']));
    expect(lines(q, 'Ground')).toEqual(['Base 10.61', 'Residential 6.00', 'Fuel 3.28']);
    // UserID 7's own markup is 0: no markup, although percent is 10.
    expect(envelope(card, p, OFF, 7)).toEqual(quoted(['Economy', '10.1200'], ['Ground', '19.4000']));
  });
});

describe('result: perCharge and details (variants)', () => {
  const p = parcel(NYC, '90001', ['12', '10', '8'], '6');

  it('perCharge lists `<Service> - <Charge>` lines, services cheapest first, that sum to the perService totals', () => {
    const card = variant((c) => {
      c.result = 'perCharge';
    });
    // Economy 22.90 + 0.65 + 4.52 = 28.07; Ground 26.00 + 5.85 + 0.65 + 6.29 = 38.79 (see "long" above).
    expect(envelope(card, p)).toEqual(
      quoted(
        ['Economy - Base', '22.9000'],
        ['Economy - Peak - Residential', '0.6500'],
        ['Economy - Fuel', '4.5200'],
        ['Ground - Base', '26.0000'],
        ['Ground - Residential', '5.8500'],
        ['Ground - Peak - Residential', '0.6500'],
        ['Ground - Fuel', '6.2900'],
      ),
    );
  });

  it('lists services cheapest first, and services of equal totals in the card’s order', () => {
    // An exact twin of Economy, first in the card, then Ground, then Economy: 28.07, 38.79, 28.07.
    const card = variant((c) => {
      const [ground, economy] = c.services;
      c.services = [{ ...structuredClone(economy!), name: 'Economy Twin' }, ground!, economy!];
    });
    expect(envelope(card, p)).toEqual(quoted(['Economy Twin', '28.0700'], ['Economy', '28.0700'], ['Ground', '38.7900']));
  });

  it('perCharge with a markup: the rounded lines still sum exactly to the perService total', () => {
    const perService = variant((c) => {
      c.markup = { percent: '10' };
    });
    const perCharge = variant((c) => {
      c.markup = { percent: '10' };
      c.result = 'perCharge';
    });
    // Economy: 22.90×1.1=25.19; 0.65×1.1=0.715→0.72; 4.52275×1.1=4.975025→4.98; total 30.89.
    // Ground: 26.00×1.1=28.60; 5.85×1.1=6.435→6.44; 0.72; 6.290375×1.1=6.9194125→6.92; total 42.68.
    expect(envelope(perService, p)).toEqual(quoted(['Economy', '30.8900'], ['Ground', '42.6800']));
    expect(envelope(perCharge, p)).toEqual(
      quoted(
        ['Economy - Base', '25.1900'],
        ['Economy - Peak - Residential', '0.7200'],
        ['Economy - Fuel', '4.9800'],
        ['Ground - Base', '28.6000'],
        ['Ground - Residential', '6.4400'],
        ['Ground - Peak - Residential', '0.7200'],
        ['Ground - Fuel', '6.9200'],
      ),
    );
  });

  it('details adds Zone and BillableWeight to each entry', () => {
    const card = variant((c) => {
      c.details = true;
    });
    expect(envelope(card, p).Result).toEqual([
      { name: 'Economy', Price: '28.0700', Zone: 8, BillableWeight: '6' },
      { name: 'Ground', Price: '38.7900', Zone: 8, BillableWeight: '7' },
    ]);
    const both = variant((c) => {
      c.details = true;
      c.result = 'perCharge';
    });
    expect(envelope(both, p).Result[0]).toEqual({ name: 'Economy - Base', Price: '22.9000', Zone: 8, BillableWeight: '6' });
  });
});

describe('beyond the last weight break', () => {
  // z2, 30×30×30=27000, 40 lb. Ground: dim 27000/139=194.24→195 > the last break 150.
  // Economy: L+G 30+120=150 > 130.
  const p = parcel(NYC, '07001', ['30', '30', '30'], '40');

  it('refuses without beyondLastBreak', () => {
    expect(envelope(example, p, OFF)).toEqual(
      notServiceable(
        'Ground: the billable weight 195 lb is beyond its heaviest rate (150 lb); Economy: length + girth 150 in is over the limit of 130 in',
      ),
    );
  });

  it('prices the extra weight per unit with beyondLastBreak (variant)', () => {
    const card = variant((c) => {
      c.services[0]!.rates.beyondLastBreak = { perUnit: ['0.50', '0.60', '0.70', '0.80', '0.90', '1.00', '1.10', '2.50'] };
    });
    // Ground: 102.73 (row 150 z2) + (195−150)×0.50=22.50 → 125.23; + 5.85 + Large Package (27000 > 17280) 110.00
    // (AH dimensions suppressed); fuel 19.75% × 241.08=47.6133→47.61; total 125.23+5.85+110.00+47.61=288.69.
    const q = quote(card, p, OFF);
    expect(presentQuotation(card, q)).toEqual(quoted(['Ground', '288.6900']));
    expect(lines(q, 'Ground')).toEqual(['Base 125.23', 'Residential 5.85', 'Large Package 110.00', 'Fuel 47.61']);
    expect(q.quotes[0]!.charges[0]!.rule()).toBe('services[0].rates.breaks[149] + 45 × 0.5 (beyondLastBreak) × zone 2');
  });
});

describe('a dimensional weight past any quantity', () => {
  it('refuses the service rather than price it, on a card without size limits (variant)', () => {
    const card = variant((c) => {
      delete c.services[0]!.limits;
      c.services[0]!.rates.beyondLastBreak = { perUnit: ['0.50', '0.60', '0.70', '0.80', '0.90', '1.00', '1.10', '2.50'] };
    });
    // 999999³ in³ ÷ 139 ≈ 7.2 × 10¹⁵ lb: more than a quantity holds (11 integer digits).
    const huge = parcel(NYC, '07001', ['999999', '999999', '999999'], '1');
    expect(envelope(card, huge, OFF)).toEqual(
      notServiceable('Ground: the dimensional weight is beyond any price; Economy: the longest side 999999 in is over the limit of 108 in'),
    );
  });
});

describe('chart, 5-digit exceptions and overrides win over distance (variant)', () => {
  const card = variant((c) => {
    c.zones.exceptions = [
      { origins: ['100'], destinations: ['90210'], zone: 2 },
      { destinations: ['99501'], zone: 8 },
    ];
    c.zones.overrides!.push({ states: ['WA'], zone: 4 });
    c.zones.chart = [
      {
        origins: ['100-104'],
        destinations: [
          { zips: ['900-908'], zone: 6 },
          { zips: ['60601-60699'], zone: 3 },
        ],
      },
    ];
  });

  it('looks in the order exceptions, overrides, chart, distance', () => {
    const zone = (from: string, to: string) => findZone(card, from, to);
    // 90210 is in the chart's 900-908 (zone 6) and 2,4xx mi away (zone 8): the exception gives 2.
    expect(zone(NYC, '90210')).toEqual({ zone: 2, source: 'exception', rule: 'zones.exceptions[0]' });
    // The exception is only for origins 100: from 200 neither it nor the chart applies.
    expect(zone('20001', '90210')).toMatchObject({ zone: 8, source: 'distance', rule: 'zones.distanceBands[6]' });
    // AK 99501: the exception (8) beats the override (9).
    expect(zone(NYC, '99501')).toEqual({ zone: 8, source: 'exception', rule: 'zones.exceptions[1]' });
    expect(zone(NYC, '99701')).toEqual({ zone: 9, source: 'override', rule: 'zones.overrides[0]' });
    // WA by state (2,402 mi would be zone 8).
    expect(zone(NYC, '98101')).toEqual({ zone: 4, source: 'override', rule: 'zones.overrides[1]' });
    expect(zone(NYC, '90001')).toEqual({ zone: 6, source: 'chart', rule: 'zones.chart[0].destinations[0]' });
    expect(zone(NYC, '60601')).toEqual({ zone: 3, source: 'chart', rule: 'zones.chart[0].destinations[1]' });
    // 60701 is outside the chart's 60601-60699: distance.
    expect(zone(NYC, '60701')).toMatchObject({ zone: 5, source: 'distance' });
  });

  it('prices with the chart zone', () => {
    // z6 from the chart. Ground: dim 960/139→7; row 7 z6 21.55 + 5.85 + 0.65; fuel 19.75% × 27.40=5.4115→5.41; total 33.46.
    // Economy: row 6 z6 18.85 + 0.65; fuel 19.75% × 18.85=3.722875→3.72; total 23.22.
    expect(envelope(card, parcel(NYC, '90001', ['12', '10', '8'], '6'))).toEqual(quoted(['Economy', '23.2200'], ['Ground', '33.4600']));
  });

  it('prices AK 99501 in zone 8 from the exception, so Economy quotes it', () => {
    // Ground: dim 480/139→4; row 4 z8 19.70 + 5.85 + 0.65; fuel 19.75% × 25.55=5.046125→5.05; total 31.25.
    // Economy: row 2 z8 13.06 + 0.65; fuel 19.75% × 13.06=2.57935→2.58; total 16.29.
    expect(envelope(card, parcel(NYC, '99501', ['10', '8', '6'], '2'))).toEqual(quoted(['Economy', '16.2900'], ['Ground', '31.2500']));
  });
});

describe('flagEstimatedZones (variant)', () => {
  const card = variant((c) => {
    c.flagEstimatedZones = true;
  });

  it('warns with severity 1 when the zone came from distance', () => {
    expect(envelope(card, parcel(NYC, '90001', ['12', '10', '8'], '6'))).toEqual({
      Result: [
        { name: 'Economy', Price: '28.0700' },
        { name: 'Ground', Price: '38.7900' },
      ],
      Page: null,
      ErrorMsg: 'zone 8 was estimated from the 2449 miles between ZIP3 100 and 900',
      ErrorSeverity: 1,
      ErrorSource: 'RateEngine.Zone',
      Status: true,
    });
  });

  it('does not warn when an override gave the zone', () => {
    expect(envelope(card, parcel(NYC, '99501', ['10', '8', '6'], '2'))).toEqual(quoted(['Ground', '71.3600']));
  });
});

describe('not serviceable', () => {
  const p = (originZip: string, destZip: string) => parcel(originZip, destZip, ['1', '1', '1'], '1');

  it('a ZIP3 the geography does not know (000, 001)', () => {
    expect(envelope(example, p(NYC, '00012'))).toEqual(
      notServiceable("no zone for 10001 to 00012: ZIP3 000 is in neither the rate card's zone rules nor the ZIP geography"),
    );
    expect(envelope(example, p('00012', NYC))).toEqual(
      notServiceable("no zone for 00012 to 10001: ZIP3 000 is in neither the rate card's zone rules nor the ZIP geography"),
    );
    expect(envelope(example, p('00012', '00123'))).toEqual(
      notServiceable("no zone for 00012 to 00123: ZIP3s 000 and 001 are in neither the rate card's zone rules nor the ZIP geography"),
    );
  });

  it('over the maximum weight (150 lb; Economy 70 lb)', () => {
    expect(envelope(example, parcel(NYC, '07001', ['10', '10', '10'], '151'))).toEqual(
      notServiceable('Ground: the weight 151 lb is over the limit of 150 lb; Economy: the weight 151 lb is over the limit of 70 lb'),
    );
    expect(envelope(example, parcel(NYC, '07001', ['10', '10', '10'], '150.0001'))).toEqual(
      notServiceable(
        'Ground: the weight 150.0001 lb is over the limit of 150 lb; Economy: the weight 150.0001 lb is over the limit of 70 lb',
      ),
    );
  });

  it('over the maximum length (108 in), the side rounded first', () => {
    const message =
      'Ground: the longest side 109 in is over the limit of 108 in; Economy: the longest side 109 in is over the limit of 108 in';
    expect(envelope(example, parcel(NYC, '07001', ['109', '5', '5'], '10'))).toEqual(notServiceable(message));
    expect(envelope(example, parcel(NYC, '07001', ['5', '5', '108.5'], '10'))).toEqual(notServiceable(message));
  });

  it('over the maximum length + girth (165 in; Economy 130 in)', () => {
    // 108×28×1: 108 + 2×29 = 166.
    expect(envelope(example, parcel(NYC, '07001', ['108', '28', '1'], '10'))).toEqual(
      notServiceable(
        'Ground: length + girth 166 in is over the limit of 165 in; Economy: length + girth 166 in is over the limit of 130 in',
      ),
    );
  });
});

describe('at the maximums exactly, the service quotes', () => {
  checkCases(example, [
    {
      // 150 lb: Ground row 150 z2 102.73 + 5.85 + AH weight 31.45; fuel 19.75% × 140.03=27.655925→27.66; total 167.69.
      title: 'weight 150',
      parcel: parcel(NYC, '07001', ['10', '10', '10'], '150'),
      date: OFF,
      result: [['Ground', '167.6900']],
      refusals: [{ service: 'Economy', reason: 'the weight 150 lb is over the limit of 70 lb' }],
    },
    {
      // 108×5×5, 10 lb: Ground Large Package (longest > 96) → 90 lb: 65.53 + 5.85 + 110.00 + fuel 35.82 = 217.20.
      // Economy: L+G 128; dim 2700/166=16.27→17; row 17 z2 22.05 + AH dimensions 19.00; fuel 19.75% × 41.05=8.107375→8.11; total 49.16.
      title: 'longest side 108',
      parcel: parcel(NYC, '07001', ['108', '5', '5'], '10'),
      date: OFF,
      result: [
        ['Economy', '49.1600'],
        ['Ground', '217.2000'],
      ],
      economy: ['Base 22.05', 'Additional Handling - Dimensions 19.00', 'Fuel 8.11'],
    },
    {
      // 107×28×1: L+G 107+58=165. Ground: Large Package → 90 lb (dim 2996/139→22): 217.20 as above.
      title: 'length + girth 165',
      parcel: parcel(NYC, '07001', ['107', '28', '1'], '10'),
      date: OFF,
      result: [['Ground', '217.2000']],
      refusals: [{ service: 'Economy', reason: 'length + girth 165 in is over the limit of 130 in' }],
    },
  ]);
});
