import { Type, type Static } from '@sinclair/typebox';
import { OrderDocumentSearchRequestSchema } from '../../http/document-search.js';
import { PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, OptionalText, StringEnum, Uom, UpdatedWhenBound } from '../../http/schemas.js';
import { ORDER_STATUSES } from './order-states.js';

/**
 * The customer's read side of orders: the DC search (DESIGN §4b, the outbound twin of the RC
 * search) and the DN header level query (spec 2.10).
 */

const Text = Nullable(Type.String());
const LocalTime = (description = 'Facility-local ISO date-time with milliseconds.') => Nullable(Type.String({ description }));
const ReferenceNo = Type.Union([Type.String(), Type.Number()], { description: 'As the order was imported with it: text or a number.' });

export const DcSearchRequestSchema = OrderDocumentSearchRequestSchema;
export type DcSearchRequest = Static<typeof DcSearchRequestSchema>;

export const DcItemSchema = Type.Object({
  LineNo: Type.Integer({ description: 'The order line: the customer’s LineNo, or its position in the import from 1.' }),
  ItemNumber: Type.String(),
  LotNo: Text,
  OrderedQty: Type.Number({ description: 'What the order line ordered.' }),
  ShippedQty: Type.Number({ description: 'What this confirmation shipped of the line.' }),
  DifferenceQty: Type.Number({ description: 'What the line still lacks after this confirmation.' }),
  UOM: Uom(),
  SerialNumber: Type.Array(Type.String(), { description: 'Empty when none was sent.' }),
});

export const DcSchema = Type.Object(
  {
    CompanyID: Type.String(),
    OrderNo: Type.String({ description: 'The SVCPOID.' }),
    ShippedDate: Type.String({ description: 'When the goods left: facility-local ISO date-time with milliseconds.' }),
    BOLNo: Text,
    LoadNo: Text,
    SCACCode: Text,
    CarrierName: Text,
    TrackingNo: Text,
    ProNo: Text,
    Items: Type.Array(DcItemSchema),
  },
  { description: 'What one shipment confirmation shipped.' },
);
export type Dc = Static<typeof DcSchema>;

export const DcRecordSchema = Type.Object({
  FacilityID: Type.String(),
  CustomerID: Type.String(),
  ReferenceNo,
  PONo: Text,
  DC: DcSchema,
  CreatedWhen: Type.String({ description: 'When the confirmation was posted: facility-local ISO 8601 date-time with milliseconds.' }),
});
export type DcRecord = Static<typeof DcRecordSchema>;

export const DcSearchResultSchema = Type.Array(DcRecordSchema, {
  description:
    'One record per shipment confirmation, oldest first; [] when nothing matches. Paging is in the X-Total-Count, X-Page-No and X-Page-Size headers.',
});

/** The DN header columns, in the order spec 2.10 gives them. */
export const ORDER_LEVEL_HEAD = [
  'Facility',
  'Customer',
  'Order #',
  'Status',
  'Order Type',
  'Load #',
  'PO #',
  'Customer BOL',
  'Shipping Account No',
  'Source',
  'Ship Not Before',
  'Ship Not Later',
  'Hold At Location',
  'Hold At Carrier',
  'Consolidation No',
  'Ref.#',
  'Equipment Type',
  'Appointment Time',
  'Desired Schedule Date',
  'Delivery Request Date',
  'Shipped Time',
  'Carrier',
  'SCAC Code',
  'Delivery Service',
  'Pro #',
  'Freight Term',
  'Retailer Name',
  'Ship To Name',
  'Ship To Address',
  'Sold To Name',
  'Sold To Address',
  'Freight Bill To Name',
  'Label Notes',
  'InvoiceNo',
  'Order Created By',
  'Order Dynamic Property',
  'Shipped Date',
  'Created Date',
  'Create Time',
  'Update Time',
] as const;

export const OrderLevelSearchRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID,
    PONo: OptionalText(50, 'Only orders with this PONo; empty or null means any.'),
    ReferenceNo: {
      ...OrderDocumentSearchRequestSchema.properties.ReferenceNo,
      description: 'Only the order with this ReferenceNo (text or a whole number, compared as text); empty or null means any.',
    },
    UpdatedWhenFrom: UpdatedWhenBound('Lower'),
    UpdatedWhenTo: UpdatedWhenBound('Upper'),
    Paging: Type.Optional(PagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        UpdatedWhenFrom: '2024-03-05T00:00:00.000-08:00',
        Paging: { PageNo: 1, PageSize: 100 },
      },
    ],
  },
);
export type OrderLevelSearchRequest = Static<typeof OrderLevelSearchRequestSchema>;

/** Keys in the head's order: fast-json-stringify writes them in the schema's order. */
export const OrderLevelRowSchema = Type.Object({
  Facility: Type.String(),
  Customer: Type.String(),
  'Order #': Type.String({ description: 'The SVCPOID.' }),
  Status: StringEnum(ORDER_STATUSES),
  'Order Type': Text,
  'Load #': Text,
  'PO #': Text,
  'Customer BOL': Nullable(Type.String({ description: 'The BOLNo of the import.' })),
  'Shipping Account No': Text,
  Source: Type.String({ description: 'How the order arrived: EDI.' }),
  'Ship Not Before': LocalTime(),
  'Ship Not Later': LocalTime('ShipNoLater (or ShipNotLater): facility-local ISO date-time with milliseconds.'),
  'Hold At Location': Text,
  'Hold At Carrier': Text,
  'Consolidation No': Text,
  'Ref.#': ReferenceNo,
  'Equipment Type': Text,
  'Appointment Time': LocalTime(),
  'Desired Schedule Date': LocalTime('The ScheduledDate: facility-local ISO date-time with milliseconds.'),
  'Delivery Request Date': LocalTime(),
  'Shipped Time': LocalTime('The latest shipment confirmation’s ShippedTime, facility-local; null before any.'),
  Carrier: Nullable(Type.String({ description: 'The latest shipment confirmation’s carrier, else the import’s CarrierName.' })),
  'SCAC Code': Nullable(Type.String({ description: 'The latest shipment confirmation’s SCACCode, else the import’s.' })),
  'Delivery Service': Text,
  'Pro #': Nullable(Type.String({ description: 'The latest shipment confirmation’s ProNo.' })),
  'Freight Term': Text,
  'Retailer Name': Text,
  'Ship To Name': Text,
  'Ship To Address': Nullable(
    Type.String({ description: 'Address1, Address2, City, “State Zip”, Country: the non-empty ones, joined by “, ”.' }),
  ),
  'Sold To Name': Text,
  'Sold To Address': Nullable(Type.String({ description: 'As Ship To Address.' })),
  'Freight Bill To Name': Nullable(Type.String({ description: 'The BillToName.' })),
  'Label Notes': Nullable(Type.String({ description: 'OrderNotes.LabelNote.' })),
  InvoiceNo: Text,
  'Order Created By': Type.String({ description: '“API key <id>”: the key that imported the order.' }),
  'Order Dynamic Property': Nullable(
    Type.Object(
      {},
      { additionalProperties: Type.String(), description: 'The DynTxtPropertyValue01–20 the order set; null when it set none.' },
    ),
  ),
  'Shipped Date': Nullable(Type.String({ description: 'The Shipped Time’s date, yyyy-MM-dd.' })),
  'Created Date': Type.String({ description: 'Facility-local yyyy-MM-dd.' }),
  'Create Time': Type.String({ description: 'Facility-local ISO date-time with milliseconds.' }),
  'Update Time': Type.String({ description: 'ISO date-time with the facility’s UTC offset.' }),
});
export type OrderLevelRow = Static<typeof OrderLevelRowSchema>;

export const OrderLevelSearchResultSchema = Type.Object({
  results: Type.Object({
    head: Type.Array(Type.String(), { description: `The column names, in this order: ${ORDER_LEVEL_HEAD.join(', ')}.` }),
    data: Type.Array(OrderLevelRowSchema, { description: 'One row per order keyed by the head names, oldest update first.' }),
  }),
  paging: PagingSchema,
});
export type OrderLevelSearchResult = Static<typeof OrderLevelSearchResultSchema>;
