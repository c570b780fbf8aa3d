import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, Identifier, Nullable, OptionalDateTime, StringEnum } from '../../http/schemas.js';

/** The event types (DESIGN §13) and the events search, the pull fallback of webhooks. */

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
    examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', AfterSequence: 1041, Types: ['order.shipped'], Paging: { PageSize: 500 } }],
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

export const EventSearchResultSchema = Type.Object({
  results: Type.Object({ data: Type.Array(EventRecordSchema) }),
  paging: PagingSchema,
});
export type EventSearchResult = Static<typeof EventSearchResultSchema>;
