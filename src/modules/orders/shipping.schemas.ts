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
} from '../../http/schemas.js';
import { OPERATOR_ORDER_ACTIONS, ORDER_STATUSES, type OperatorOrderMove } from './order-states.js';
import { OrderReferenceNo } from './orders.schemas.js';

/** The warehouse side of orders (docs/compatibility.md): the 3PL list, get, actions and shipment confirmations. */

const Svcpoid = Type.String({ minLength: 1, maxLength: 50, description: 'The order number the service assigned (DN-<n>).' });

export const OrderLookupSchema = Type.Object(
  { CompanyID, FacilityID, SVCPOID: Svcpoid },
  { examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', SVCPOID: 'DN-1' }] },
);
export type OrderLookup = Static<typeof OrderLookupSchema>;

const orderActionProperties = { CompanyID, FacilityID, SVCPOID: Svcpoid, Note: OptionalText(1000) };
export const OrderActionSchema = Type.Object(orderActionProperties);
export type OrderAction = Static<typeof OrderActionSchema>;

const orderActionResultProperties = { Order: Type.Object({ SVCPOID: Type.String(), Status: StringEnum(ORDER_STATUSES) }) };
export const OrderActionResultSchema = Type.Object(orderActionResultProperties);
export type OrderActionResult = Static<typeof OrderActionResultSchema>;

/** Each operator move has its own examples, each naming the demo order in the state it moves from. */
export const ORDER_MOVE_SCHEMAS: Record<OperatorOrderMove, { body: typeof OrderActionSchema; response: typeof OrderActionResultSchema }> = {
  open: {
    body: Type.Object(orderActionProperties, {
      examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', SVCPOID: 'DN-3', Note: 'Released to the pick floor' }],
    }),
    response: Type.Object(orderActionResultProperties, { examples: [{ Order: { SVCPOID: 'DN-3', Status: 'Open' } }] }),
  },
  cancel: {
    body: Type.Object(orderActionProperties, {
      examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', SVCPOID: 'DN-4', Note: 'The customer called to cancel' }],
    }),
    response: Type.Object(orderActionResultProperties, { examples: [{ Order: { SVCPOID: 'DN-4', Status: 'Cancelled' } }] }),
  },
};

export const OrderListRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID: Type.Optional(CustomerID),
    Status: Type.Optional(
      Type.Union([StringEnum(ORDER_STATUSES), Type.Array(StringEnum(ORDER_STATUSES), { minItems: 1, maxItems: ORDER_STATUSES.length })], {
        'x-message': `must be a status or an array of statuses (${ORDER_STATUSES.join(', ')})`,
      }),
    ),
    PONo: OptionalText(50),
    ReferenceNo: Type.Optional(Nullable(OrderReferenceNo)),
    UpdatedWhenFrom: UpdatedWhenBound('Lower'),
    UpdatedWhenTo: UpdatedWhenBound('Upper'),
    MarkOpen: Type.Optional(Type.Boolean({ description: 'Every Imported order on the returned page becomes Open.' })),
    Paging: Type.Optional(CursorPagingRequestSchema),
  },
  { examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', CustomerID: 'ACME', Status: 'Imported', Paging: { PageNo: 1, PageSize: 100 } }] },
);
export type OrderListRequest = Static<typeof OrderListRequestSchema>;

export const ORDER_LIST_HEAD = [
  'SVCPOID',
  'CustomerID',
  'FacilityID',
  'ReferenceNo',
  'PONo',
  'Status',
  'OrderType',
  'ShipToName',
  'CarrierName',
  'SCACCode',
  'ShipNotBefore',
  'ShipNoLater',
  'CreatedWhen',
  'UpdatedWhen',
] as const;

const Text = Nullable(Type.String());
const LocalTime = Nullable(Type.String({ description: 'Facility-local ISO date-time with milliseconds.' }));
export const OrderHeaderSchema = Type.Object({
  SVCPOID: Type.String(),
  CustomerID: Type.String(),
  FacilityID: Type.String(),
  ReferenceNo: Type.Union([Type.String(), Type.Number()], { description: 'As it was sent: text or a number.' }),
  PONo: Text,
  Status: StringEnum(ORDER_STATUSES),
  OrderType: Text,
  ShipToName: Text,
  CarrierName: Text,
  SCACCode: Text,
  ShipNotBefore: LocalTime,
  ShipNoLater: LocalTime,
  CreatedWhen: Type.String({ description: 'Facility-local ISO date-time with milliseconds.' }),
  UpdatedWhen: Type.String({ description: 'ISO date-time with the facility’s UTC offset.' }),
});
export type OrderHeader = Static<typeof OrderHeaderSchema>;

/** A demo order's header as the list and the get show it, Imported (DN-2, DN-3 on a fresh demo). */
const demoOrderHeader = (svcpoid: string, number: string) => ({
  SVCPOID: svcpoid,
  CustomerID: 'ACME',
  FacilityID: 'LAX1',
  ReferenceNo: `SO-${number}`,
  PONo: `SO-DEMO-${number}`,
  Status: 'Imported',
  OrderType: null,
  ShipToName: 'Jane Doe',
  CarrierName: 'UPS',
  SCACCode: 'UPSN',
  ShipNotBefore: null,
  ShipNoLater: null,
  CreatedWhen: '2026-03-05T06:07:09.123',
  UpdatedWhen: '2026-03-05T06:07:09.123-08:00',
});

export const OrderListResultSchema = Type.Object(
  {
    results: Type.Object({ head: Type.Array(Type.String()), data: Type.Array(OrderHeaderSchema) }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: { head: [...ORDER_LIST_HEAD], data: [demoOrderHeader('DN-2', '2001'), demoOrderHeader('DN-3', '2002')] },
        paging: { totalCount: 2, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 2, limit: 100 },
      },
    ],
  },
);

/** The whole document as imported, with what each line holds allocated and has shipped. */
export const OrderDocumentSchema = Type.Object(
  {
    Order: Type.Object(
      {
        ...OrderHeaderSchema.properties,
        TitleID: Text,
        Items: Type.Array(
          Type.Object(
            {
              LineNo: Type.Integer({
                description: 'The customer’s LineNo, or the line’s position in the import from 1; shipments name it.',
              }),
              OrderedQty: Type.String(),
              AllocatedQty: Type.String({ description: 'Held for the line now: allocated and not yet shipped.' }),
              ShippedQty: Type.String({ description: 'Shipped by the confirmations so far.' }),
            },
            { additionalProperties: true, description: 'The line as imported, plus its quantities.' },
          ),
        ),
      },
      { additionalProperties: true, description: 'Every imported POContent field, plus the service’s fields.' },
    ),
    Moves: Type.Array(StringEnum(OPERATOR_ORDER_ACTIONS), {
      description: 'The operator’s moves its status allows now: open, cancel, ship (a confirmation).',
    }),
    Timeline: Type.Array(TimelineEntrySchema, { description: 'Its import, then every move with its note and key, oldest first.' }),
  },
  {
    examples: [
      {
        Order: {
          PONo: 'SO-DEMO-2000',
          ReferenceNo: 'SO-2000',
          Address: {
            ShipToName: 'Jane Doe',
            ShipToAddress1: '1 Market St',
            ShipToCity: 'San Francisco',
            ShipToState: 'CA',
            ShipToZipCode: '94105',
            ShipToCountry: 'US',
          },
          ShippingInfo: { CarrierName: 'UPS', SCACCode: 'UPSN' },
          Items: [{ LineNo: 1, ItemID: 'MUG-BLUE-12', OrderedQty: '6', UOM: 'EA', AllocatedQty: '0', ShippedQty: '6' }],
          Status: 'Shipped',
          TitleID: null,
          SVCPOID: 'DN-1',
          CustomerID: 'ACME',
          FacilityID: 'LAX1',
          OrderType: null,
          ShipToName: 'Jane Doe',
          CarrierName: 'UPS',
          SCACCode: 'UPSN',
          ShipNotBefore: null,
          ShipNoLater: null,
          CreatedWhen: '2026-03-05T06:07:09.123',
          UpdatedWhen: '2026-03-05T06:07:09.123-08:00',
        },
        Moves: [],
        Timeline: [
          { When: '2026-03-05T06:07:09.123-08:00', Action: 'import', FromStatus: null, ToStatus: 'Imported', Note: null, KeyID: null },
          { When: '2026-03-05T06:07:09.123-08:00', Action: 'open', FromStatus: 'Imported', ToStatus: 'Open', Note: null, KeyID: 3 },
          { When: '2026-03-05T06:07:09.123-08:00', Action: 'ship', FromStatus: 'Open', ToStatus: 'Shipped', Note: null, KeyID: 3 },
        ],
      },
    ],
  },
);

const SerialNumber = Type.String({ minLength: 1, maxLength: 50 });

export const ShipmentLineSchema = Type.Object({
  LineNo: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'The order line (its LineNo).' }))),
  ItemNumber: Type.String({ minLength: 1, maxLength: 30 }),
  LotNo: OptionalText(50, 'Ship this lot.'),
  ShippedQty: Quantity({ description: 'Shipped quantity (decimal).' }),
  UOM: Uom(),
  SerialNumber: Type.Optional(Nullable(Type.Array(SerialNumber, { maxItems: 10000 }))),
});
export type ShipmentLine = Static<typeof ShipmentLineSchema>;

export const ShipmentRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    SVCPOID: Svcpoid,
    ConfirmationNo: Type.String({ minLength: 1, maxLength: 50, description: 'Applied once per order; a replay answers the first answer.' }),
    ShippedTime: OptionalDateTime('local-date-time', 50, '2024-03-05T14:07:09.123', 'When the goods left, facility-local (default: now).'),
    CarrierName: OptionalText(50),
    SCACCode: OptionalText(15),
    ProNo: OptionalText(50),
    TrackingNo: OptionalText(50),
    BOLNo: OptionalText(50),
    LoadNo: OptionalText(50),
    Close: Type.Optional(
      Type.Boolean({
        description:
          'Closes the order: Shipped when every line is fully shipped, else Short Shipped; the rest of the allocation is released.',
      }),
    ),
    Note: OptionalText(1000),
    Items: Type.Array(ShipmentLineSchema, {
      maxItems: 1000,
      description: 'At least one line, unless the confirmation only closes the order.',
    }),
  },
  {
    // Only a closing confirmation may ship nothing more.
    if: { not: { required: ['Close'], properties: { Close: { const: true } } } },
    then: { properties: { Items: { type: 'array', minItems: 1 } } },
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        SVCPOID: 'DN-5',
        ConfirmationNo: 'SHP-DEMO-2004',
        ShippedTime: '2026-03-05T09:30:00.000',
        CarrierName: 'UPS',
        SCACCode: 'UPSN',
        TrackingNo: '1Z999AA10123456785',
        Close: true,
        Items: [{ LineNo: 1, ItemNumber: 'MUG-BLUE-12', LotNo: 'L2403', ShippedQty: '6', UOM: 'EA' }],
      },
    ],
  },
);
export type ShipmentRequest = Static<typeof ShipmentRequestSchema>;

export const ShipmentResultSchema = Type.Object(
  { Order: Type.Object({ SVCPOID: Type.String(), Status: StringEnum(ORDER_STATUSES), ConfirmationNo: Type.String() }) },
  { examples: [{ Order: { SVCPOID: 'DN-5', Status: 'Shipped', ConfirmationNo: 'SHP-DEMO-2004' } }] },
);
export type ShipmentResult = Static<typeof ShipmentResultSchema>;
