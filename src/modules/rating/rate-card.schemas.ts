import { Type, type Static } from '@sinclair/typebox';
import { Decimal, StringEnum } from '../../http/schemas.js';

/**
 * The rate card file an operator loads (`wharf ratecard load`): JSON or YAML of this shape. Every
 * number that prices a parcel is here; none is in code. docs/rating.md documents each key.
 * Decimals are text or JSON numbers without exponents, read exactly.
 */

const positive = (integerDigits: number, fractionDigits: number, description: string) =>
  Decimal(
    { integerDigits, fractionDigits, sign: 'positive' },
    `must be a positive decimal with at most ${integerDigits} integer and ${fractionDigits} fractional digits`,
    description,
  );
const nonNegative = (integerDigits: number, fractionDigits: number, description: string) =>
  Decimal(
    { integerDigits, fractionDigits, sign: 'nonnegative' },
    `must be a decimal ≥ 0 with at most ${integerDigits} integer and ${fractionDigits} fractional digits`,
    description,
  );

/** An amount of money in the card's currency. */
const Money = (description: string) => nonNegative(7, 4, description);
/** A length or weight in the card's units. */
const Measure = (description: string) => positive(9, 4, description);
/** A percentage, e.g. "15.25" for 15.25 %. */
const Percent = (description: string) => nonNegative(3, 4, description);

const IsoDate = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', 'x-message': 'must be a date such as 2026-01-31', description });

/** A zone number as the price table's columns name it. */
export const Zone = Type.Integer({ minimum: 1, maximum: 999, description: 'A zone number.' });

/**
 * ZIP patterns: `"995"` (a ZIP3), `"995-999"` (a ZIP3 range), `"96799"` (a ZIP), `"96701-96898"`
 * (a ZIP range), or `"@das"`: every pattern of the card's ZIP list `das`.
 */
const ZIP_PATTERN = /^(\d{3}(-\d{3})?|\d{5}(-\d{5})?|@[A-Za-z0-9_-]{1,50})$/;
const ZipPatterns = (description: string) =>
  Type.Array(
    Type.String({
      pattern: ZIP_PATTERN.source,
      'x-message': 'must be a ZIP3 ("995"), a ZIP3 range ("995-999"), a ZIP ("96799"), a ZIP range ("96701-96898") or a list name ("@das")',
    }),
    { minItems: 1, maxItems: 100_000, description },
  );

const STATE = Type.String({ pattern: '^[A-Z]{2}$', 'x-message': 'must be a two-letter state or territory code such as AK' });

/**
 * A condition on the parcel and its route. Every key given must hold (`all`, `any` and `not`
 * combine conditions). Sizes are the parcel's sides after rounding, longest first.
 */
export const ConditionSchema = Type.Recursive(
  (This) =>
    Type.Object(
      {
        actualWeightGt: Type.Optional(Measure('The actual weight is greater than this.')),
        longestGt: Type.Optional(Measure('The longest side is greater than this.')),
        secondGt: Type.Optional(Measure('The second-longest side is greater than this.')),
        lengthGirthGt: Type.Optional(Measure('Length + girth (longest + 2 × the other two sides) is greater than this.')),
        cubicInGt: Type.Optional(Measure('Length × width × height, in the card’s length unit cubed, is greater than this.')),
        zoneIn: Type.Optional(Type.Array(Zone, { minItems: 1, maxItems: 1000, description: 'The zone is one of these.' })),
        destIn: Type.Optional(ZipPatterns('The destination ZIP matches one of these patterns.')),
        residential: Type.Optional(Type.Boolean({ description: 'The card’s assumeResidential is this value.' })),
        all: Type.Optional(Type.Array(This, { minItems: 1, maxItems: 100, description: 'Every condition holds.' })),
        any: Type.Optional(Type.Array(This, { minItems: 1, maxItems: 100, description: 'At least one condition holds.' })),
        not: Type.Optional(This),
      },
      { additionalProperties: false, minProperties: 1, 'x-message': 'must name at least one condition' },
    ),
  { $id: 'RateCardCondition' },
);
export type Condition = Static<typeof ConditionSchema>;
/** Where a card uses a condition: one definition, referred to (an $id may appear once in a schema). */
const ConditionRef = Type.Ref(ConditionSchema);

const DateWindow = (description: string) =>
  Type.Object(
    {
      from: IsoDate('First day, inclusive.'),
      to: Type.Optional(IsoDate('Last day, inclusive; open-ended when absent.')),
    },
    { additionalProperties: false, description },
  );

const Rounding = (description: string) =>
  Type.Object(
    {
      increment: Measure('Round to a multiple of this, e.g. "1" for whole units.'),
      mode: StringEnum(['up', 'halfUp'] as const, { description: '`up`: any fraction rounds up; `halfUp`: to the nearest, halves up.' }),
    },
    { additionalProperties: false, description },
  );

const SurchargeSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 60, description: 'Unique in the card; the charge line is `<Service> - <name>`.' }),
    when: Type.Optional(ConditionRef),
    amount: Type.Optional(Money('A flat amount.')),
    amountByZone: Type.Optional(
      Type.Record(Type.String({ pattern: '^\\d{1,3}$' }), Money('The amount in that zone.'), {
        description: 'The amount per zone (keys are zone numbers); a zone missing here adds nothing.',
      }),
    ),
    services: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 100, description: 'Only these services; all when absent.' }),
    ),
    group: Type.Optional(
      Type.String({ minLength: 1, maxLength: 60, description: 'Of the surcharges of one group that apply, only the highest is charged.' }),
    ),
    suppresses: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Surcharges this one removes when it applies.',
      }),
    ),
    minBillableWeight: Type.Optional(Measure('When it applies, the billable weight is at least this.')),
    window: Type.Optional(DateWindow('Charged only on these days (a peak season).')),
  },
  { additionalProperties: false },
);

const ServiceSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 60, description: 'The service name, as the quote shows it.' }),
    limits: Type.Optional(
      Type.Object(
        {
          maxWeight: Type.Optional(Measure('The heaviest parcel (actual weight) the service takes.')),
          maxLength: Type.Optional(Measure('The longest side the service takes.')),
          maxLengthPlusGirth: Type.Optional(Measure('The largest length + girth the service takes.')),
        },
        { additionalProperties: false },
      ),
    ),
    dimWeight: Type.Optional(
      Type.Object(
        {
          divisor: Measure('Dimensional weight = L × W × H ÷ divisor.'),
          minCubicSize: Type.Optional(Measure('Dimensional weight counts only when L × W × H is greater than this.')),
        },
        { additionalProperties: false },
      ),
    ),
    rounding: Type.Optional(
      Type.Object(
        {
          sides: Type.Optional(Rounding('How each side is rounded before anything else.')),
          weight: Type.Optional(Rounding('How the actual and the dimensional weight are rounded.')),
        },
        { additionalProperties: false },
      ),
    ),
    rates: Type.Object(
      {
        zones: Type.Array(Zone, { minItems: 1, maxItems: 100, description: 'The price table’s columns.' }),
        breaks: Type.Array(
          Type.Object(
            {
              upTo: Measure('This row prices billable weights up to and including this.'),
              prices: Type.Array(Money('The price in the column’s zone.'), { minItems: 1, maxItems: 100 }),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: 2000, description: 'Weight breaks, lightest first.' },
        ),
        beyondLastBreak: Type.Optional(
          Type.Object(
            {
              perUnit: Type.Array(Money('Added per weight unit beyond the last break, in the column’s zone.'), {
                minItems: 1,
                maxItems: 100,
              }),
            },
            { additionalProperties: false, description: 'Heavier parcels than the last break; refused when absent.' },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    minimumCharge: Type.Optional(Money('The base rate is at least this.')),
    serviceArea: Type.Optional(ConditionRef),
  },
  { additionalProperties: false },
);

const ZoneRuleSchema = Type.Object(
  {
    origins: Type.Optional(ZipPatterns('Origin ZIPs this rule is for; every origin when absent.')),
    destinations: Type.Optional(ZipPatterns('Destination ZIPs.')),
    states: Type.Optional(Type.Array(STATE, { minItems: 1, maxItems: 100, description: 'Destination states or territories.' })),
    zone: Zone,
  },
  { additionalProperties: false },
);

export const RateCardSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the card is called.' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', 'x-message': 'must be an ISO 4217 code such as USD' }),
    units: Type.Optional(
      Type.Object(
        {
          length: StringEnum(['in', 'cm'] as const),
          weight: StringEnum(['lb', 'kg'] as const),
        },
        { additionalProperties: false, description: 'The units of the card and of the quote requests; in and lb by default.' },
      ),
    ),
    effective: DateWindow('The days the card is in force.'),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The zone of the card’s dates; UTC by default.' })),
    assumeResidential: Type.Optional(Type.Boolean({ description: 'Price every destination as a residence (the request cannot say).' })),
    flagEstimatedZones: Type.Optional(Type.Boolean({ description: 'A zone found by distance answers ErrorSeverity 1.' })),
    result: Type.Optional(
      StringEnum(['perService', 'perCharge'] as const, { description: 'One Result entry per service (default) or per charge.' }),
    ),
    details: Type.Optional(Type.Boolean({ description: 'Result entries also carry Zone and BillableWeight.' })),
    markup: Type.Optional(
      Type.Object(
        {
          percent: Type.Optional(Percent('Added to every charge line.')),
          byUserId: Type.Optional(
            Type.Record(Type.String({ pattern: '^[1-9]\\d{0,14}$' }), Percent('The markup of that UserID.'), {
              description: 'A UserID’s own markup, instead of percent.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    zones: Type.Object(
      {
        exceptions: Type.Optional(Type.Array(ZoneRuleSchema, { maxItems: 10_000, description: '5-digit exceptions: checked first.' })),
        overrides: Type.Optional(Type.Array(ZoneRuleSchema, { maxItems: 1000, description: 'States and territories: checked second.' })),
        chart: Type.Optional(
          Type.Array(
            Type.Object(
              {
                origins: ZipPatterns('Origin ZIPs of this part of the chart.'),
                destinations: Type.Array(
                  Type.Object({ zips: ZipPatterns('Destination ZIPs.'), zone: Zone }, { additionalProperties: false }),
                  { minItems: 1, maxItems: 10_000 },
                ),
              },
              { additionalProperties: false },
            ),
            { maxItems: 10_000, description: 'The zone chart: checked third.' },
          ),
        ),
        distanceBands: Type.Optional(
          Type.Array(
            Type.Object(
              {
                upToMiles: Type.Optional(
                  Type.Integer({ minimum: 0, maximum: 30_000, description: 'Up to and including this many miles.' }),
                ),
                zone: Zone,
              },
              { additionalProperties: false },
            ),
            { minItems: 1, maxItems: 100, description: 'By great-circle miles between ZIP3 centroids: the fallback.' },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    zipLists: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,50}$' }), ZipPatterns('A named ZIP list, used as "@name".'), {
        description: 'Named ZIP lists (delivery area, extended, remote, …).',
      }),
    ),
    services: Type.Array(ServiceSchema, { minItems: 1, maxItems: 50 }),
    surcharges: Type.Optional(Type.Array(SurchargeSchema, { maxItems: 500 })),
    fuel: Type.Optional(
      Type.Object(
        {
          percent: Percent('The fuel surcharge, a percentage of its bases.'),
          appliesTo: Type.Array(Type.String({ minLength: 1 }), {
            minItems: 1,
            maxItems: 500,
            description: '"Base" (the base rate) and the names of the surcharges it is charged on.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $defs: { condition: ConditionSchema } },
);
export type RateCard = Static<typeof RateCardSchema>;
