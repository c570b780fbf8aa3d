import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, Identifier, Nullable, OptionalDateTime, StringEnum } from '../../http/schemas.js';
import { EVENT_TYPES } from '../events/events.schemas.js';

/**
 * Webhook endpoints and deliveries under the EDI base (docs/webhooks.md). A customer key names its
 * CustomerID; an admin key may leave it out to mean the whole company (an endpoint that takes the
 * events of every customer, or every endpoint and delivery of the company).
 */

const CustomerID = Type.Optional(
  Identifier("The customer whose endpoints these are; an admin key may leave it out for the company's endpoints of every customer."),
);
const EndpointID = Type.String({ minLength: 1, maxLength: 30, description: 'ep_<ULID>, as create answered.' });
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'Where events are POSTed: https:// and a public address.' });
const EventTypes = Nullable(
  Type.Array(StringEnum(EVENT_TYPES), {
    minItems: 1,
    maxItems: EVENT_TYPES.length,
    uniqueItems: true,
    description: 'The event types the endpoint takes; null or absent: all.',
  }),
);
const Description = Nullable(Type.String({ maxLength: 500 }));
/** The most facilities an endpoint names. */
export const MAX_ENDPOINT_FACILITIES = 100;
const FacilityIDs = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 15 }), {
    minItems: 1,
    maxItems: MAX_ENDPOINT_FACILITIES,
    uniqueItems: true,
    description:
      "The facilities whose events the endpoint takes, besides the customer's events of no facility (the item master's); null: every facility. Each must be a facility of the company (400 Not found facility) and, for a key limited to facilities, one of them (403).",
  }),
);

export const EndpointCreateRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityIDs: Type.Optional(FacilityIDs),
    Url,
    EventTypes: Type.Optional(EventTypes),
    Description: Type.Optional(Description),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityIDs: ['LAX1'],
        Url: 'https://hooks.acme.example/wharf/orders',
        EventTypes: ['order.shipped', 'order.closed'],
        Description: 'Shipment notices for the order system',
      },
    ],
  },
);
export type EndpointCreateRequest = Static<typeof EndpointCreateRequestSchema>;

const endpointLookupProperties = { CompanyID, CustomerID, EndpointID };
export const EndpointLookupSchema = Type.Object(endpointLookupProperties);
export type EndpointLookup = Static<typeof EndpointLookupSchema>;

/** The lookup of the delete and of the rotate, each with its example: each names its own demo endpoint. */
export const EndpointDeleteRequestSchema = Type.Object(endpointLookupProperties, {
  examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', EndpointID: 'ep_demo_acme_old' }],
});
export const EndpointRotateRequestSchema = Type.Object(endpointLookupProperties, {
  examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', EndpointID: 'ep_demo_acme' }],
});

export const EndpointUpdateRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    EndpointID,
    FacilityIDs: Type.Optional(FacilityIDs),
    Url: Type.Optional(Url),
    EventTypes: Type.Optional(EventTypes),
    Description: Type.Optional(Description),
    Enabled: Type.Optional(
      Type.Boolean({ description: 'false disables the endpoint; true enables it again (its disabling reason is cleared).' }),
    ),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        EndpointID: 'ep_demo_acme',
        EventTypes: ['receipt.closed', 'order.shipped'],
        Description: 'Receipts closed and orders shipped',
      },
    ],
  },
);
export type EndpointUpdateRequest = Static<typeof EndpointUpdateRequestSchema>;

export const EndpointListRequestSchema = Type.Object({ CompanyID, CustomerID }, { examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME' }] });
export type EndpointListRequest = Static<typeof EndpointListRequestSchema>;

export const EndpointSchema = Type.Object({
  EndpointID: Type.String(),
  CustomerID: Nullable(Type.String({ description: 'null: every customer of the company.' })),
  FacilityIDs: Nullable(
    Type.Array(Type.String(), {
      description:
        "The facilities whose events it takes, in FacilityID order, besides the customer's events of no facility; null: every facility.",
    }),
  ),
  Url: Type.String(),
  EventTypes: Nullable(Type.Array(Type.String(), { description: 'null: all.' })),
  Description: Nullable(Type.String()),
  Enabled: Type.Boolean(),
  DisabledReason: Nullable(Type.String({ description: 'Why it is disabled: by its owner, a 410 answer, or five days of failures.' })),
  FailingSince: Nullable(
    Type.String({
      description: 'Since when every attempt to it has failed (UTC ISO 8601); null while it delivers. Five days of it disable it.',
    }),
  ),
  CreatedWhen: Type.String({ description: 'UTC ISO 8601.' }),
  UpdatedWhen: Type.String({ description: 'UTC ISO 8601.' }),
});
export type Endpoint = Static<typeof EndpointSchema>;

/** Create and rotate-secret show the secret, once. */
export const EndpointWithSecretSchema = Type.Intersect([
  EndpointSchema,
  Type.Object({
    Secret: Type.String({ description: 'whsec_…: verify signatures with it. Shown at creation and rotation only.' }),
  }),
]);

/** A demo endpoint as the operations show it: the demo customer key's, so limited to LAX1; disabled, so that the demo delivers nothing. */
const demoEndpoint = (EndpointID: string) => ({
  EndpointID,
  CustomerID: 'ACME',
  FacilityIDs: ['LAX1'],
  Url: 'https://hooks.acme.example/wharf',
  EventTypes: null,
  Description: 'Demo endpoint',
  Enabled: false,
  DisabledReason: 'Disabled by its owner',
  FailingSince: null,
  CreatedWhen: '2026-03-05T14:07:09.123Z',
  UpdatedWhen: '2026-03-05T14:07:09.123Z',
});
const updatedDemoEndpoint = {
  ...demoEndpoint('ep_demo_acme'),
  EventTypes: ['receipt.closed', 'order.shipped'],
  Description: 'Receipts closed and orders shipped',
  UpdatedWhen: '2026-03-05T14:12:30.456Z',
};

export const EndpointResultSchema = Type.Object({ Endpoint: EndpointSchema }, { examples: [{ Endpoint: updatedDemoEndpoint }] });
export const EndpointWithSecretResultSchema = Type.Object({ Endpoint: EndpointWithSecretSchema });
export const EndpointCreateResultSchema = Type.Object(EndpointWithSecretResultSchema.properties, {
  examples: [
    {
      Endpoint: {
        EndpointID: 'ep_01KJZ57KD3Z0A1AVSRD74CK5CK',
        CustomerID: 'ACME',
        FacilityIDs: ['LAX1'],
        Url: 'https://hooks.acme.example/wharf/orders',
        EventTypes: ['order.shipped', 'order.closed'],
        Description: 'Shipment notices for the order system',
        Enabled: true,
        DisabledReason: null,
        FailingSince: null,
        CreatedWhen: '2026-03-05T14:08:09.123Z',
        UpdatedWhen: '2026-03-05T14:08:09.123Z',
        Secret: 'whsec_kpQhIyDVnrSFLH4idHVhPzyPaYGwMKtCWkE1sZZeHZk=',
      },
    },
  ],
});
export const EndpointRotateResultSchema = Type.Object(EndpointWithSecretResultSchema.properties, {
  examples: [
    {
      Endpoint: {
        ...demoEndpoint('ep_demo_acme'),
        UpdatedWhen: '2026-03-05T14:15:02.789Z',
        Secret: 'whsec_Ik5KMTcN31Kau06zZfjpQawU2Jka5pf3bLAXbj0IqnE=',
      },
    },
  ],
});
export const EndpointListResultSchema = Type.Object(
  { Endpoints: Type.Array(EndpointSchema) },
  { examples: [{ Endpoints: [demoEndpoint('ep_demo_acme'), demoEndpoint('ep_demo_acme_old')] }] },
);
export const EndpointDeleteResultSchema = Type.Object(
  { Endpoint: Type.Object({ EndpointID: Type.String(), Deleted: Type.Literal(true) }) },
  { examples: [{ Endpoint: { EndpointID: 'ep_demo_acme_old', Deleted: true } }] },
);

export type EndpointResult = Static<typeof EndpointResultSchema>;
export type EndpointWithSecretResult = Static<typeof EndpointWithSecretResultSchema>;
export type EndpointListResult = Static<typeof EndpointListResultSchema>;
export type EndpointDeleteResult = Static<typeof EndpointDeleteResultSchema>;

export const DELIVERY_STATUSES = ['Pending', 'Succeeded', 'Failed'] as const;

export const DeliverySearchRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    EndpointID: Type.Optional(EndpointID),
    EventID: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'evt_…: the deliveries of one event.' })),
    Status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
    Paging: Type.Optional(PagingRequestSchema),
  },
  { examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', EndpointID: 'ep_demo_acme', Paging: { PageNo: 1, PageSize: 100 } }] },
);
export type DeliverySearchRequest = Static<typeof DeliverySearchRequestSchema>;

export const AttemptSchema = Type.Object({
  AttemptNo: Type.Integer(),
  StartedWhen: Type.String({ description: 'UTC ISO 8601.' }),
  DurationMs: Type.Integer(),
  StatusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came." })),
  Error: Nullable(Type.String({ description: 'Why no status came: a refused address, no answer within 15 s, a connection error.' })),
  Response: Nullable(Type.String({ description: "The first 1 KB of the receiver's answer." })),
});

export const DeliverySchema = Type.Object({
  DeliveryID: Type.String(),
  EndpointID: Type.String(),
  EventID: Type.String(),
  EventType: Type.String(),
  Sequence: Type.Integer(),
  Status: StringEnum(DELIVERY_STATUSES),
  NextAttemptWhen: Nullable(Type.String({ description: 'When the next attempt is due (UTC ISO 8601); null once Succeeded or Failed.' })),
  Attempts: Type.Array(AttemptSchema),
});
export type Delivery = Static<typeof DeliverySchema>;

/** What a delivery looks like once its endpoint is enabled: the demo's are disabled, so they have none. */
export const DeliverySearchResultSchema = Type.Object(
  {
    results: Type.Object({ data: Type.Array(DeliverySchema) }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: {
          data: [
            {
              DeliveryID: 'dlv_01KJZ5B2N7T6Q8ZP4W9Y3HF0CX',
              EndpointID: 'ep_demo_acme',
              EventID: 'evt_01KJZ55RT3K3MS4WX3BG1C6AAJ',
              EventType: 'order.shipped',
              Sequence: 24,
              Status: 'Pending',
              NextAttemptWhen: '2026-03-05T14:12:35.702Z',
              Attempts: [
                {
                  AttemptNo: 1,
                  StartedWhen: '2026-03-05T14:07:10.318Z',
                  DurationMs: 212,
                  StatusCode: 503,
                  Error: null,
                  Response: '{"error":"maintenance"}',
                },
                {
                  AttemptNo: 2,
                  StartedWhen: '2026-03-05T14:07:15.611Z',
                  DurationMs: 15003,
                  StatusCode: null,
                  Error: 'No answer within 15 s',
                  Response: null,
                },
              ],
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 },
      },
    ],
  },
);
export type DeliverySearchResult = Static<typeof DeliverySearchResultSchema>;

export const DeliveryReplayRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    DeliveryID: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'dlv_…: replay this delivery.' })),
    EndpointID: Type.Optional(EndpointID),
    Since: OptionalDateTime(
      'offset-date-time',
      50,
      '2024-03-05T14:07:09.123Z',
      "With EndpointID: replay every delivery to it of an event made at or after this time (the endpoint's own time zone does not matter: send the offset).",
    ),
  },
  {
    description: 'Send DeliveryID, or EndpointID and Since.',
    examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', EndpointID: 'ep_demo_acme', Since: '2026-03-01T00:00:00.000-08:00' }],
  },
);
export type DeliveryReplayRequest = Static<typeof DeliveryReplayRequestSchema>;

export const DeliveryReplayResultSchema = Type.Object(
  { Replayed: Type.Integer({ description: 'How many deliveries were queued again, each at the start of the retry schedule.' }) },
  { examples: [{ Replayed: 1 }] },
);
export type DeliveryReplayResult = Static<typeof DeliveryReplayResultSchema>;
