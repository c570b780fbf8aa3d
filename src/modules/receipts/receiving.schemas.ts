import { Type, type Static } from '@sinclair/typebox';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
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
import { RECEIPT_STATUSES } from './receipt-states.js';

/** The warehouse side of receipts (DESIGN §4b): the 3PL list, get, actions and confirmations. */

const Svcpoid = Type.String({ minLength: 1, maxLength: 50, description: 'The receipt number the service assigned (RN-<n>).' });

export const ReceiptLookupSchema = Type.Object({ CompanyID, FacilityID, SVCPOID: Svcpoid });
export type ReceiptLookup = Static<typeof ReceiptLookupSchema>;

export const ReceiptActionSchema = Type.Object({ CompanyID, FacilityID, SVCPOID: Svcpoid, Note: OptionalText(1000) });
export type ReceiptAction = Static<typeof ReceiptActionSchema>;

export const ReceiptActionResultSchema = Type.Object({
  Receipt: Type.Object({ SVCPOID: Type.String(), Status: StringEnum(RECEIPT_STATUSES) }),
});
export type ReceiptActionResult = Static<typeof ReceiptActionResultSchema>;

export const ReceiptListRequestSchema = Type.Object({
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
  Paging: Type.Optional(PagingRequestSchema),
});
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

export const ReceiptListResultSchema = Type.Object({
  results: Type.Object({ head: Type.Array(Type.String()), data: Type.Array(ReceiptHeaderSchema) }),
  paging: PagingSchema,
});

/** The whole document as imported, with the receiving progress of each line. */
export const ReceiptDocumentSchema = Type.Object({
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
});

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
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        SVCPOID: 'RN-1042',
        ConfirmationNo: 'RCV-7781',
        ReceivedDate: '2024-03-05T14:07:09.123',
        Close: true,
        Items: [
          { POLineNo: 1, ItemNumber: 'MUG-BLUE-12', ReceivedQuantity: '240', UOM: 'EA', LotNo: 'L2403', ExpirationDate: '2026-12-31' },
          { POLineNo: 2, ItemNumber: 'LAMP-DESK', ReceivedQuantity: '11', UOM: 'CS', SerialNumber: ['SN-0001', 'SN-0002'] },
        ],
      },
    ],
  },
);
export type ConfirmationRequest = Static<typeof ConfirmationRequestSchema>;

export const ConfirmationResultSchema = Type.Object({
  Receipt: Type.Object({
    SVCPOID: Type.String(),
    Status: StringEnum(RECEIPT_STATUSES),
    ConfirmationNo: Type.String(),
    Warnings: Type.Array(Type.String(), { description: 'Over-receipts and items the receipt did not announce.' }),
  }),
});
export type ConfirmationResult = Static<typeof ConfirmationResultSchema>;
