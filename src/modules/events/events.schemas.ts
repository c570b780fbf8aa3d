import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, Identifier, Nullable, OptionalDateTime, StringEnum } from '../../http/schemas.js';

/** The event types (docs/webhooks.md) and the events search, the pull fallback of webhooks. */

export const EVENT_TYPES = [
  'receipt.imported',
  'receipt.updated',
  'receipt.cancelled',
  'receipt.opened',
  'receipt.received',
  'receipt.closed',
  'order.imported',
  'order.updated',
  'order.cancelled',
  'order.opened',
  'order.shipped',
  'order.closed',
  'inventory.adjusted',
  'inventory.changed',
  'item.created',
  'item.updated',
  'ack.failed',
  'x12.ready',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const CreatedWhenBound = (bound: 'Lower' | 'Upper') =>
  OptionalDateTime('offset-date-time', 50, '2024-03-05T14:07:09.123Z', `${bound} bound of the event's time, inclusive.`);

export const EventSearchRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityID: Type.Optional(Identifier("Only this facility's events (and those of no facility, the item master's).")),
    Types: Type.Optional(
      Nullable(
        Type.Array(StringEnum(EVENT_TYPES), {
          maxItems: EVENT_TYPES.length,
          description: 'Only these event types; absent or empty means all.',
        }),
      ),
    ),
    AfterSequence: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'Only events after this Sequence: send the last Sequence you applied to read on from there.',
        }),
      ),
    ),
    CreatedWhenFrom: CreatedWhenBound('Lower'),
    CreatedWhenTo: CreatedWhenBound('Upper'),
    Paging: Type.Optional(PagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        Types: ['order.shipped'],
        AfterSequence: 0,
        Paging: { PageNo: 1, PageSize: 500 },
      },
    ],
  },
);
export type EventSearchRequest = Static<typeof EventSearchRequestSchema>;

export const EventRecordSchema = Type.Object({
  EventID: Type.String({ description: 'evt_<ULID>: the webhook-id of its deliveries.' }),
  Type: StringEnum(EVENT_TYPES),
  Sequence: Type.Integer({ description: 'Grows with every event of the service: apply events in this order.' }),
  CreatedWhen: Type.String({ description: 'When the change happened: ISO 8601 in UTC, with milliseconds.' }),
  Data: Type.Record(Type.String(), Type.Unknown(), {
    description: "The webhook payload's data: CompanyID, CustomerID, FacilityID, what the event is about, and Sequence.",
  }),
});
export type EventRecord = Static<typeof EventRecordSchema>;

export const EventSearchResultSchema = Type.Object(
  {
    results: Type.Object({ data: Type.Array(EventRecordSchema) }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: {
          data: [
            {
              EventID: 'evt_01KJZ55RT3K3MS4WX3BG1C6AAJ',
              Type: 'order.shipped',
              Sequence: 24,
              CreatedWhen: '2026-03-05T14:07:09.123Z',
              Data: {
                CompanyID: 'DEMO',
                CustomerID: 'ACME',
                FacilityID: 'LAX1',
                SVCPOID: 'DN-1',
                PONo: 'SO-DEMO-2000',
                ReferenceNo: 'SO-2000',
                Status: 'Shipped',
                ConfirmationNo: 'SHP-DEMO-2000',
                Sequence: 24,
              },
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 500 },
      },
    ],
  },
);
export type EventSearchResult = Static<typeof EventSearchResultSchema>;
