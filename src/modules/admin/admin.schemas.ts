import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { ROLES } from '../tenants/tenants.schemas.js';

/**
 * The shapes of the admin API (DESIGN §14): a company's customers, facilities and API keys, in the
 * API's PascalCase. Times are UTC ISO date-times.
 */

/** Tenant identifiers, as the CLI takes them: at most 15 printable characters without spaces. */
const TenantId = (description: string) =>
  Type.String({ pattern: '^[!-~]{1,15}$', 'x-message': 'must be 1 to 15 printable characters without spaces', description });
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. America/Los_Angeles.' });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

export const CustomerSchema = Type.Object(
  {
    CustomerID: Type.String(),
    Name: Type.String(),
    CreatedWhen: Instant('When the customer was added (UTC).'),
  },
  { description: 'A customer (merchant) of the company.' },
);
export type Customer = Static<typeof CustomerSchema>;

export const CustomerListSchema = Type.Object({ Customers: Type.Array(CustomerSchema) });
export const CustomerResultSchema = Type.Object({ Customer: CustomerSchema });
export type CustomerResult = Static<typeof CustomerResultSchema>;

export const NewCustomerRequestSchema = Type.Object(
  {
    CustomerID: TenantId("The customer's id, the spec's CustomerID."),
    Name: Type.Optional(Name('Its name; the CustomerID when absent.')),
  },
  { additionalProperties: false },
);
export type NewCustomerRequest = Static<typeof NewCustomerRequestSchema>;

export const CustomerChangeSchema = Type.Object({ Name: Name('Its new name.') }, { additionalProperties: false });
export type CustomerChange = Static<typeof CustomerChangeSchema>;

export const CustomerPathSchema = Type.Object({ CustomerID: Type.String({ minLength: 1, maxLength: 15 }) });

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

export const FacilityListSchema = Type.Object({ Facilities: Type.Array(FacilitySchema) });
export const FacilityResultSchema = Type.Object({ Facility: FacilitySchema });
export type FacilityResult = Static<typeof FacilityResultSchema>;

export const NewFacilityRequestSchema = Type.Object(
  {
    FacilityID: TenantId("The facility's id, the spec's FacilityID."),
    Name: Type.Optional(Name('Its name; the FacilityID when absent.')),
    TimeZone: Type.Optional({ ...TimeZone, description: 'An IANA time zone, e.g. America/Los_Angeles; UTC when absent.' }),
  },
  { additionalProperties: false },
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
  { additionalProperties: false, minProperties: 1, 'x-message': 'must change Name, TimeZone or both' },
);
export type FacilityChange = Static<typeof FacilityChangeSchema>;

export const FacilityPathSchema = Type.Object({ FacilityID: Type.String({ minLength: 1, maxLength: 15 }) });

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

export const KeyListSchema = Type.Object({ Keys: Type.Array(KeySchema) });
export const KeyResultSchema = Type.Object({ Key: KeySchema });
export type KeyResult = Static<typeof KeyResultSchema>;
export const KeyWithSecretResultSchema = Type.Object({ Key: KeyWithSecretSchema });
export type KeyWithSecretResult = Static<typeof KeyWithSecretResultSchema>;
export const KeyRotationResultSchema = Type.Object({
  Key: KeyWithSecretSchema,
  Replaced: { ...KeySchema, description: 'The key replaced, with the instant it stops working.' },
});
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
  { additionalProperties: false },
);
export type NewKeyRequest = Static<typeof NewKeyRequestSchema>;

export const KeyRotationRequestSchema = Type.Object(
  {
    GraceHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 8760, description: 'How long the old key keeps working, in hours (0 to 8760); 24 when absent.' }),
    ),
  },
  { additionalProperties: false },
);
export type KeyRotationRequest = Static<typeof KeyRotationRequestSchema>;

/** A path parameter is text: the KeyID as its digits. */
export const KeyPathSchema = Type.Object({
  KeyID: Type.String({ pattern: '^[1-9][0-9]{0,14}$', 'x-message': 'must be a positive whole number', description: 'The KeyID.' }),
});

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

export const RateCardListSchema = Type.Object({ RateCards: Type.Array(RateCardSchema) });

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
  { additionalProperties: false },
);
export type RateCardLoadRequest = Static<typeof RateCardLoadRequestSchema>;

export const RateCardLoadResultSchema = Type.Object({
  RateCard: RateCardSchema,
  Changed: Type.Boolean({ description: "false: the card was already its binding's latest version, and nothing changed." }),
});
export type RateCardLoadResult = Static<typeof RateCardLoadResultSchema>;

export const RateCardDetailSchema = Type.Object({ RateCard: Type.Object({ ...RateCardSchema.properties, Card: CardContent }) });
export type RateCardDetail = Static<typeof RateCardDetailSchema>;

export const RateCardPathSchema = Type.Object({
  Version: Type.String({ pattern: '^[1-9][0-9]{0,8}$', 'x-message': 'must be a positive whole number', description: 'The version.' }),
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

export const AdminChangeListSchema = Type.Object({ Changes: Type.Array(AdminChangeSchema) });
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
