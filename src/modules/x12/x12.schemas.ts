import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, StringEnum } from '../../http/schemas.js';
import { X12Id, X12Qualifier } from './partners.service.js';

/** The X12 outbox operations (docs/x12.md): the advices waiting for a customer's partners, taking them, and asking for an 846. */

export const ADVICE_SETS = ['944', '945', '947', '846'] as const;
export const OUTBOX_STATUSES = ['Waiting', 'Taken', 'All'] as const;

const EXAMPLE_944 = [
  'ISA*00*          *00*          *ZZ*DEMO           *ZZ*ACMEEDI        *260305*1407*U*00401*000000002*0*P*>~',
  'GS*RE*DEMO*ACMEEDI*20260305*1407*2*X*004010~',
  'ST*944*0002~',
  'W17*F*20260305*RN-2*ASN-1001~',
  'N1*WH**ZZ*LAX1~',
  'N9*PO*PO-DEMO-1001~',
  'W07*24*EA**VN*MUG-BLUE-12~',
  'W14*24~',
  'SE*7*0002~',
  'GE*1*2~',
  'IEA*1*000000002~',
  '',
].join('\n');

export const OutboxListRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    Status: Type.Optional(Nullable(StringEnum(OUTBOX_STATUSES, { description: 'Waiting (the default): not taken yet; Taken; or All.' }))),
    Paging: Type.Optional(PagingRequestSchema),
  },
  { examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', Status: 'Waiting', Paging: { PageNo: 1, PageSize: 100 } }] },
);
export type OutboxListRequest = Static<typeof OutboxListRequestSchema>;

export const OutboxAdviceSchema = Type.Object({
  OutboxID: Type.Integer({ description: 'What `…/outbox/ack` takes.' }),
  Partner: Type.String({ description: 'The partner it is for: ISA qualifier/id.' }),
  Set: StringEnum(ADVICE_SETS),
  FacilityID: Nullable(Type.String()),
  DocumentNo: Type.String({
    description: 'What it tells of: SVCPOID/ConfirmationNo (944, 945), the AdjustmentNo (947), the 846’s reference.',
  }),
  ControlNumber: Nullable(Type.String({ description: 'Its ISA13; null when it could not be written.' })),
  Interchange: Nullable(Type.String({ description: 'The whole interchange, one segment a line; null when it could not be written.' })),
  Problem: Nullable(Type.String({ description: 'Why X12 cannot carry it (an id holding a delimiter, a unit X12 has no code for).' })),
  CreatedWhen: Type.String({ description: 'When the change it tells was made: ISO 8601 in UTC, with milliseconds.' }),
  TakenWhen: Nullable(Type.String({ description: 'When it was taken (ISO 8601 in UTC); null while it waits.' })),
});
export type OutboxAdvice = Static<typeof OutboxAdviceSchema>;

export const OutboxListResultSchema = Type.Object(
  { results: Type.Object({ data: Type.Array(OutboxAdviceSchema) }), paging: PagingSchema },
  {
    examples: [
      {
        results: {
          data: [
            {
              OutboxID: 2,
              Partner: 'ZZ/ACMEEDI',
              Set: '944',
              FacilityID: 'LAX1',
              DocumentNo: 'RN-2/RC-DEMO-1001',
              ControlNumber: '000000002',
              Interchange: EXAMPLE_944,
              Problem: null,
              CreatedWhen: '2026-03-05T14:07:09.123Z',
              TakenWhen: null,
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 },
      },
    ],
  },
);
export type OutboxListResult = Static<typeof OutboxListResultSchema>;

export const OutboxAckRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    OutboxIDs: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 1000, uniqueItems: true }),
  },
  { examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', OutboxIDs: [1] }] },
);
export type OutboxAckRequest = Static<typeof OutboxAckRequestSchema>;

export const OutboxAckResultSchema = Type.Object(
  {
    Taken: Type.Array(Type.Integer(), { description: 'Taken by this call.' }),
    AlreadyTaken: Type.Array(Type.Integer(), { description: 'Taken before: an ack sent again changes nothing.' }),
  },
  { examples: [{ Taken: [1], AlreadyTaken: [] }] },
);
export type OutboxAckResult = Static<typeof OutboxAckResultSchema>;

export const InventoryAdviceRequestSchema = Type.Object(
  { CompanyID, CustomerID, FacilityID },
  { examples: [{ CompanyID: 'DEMO', CustomerID: 'ACME', FacilityID: 'LAX1' }] },
);
export type InventoryAdviceRequest = Static<typeof InventoryAdviceRequestSchema>;

export const QueuedAdviceSchema = Type.Object({
  OutboxID: Type.Integer(),
  Partner: Type.String(),
  Set: StringEnum(ADVICE_SETS),
  ControlNumber: Nullable(Type.String()),
  Problem: Nullable(Type.String()),
});

export const InventoryAdviceResultSchema = Type.Object(
  { Advices: Type.Array(QueuedAdviceSchema, { description: 'One per partner of the customer, each in the outbox.' }) },
  { examples: [{ Advices: [{ OutboxID: 9, Partner: 'ZZ/ACMEEDI', Set: '846', ControlNumber: '000000009', Problem: null }] }] },
);
export type InventoryAdviceResult = Static<typeof InventoryAdviceResultSchema>;

/** The admin API's view of the company's trading partners (docs/admin.md, docs/x12.md). */
export const X12PartnerSchema = Type.Object(
  {
    CustomerID: Type.String(),
    Qualifier: Type.String({ description: 'ISA05 of what the partner sends.' }),
    PartnerID: Type.String({ description: 'ISA06 of what the partner sends.' }),
    GsID: Type.String({ description: 'GS02 of what the partner sends (its ISA id unless set otherwise).' }),
    CreatedWhen: Type.String({ format: 'date-time', description: 'When the partner was added (UTC).' }),
  },
  { description: "A customer's X12 trading partner." },
);
export type X12Partner = Static<typeof X12PartnerSchema>;

const ACME_PARTNER: X12Partner = {
  CustomerID: 'ACME',
  Qualifier: 'ZZ',
  PartnerID: 'ACMEEDI',
  GsID: 'ACMEEDI',
  CreatedWhen: '2026-03-05T14:07:09.123Z',
};

export const X12PartnerListSchema = Type.Object({ Partners: Type.Array(X12PartnerSchema) }, { examples: [{ Partners: [ACME_PARTNER] }] });

export const NewX12PartnerRequestSchema = Type.Object(
  {
    CustomerID,
    PartnerID: { ...X12Id('ISA06'), description: "The partner's ISA06 (sender id)." },
    Qualifier: Type.Optional({ ...X12Qualifier(), description: "The partner's ISA05; ZZ when absent." }),
    GsID: Type.Optional({ ...X12Id('GS02'), description: "The partner's GS02; its PartnerID when absent." }),
  },
  { additionalProperties: false, examples: [{ CustomerID: 'ACME', PartnerID: 'ACMEWMS', Qualifier: '01', GsID: 'ACMEWMS' }] },
);
export type NewX12PartnerRequest = Static<typeof NewX12PartnerRequestSchema>;

export const X12PartnerResultSchema = Type.Object(
  { Partner: X12PartnerSchema },
  {
    examples: [
      { Partner: { CustomerID: 'ACME', Qualifier: '01', PartnerID: 'ACMEWMS', GsID: 'ACMEWMS', CreatedWhen: '2026-03-09T16:20:31.457Z' } },
    ],
  },
);
export type X12PartnerResult = Static<typeof X12PartnerResultSchema>;
