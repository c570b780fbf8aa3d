import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { ROLES } from '../tenants/tenants.schemas.js';

/**
 * The shapes of the admin API (docs/admin.md): a company's customers, facilities and API keys, in the
 * API's PascalCase. Times are UTC ISO date-times.
 */

/** Tenant identifiers, as the CLI takes them: at most 15 printable characters without spaces. */
const TenantId = (description: string) =>
  Type.String({ pattern: '^[!-~]{1,15}$', 'x-message': 'must be 1 to 15 printable characters without spaces', description });
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. America/Los_Angeles.' });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

/**
 * The examples show what the admin API answers on a fresh `npm run demo`: the demo was seeded at
 * SEEDED and the examples' calls are made at NOW, each on the demo record it is meant for (docs/admin.md).
 */
const SEEDED = '2026-03-05T14:07:09.123Z';
const NOW = '2026-03-09T16:20:31.457Z';

export const CustomerSchema = Type.Object(
  {
    CustomerID: Type.String(),
    Name: Type.String(),
    CreatedWhen: Instant('When the customer was added (UTC).'),
  },
  { description: 'A customer (merchant) of the company.' },
);
export type Customer = Static<typeof CustomerSchema>;

const ACME: Customer = { CustomerID: 'ACME', Name: 'Acme Housewares', CreatedWhen: SEEDED };

export const CustomerListSchema = Type.Object({ Customers: Type.Array(CustomerSchema) }, { examples: [{ Customers: [ACME] }] });
const customerResult = (example: Customer) => Type.Object({ Customer: CustomerSchema }, { examples: [{ Customer: example }] });
/** What createCustomer answers: the customer its example adds. */
export const NewCustomerResultSchema = customerResult({ CustomerID: 'GLOBEX', Name: 'Globex Corporation', CreatedWhen: NOW });
/** What updateCustomer answers: its example renames the demo's customer. */
export const CustomerResultSchema = customerResult({ ...ACME, Name: 'Acme Housewares Inc.' });
export type CustomerResult = Static<typeof CustomerResultSchema>;

export const NewCustomerRequestSchema = Type.Object(
  {
    CustomerID: TenantId("The customer's id, the spec's CustomerID."),
    Name: Type.Optional(Name('Its name; the CustomerID when absent.')),
  },
  { additionalProperties: false, examples: [{ CustomerID: 'GLOBEX', Name: 'Globex Corporation' }] },
);
export type NewCustomerRequest = Static<typeof NewCustomerRequestSchema>;

export const CustomerChangeSchema = Type.Object(
  { Name: Name('Its new name.') },
  { additionalProperties: false, examples: [{ Name: 'Acme Housewares Inc.' }] },
);
export type CustomerChange = Static<typeof CustomerChangeSchema>;

export const CustomerPathSchema = Type.Object({ CustomerID: Type.String({ minLength: 1, maxLength: 15, examples: ['ACME'] }) });

export const FacilitySchema = Type.Object(
  {
    FacilityID: Type.String(),
    Name: Type.String(),
    TimeZone: Type.String({ description: 'Its IANA time zone: the zone of the facility-local times of its documents.' }),
    CreatedWhen: Instant('When the facility was added (UTC).'),
  },
  { description: 'A warehouse of the company.' },
);
export type Facility = Static<typeof FacilitySchema>;

const LAX1: Facility = { FacilityID: 'LAX1', Name: 'Los Angeles DC', TimeZone: 'America/Los_Angeles', CreatedWhen: SEEDED };

export const FacilityListSchema = Type.Object({ Facilities: Type.Array(FacilitySchema) }, { examples: [{ Facilities: [LAX1] }] });
const facilityResult = (example: Facility) => Type.Object({ Facility: FacilitySchema }, { examples: [{ Facility: example }] });
/** What createFacility answers: the facility its example adds. */
export const NewFacilityResultSchema = facilityResult({
  FacilityID: 'ORD1',
  Name: 'Chicago DC',
  TimeZone: 'America/Chicago',
  CreatedWhen: NOW,
});
/** What updateFacility answers: its example renames the demo's facility (and keeps its time zone). */
export const FacilityResultSchema = facilityResult({ ...LAX1, Name: 'Los Angeles Distribution Center' });
export type FacilityResult = Static<typeof FacilityResultSchema>;

export const NewFacilityRequestSchema = Type.Object(
  {
    FacilityID: TenantId("The facility's id, the spec's FacilityID."),
    Name: Type.Optional(Name('Its name; the FacilityID when absent.')),
    TimeZone: Type.Optional({ ...TimeZone, description: 'An IANA time zone, e.g. America/Los_Angeles; UTC when absent.' }),
  },
  { additionalProperties: false, examples: [{ FacilityID: 'ORD1', Name: 'Chicago DC', TimeZone: 'America/Chicago' }] },
);
export type NewFacilityRequest = Static<typeof NewFacilityRequestSchema>;

export const FacilityChangeSchema = Type.Object(
  {
    Name: Type.Optional(Name('Its new name.')),
    TimeZone: Type.Optional({
      ...TimeZone,
      description: 'Its new time zone. Documents keep their instants: their facility-local times are shown in the new zone.',
    }),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must change Name, TimeZone or both',
    examples: [{ Name: 'Los Angeles Distribution Center' }],
  },
);
export type FacilityChange = Static<typeof FacilityChangeSchema>;

export const FacilityPathSchema = Type.Object({ FacilityID: Type.String({ minLength: 1, maxLength: 15, examples: ['LAX1'] }) });

export const KeySchema = Type.Object(
  {
    KeyID: Type.Integer({ description: 'The id that names the key in the admin API and the CLI (never the key itself).' }),
    Role: StringEnum(ROLES),
    Customers: Type.Array(Type.String(), { description: 'The customers a customer key acts for.' }),
    Facilities: Type.Array(Type.String(), { description: 'The facilities the key is limited to; empty: every facility.' }),
    UserIDs: Type.Array(Type.Integer(), { description: 'The rate-engine UserIDs a rater key quotes for.' }),
    Label: Type.String(),
    CreatedWhen: Instant('When the key was made (UTC).'),
    LastUsedWhen: Nullable(Instant('Its last use, to the minute; null: never used.')),
    RevokedWhen: Nullable(Instant('When it was revoked; null: it is not.')),
    RateLimit: Nullable(Type.Integer({ description: "Its own limit of requests a minute; null: the routes' default; 0: none." })),
    ExpiresAt: Nullable(Instant('When it stops working; null: never.')),
    ReplacedBy: Nullable(
      Type.Integer({ description: 'The KeyID of the key that replaced it (rotateKey): it works until ExpiresAt. Null: not replaced.' }),
    ),
  },
  { description: 'An API key: never the key itself, which is shown only when it is made.' },
);
export type Key = Static<typeof KeySchema>;

const KeyWithSecretSchema = Type.Object(
  {
    ...KeySchema.properties,
    Key: Type.String({ description: 'The key itself, shown this once: send it as `Authorization: APIKey <Key>`.' }),
  },
  { description: 'A new API key, with the key itself.' },
);

/** A key of the demo as the admin API shows it: unused, unrevoked, without a limit of its own or an expiry. */
const demoKey = (key: Pick<Key, 'KeyID' | 'Role' | 'Label'> & Partial<Key>): Key => ({
  Customers: [],
  Facilities: [],
  UserIDs: [],
  CreatedWhen: SEEDED,
  LastUsedWhen: null,
  RevokedWhen: null,
  RateLimit: null,
  ExpiresAt: null,
  ReplacedBy: null,
  ...key,
});
/** The demo's spare customer keys: KeyID 5 for the rotateKey example, 6 for the revokeKey one. */
const SPARE: Pick<Key, 'Role' | 'Customers'> = { Role: 'customer', Customers: ['ACME'] };

export const KeyListSchema = Type.Object(
  { Keys: Type.Array(KeySchema) },
  {
    examples: [
      {
        Keys: [
          demoKey({ KeyID: 1, Role: 'customer', Customers: ['ACME'], Facilities: ['LAX1'], Label: 'demo customer' }),
          demoKey({ KeyID: 2, Role: 'operator', Facilities: ['LAX1'], Label: 'demo operator' }),
          demoKey({ KeyID: 3, Role: 'admin', Label: 'demo admin', LastUsedWhen: NOW }),
          demoKey({ KeyID: 4, Role: 'rater', UserIDs: [1001], Label: 'demo rater' }),
        ],
      },
    ],
  },
);
/** What revokeKey answers: its example revokes the demo's spare KeyID 6. */
export const KeyResultSchema = Type.Object(
  { Key: KeySchema },
  { examples: [{ Key: demoKey({ KeyID: 6, ...SPARE, Label: 'demo spare: revoke me', RevokedWhen: NOW }) }] },
);
export type KeyResult = Static<typeof KeyResultSchema>;
export const KeyWithSecretResultSchema = Type.Object(
  { Key: KeyWithSecretSchema },
  {
    examples: [
      {
        Key: {
          ...demoKey({ KeyID: 7, Role: 'customer', Customers: ['ACME'], Facilities: ['LAX1'], Label: 'ACME order import' }),
          CreatedWhen: NOW,
          RateLimit: 600,
          ExpiresAt: '2030-01-01T00:00:00.000Z',
          Key: 'wk_Xb2rQ9vLk4TzN7cWm1YpH8sDf3GaJ6eUo0iRtV5nKqE',
        },
      },
    ],
  },
);
export type KeyWithSecretResult = Static<typeof KeyWithSecretResultSchema>;
export const KeyRotationResultSchema = Type.Object(
  {
    Key: KeyWithSecretSchema,
    Replaced: { ...KeySchema, description: 'The key replaced, with the instant it stops working.' },
  },
  {
    examples: [
      {
        Key: {
          ...demoKey({ KeyID: 7, ...SPARE, Label: 'demo spare: rotate me', CreatedWhen: NOW }),
          Key: 'wk_M4hT8pZc2VnQ6rLy0KdW9sJb3FxA7gEu1iOtR5mYqCw',
        },
        Replaced: demoKey({ KeyID: 5, ...SPARE, Label: 'demo spare: rotate me', ExpiresAt: '2026-03-10T16:20:31.457Z', ReplacedBy: 7 }),
      },
    ],
  },
);
export type KeyRotationResult = Static<typeof KeyRotationResultSchema>;

const ids = (description: string) => Type.Optional(Type.Array(TenantId(description), { maxItems: 1000 }));

export const NewKeyRequestSchema = Type.Object(
  {
    Role: StringEnum(ROLES, {
      description:
        'customer (EDI operations of its Customers), operator (3PL operations), admin (the whole company), rater (the rate engine).',
    }),
    Customers: ids('A customer key: the customers it acts for (at least one).'),
    Facilities: ids('A customer or operator key: the facilities it is limited to; absent or empty: every facility.'),
    UserIDs: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
        maxItems: 1000,
        description: 'A rater key: the rate-engine UserIDs it quotes for (at least one).',
      }),
    ),
    Label: Type.Optional(Type.String({ maxLength: 200, description: 'What the key is for.' })),
    ExpiresAt: Type.Optional(
      Type.String({
        maxLength: 50,
        format: 'offset-date-time',
        'x-message': 'must be an ISO 8601 date-time with a UTC offset such as 2027-01-01T00:00:00Z',
        description: 'When the key stops working, with a UTC offset, e.g. 2027-01-01T00:00:00Z; absent: never.',
      }),
    ),
    RateLimit: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: 1_000_000_000,
          description: "Its own limit of requests a minute; null or absent: the routes' default; 0: none.",
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        Role: 'customer',
        Customers: ['ACME'],
        Facilities: ['LAX1'],
        Label: 'ACME order import',
        RateLimit: 600,
        ExpiresAt: '2030-01-01T00:00:00Z',
      },
    ],
  },
);
export type NewKeyRequest = Static<typeof NewKeyRequestSchema>;

export const KeyRotationRequestSchema = Type.Object(
  {
    GraceHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 8760, description: 'How long the old key keeps working, in hours (0 to 8760); 24 when absent.' }),
    ),
  },
  { additionalProperties: false, examples: [{ GraceHours: 24 }] },
);
export type KeyRotationRequest = Static<typeof KeyRotationRequestSchema>;

/** A path parameter is text: the KeyID as its digits; `example` names the demo key an operation's example acts on. */
const keyPath = (example: string) =>
  Type.Object({
    KeyID: Type.String({
      pattern: '^[1-9][0-9]{0,14}$',
      'x-message': 'must be a positive whole number',
      description: 'The KeyID.',
      examples: [example],
    }),
  });
/** rotateKey's KeyID: the demo's spare key 5. */
export const RotateKeyPathSchema = keyPath('5');
/** revokeKey's KeyID: the demo's spare key 6. */
export const RevokeKeyPathSchema = keyPath('6');

export const RateCardSchema = Type.Object(
  {
    RateCardID: Type.Integer({ description: 'The id of this version of the card.' }),
    UserID: Nullable(Type.Integer({ description: 'The rate-engine UserID the card is bound to; null: the company default.' })),
    Version: Type.Integer({ description: "The version among its binding's cards, from 1." }),
    Name: Type.String(),
    EffectiveFrom: Type.String({ description: "The first day it prices, in the card's time zone (yyyy-MM-dd)." }),
    EffectiveTo: Nullable(Type.String({ description: 'The last day it prices; null: no end.' })),
    TimeZone: Type.String({ description: "The card's time zone, which its days are read in." }),
    LoadedWhen: Instant('When it was loaded (UTC).'),
    InForce: Type.Boolean({ description: 'Whether it is the version its binding prices with today.' }),
  },
  { description: "A version of one of the company's rate cards (docs/rating.md)." },
);
export type RateCard = Static<typeof RateCardSchema>;

/** The demo's card (examples/rate-card.json): the company default, version 1. */
const DEMO_CARD: RateCard = {
  RateCardID: 1,
  UserID: null,
  Version: 1,
  Name: 'Demo Parcel Rates 2026',
  EffectiveFrom: '2026-01-01',
  EffectiveTo: null,
  TimeZone: 'America/New_York',
  LoadedWhen: SEEDED,
  InForce: true,
};
/** The card loadRateCard's example binds to UserID 1002, a user of the demo without a card of its own. */
const USER_CARD_CONTENT = {
  name: 'Demo Parcel Rates 2026: UserID 1002',
  currency: 'USD',
  effective: { from: '2026-01-01' },
  timeZone: 'America/New_York',
  zones: { distanceBands: [{ upToMiles: 300, zone: 2 }, { upToMiles: 1000, zone: 3 }, { zone: 4 }] },
  services: [
    {
      name: 'Ground',
      limits: { maxWeight: '150' },
      dimWeight: { divisor: '139' },
      rounding: { weight: { increment: '1', mode: 'up' } },
      rates: {
        zones: [2, 3, 4],
        breaks: [
          { upTo: '1', prices: ['9.80', '10.90', '12.40'] },
          { upTo: '5', prices: ['11.60', '13.70', '16.90'] },
          { upTo: '10', prices: ['14.20', '17.50', '22.60'] },
        ],
        beyondLastBreak: { perUnit: ['0.85', '1.10', '1.45'] },
      },
    },
  ],
  fuel: { percent: '15', appliesTo: ['Base'] },
};
const USER_CARD: RateCard = {
  ...DEMO_CARD,
  RateCardID: 2,
  UserID: 1002,
  Name: USER_CARD_CONTENT.name,
  LoadedWhen: NOW,
};

export const RateCardListSchema = Type.Object(
  { RateCards: Type.Array(RateCardSchema) },
  { examples: [{ RateCards: [DEMO_CARD, USER_CARD] }] },
);

const CardContent = Type.Object({}, { additionalProperties: true, description: 'The rate card, as docs/rating.md describes it.' });

export const RateCardLoadRequestSchema = Type.Object(
  {
    UserID: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Bind the card to this rate-engine UserID; absent: the company default.',
      }),
    ),
    Card: CardContent,
  },
  { additionalProperties: false, examples: [{ UserID: 1002, Card: USER_CARD_CONTENT }] },
);
export type RateCardLoadRequest = Static<typeof RateCardLoadRequestSchema>;

export const RateCardLoadResultSchema = Type.Object(
  {
    RateCard: RateCardSchema,
    Changed: Type.Boolean({ description: "false: the card was already its binding's latest version, and nothing changed." }),
  },
  { examples: [{ RateCard: USER_CARD, Changed: true }] },
);
export type RateCardLoadResult = Static<typeof RateCardLoadResultSchema>;

/** getRateCard's example: the demo's card, shortened here (examples/rate-card.json has it whole). */
export const RateCardDetailSchema = Type.Object(
  { RateCard: Type.Object({ ...RateCardSchema.properties, Card: CardContent }) },
  {
    examples: [
      {
        RateCard: {
          ...DEMO_CARD,
          Card: {
            name: 'Demo Parcel Rates 2026',
            currency: 'USD',
            units: { length: 'in', weight: 'lb' },
            effective: { from: '2026-01-01' },
            timeZone: 'America/New_York',
            assumeResidential: true,
            result: 'perService',
            zones: {
              overrides: [{ destinations: ['995-999', '967-968', '006-009', '969'], zone: 9 }],
              distanceBands: [
                { upToMiles: 150, zone: 2 },
                { upToMiles: 300, zone: 3 },
                { upToMiles: 600, zone: 4 },
                { upToMiles: 1000, zone: 5 },
                { upToMiles: 1400, zone: 6 },
                { upToMiles: 1800, zone: 7 },
                { zone: 8 },
              ],
            },
            services: [
              {
                name: 'Ground',
                limits: { maxWeight: '150', maxLength: '108', maxLengthPlusGirth: '165' },
                dimWeight: { divisor: '139' },
                rates: {
                  zones: [2, 3, 4, 5, 6, 7, 8, 9],
                  breaks: [
                    { upTo: '1', prices: ['10.35', '10.85', '11.40', '11.80', '12.25', '12.70', '13.40', '38.50'] },
                    { upTo: '2', prices: ['10.97', '11.63', '12.45', '13.05', '13.80', '14.50', '15.50', '43.40'] },
                  ],
                },
                minimumCharge: '10.35',
              },
            ],
            surcharges: [{ name: 'Residential', when: { residential: true }, amount: '5.85', services: ['Ground'] }],
            fuel: { percent: '19.75', appliesTo: ['Base', 'Residential'] },
          },
        },
      },
    ],
  },
);
export type RateCardDetail = Static<typeof RateCardDetailSchema>;

export const RateCardPathSchema = Type.Object({
  Version: Type.String({
    pattern: '^[1-9][0-9]{0,8}$',
    'x-message': 'must be a positive whole number',
    description: 'The version.',
    examples: ['1'],
  }),
});
export const RateCardQuerySchema = Type.Object(
  {
    UserID: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,14}$',
        'x-message': 'must be a positive whole number',
        description: 'The UserID whose card it is; absent: the company default.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdminChangeSchema = Type.Object(
  {
    ChangeID: Type.Integer({ description: 'Its id: later changes have higher ones.' }),
    KeyID: Type.Integer({ description: 'The admin key that made it.' }),
    Action: Type.String({
      description:
        'customer.created, customer.updated, facility.created, facility.updated, key.created, key.rotated, key.revoked or rate-card.loaded.',
    }),
    Subject: Type.String({ description: 'The CustomerID, FacilityID, KeyID or rate card version changed.' }),
    Detail: Type.Object({}, { additionalProperties: true, description: 'What changed (never a key itself).' }),
    CreatedWhen: Instant('When (UTC).'),
  },
  { description: 'A change made through the admin API, with the key that made it.' },
);
export type AdminChange = Static<typeof AdminChangeSchema>;

/** The record after the createCustomer, updateFacility and rotateKey examples, newest first. */
export const AdminChangeListSchema = Type.Object(
  { Changes: Type.Array(AdminChangeSchema) },
  {
    examples: [
      {
        Changes: [
          {
            ChangeID: 3,
            KeyID: 3,
            Action: 'key.rotated',
            Subject: '5',
            Detail: { NewKeyID: 7, GraceHours: 24, ReplacedExpiresAt: '2026-03-10T16:20:31.457Z' },
            CreatedWhen: NOW,
          },
          {
            ChangeID: 2,
            KeyID: 3,
            Action: 'facility.updated',
            Subject: 'LAX1',
            Detail: {
              Name: 'Los Angeles Distribution Center',
              TimeZone: 'America/Los_Angeles',
              Before: { Name: 'Los Angeles DC', TimeZone: 'America/Los_Angeles' },
            },
            CreatedWhen: NOW,
          },
          {
            ChangeID: 1,
            KeyID: 3,
            Action: 'customer.created',
            Subject: 'GLOBEX',
            Detail: { Name: 'Globex Corporation' },
            CreatedWhen: NOW,
          },
        ],
      },
    ],
  },
);
export const AdminChangeQuerySchema = Type.Object(
  {
    Before: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,14}$',
        'x-message': 'must be a positive whole number',
        description: 'Only changes before this ChangeID: the next page, from the last ChangeID of one.',
      }),
    ),
  },
  { additionalProperties: false },
);
