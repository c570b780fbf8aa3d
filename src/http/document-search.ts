import { Type, type Static } from '@sinclair/typebox';
import { CursorPagingRequestSchema } from './paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, OptionalDateTime, OptionalText } from './schemas.js';

/**
 * The request every document search of the spec shares (2.5, 2.7: RC, RN ACK, DN ACK, and the DC
 * search modelled on them): a customer's documents in a facility, by number and creation time.
 */

const CreatedWhen = (bound: string) =>
  OptionalDateTime(
    'local-date-time',
    50,
    '2024-03-05T14:07:09.123',
    `${bound} of the creation time, inclusive: ISO 8601 local date-time with milliseconds in the facility’s time zone.`,
  );

const properties = {
  CompanyID,
  FacilityID,
  CustomerID,
  PONo: OptionalText(50, 'Only documents with this PONo; empty or null means any.'),
  ReferenceNo: OptionalText(50, 'Only documents with this ReferenceNo; empty or null means any.'),
  CreatedWhenFrom: CreatedWhen('Lower bound'),
  CreatedWhenTo: CreatedWhen('Upper bound'),
  Paging: Type.Optional(CursorPagingRequestSchema),
};

/** Each search that uses it gives its own example, naming the demo's documents. */
export const DocumentSearchRequestSchema = Type.Object(properties);
export type DocumentSearchRequest = Static<typeof DocumentSearchRequestSchema>;

/** Order ACKs echo a ReferenceNo that came as a number, so their search takes one too (spec 2.9). */
export const OrderDocumentSearchRequestSchema = Type.Object({
  ...properties,
  ReferenceNo: Type.Optional(
    Nullable(Type.Union([Type.String({ maxLength: 50 }), Type.Integer()], { 'x-message': 'must be a string or a whole number' })),
  ),
});
export type OrderDocumentSearchRequest = Static<typeof OrderDocumentSearchRequestSchema>;
