import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, OptionalText, StringEnum } from '../../http/schemas.js';

/** The ACK search (spec 2.7) and its records (2.8, 2.9). */

const LocalDateTime = (description: string) =>
  OptionalText(50, `${description}: ISO 8601 local date-time with milliseconds in the facility’s time zone, e.g. 2024-03-05T14:07:09.123.`);

export const AckSearchRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID,
    PONo: OptionalText(50),
    ReferenceNo: Type.Optional(
      Nullable(Type.Union([Type.String({ maxLength: 50 }), Type.Integer()], { 'x-message': 'must be a string or a whole number' })),
    ),
    CreatedWhenFrom: LocalDateTime('Lower bound of the creation time, inclusive'),
    CreatedWhenTo: LocalDateTime('Upper bound of the creation time, inclusive'),
    Paging: Type.Optional(PagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        PONo: 'PO-20240305-01',
        CreatedWhenFrom: '2024-03-05T00:00:00.000',
        CreatedWhenTo: '2024-03-05T23:59:59.999',
        Paging: { PagingNo: 1 },
      },
    ],
  },
);
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
