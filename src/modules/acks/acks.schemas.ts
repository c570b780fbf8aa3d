import { Type, type Static } from '@sinclair/typebox';
import { OrderDocumentSearchRequestSchema } from '../../http/document-search.js';
import { Nullable, StringEnum } from '../../http/schemas.js';

/** The ACK search (spec 2.7) and its records (2.8, 2.9). */

/** RN and DN ACKs share the search; a DN ReferenceNo may be a number (spec 2.9). */
export const AckSearchRequestSchema = OrderDocumentSearchRequestSchema;
export type AckSearchRequest = Static<typeof AckSearchRequestSchema>;

/** The examples name the demo's first receipt and order (src/demo-documents.ts), whose imports each wrote one ACK. */
const ackSearchExample = (PONo: string) =>
  Type.Object(AckSearchRequestSchema.properties, {
    examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', CustomerID: 'ACME', PONo, Paging: { PageNo: 1, PageSize: 100 } }],
  });
export const RnAckSearchRequestSchema = ackSearchExample('PO-DEMO-1000');
export const DnAckSearchRequestSchema = ackSearchExample('SO-DEMO-2000');

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

/** The ACK of a demo import that succeeded, as the search answers it. */
const ackSearchResultExample = (PONo: string, ReferenceNo: string, SVCPOID: string) =>
  Type.Array(AckRecordSchema, {
    examples: [
      [
        {
          FacilityID: 'LAX1',
          CustomerID: 'ACME',
          ReferenceNo,
          PONo,
          ACK: { CustomerId: 'ACME', PONo, ReferenceNo, SVCPOID, Status: 'Success', Error: null },
          CreatedWhen: '2024-03-05T14:07:09.123',
        },
      ],
    ],
  });
export const RnAckSearchResultSchema = ackSearchResultExample('PO-DEMO-1000', 'ASN-1000', 'RN-1');
export const DnAckSearchResultSchema = ackSearchResultExample('SO-DEMO-2000', 'SO-2000', 'DN-1');
