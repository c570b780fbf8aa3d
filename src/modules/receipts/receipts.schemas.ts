import { Type, type ObjectOptions, type Static, type TProperties } from '@sinclair/typebox';
import {
  CompanyID,
  CustomerID,
  FacilityID,
  Decimal,
  Nullable,
  OptionalDateTime,
  OptionalText,
  Quantity,
  StringEnum,
  TextOrEmptyArray,
  Uom,
  dynamicTextProperties,
  refusingOwnedNames,
} from '../../http/schemas.js';

/** The RN import (spec 2.3, 2.4) and the receipt cancel; field lengths are the spec's. */

export const RECEIPT_TYPES = [
  'Regular Receipt',
  'Title Transfer Receipt',
  'Migo Transfer Receipt',
  'Sales Return',
  'Transload',
  'Assembly',
] as const;
export const MAX_LINES = 1000;

const numbered = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);

/**
 * The names Wharf owns in a receipt (docs/compatibility.md): every key that Wharf's own answers
 * about a receipt use for the receipt, its lines or its cartons. Each object of the RN import
 * refuses them but its own fields (refusingOwnedNames), so that an unknown key the import keeps
 * and the 3PL get shows back never passes for one of Wharf's. A key in an answer and in no list
 * here fails a test.
 */
export const RECEIPT_OWNED_NAMES: readonly string[] = [
  // The 3PL get and list: the answer, the Receipt object, each line's progress.
  ...['Receipt', 'Moves', 'Timeline', 'SVCPOID', 'CustomerID', 'FacilityID', 'PONo', 'ReferenceNo', 'Status', 'ReceiptType'],
  ...['SupplierID', 'CarrierName', 'SCACCode', 'BOLNo', 'ContainerNo', 'ScheduledDate', 'CreatedWhen', 'UpdatedWhen', 'TitleID'],
  ...['Items', 'LineNo', 'ExpectedQty', 'ReceivedQty'],
  // The import's answer and its ACK records (success and failure forms).
  ...['Error', 'ACK', 'CustomerId', 'code', 'error'],
  // The RC records: the record, the RC object, its lines and cartons.
  ...['RC', 'SVCCompanyID', 'ReceivedDate', 'ContainerNumber', ...numbered('DynTxtPropertyValue', 1, 20), 'Cartons', 'Note'],
  ...['PalletQty', 'RECEIPTSOURCECODE', 'ORGANIZATIONCODE', 'TOSUBINVENTORY'],
  ...['POLineNo', 'ItemNumber', 'ItemShortDescription', 'ItemDescription', 'ReceivedQuantity', 'CustomerMaterial', 'Diverse'],
  ...['ItemNote', 'SerialNumber', 'LotNo', 'UOM', 'ExpirationDate', 'SHIPMENTLINEID', 'SupplierName'],
  ...numbered('dynTxtPropertyValue', 11, 20),
  ...['CartonNo', 'PoundPerCarton', 'ItemLines', 'ItemID', 'QtyInCarton'],
  // The receipt-level search's columns.
  ...['Facility', 'Customer', 'Receipt #', 'PO #', 'Ref.#', 'Carrier', 'Container No', 'BOL', 'SCAC Code', 'Schedule Date'],
  ...['Received Date', 'Create Time', 'Update Time'],
  // The events of a receipt (receipt.*) and of its refused imports (ack.failed).
  ...['CompanyID', 'Sequence', 'ConfirmationNo', 'DocumentType'],
];

/** An object of the RN import: its fields, refusing the names Wharf owns but those. */
const importObject = <P extends TProperties>(properties: P, options: ObjectOptions = {}) =>
  Type.Object(properties, { ...options, ...refusingOwnedNames(properties, RECEIPT_OWNED_NAMES) });

const ReceivingPriority = Type.Union([Type.String({ pattern: '^(100|[1-9][0-9]?)$' }), Type.Integer({ minimum: 1, maximum: 100 })], {
  'x-message': 'must be a whole number from 1 to 100',
});

export const ReceiptLineSchema = importObject({
  POLineNo: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()], {
      'x-message': 'must be a whole number',
      description: 'Line sequence number; returned on the RC. May be empty.',
    }),
  ),
  ItemNumber: Type.String({ minLength: 1, maxLength: 30, description: 'The SKU.' }),
  ExpectedQty: Quantity({ description: 'Expected quantity (decimal text).' }),
  LotNo: OptionalText(30),
  Pallets: Type.Optional(
    Nullable(
      Decimal(
        { integerDigits: 3, fractionDigits: 2, sign: 'nonnegative' },
        'must be a decimal(5,2): at most 3 integer and 2 fractional digits',
        'Expected pallet quantity.',
      ),
    ),
  ),
  ItemNotes: OptionalText(1000),
  UOM: Uom(),
  ...dynamicTextProperties(200),
  ReceivingPriority: Type.Optional(Nullable(ReceivingPriority)),
  'Receiving Priority': Type.Optional(Nullable(ReceivingPriority)),
  GoodsType: OptionalText(10),
  TitleID: OptionalText(50),
});
export type ReceiptLine = Static<typeof ReceiptLineSchema>;

const CartonLineSchema = importObject({
  ItemID: Type.String({ minLength: 1, maxLength: 50 }),
  LotNo: OptionalText(50),
  QtyInCarton: Quantity({ description: 'Each-quantity per carton.' }),
  UOM: Uom(),
  ...dynamicTextProperties(200),
});

const CartonSchema = importObject({
  CartonNo: OptionalText(50),
  PoundPerCarton: Type.Optional(Nullable(Type.Union([Type.String({ maxLength: 15 }), Type.Number({ minimum: 0 })]))),
  ItemLines: Type.Optional(Type.Array(CartonLineSchema, { maxItems: MAX_LINES })),
});

/** Conditions across fields, in the schema so that they are reported with every other problem. */
const asnConditions = {
  allOf: [
    {
      // CarrierName is required when SCACCode is empty.
      if: { not: { required: ['SCACCode'], properties: { SCACCode: { type: 'string', minLength: 1 } } } },
      then: {
        required: ['CarrierName'],
        properties: {
          CarrierName: { type: ['string', 'null'], not: { type: 'null' }, minLength: 1, 'x-message': 'is required when SCACCode is empty' },
        },
        'x-message': 'is required when SCACCode is empty',
      },
    },
    {
      // A cancel names the receipt; anything else brings its lines.
      if: { not: { required: ['ActionCode'], properties: { ActionCode: { const: 'Cancelled' } } } },
      then: { required: ['Items'], properties: { Items: { type: 'array', minItems: 1 } } },
    },
  ],
};

export const AsnContentSchema = importObject(
  {
    ReceiptType: Type.Optional(Nullable(StringEnum(RECEIPT_TYPES, { description: 'Default Regular Receipt.' }))),
    SupplierID: OptionalText(15),
    PONo: Type.String({ minLength: 1, maxLength: 50, description: 'Inbound purchase order number.' }),
    ReferenceNo: OptionalText(50, 'Unique among the customer’s live receipts.'),
    BOLNo: OptionalText(50),
    ContainerNo: OptionalText(50),
    Seals: OptionalText(50),
    CarrierName: OptionalText(15, 'Required when SCACCode is empty.'),
    SCACCode: OptionalText(15),
    ScheduledDate: OptionalDateTime(
      'schedule-date',
      50,
      '3/5/2024 2:07:09 PM or 2024-03-05T14:07:09',
      'Estimated arrival, in the facility’s time zone.',
    ),
    ShippingInstruction: OptionalText(1000),
    ...dynamicTextProperties(100),
    ActionCode: Type.Optional(Nullable(StringEnum(['Imported', 'Cancelled']))),
    ETD: OptionalDateTime(
      'schedule-date',
      50,
      '3/5/2024 2:07:09 PM or 2024-03-05T14:07:09',
      'Estimated departure, in the facility’s time zone.',
    ),
    Items: Type.Optional(Type.Array(ReceiptLineSchema, { maxItems: MAX_LINES })),
    Cartons: Type.Optional(Type.Array(CartonSchema, { maxItems: MAX_LINES })),
    Status: Type.Literal('Imported', { description: 'Always Imported.' }),
  },
  asnConditions,
);
export type AsnContent = Static<typeof AsnContentSchema>;

export const ReceiptImportRequestSchema = importObject(
  {
    CompanyID,
    CustomerID,
    FacilityID,
    TitleID: OptionalText(50),
    ASNContent: AsnContentSchema,
  },
  {
    // A new receipt (docs/admin.md): PO-DEMO-1100 is no demo receipt's, so the example works on a fresh demo.
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        ASNContent: {
          ReceiptType: 'Regular Receipt',
          PONo: 'PO-DEMO-1100',
          ReferenceNo: 'ASN-1100',
          BOLNo: 'BOL123456',
          ContainerNo: 'MSKU1234567',
          CarrierName: 'Acme Freight',
          SCACCode: 'ACMF',
          ScheduledDate: '3/5/2024 2:07:09 PM',
          ActionCode: 'Imported',
          Status: 'Imported',
          Items: [
            { POLineNo: 1, ItemNumber: 'MUG-BLUE-12', ExpectedQty: '240', UOM: 'EA', LotNo: 'L2412', ReceivingPriority: '50' },
            { POLineNo: 2, ItemNumber: 'LAMP-DESK', ExpectedQty: '12', UOM: 'EA', Pallets: 1.5 },
          ],
        },
      },
    ],
  },
);
export type ReceiptImportRequest = Static<typeof ReceiptImportRequestSchema>;

export const ReceiptCancelRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityID,
    PONo: OptionalText(50),
    ReferenceNo: OptionalText(50),
    CancelNote: OptionalText(1000),
  },
  {
    // The demo's RN-2, seeded Imported for this example.
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        PONo: 'PO-DEMO-1001',
        ReferenceNo: 'ASN-1001',
        CancelNote: 'The supplier cancelled the shipment',
      },
    ],
  },
);
export type ReceiptCancelRequest = Static<typeof ReceiptCancelRequestSchema>;

const receiptResultProperties = {
  Receipt: Type.Object({
    CustomerID: Type.String(),
    PONo: Type.String(),
    ReferenceNo: TextOrEmptyArray,
    SVCPOID: Type.String({ description: 'RN-<n>, unique in the service.' }),
    Status: StringEnum(['Success', 'Warning']),
    Error: TextOrEmptyArray,
  }),
};

export const ReceiptImportResultSchema = Type.Object(receiptResultProperties, {
  examples: [
    { Receipt: { CustomerID: 'ACME', PONo: 'PO-DEMO-1100', ReferenceNo: 'ASN-1100', SVCPOID: 'RN-7', Status: 'Success', Error: [] } },
  ],
});
export type ReceiptImportResult = Static<typeof ReceiptImportResultSchema>;

/** The same answer as the import's, with the example of the cancel. */
export const ReceiptCancelResultSchema = Type.Object(receiptResultProperties, {
  examples: [
    { Receipt: { CustomerID: 'ACME', PONo: 'PO-DEMO-1001', ReferenceNo: 'ASN-1001', SVCPOID: 'RN-2', Status: 'Success', Error: [] } },
  ],
});
