import { Type, type Static } from '@sinclair/typebox';
import { OrderDocumentSearchRequestSchema } from '../../http/document-search.js';
import { CursorPagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, OptionalText, StringEnum, Uom, UpdatedWhenBound } from '../../http/schemas.js';
import { ORDER_STATUSES } from './order-states.js';

/**
 * The customer's read side of orders: the DC search (docs/compatibility.md, the outbound twin of the RC
 * search) and the DN header level query (spec 2.10).
 */

const Text = Nullable(Type.String());
const LocalTime = (description = 'Facility-local ISO date-time with milliseconds.') => Nullable(Type.String({ description }));
const ReferenceNo = Type.Union([Type.String(), Type.Number()], { description: 'As the order was imported with it: text or a number.' });

/** The DN ACK search's request, with an example of its own: the demo's shipped order. */
export const DcSearchRequestSchema = Type.Object(OrderDocumentSearchRequestSchema.properties, {
  examples: [
    {
      CompanyID: 'DEMO',
      FacilityID: 'LAX1',
      CustomerID: 'ACME',
      ReferenceNo: 'SO-2000',
      CreatedWhenFrom: '2024-01-01T00:00:00.000',
      Paging: { PageNo: 1, PageSize: 100 },
    },
  ],
});
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
  examples: [
    [
      {
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ReferenceNo: 'SO-2000',
        PONo: 'SO-DEMO-2000',
        DC: {
          CompanyID: 'DEMO',
          OrderNo: 'DN-1',
          ShippedDate: '2026-03-05T06:07:09.123',
          BOLNo: null,
          LoadNo: null,
          SCACCode: 'UPSN',
          CarrierName: 'UPS',
          TrackingNo: '1Z999AA10123456784',
          ProNo: null,
          Items: [
            {
              LineNo: 1,
              ItemNumber: 'MUG-BLUE-12',
              LotNo: 'L2403',
              OrderedQty: 6,
              ShippedQty: 6,
              DifferenceQty: 0,
              UOM: 'EA',
              SerialNumber: [],
            },
          ],
        },
        CreatedWhen: '2026-03-05T06:07:09.123',
      },
    ],
  ],
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
    Paging: Type.Optional(CursorPagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ReferenceNo: 'SO-2000',
        UpdatedWhenFrom: '2024-01-01T00:00:00.000-08:00',
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

export const OrderLevelSearchResultSchema = Type.Object(
  {
    results: Type.Object({
      head: Type.Array(Type.String(), { description: `The column names, in this order: ${ORDER_LEVEL_HEAD.join(', ')}.` }),
      data: Type.Array(OrderLevelRowSchema, { description: 'One row per order keyed by the head names, oldest update first.' }),
    }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: {
          head: [...ORDER_LEVEL_HEAD],
          data: [
            {
              Facility: 'LAX1',
              Customer: 'ACME',
              'Order #': 'DN-1',
              Status: 'Shipped',
              'Order Type': null,
              'Load #': null,
              'PO #': 'SO-DEMO-2000',
              'Customer BOL': null,
              'Shipping Account No': null,
              Source: 'EDI',
              'Ship Not Before': null,
              'Ship Not Later': null,
              'Hold At Location': null,
              'Hold At Carrier': null,
              'Consolidation No': null,
              'Ref.#': 'SO-2000',
              'Equipment Type': null,
              'Appointment Time': null,
              'Desired Schedule Date': null,
              'Delivery Request Date': null,
              'Shipped Time': '2026-03-05T06:07:09.123',
              Carrier: 'UPS',
              'SCAC Code': 'UPSN',
              'Delivery Service': null,
              'Pro #': null,
              'Freight Term': null,
              'Retailer Name': null,
              'Ship To Name': 'Jane Doe',
              'Ship To Address': '1 Market St, San Francisco, CA 94105, US',
              'Sold To Name': null,
              'Sold To Address': null,
              'Freight Bill To Name': null,
              'Label Notes': null,
              InvoiceNo: null,
              'Order Created By': 'API key 3',
              'Order Dynamic Property': null,
              'Shipped Date': '2026-03-05',
              'Created Date': '2026-03-05',
              'Create Time': '2026-03-05T06:07:09.123',
              'Update Time': '2026-03-05T06:07:09.123-08:00',
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 },
      },
    ],
  },
);
export type OrderLevelSearchResult = Static<typeof OrderLevelSearchResultSchema>;
