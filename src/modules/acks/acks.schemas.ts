import { Type, type Static } from '@sinclair/typebox';
import { OrderDocumentSearchRequestSchema } from '../../http/document-search.js';
import { Nullable, StringEnum } from '../../http/schemas.js';

/** The ACK search (spec 2.7) and its records (2.8, 2.9). */

/** RN and DN ACKs share the search; a DN ReferenceNo may be a number (spec 2.9). */
export const AckSearchRequestSchema = OrderDocumentSearchRequestSchema;
export type AckSearchRequest = Static<typeof AckSearchRequestSchema>;

const ReferenceNo = Nullable(Type.Union([Type.String(), Type.Number()]));

export const AckSuccessSchema = Type.Object({
  CustomerId: Type.String(),
  PONo: Nullable(Type.String()),
  ReferenceNo,
  SVCPOID: Nullable(Type.String()),
  Status: StringEnum(['Success', 'Warning']),
  Error: Nullable(Type.String({ description: 'null on success; the warnings when Status is Warning.' })),
});

export const AckFailureSchema = Type.Object({
  code: Type.String({ description: 'EDI-ERROR-<message>' }),
  error: Type.String(),
});

export const AckRecordSchema = Type.Object({
  FacilityID: Type.String(),
  CustomerID: Type.String(),
  ReferenceNo,
  PONo: Nullable(Type.String()),
  ACK: Type.Union([AckSuccessSchema, AckFailureSchema]),
  CreatedWhen: Type.String({ description: 'Facility-local ISO 8601 date-time with milliseconds.' }),
});
export type AckRecord = Static<typeof AckRecordSchema>;

export const AckSearchResultSchema = Type.Array(AckRecordSchema);
