import { Type, type Static, type TUnsafe } from '@sinclair/typebox';
import { DocumentSearchRequestSchema } from '../../http/document-search.js';
import { CursorPagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, OptionalText, StringEnum, Uom, UpdatedWhenBound } from '../../http/schemas.js';
import { RECEIPT_STATUSES } from './receipt-states.js';

/**
 * The customer's read side of receipts: the RC search (spec 2.5, 2.6) and the receipt-level header
 * search (docs/compatibility.md).
 */

/** The examples read the demo's RN-1, received and closed with RCV-DEMO-1000 (src/demo-documents.ts). */
export const RcSearchRequestSchema = Type.Object(DocumentSearchRequestSchema.properties, {
  examples: [{ CompanyID: 'DEMO', FacilityID: 'LAX1', CustomerID: 'ACME', PONo: 'PO-DEMO-1000', Paging: { PageNo: 1, PageSize: 100 } }],
});
export type RcSearchRequest = Static<typeof RcSearchRequestSchema>;

const Text = Nullable(Type.String());
const AlwaysNull = (key: string) =>
  Nullable(Type.String({ description: `In the published example; Wharf keeps no ${key}, so it is null.` }));
const Quantity = Type.Union([Type.String(), Type.Number()], { description: 'As the confirmation sent it (decimal text or a number).' });

const numbered = (prefix: (n: number) => string) =>
  Array.from({ length: 20 }, (_, i) => `${prefix(i + 1)}${String(i + 1).padStart(2, '0')}`);

/** DynTxtPropertyValue01…20 as keys that are always present, a text or null. */
function nullableTexts(names: string[]): Record<string, TUnsafe<string | null>> {
  return Object.fromEntries(names.map((name) => [name, Nullable(Type.String())]));
}

/** The header's customized fields on the RC object. */
export const RC_DYNAMIC_KEYS = numbered(() => 'DynTxtPropertyValue');
/** RC Items spell the keys from 11 on with a lower-case d, as the published example does. */
export const RC_ITEM_DYNAMIC_KEYS = numbered((n) => (n > 10 ? 'dynTxtPropertyValue' : 'DynTxtPropertyValue'));

export const RcItemSchema = Type.Object(
  {
    POLineNo: Nullable(Type.Integer({ description: 'The line sequence number: the confirmed one, else the receipt line’s.' })),
    ItemNumber: Type.String(),
    ItemShortDescription: Nullable(Type.String({ description: 'From the item master.' })),
    ItemDescription: Nullable(Type.String({ description: 'From the item master.' })),
    ReceivedQuantity: Type.Number({ description: 'Received quantity, a JSON number.' }),
    CustomerMaterial: AlwaysNull('CustomerMaterial'),
    Diverse: AlwaysNull('Diverse'),
    ItemNote: Text,
    SerialNumber: Type.Array(Type.String(), { description: 'An array, as the published example shows; empty when none was sent.' }),
    LotNo: Text,
    UOM: Uom(),
    ExpectedQty: Nullable(Type.String({ description: 'Decimal text; null for an item the receipt did not announce.' })),
    ExpirationDate: Nullable(Type.String({ description: 'yyyy-MM-dd.' })),
    SHIPMENTLINEID: Nullable(Type.String({ description: 'The receipt line (its position in the import, from 1) this line filled.' })),
    SupplierID: Text,
    SupplierName: AlwaysNull('SupplierName'),
    ...nullableTexts(RC_ITEM_DYNAMIC_KEYS),
  },
  { description: 'A received line. From 11 on the customized keys are spelled dynTxtPropertyValue (lower-case d).' },
);

export const RcCartonLineSchema = Type.Object(
  {
    ItemID: Type.String(),
    LotNo: Text,
    QtyInCarton: Quantity,
    UOM: Uom(),
    ...nullableTexts(RC_DYNAMIC_KEYS),
  },
  { additionalProperties: true, description: 'As the confirmation sent it; a spec key it left out is null.' },
);

export const RcCartonSchema = Type.Object(
  {
    CartonNo: Text,
    PoundPerCarton: Nullable(Type.Union([Type.String(), Type.Number()])),
    ItemLines: Type.Array(RcCartonLineSchema),
  },
  { additionalProperties: true, description: 'As the confirmation sent it; a spec key it left out is null (ItemLines []).' },
);

export const RcSchema = Type.Object(
  {
    SVCCompanyID: Type.String({ description: 'The CompanyID, under the key the published example uses.' }),
    CustomerID: Type.String(),
    SupplierID: Text,
    PONo: Type.String(),
    ReferenceNo: Text,
    SVCPOID: Type.String(),
    ReceivedDate: Type.String({ description: 'When the goods arrived: facility-local ISO date-time with milliseconds.' }),
    ContainerNumber: Text,
    BOLNo: Text,
    CarrierName: Text,
    SCACCode: Text,
    ...nullableTexts(RC_DYNAMIC_KEYS),
    Items: Type.Array(RcItemSchema),
    Cartons: Type.Array(RcCartonSchema),
    Note: Text,
    PalletQty: Nullable(Type.Integer()),
    TitleID: Text,
    RECEIPTSOURCECODE: AlwaysNull('RECEIPTSOURCECODE'),
    ORGANIZATIONCODE: AlwaysNull('ORGANIZATIONCODE'),
    TOSUBINVENTORY: AlwaysNull('TOSUBINVENTORY'),
  },
  { description: 'The receiving confirmation content (spec 2.6).' },
);
export type Rc = Static<typeof RcSchema>;

export const RcRecordSchema = Type.Object({
  FacilityID: Type.String(),
  CustomerID: Type.String(),
  ReferenceNo: Text,
  PONo: Type.String(),
  RC: RcSchema,
  CreatedWhen: Type.String({ description: 'When the confirmation was posted: facility-local ISO 8601 date-time with milliseconds.' }),
});
export type RcRecord = Static<typeof RcRecordSchema>;

const nulls = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, null]));
/** When the example's confirmation was posted, facility-local. */
const AT = '2024-03-05T14:07:09.123';

export const RcSearchResultSchema = Type.Array(RcRecordSchema, {
  description:
    'One record per confirmation, oldest first; [] when nothing matches. Paging is in the X-Total-Count, X-Page-No and X-Page-Size headers.',
  examples: [
    [
      {
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ReferenceNo: 'ASN-1000',
        PONo: 'PO-DEMO-1000',
        RC: {
          SVCCompanyID: 'DEMO',
          CustomerID: 'ACME',
          SupplierID: null,
          PONo: 'PO-DEMO-1000',
          ReferenceNo: 'ASN-1000',
          SVCPOID: 'RN-1',
          ReceivedDate: AT,
          ContainerNumber: null,
          BOLNo: null,
          CarrierName: 'Acme Freight',
          SCACCode: null,
          ...nulls(RC_DYNAMIC_KEYS),
          Items: [
            {
              POLineNo: 1,
              ItemNumber: 'MUG-RED-12',
              ItemShortDescription: null,
              ItemDescription: 'Ceramic mug, red, 12 oz',
              ReceivedQuantity: 48,
              CustomerMaterial: null,
              Diverse: null,
              ItemNote: null,
              SerialNumber: [],
              LotNo: null,
              UOM: 'EA',
              ExpectedQty: '48',
              ExpirationDate: null,
              SHIPMENTLINEID: '1',
              SupplierID: null,
              SupplierName: null,
              ...nulls(RC_ITEM_DYNAMIC_KEYS),
            },
          ],
          Cartons: [],
          Note: null,
          PalletQty: null,
          TitleID: null,
          RECEIPTSOURCECODE: null,
          ORGANIZATIONCODE: null,
          TOSUBINVENTORY: null,
        },
        CreatedWhen: AT,
      },
    ],
  ],
});

/** The receipt-level columns, in the order docs/compatibility.md gives them. */
export const RECEIPT_LEVEL_HEAD = [
  'Facility',
  'Customer',
  'Receipt #',
  'Status',
  'PO #',
  'Ref.#',
  'Carrier',
  'Container No',
  'BOL',
  'SCAC Code',
  'Schedule Date',
  'Received Date',
  'Create Time',
  'Update Time',
] as const;

export const ReceiptLevelSearchRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID,
    PONo: OptionalText(50, 'Only the receipt with this PONo; empty or null means any.'),
    ReferenceNo: OptionalText(50, 'Only the receipt with this ReferenceNo; empty or null means any.'),
    Status: Type.Optional(StringEnum(RECEIPT_STATUSES, { description: 'Only receipts in this status; every status when absent.' })),
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
        Status: 'Closed',
        UpdatedWhenFrom: '2024-01-01T00:00:00.000-08:00',
        Paging: { PageNo: 1, PageSize: 100 },
      },
    ],
  },
);
export type ReceiptLevelSearchRequest = Static<typeof ReceiptLevelSearchRequestSchema>;

export const ReceiptLevelRowSchema = Type.Object({
  Facility: Type.String(),
  Customer: Type.String(),
  'Receipt #': Type.String({ description: 'The SVCPOID.' }),
  Status: StringEnum(RECEIPT_STATUSES),
  'PO #': Type.String(),
  'Ref.#': Text,
  Carrier: Nullable(Type.String({ description: 'The CarrierName.' })),
  'Container No': Text,
  BOL: Text,
  'SCAC Code': Text,
  'Schedule Date': Nullable(Type.String({ description: 'Facility-local ISO date-time with milliseconds.' })),
  'Received Date': Nullable(Type.String({ description: 'The latest confirmation’s ReceivedDate, facility-local; null before any.' })),
  'Create Time': Type.String({ description: 'Facility-local ISO date-time with milliseconds.' }),
  'Update Time': Type.String({ description: 'ISO date-time with the facility’s UTC offset.' }),
});
export type ReceiptLevelRow = Static<typeof ReceiptLevelRowSchema>;

export const ReceiptLevelSearchResultSchema = Type.Object(
  {
    results: Type.Object({
      head: Type.Array(Type.String(), { description: `The column names, in this order: ${RECEIPT_LEVEL_HEAD.join(', ')}.` }),
      data: Type.Array(ReceiptLevelRowSchema, { description: 'One row per receipt keyed by the head names, oldest update first.' }),
    }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: {
          head: RECEIPT_LEVEL_HEAD,
          data: [
            {
              Facility: 'LAX1',
              Customer: 'ACME',
              'Receipt #': 'RN-1',
              Status: 'Closed',
              'PO #': 'PO-DEMO-1000',
              'Ref.#': 'ASN-1000',
              Carrier: 'Acme Freight',
              'Container No': null,
              BOL: null,
              'SCAC Code': null,
              'Schedule Date': null,
              'Received Date': AT,
              'Create Time': AT,
              'Update Time': `${AT}-08:00`,
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 },
      },
    ],
  },
);
export type ReceiptLevelSearchResult = Static<typeof ReceiptLevelSearchResultSchema>;
