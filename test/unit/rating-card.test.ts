import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/lib/decimal.js';
import { withRulesWritten } from '../helpers/quotations.js';
import { quoteParcel, type Parcel } from '../../src/modules/rating/engine.js';
import { compileRateCard, RateCardError } from '../../src/modules/rating/rate-card.compile.js';
import { presentQuotation } from '../../src/modules/rating/rating.present.js';
import { parseRateCardText } from '../../src/modules/rating/rating.service.js';

/** The rate card loader: text → content (YAML 1.2 / JSON) → a compiled card, or every mistake with its path. */

const EXAMPLE_TEXT = readFileSync(new URL('../../examples/rate-card.json', import.meta.url), 'utf8');

// Cards with mistakes do not fit the card's type: they are plain JSON values here.
type Json = any;

/** A small, valid card: two distance bands, one ZIP list, one surcharge, fuel. */
function smallCard(): Json {
  return {
    name: 'Small',
    currency: 'USD',
    effective: { from: '2026-01-01' },
    zones: { distanceBands: [{ upToMiles: 150, zone: 2 }, { zone: 3 }] },
    zipLists: { das: ['04401-04499'] },
    services: [
      {
        name: 'Ground',
        rounding: { weight: { increment: '1', mode: 'up' } },
        rates: {
          zones: [2, 3],
          breaks: [
            { upTo: '1', prices: ['10.00', '11.00'] },
            { upTo: '2', prices: ['12.00', '13.00'] },
          ],
        },
      },
    ],
    surcharges: [{ name: 'DAS', when: { destIn: ['@das'] }, amount: '5' }],
    fuel: { percent: '10', appliesTo: ['Base', 'DAS'] },
  };
}

const SMALL_YAML = `
# The small card, as YAML: ZIPs and decimals quoted.
name: Small
currency: USD
effective:
  from: '2026-01-01'
zones:
  distanceBands:
    - upToMiles: 150
      zone: 2
    - zone: 3
zipLists:
  das: ['04401-04499']
services:
  - name: Ground
    rounding:
      weight: { increment: '1', mode: up }
    rates:
      zones: [2, 3]
      breaks:
        - upTo: '1'
          prices: ['10.00', '11.00']
        - upTo: '2'
          prices: ['12.00', '13.00']
surcharges:
  - name: DAS
    when:
      destIn: ['@das']
    amount: '5'
fuel:
  percent: '10'
  appliesTo: [Base, DAS]
`;

/** The problems a card is refused with; fails when it compiles. */
function problemsOf(card: Json): string[] {
  try {
    compileRateCard(card);
  } catch (error) {
    expect(error).toBeInstanceOf(RateCardError);
    return (error as RateCardError).problems;
  }
  throw new Error('the card compiled');
}

/** The small card with one change, and its problems. */
function problemsOfSmall(change: (card: Json) => void): string[] {
  const card = smallCard();
  change(card);
  return problemsOf(card);
}

const parcel = (destZip: string, weight: string): Parcel => ({ originZip: '10001', destZip, length: '1', width: '1', height: '1', weight });

describe('cards that load', () => {
  it('compiles the example card', () => {
    const card = compileRateCard(parseRateCardText(EXAMPLE_TEXT));
    expect(card.name).toBe('Demo Parcel Rates 2026');
    expect(card.timeZone).toBe('America/New_York');
    expect(card.services.map((s) => s.name)).toEqual(['Ground', 'Economy']);
    expect(card.services.map((s) => s.breaks.length)).toEqual([150, 70]);
    expect(card.surcharges.map((s) => s.name)).toEqual([
      'Residential',
      'Delivery Area',
      'Extended Delivery Area',
      'Remote Area',
      'Additional Handling - Weight',
      'Additional Handling - Dimensions',
      'Large Package',
      'Peak - Residential',
    ]);
    expect(card.distanceBands.map((b) => [b.upToMiles, b.zone])).toEqual([
      [150, 2],
      [300, 3],
      [600, 4],
      [1000, 5],
      [1400, 6],
      [1800, 7],
      [undefined, 8],
    ]);
    expect(formatDecimal(card.fuel!.percent)).toBe('19.75');
  });

  it('reads the same card from YAML and from JSON, and both price alike', () => {
    const fromYaml = compileRateCard(parseRateCardText(SMALL_YAML));
    const fromJson = compileRateCard(parseRateCardText(JSON.stringify(smallCard(), null, 2)));
    expect(parseRateCardText(SMALL_YAML)).toEqual(smallCard());
    const date = { date: '2026-06-01', userId: 1 };
    // 10001 → 04401: 402 mi → zone 3; 1.5 lb → 2 → 13.00 + DAS 5.00; fuel 10% × 18.00 = 1.80; total 19.80.
    // 10001 → 07001: 13 mi → zone 2; 1 lb → 10.00; fuel 1.00; total 11.00.
    for (const [destZip, weight, total] of [
      ['04401', '1.5', '19.8000'],
      ['07001', '1', '11.0000'],
    ] as const) {
      const yamlQuote = quoteParcel(fromYaml, parcel(destZip, weight), date);
      expect(withRulesWritten(yamlQuote)).toEqual(withRulesWritten(quoteParcel(fromJson, parcel(destZip, weight), date)));
      expect(presentQuotation(fromYaml, yamlQuote).Result).toEqual([{ name: 'Ground', Price: total }]);
    }
  });

  it('takes decimals as JSON numbers without exponents', () => {
    const card = smallCard();
    card.services[0].rates.breaks[0].prices = [10, 11.5];
    const compiled = compileRateCard(card);
    // Money is kept exactly, in ten-thousandths.
    expect(compiled.services[0]!.breaks[0]!.prices).toEqual([100_000n, 115_000n]);
  });
});

describe('each kind of mistake is refused with its path', () => {
  const cases: [string, (card: Json) => void, string[]][] = [
    [
      'missing keys',
      (c) => {
        delete c.name;
        delete c.effective;
      },
      ['name is required', 'effective is required'],
    ],
    [
      'missing key in a service',
      (c) => {
        delete c.services[0].rates;
      },
      ['services[0].rates is required'],
    ],
    [
      'wrong types',
      (c) => {
        c.assumeResidential = 'yes';
        c.services[0].rates.zones[0] = '2';
        c.services = c.services[0];
      },
      ['assumeResidential must be a boolean', 'services must be an array'],
    ],
    ['wrong type in a row', (c) => (c.services[0].rates.zones[1] = '3'), ['services[0].rates.zones[1] must be an integer']],
    [
      'a bad ZIP pattern',
      (c) => (c.zipLists.das = ['4401']),
      [
        'zipLists.das[0] must be a ZIP3 ("995"), a ZIP3 range ("995-999"), a ZIP ("96799"), a ZIP range ("96701-96898") or a list name ("@das")',
      ],
    ],
    [
      'a ZIP range whose start is after its end',
      (c) => (c.surcharges[0].when.destIn = ['04499-04401']),
      ['surcharges[0].when.destIn[0] 04499-04401 is a range whose start is after its end'],
    ],
    [
      'a ZIP3 range whose start is after its end',
      (c) => (c.zones.overrides = [{ destinations: ['999-995'], zone: 9 }]),
      ['zones.overrides[0].destinations[0] 999-995 is a range whose start is after its end'],
    ],
    [
      'a prices row whose length is not the number of zones',
      (c) => (c.services[0].rates.breaks[1].prices = ['12.00']),
      ['services[0].rates.breaks[1].prices has 1 prices; services[0].rates.zones names 2 zones'],
    ],
    [
      'beyondLastBreak.perUnit whose length is not the number of zones',
      (c) => (c.services[0].rates.beyondLastBreak = { perUnit: ['1', '2', '3'] }),
      ['services[0].rates.beyondLastBreak.perUnit has 3 prices; services[0].rates.zones names 2 zones'],
    ],
    [
      'breaks not increasing',
      (c) => (c.services[0].rates.breaks[1].upTo = '1.0'),
      ['services[0].rates.breaks[1].upTo must be greater than the break before it (1)'],
    ],
    ['a zone listed twice', (c) => (c.services[0].rates.zones = [3, 3]), ['services[0].rates.zones[1] zone 3 is listed twice']],
    ['a service name used twice', (c) => c.services.push(structuredClone(c.services[0])), ['services[1].name Ground is used twice']],
    ['a surcharge name used twice', (c) => c.surcharges.push({ name: 'DAS', amount: '1' }), ['surcharges[1].name DAS is used twice']],
    [
      'a surcharge named Base or Fuel',
      (c) => c.surcharges.push({ name: 'Base', amount: '1' }, { name: 'Fuel', amount: '1' }),
      [
        'surcharges[1].name may not be Base, the name of a charge the engine writes itself',
        'surcharges[2].name may not be Fuel, the name of a charge the engine writes itself',
      ],
    ],
    [
      'amount and amountByZone both',
      (c) => (c.surcharges[0].amountByZone = { '2': '1' }),
      ['surcharges[0] must have either amount or amountByZone'],
    ],
    ['amount and amountByZone neither', (c) => delete c.surcharges[0].amount, ['surcharges[0] must have either amount or amountByZone']],
    [
      'unknown service and surcharge names in services, suppresses and fuel.appliesTo',
      (c) => {
        c.surcharges[0].services = ['Ground', 'Air'];
        c.surcharges[0].suppresses = ['Residential'];
        c.fuel.appliesTo.push('Peak');
      },
      [
        'surcharges[0].services[1] names the service Air, which the card does not have',
        'surcharges[0].suppresses[0] names the surcharge Residential, which the card does not have',
        'fuel.appliesTo[2] names Peak, which is neither Base nor a surcharge of the card',
      ],
    ],
    [
      'an unknown @list',
      (c) => (c.services[0].serviceArea = { not: { destIn: ['@remote'] } }),
      ['services[0].serviceArea.not.destIn[0] names the ZIP list remote, which zipLists does not have'],
    ],
    [
      'a list naming a list',
      (c) => (c.zipLists.all = ['@das', '995']),
      ['zipLists.all[0] must be a ZIP pattern; a list may not name another list'],
    ],
    [
      'a date not of the calendar',
      (c) => {
        c.effective.from = '2026-02-29';
        c.effective.to = '2026-13-01';
      },
      ['effective.from 2026-02-29 is not a date of the calendar', 'effective.to 2026-13-01 is not a date of the calendar'],
    ],
    ['a date in the wrong form', (c) => (c.effective.from = '2026-1-1'), ['effective.from must be a date such as 2026-01-31']],
    [
      'a bad time zone',
      (c) => (c.timeZone = 'Mars/Olympus'),
      ['timeZone must be an IANA time zone such as America/New_York, not Mars/Olympus'],
    ],
    [
      'effective.to before from, and a window the same',
      (c) => {
        c.effective.to = '2025-12-31';
        c.surcharges[0].window = { from: '2026-10-05', to: '2026-10-04' };
      },
      [
        'effective.to 2025-12-31 is before effective.from 2026-01-01',
        'surcharges[0].window.to 2026-10-04 is before surcharges[0].window.from 2026-10-05',
      ],
    ],
    [
      'distance bands not increasing',
      (c) => (c.zones.distanceBands = [{ upToMiles: 150, zone: 2 }, { upToMiles: 150, zone: 3 }, { zone: 4 }]),
      ['zones.distanceBands[1].upToMiles must be greater than the band before it (150)'],
    ],
    [
      'an open distance band before the last',
      (c) => (c.zones.distanceBands = [{ zone: 2 }, { upToMiles: 150, zone: 3 }]),
      ['zones.distanceBands[0].upToMiles is required on every band but the last'],
    ],
    [
      'zones without a chart or distance bands',
      (c) => (c.zones = { overrides: [{ states: ['AK'], zone: 9 }] }),
      ['zones must have a chart or distanceBands (or both)'],
    ],
    [
      'a zone rule without destinations or states',
      (c) => (c.zones.overrides = [{ zone: 9 }]),
      ['zones.overrides[0] must name destinations or states'],
    ],
    ['an unknown key in a condition', (c) => (c.surcharges[0].when.weightGt = '5'), ['surcharges[0].when.weightGt is not allowed']],
    [
      'an unknown key in a nested condition',
      (c) => (c.services[0].serviceArea = { any: [{ zoneIn: [2] }, { not: { destInn: ['995'] } }] }),
      ['services[0].serviceArea.any[1].not.destInn is not allowed'],
    ],
    ['an empty condition', (c) => (c.surcharges[0].when = {}), ['surcharges[0].when must name at least one condition']],
    [
      'exponent decimals',
      (c) => {
        c.services[0].rates.breaks[0].prices[0] = '1e3';
        c.fuel.percent = 1e21;
      },
      [
        'services[0].rates.breaks[0].prices[0] must be a decimal ≥ 0 with at most 7 integer and 4 fractional digits',
        'fuel.percent must be a decimal ≥ 0 with at most 3 integer and 4 fractional digits',
      ],
    ],
    [
      'negative prices and amounts',
      (c) => {
        c.services[0].rates.breaks[1].prices[1] = '-13.00';
        c.surcharges[0].amount = '-0.01';
      },
      [
        'services[0].rates.breaks[1].prices[1] must be a decimal ≥ 0 with at most 7 integer and 4 fractional digits',
        'surcharges[0].amount must be a decimal ≥ 0 with at most 7 integer and 4 fractional digits',
      ],
    ],
    [
      'a zero or over-precise size',
      (c) => {
        c.services[0].rates.breaks[0].upTo = '0';
        c.services[0].limits = { maxWeight: '1.00001' };
      },
      [
        'services[0].limits.maxWeight must be a positive decimal with at most 9 integer and 4 fractional digits',
        'services[0].rates.breaks[0].upTo must be a positive decimal with at most 9 integer and 4 fractional digits',
      ],
    ],
    ['an unknown key at the top', (c) => (c.colour = 'red'), ['colour is not allowed']],
    ['a bad enum', (c) => (c.result = 'perLine'), ['result must be one of: perService, perCharge']],
  ];

  it.each(cases)('%s', (_title, change, expected) => {
    expect(problemsOfSmall(change)).toEqual(expected);
  });

  it('refuses an unquoted YAML ZIP3, which YAML reads as a number', () => {
    const text = SMALL_YAML.replace("das: ['04401-04499']", 'das: [044]');
    // 044 is an octal-looking integer in YAML 1.1 but a decimal integer (44) in YAML 1.2: either way not a string.
    expect(problemsOf(parseRateCardText(text))).toEqual(['zipLists.das[0] must be a string']);
  });

  it('names the count of problems in the error message', () => {
    const card = smallCard();
    delete card.name;
    delete card.currency;
    expect(() => compileRateCard(card)).toThrow('The rate card has 2 problems: name is required; currency is required');
  });

  // A reversed range would match nothing: the surcharge of that list would never be charged.
  it('refuses a dimensional divisor without weight rounding: the quotient must be rounded to be exact', () => {
    expect(
      problemsOfSmall((c) => {
        c.services[0].dimWeight = { divisor: '139' };
        delete c.services[0].rounding;
      }),
    ).toEqual(['services[0].rounding.weight is required with dimWeight: a dimensional weight is a quotient that must be rounded']);
  });

  it('refuses a ZIP range whose start is after its end inside zipLists, once, where the list defines it', () => {
    expect(problemsOfSmall((c) => (c.zipLists.das = ['04499-04401']))).toEqual([
      'zipLists.das[0] 04499-04401 is a range whose start is after its end',
    ]);
  });
});

describe('several mistakes at once are all reported', () => {
  it('every schema mistake', () => {
    expect(
      problemsOfSmall((c) => {
        delete c.currency;
        c.zipLists.das = ['4401'];
        c.services[0].rates.breaks[0].prices[0] = '-1';
        c.surcharges[0].when = {};
        c.markup = { percent: 'ten' };
      }),
    ).toEqual([
      'currency is required',
      'markup.percent must be a decimal ≥ 0 with at most 3 integer and 4 fractional digits',
      'zipLists.das[0] must be a ZIP3 ("995"), a ZIP3 range ("995-999"), a ZIP ("96799"), a ZIP range ("96701-96898") or a list name ("@das")',
      'services[0].rates.breaks[0].prices[0] must be a decimal ≥ 0 with at most 7 integer and 4 fractional digits',
      'surcharges[0].when must name at least one condition',
    ]);
  });

  it('every rule the schema cannot say', () => {
    expect(
      problemsOfSmall((c) => {
        c.effective.to = '2025-01-01';
        c.zones.distanceBands = [
          { upToMiles: 150, zone: 2 },
          { upToMiles: 100, zone: 3 },
        ];
        c.services[0].rates.zones = [2, 2];
        c.services[0].rates.breaks[1].upTo = '0.5';
        c.surcharges[0].name = 'Fuel';
        c.surcharges[0].when.destIn = ['@edas', '995-990'];
        c.fuel.appliesTo = ['Base', 'DAS'];
      }),
    ).toEqual([
      'surcharges[0].name may not be Fuel, the name of a charge the engine writes itself',
      'effective.to 2025-01-01 is before effective.from 2026-01-01',
      'zones.distanceBands[1].upToMiles must be greater than the band before it (150)',
      'services[0].rates.zones[1] zone 2 is listed twice',
      'services[0].rates.breaks[1].upTo must be greater than the break before it (1)',
      'surcharges[0].when.destIn[0] names the ZIP list edas, which zipLists does not have',
      'surcharges[0].when.destIn[1] 995-990 is a range whose start is after its end',
      'fuel.appliesTo[1] names DAS, which is neither Base nor a surcharge of the card',
    ]);
  });
});

describe('text that is not JSON or YAML', () => {
  function textProblems(text: string): string[] {
    try {
      parseRateCardText(text);
    } catch (error) {
      expect(error).toBeInstanceOf(RateCardError);
      return (error as RateCardError).problems;
    }
    throw new Error('the text parsed');
  }

  it('names the line and column of a JSON mistake', () => {
    // A comma missing before "zones", on line 4.
    expect(textProblems('{\n  "name": "x",\n  "currency": "USD"\n  "zones": {}\n}')).toEqual([
      'the file is not valid JSON or YAML (line 4, column 3): Missing , between flow map items at line 4, column 3:',
    ]);
    expect(textProblems('{"name": ')).toEqual([
      'the file is not valid JSON or YAML (line 1, column 10): Flow map must end with a } at line 1, column 10:',
    ]);
  });

  it('names the line and column of a YAML mistake', () => {
    expect(textProblems('name: Small\n\tcurrency: USD\n')).toEqual([
      'the file is not valid JSON or YAML (line 2, column 1): Tabs are not allowed as indentation at line 2, column 1:',
    ]);
  });

  it('refuses a key given twice', () => {
    expect(textProblems('name: a\nname: b\n')).toEqual([
      'the file is not valid JSON or YAML (line 2, column 1): Map keys must be unique at line 2, column 1:',
    ]);
  });
});
