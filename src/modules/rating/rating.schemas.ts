import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from '../../http/schemas.js';

/** The rate quote request and the rate engine's envelope (spec 2.1, 2.2; docs/rating.md). */

const Zip = (description: string) =>
  Type.String({
    pattern: '^\\d{5}(-?\\d{4})?$',
    'x-message': 'must be a 5-digit ZIP code or a ZIP+4, as text (e.g. "02134" or "02134-1234")',
    description,
  });

const Size = (description: string) =>
  Decimal(
    { integerDigits: 6, fractionDigits: 4, sign: 'positive' },
    'must be a positive decimal number such as "12.5" (at most 6 integer and 4 fractional digits, no exponent)',
    description,
  );

export const RateRequestSchema = Type.Object(
  {
    UserID: Type.Integer({
      minimum: 1,
      maximum: 999_999_999_999_999,
      description: "The caller's user identifier; the API key must be allowed to quote for it.",
    }),
    Data: Type.Object(
      {
        OriginZip: Zip('Origin ZIP code.'),
        DestZip: Zip('Destination ZIP code.'),
        Length: Size('Length, in the rate card’s length unit (inches by default).'),
        Width: Size('Width.'),
        Hight: Size('Height (the spec spells it `Hight`).'),
        Weight: Size('Weight, in the rate card’s weight unit (pounds by default).'),
      },
      { description: 'The parcel.' },
    ),
  },
  {
    examples: [{ UserID: 1001, Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' } }],
  },
);
export type RateRequest = Static<typeof RateRequestSchema>;

export const RateEntrySchema = Type.Object({
  name: Type.String({ description: 'The service, or `<Service> - <Charge>` when the card prices per charge.' }),
  Price: Type.String({ description: 'The amount with four decimals, e.g. "12.3400".' }),
  Zone: Type.Optional(Type.Integer({ description: 'Only when the card asks for details.' })),
  BillableWeight: Type.Optional(Type.String({ description: 'Only when the card asks for details.' })),
});
export type RateEntry = Static<typeof RateEntrySchema>;

const envelopeFields = {
  Result: Type.Array(RateEntrySchema, { description: 'Cheapest first; empty when nothing could be quoted.' }),
  Page: Type.Null({ description: 'Always null.' }),
  ErrorMsg: Type.String({ description: 'Empty on success; else what went wrong, naming the field.' }),
  ErrorSeverity: Type.Integer({
    description: '0 quoted; 1 quoted with a warning; 2 bad input; 3 not serviceable; 4 not authorized; 5 internal error.',
  }),
  ErrorSource: Type.String({
    description: 'Empty on success; else the component: RateEngine.Validation, .Service, .Auth, .Zone, .Internal.',
  }),
  Status: Type.Boolean({ description: 'true when quoted.' }),
};

/**
 * What the demo's card (examples/rate-card.json) answers the request example outside its peak
 * window (2026-10-05 to 2027-01-17, when its Peak - Residential surcharge adds 0.65 plus fuel).
 */
const QUOTED = {
  Result: [
    { name: 'Economy', Price: '27.4200' },
    { name: 'Ground', Price: '38.1400' },
  ],
  Page: null,
  ErrorMsg: '',
  ErrorSeverity: 0,
  ErrorSource: '',
  Status: true,
};

export const RateResponseSchema = Type.Object(envelopeFields, { examples: [QUOTED] });
export type RateResponse = Static<typeof RateResponseSchema>;

/** The breakdown of the same quote, as /explain answers it. */
const weights = (Rated: string, Dimensional: string | null, Billable: string) => ({
  Sides: ['12', '10', '8'],
  Actual: '5.2',
  Rated,
  Dimensional,
  Billable,
  MinimumFrom: null,
});
const EXPLAINED = {
  ...QUOTED,
  Explanation: {
    Card: {
      Name: 'Demo Parcel Rates 2026',
      Version: 1,
      BoundToUserID: null,
      Date: '2026-03-09',
      Currency: 'USD',
      Units: { length: 'in', weight: 'lb' },
      AssumeResidential: true,
      MarkupPercent: '0',
    },
    Zone: { Zone: 8, Source: 'distance', Rule: 'zones.distanceBands[6]', Miles: 2449 },
    Services: [
      {
        Service: 'Economy',
        Quoted: true,
        Zone: 8,
        Weights: weights('6', null, '6'),
        Charges: [
          { Name: 'Base', Cost: '22.9', Amount: '22.9000', Rule: 'services[1].rates.breaks[5] (up to 6) × zone 8' },
          { Name: 'Fuel', Cost: '4.52275', Amount: '4.5200', Rule: 'fuel: 19.75 % of Base (22.9)' },
        ],
        Total: '27.4200',
      },
      {
        Service: 'Ground',
        Quoted: true,
        Zone: 8,
        Weights: weights('6', '7', '7'),
        Charges: [
          { Name: 'Base', Cost: '26', Amount: '26.0000', Rule: 'services[0].rates.breaks[6] (up to 7) × zone 8' },
          { Name: 'Residential', Cost: '5.85', Amount: '5.8500', Rule: 'surcharges[0].amount' },
          { Name: 'Fuel', Cost: '6.290375', Amount: '6.2900', Rule: 'fuel: 19.75 % of Base + Residential (31.85)' },
        ],
        Total: '38.1400',
      },
    ],
  },
};

export const RateExplanationResponseSchema = Type.Object(
  {
    ...envelopeFields,
    Explanation: Type.Union([
      Type.Null(),
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'The card, the zone and how it was found, and per service its weights and every charge with the rule that produced it.',
        },
      ),
    ]),
  },
  { examples: [EXPLAINED] },
);
