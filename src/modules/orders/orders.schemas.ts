import { Type, type ObjectOptions, type Static, type TProperties } from '@sinclair/typebox';
import {
  CompanyID,
  CustomerID,
  FacilityID,
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

/** The DN import (POContent, docs/orders.md) and the order cancel; lengths as their spec counterparts. */

export const MAX_LINES = 1000;
export const FREIGHT_TERMS = ['CC', 'PP', 'TP'] as const;
export const SHIP_METHODS = ['M', 'L', 'U', 'W', 'NA'] as const;

/**
 * The names Wharf owns in an order (docs/compatibility.md): every key that Wharf's own answers
 * about an order use for the order or its lines. Each object of the DN import refuses them but its
 * own fields (refusingOwnedNames), so that an unknown key the import keeps and the 3PL get shows
 * back never passes for one of Wharf's. A key in an answer and in no list here fails a test; the
 * DN header search's `Source` column is the one exception, since the spec's own example sends a
 * `Source` of its own.
 */
export const ORDER_OWNED_NAMES: readonly string[] = [
  // The 3PL get and list: the answer, the Order object, each line's progress.
  ...['Order', 'Moves', 'Timeline', 'SVCPOID', 'CustomerID', 'FacilityID', 'ReferenceNo', 'PONo', 'Status', 'OrderType'],
  ...['ShipToName', 'CarrierName', 'SCACCode', 'ShipNotBefore', 'ShipNoLater', 'CreatedWhen', 'UpdatedWhen', 'TitleID', 'Items'],
  ...['LineNo', 'OrderedQty', 'AllocatedQty', 'ShippedQty'],
  // The import's answer and its ACK records (success and failure forms).
  ...['Error', 'ACK', 'CustomerId', 'code', 'error'],
  // The DC records: the record, the DC object and its lines.
  ...['DC', 'CompanyID', 'OrderNo', 'ShippedDate', 'BOLNo', 'LoadNo', 'TrackingNo', 'ProNo'],
  ...['ItemNumber', 'LotNo', 'DifferenceQty', 'UOM', 'SerialNumber'],
  // The DN header search's columns (spec 2.10), but Source.
  ...['Facility', 'Customer', 'Order #', 'Order Type', 'Load #', 'PO #', 'Customer BOL', 'Shipping Account No'],
  ...['Ship Not Before', 'Ship Not Later', 'Hold At Location', 'Hold At Carrier', 'Consolidation No', 'Ref.#'],
  ...['Equipment Type', 'Appointment Time', 'Desired Schedule Date', 'Delivery Request Date', 'Shipped Time', 'Carrier'],
  ...['SCAC Code', 'Delivery Service', 'Pro #', 'Freight Term', 'Retailer Name', 'Ship To Name', 'Ship To Address'],
  ...['Sold To Name', 'Sold To Address', 'Freight Bill To Name', 'Label Notes', 'InvoiceNo', 'Order Created By'],
  ...['Order Dynamic Property', 'Shipped Date', 'Created Date', 'Create Time', 'Update Time'],
  // The events of an order (order.*) and of its refused imports (ack.failed).
  ...['Sequence', 'ConfirmationNo', 'DocumentType'],
];

/** An object of the DN import: its fields, refusing the names Wharf owns but those. */
const importObject = <P extends TProperties>(properties: P, options: ObjectOptions = {}) =>
  Type.Object(properties, { ...options, ...refusingOwnedNames(properties, ORDER_OWNED_NAMES) });

/** A DN ReferenceNo: 1–50 characters, or a whole number; compared as text, echoed as it came. */
export const OrderReferenceNo = Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Integer({ minimum: 0 })], {
  'x-message': 'must be a text of 1 to 50 characters or a whole number',
  description: 'The order’s natural key among the customer’s live orders: text, or a whole number (echoed as a number).',
});

const OrderDate = (description: string) =>
  OptionalDateTime(
    'order-date',
    50,
    '20240305140709, 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09',
    `${description}, in the facility’s time zone.`,
  );

const RequiredText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

/** Ship-to is where the parcel goes: its name and address are required; sold-to and bill-to are not. */
export const OrderAddressSchema = importObject({
  ShipToName: RequiredText(100),
  ShipToAddress1: RequiredText(200),
  ShipToAddress2: OptionalText(200),
  ShipToCity: RequiredText(50),
  ShipToState: RequiredText(50),
  ShipToZipCode: RequiredText(20),
  ShipToCountry: RequiredText(50),
  ShipToContact: OptionalText(100),
  ShipToPhone: OptionalText(50),
  ShipToEmail: OptionalText(100),
  SoldToName: OptionalText(100),
  SoldToAddress1: OptionalText(200),
  SoldToAddress2: OptionalText(200),
  SoldToCity: OptionalText(50),
  SoldToState: OptionalText(50),
  SoldToZipCode: OptionalText(20),
  SoldToCountry: OptionalText(50),
  BillToName: OptionalText(100),
  BillToAddress1: OptionalText(200),
  BillToAddress2: OptionalText(200),
  BillToCity: OptionalText(50),
  BillToState: OptionalText(50),
  BillToZipCode: OptionalText(20),
  BillToCountry: OptionalText(50),
});
export type OrderAddress = Static<typeof OrderAddressSchema>;

export const ShippingInfoSchema = importObject(
  {
    FreightTerm: Type.Optional(Nullable(StringEnum(FREIGHT_TERMS, { description: 'CC collect, PP prepaid, TP third party.' }))),
    ShipMethod: Type.Optional(Nullable(StringEnum(SHIP_METHODS, { description: 'M, L, U, W or NA.' }))),
    DeliveryService: OptionalText(50),
    SCACCode: OptionalText(15),
    CarrierName: OptionalText(50),
    ShippingAccountNo: OptionalText(50, 'Required when FreightTerm is TP.'),
    HoldAtLocation: OptionalText(100),
    HoldAtCarrier: OptionalText(100),
    EquipmentType: OptionalText(50),
  },
  {
    // A third-party freight term bills someone's account, so the account is required.
    if: { required: ['FreightTerm'], properties: { FreightTerm: { const: 'TP' } } },
    then: {
      required: ['ShippingAccountNo'],
      properties: {
        ShippingAccountNo: {
          type: ['string', 'null'],
          not: { type: 'null' },
          minLength: 1,
          'x-message': 'is required when FreightTerm is TP',
        },
      },
      'x-message': 'is required when FreightTerm is TP',
    },
  },
);
export type ShippingInfo = Static<typeof ShippingInfoSchema>;

export const OrderNotesSchema = importObject({
  Note: OptionalText(1000),
  LabelNote: OptionalText(1000),
  PackingNote: OptionalText(1000),
  ShippingNote: OptionalText(1000),
});

export const OrderLineSchema = importObject({
  LineNo: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'The customer’s line number; shipments may name it.' })),
  ),
  ItemID: Type.String({ minLength: 1, maxLength: 30, description: 'The SKU.' }),
  LotNo: OptionalText(50, 'Allocate only this lot.'),
  OrderedQty: Quantity({ description: 'Ordered quantity (decimal text or a number).' }),
  UOM: Uom(),
  GoodsType: OptionalText(10, 'Allocate only stock of this goods type.'),
  TitleID: OptionalText(50, 'Allocate only stock of this title.'),
  ItemNote: OptionalText(1000),
});
export type OrderLine = Static<typeof OrderLineSchema>;

/** Conditions across fields, in the schema so that they are reported with every other problem. */
const poContentConditions = {
  allOf: [
    {
      // A cancel names the order; anything else brings its lines and where they go.
      if: { not: { required: ['ActionCode'], properties: { ActionCode: { const: 'Cancelled' } } } },
      then: { required: ['Items', 'Address'], properties: { Items: { type: 'array', minItems: 1 } } },
    },
  ],
};

export const PoContentSchema = importObject(
  {
    ReferenceNo: OrderReferenceNo,
    PONo: OptionalText(50, 'The customer’s purchase order number; need not be unique.'),
    CustomerSONo: OptionalText(50),
    BatchNo: OptionalText(50),
    BOLNo: OptionalText(50),
    LoadNo: OptionalText(50),
    ConsolidationNo: OptionalText(50),
    OrderType: OptionalText(50),
    ShipNotBefore: OrderDate('Earliest ship date'),
    ShipNoLater: OrderDate('Latest ship date (the real system’s spelling)'),
    ShipNotLater: OrderDate('Latest ship date (accepted as ShipNoLater)'),
    ScheduledDate: OrderDate('Desired schedule date'),
    AppointmentTime: OrderDate('Delivery appointment'),
    DeliveryRequestDate: OrderDate('Requested delivery date'),
    Address: Type.Optional(OrderAddressSchema),
    ShippingInfo: Type.Optional(ShippingInfoSchema),
    OrderNotes: Type.Optional(OrderNotesSchema),
    RetailerName: OptionalText(100),
    InvoiceNo: OptionalText(50),
    ...dynamicTextProperties(200),
    Items: Type.Optional(Type.Array(OrderLineSchema, { maxItems: MAX_LINES })),
    ActionCode: Type.Optional(Nullable(StringEnum(['Imported', 'Cancelled']))),
    Status: Type.Optional(Type.Literal('Imported', { description: 'Imported, when given.' })),
  },
  poContentConditions,
);
export type PoContent = Static<typeof PoContentSchema>;

export const OrderImportRequestSchema = importObject(
  {
    CompanyID,
    CustomerID,
    FacilityID,
    TitleID: OptionalText(50, 'The default title of lines that name none.'),
    POContent: PoContentSchema,
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        POContent: {
          ReferenceNo: 'SO-3001',
          PONo: 'PO-DEMO-3001',
          OrderType: 'Regular Order',
          ShipNotBefore: '20260306080000',
          ShipNoLater: '3/9/2026 5:00:00 PM',
          Address: {
            ShipToName: 'Jane Doe',
            ShipToAddress1: '1 Market St',
            ShipToCity: 'San Francisco',
            ShipToState: 'CA',
            ShipToZipCode: '94105',
            ShipToCountry: 'US',
          },
          ShippingInfo: { FreightTerm: 'PP', ShipMethod: 'U', CarrierName: 'UPS', SCACCode: 'UPSN', DeliveryService: 'Ground' },
          OrderNotes: { LabelNote: 'Fragile' },
          Items: [
            { LineNo: 1, ItemID: 'MUG-BLUE-12', OrderedQty: '12', UOM: 'EA' },
            { LineNo: 2, ItemID: 'TEE-BLK-M', OrderedQty: 2, UOM: 'EA' },
          ],
          ActionCode: 'Imported',
          Status: 'Imported',
        },
      },
    ],
  },
);
export type OrderImportRequest = Static<typeof OrderImportRequestSchema>;

export const OrderCancelRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityID,
    PONo: OptionalText(50),
    ReferenceNo: Type.Optional(Nullable(OrderReferenceNo)),
    CancelNote: OptionalText(1000),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        ReferenceNo: 'SO-2001',
        PONo: 'SO-DEMO-2001',
        CancelNote: 'The buyer withdrew the order',
      },
    ],
  },
);
export type OrderCancelRequest = Static<typeof OrderCancelRequestSchema>;

const OrderResultProperties = {
  Order: Type.Object({
    CustomerID: Type.String(),
    PONo: TextOrEmptyArray,
    ReferenceNo: Type.Union([Type.String(), Type.Number()], { description: 'As it was sent: text or a number.' }),
    SVCPOID: Type.String({ description: 'DN-<n>, unique in the service.' }),
    Status: StringEnum(['Success', 'Warning']),
    Error: TextOrEmptyArray,
  }),
};

export const OrderImportResultSchema = Type.Object(OrderResultProperties, {
  examples: [
    { Order: { CustomerID: 'ACME', PONo: 'PO-DEMO-3001', ReferenceNo: 'SO-3001', SVCPOID: 'DN-6', Status: 'Success', Error: [] } },
  ],
});
export type OrderImportResult = Static<typeof OrderImportResultSchema>;

/** The cancel answers like the import (docs/orders.md); its own example names the order it cancelled. */
export const OrderCancelResultSchema = Type.Object(OrderResultProperties, {
  examples: [
    { Order: { CustomerID: 'ACME', PONo: 'SO-DEMO-2001', ReferenceNo: 'SO-2001', SVCPOID: 'DN-2', Status: 'Success', Error: [] } },
  ],
});
