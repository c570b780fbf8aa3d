import { Type, type Static } from '@sinclair/typebox';
import { TimelineEntrySchema } from '../../http/document-timeline.js';
import { CursorPagingRequestSchema, PagingSchema } from '../../http/paging.js';
import {
  CompanyID,
  CustomerID,
  FacilityID,
  Nullable,
  OptionalDateTime,
  OptionalText,
  Quantity,
  StringEnum,
  Uom,
  UpdatedWhenBound,
  dynamicTextProperties,
} from '../../http/schemas.js';
import {
  OPERATOR_RECEIPT_ACTIONS,
  OPERATOR_RECEIPT_MOVES,
  RECEIPT_STATUSES,
  type OperatorReceiptMove,
  type ReceiptStatus,
} from './receipt-states.js';

/** The warehouse side of receipts (docs/compatibility.md): the 3PL list, get, actions and confirmations. */

const Svcpoid = Type.String({ minLength: 1, maxLength: 50, description: 'The receipt number the service assigned (RN-<n>).' });

/** The examples name the demo's receipts (src/demo-documents.ts), one seeded for each operation (docs/admin.md). */
const DEMO = { CompanyID: 'DEMO', FacilityID: 'LAX1' } as const;
/** When the examples' answers say a receipt was created or changed, facility-local. */
const AT = '2024-03-05T14:07:09.123';

export const ReceiptLookupSchema = Type.Object({ CompanyID, FacilityID, SVCPOID: Svcpoid }, { examples: [{ ...DEMO, SVCPOID: 'RN-1' }] });
export type ReceiptLookup = Static<typeof ReceiptLookupSchema>;

export const ReceiptActionSchema = Type.Object({ CompanyID, FacilityID, SVCPOID: Svcpoid, Note: OptionalText(1000) });
export type ReceiptAction = Static<typeof ReceiptActionSchema>;

export const ReceiptActionResultSchema = Type.Object({
  Receipt: Type.Object({ SVCPOID: Type.String(), Status: StringEnum(RECEIPT_STATUSES) }),
});
export type ReceiptActionResult = Static<typeof ReceiptActionResultSchema>;

const MOVE_EXAMPLES: Record<OperatorReceiptMove, { SVCPOID: string; Note: string; Status: ReceiptStatus }> = {
  open: { SVCPOID: 'RN-3', Note: 'Taken on for receiving at dock 4', Status: 'Open' },
  cancel: { SVCPOID: 'RN-4', Note: 'The supplier will not ship', Status: 'Cancelled' },
  'force-close': { SVCPOID: 'RN-5', Note: 'The rest of the shipment will not come', Status: 'Force Closed' },
};

/** Each operator move's request and answer: the same shapes, each with the example of its own demo receipt. */
export const RECEIPT_MOVE_SCHEMAS = Object.fromEntries(
  OPERATOR_RECEIPT_MOVES.map((move) => {
    const { SVCPOID, Note, Status } = MOVE_EXAMPLES[move];
    const body = Type.Object(ReceiptActionSchema.properties, { examples: [{ ...DEMO, SVCPOID, Note }] });
    const result = Type.Object(ReceiptActionResultSchema.properties, { examples: [{ Receipt: { SVCPOID, Status } }] });
    return [move, { body, result }];
  }),
) as Record<OperatorReceiptMove, { body: typeof ReceiptActionSchema; result: typeof ReceiptActionResultSchema }>;

export const ReceiptListRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID: Type.Optional(CustomerID),
    Status: Type.Optional(
      Type.Union(
        [StringEnum(RECEIPT_STATUSES), Type.Array(StringEnum(RECEIPT_STATUSES), { minItems: 1, maxItems: RECEIPT_STATUSES.length })],
        {
          'x-message': `must be a status or an array of statuses (${RECEIPT_STATUSES.join(', ')})`,
        },
      ),
    ),
    PONo: OptionalText(50),
    ReferenceNo: OptionalText(50),
    UpdatedWhenFrom: UpdatedWhenBound('Lower'),
    UpdatedWhenTo: UpdatedWhenBound('Upper'),
    MarkOpen: Type.Optional(Type.Boolean({ description: 'Every Imported receipt on the returned page becomes Open.' })),
    Paging: Type.Optional(CursorPagingRequestSchema),
  },
  {
    // No MarkOpen: the example leaves the receipts that the cancel and open examples need Imported.
    examples: [{ ...DEMO, CustomerID: 'ACME', Status: ['Imported'], Paging: { PageNo: 1, PageSize: 100 } }],
  },
);
export type ReceiptListRequest = Static<typeof ReceiptListRequestSchema>;

export const RECEIPT_LIST_HEAD = [
  'SVCPOID',
  'CustomerID',
  'FacilityID',
  'PONo',
  'ReferenceNo',
  'Status',
  'ReceiptType',
  'SupplierID',
  'CarrierName',
  'SCACCode',
  'BOLNo',
  'ContainerNo',
  'ScheduledDate',
  'CreatedWhen',
  'UpdatedWhen',
] as const;

const Text = Nullable(Type.String());
export const ReceiptHeaderSchema = Type.Object({
  SVCPOID: Type.String(),
  CustomerID: Type.String(),
  FacilityID: Type.String(),
  PONo: Type.String(),
  ReferenceNo: Text,
  Status: StringEnum(RECEIPT_STATUSES),
  ReceiptType: Type.String(),
  SupplierID: Text,
  CarrierName: Text,
  SCACCode: Text,
  BOLNo: Text,
  ContainerNo: Text,
  ScheduledDate: Nullable(Type.String({ description: 'Facility-local ISO date-time.' })),
  CreatedWhen: Type.String({ description: 'Facility-local ISO date-time with milliseconds.' }),
  UpdatedWhen: Type.String({ description: 'ISO date-time with the facility’s UTC offset.' }),
});
export type ReceiptHeader = Static<typeof ReceiptHeaderSchema>;

/** A demo receipt's header as the answers show it, seeded by the demo as it is (no SCAC, BOL or container). */
const demoReceiptHeader = (n: number, Status: ReceiptStatus): ReceiptHeader => ({
  SVCPOID: `RN-${n}`,
  CustomerID: 'ACME',
  FacilityID: 'LAX1',
  PONo: `PO-DEMO-${999 + n}`,
  ReferenceNo: `ASN-${999 + n}`,
  Status,
  ReceiptType: 'Regular Receipt',
  SupplierID: null,
  CarrierName: 'Acme Freight',
  SCACCode: null,
  BOLNo: null,
  ContainerNo: null,
  ScheduledDate: null,
  CreatedWhen: AT,
  UpdatedWhen: `${AT}-08:00`,
});

export const ReceiptListResultSchema = Type.Object(
  {
    results: Type.Object({ head: Type.Array(Type.String()), data: Type.Array(ReceiptHeaderSchema) }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: { head: RECEIPT_LIST_HEAD, data: [demoReceiptHeader(2, 'Imported'), demoReceiptHeader(3, 'Imported')] },
        paging: { totalCount: 2, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 2, limit: 100 },
      },
    ],
  },
);

/** The demo's RN-1 as it was imported (its ASNContent), each line with what it received. */
const receivedAsn: Record<string, unknown> = {
  PONo: 'PO-DEMO-1000',
  ReferenceNo: 'ASN-1000',
  CarrierName: 'Acme Freight',
  Status: 'Imported',
  Items: [{ POLineNo: 1, ItemNumber: 'MUG-RED-12', ExpectedQty: '48', UOM: 'EA', LineNo: 1, ReceivedQty: '48' }],
};

/** The whole document as imported, with the receiving progress of each line. */
export const ReceiptDocumentSchema = Type.Object(
  {
    Receipt: Type.Object(
      {
        ...ReceiptHeaderSchema.properties,
        TitleID: Text,
        Items: Type.Array(
          Type.Object(
            {
              LineNo: Type.Integer({ description: 'The line’s position in the import, from 1.' }),
              ExpectedQty: Type.String(),
              ReceivedQty: Type.String({ description: 'Received by the confirmations so far.' }),
            },
            { additionalProperties: true, description: 'The line as imported, plus LineNo and ReceivedQty.' },
          ),
        ),
      },
      { additionalProperties: true, description: 'Every imported ASNContent field, plus the service’s fields.' },
    ),
    Moves: Type.Array(StringEnum(OPERATOR_RECEIPT_ACTIONS), {
      description: 'The operator’s moves its status allows now: open, cancel, force-close, receive (a confirmation).',
    }),
    Timeline: Type.Array(TimelineEntrySchema, { description: 'Its import, then every move with its note and key, oldest first.' }),
  },
  {
    examples: [
      {
        Receipt: { ...receivedAsn, TitleID: null, ...demoReceiptHeader(1, 'Closed') },
        Moves: [],
        Timeline: [
          { When: `${AT}-08:00`, Action: 'import', FromStatus: null, ToStatus: 'Imported', Note: null, KeyID: null },
          { When: `${AT}-08:00`, Action: 'open', FromStatus: 'Imported', ToStatus: 'Open', Note: null, KeyID: 3 },
          { When: `${AT}-08:00`, Action: 'confirm', FromStatus: 'Open', ToStatus: 'Closed', Note: null, KeyID: 3 },
        ],
      },
    ],
  },
);

const SerialNumber = Type.String({ minLength: 1, maxLength: 50 });

export const ConfirmationLineSchema = Type.Object({
  POLineNo: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Matches the receipt line with this POLineNo.' })),
  ),
  ItemNumber: Type.String({ minLength: 1, maxLength: 30 }),
  ReceivedQuantity: Quantity({ description: 'Received quantity (decimal).' }),
  UOM: Uom(),
  LotNo: OptionalText(50),
  ExpirationDate: OptionalDateTime('calendar-date', 10, '2026-12-31', 'The lot’s expiration date, yyyy-MM-dd.'),
  SerialNumber: Type.Optional(Nullable(Type.Array(SerialNumber, { maxItems: 10000 }))),
  GoodsType: OptionalText(10),
  TitleID: OptionalText(50),
  ItemNote: OptionalText(1000),
  ...dynamicTextProperties(200),
});
export type ConfirmationLine = Static<typeof ConfirmationLineSchema>;

const ConfirmationCartonSchema = Type.Object({
  CartonNo: OptionalText(50),
  PoundPerCarton: Type.Optional(Nullable(Type.Union([Type.String({ maxLength: 15 }), Type.Number({ minimum: 0 })]))),
  ItemLines: Type.Optional(
    Type.Array(
      Type.Object({
        ItemID: Type.String({ minLength: 1, maxLength: 50 }),
        LotNo: OptionalText(50),
        QtyInCarton: Quantity(),
        UOM: Uom(),
        ...dynamicTextProperties(200),
      }),
      { maxItems: 1000 },
    ),
  ),
});

export const ConfirmationRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    SVCPOID: Svcpoid,
    ConfirmationNo: Type.String({
      minLength: 1,
      maxLength: 50,
      description: 'Applied once per receipt; a replay answers the first answer.',
    }),
    ReceivedDate: OptionalDateTime(
      'local-date-time',
      50,
      '2024-03-05T14:07:09.123',
      'When the goods arrived, facility-local (default: now).',
    ),
    Close: Type.Optional(
      Type.Boolean({ description: 'Closes the receipt: Closed when every line is fully received, else Partial Received.' }),
    ),
    Note: OptionalText(1000),
    PalletQty: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100000 }))),
    Items: Type.Array(ConfirmationLineSchema, { minItems: 1, maxItems: 1000 }),
    Cartons: Type.Optional(Type.Array(ConfirmationCartonSchema, { maxItems: 1000 })),
  },
  {
    // The demo's RN-6, seeded Open with one line of 48 MUG-RED-12: all of it arrives, and Close closes the receipt.
    examples: [
      {
        ...DEMO,
        SVCPOID: 'RN-6',
        ConfirmationNo: 'RCV-DEMO-1005',
        Close: true,
        PalletQty: 2,
        Items: [{ POLineNo: 1, ItemNumber: 'MUG-RED-12', ReceivedQuantity: '48', UOM: 'EA', LotNo: 'L2411', ExpirationDate: '2027-11-30' }],
      },
    ],
  },
);
export type ConfirmationRequest = Static<typeof ConfirmationRequestSchema>;

export const ConfirmationResultSchema = Type.Object(
  {
    Receipt: Type.Object({
      SVCPOID: Type.String(),
      Status: StringEnum(RECEIPT_STATUSES),
      ConfirmationNo: Type.String(),
      Warnings: Type.Array(Type.String(), { description: 'Over-receipts and items the receipt did not announce.' }),
    }),
  },
  { examples: [{ Receipt: { SVCPOID: 'RN-6', Status: 'Closed', ConfirmationNo: 'RCV-DEMO-1005', Warnings: [] } }] },
);
export type ConfirmationResult = Static<typeof ConfirmationResultSchema>;
