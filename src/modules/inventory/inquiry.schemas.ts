import { Type, type Static } from '@sinclair/typebox';
import { CursorPagingRequestSchema, PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import {
  CompanyID,
  CustomerID,
  FacilityID,
  Nullable,
  OptionalDateTime,
  OptionalText,
  StringEnum,
  UpdatedWhenBound,
} from '../../http/schemas.js';

/**
 * The read side of inventory (docs/compatibility.md, docs/orders.md): the customer's balance search and the operator's
 * ledger search. Both answer `{results: {head, data}, paging}`; every row is keyed by the head names.
 */

export const INVENTORY_STATUSES = ['Available', 'Hold', 'Damaged'] as const;
export type InventoryStatus = (typeof INVENTORY_STATUSES)[number];

/** The ledger's source types, as inventory.service's StockSourceType names them. */
export const LEDGER_SOURCE_TYPES = ['receipt', 'shipment', 'adjustment', 'property-move'] as const;

const ItemNumber = OptionalText(30, 'Only this item (exact match); empty or null means any.');
const LotNo = OptionalText(50, 'Only this lot (exact match); empty or null means any.');
const Text = Nullable(Type.String());
const DecimalText = (description: string) => Type.String({ description: `${description} Decimal text, exact (e.g. "12.5").` });

export const InventorySearchRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID,
    ItemNumber,
    LotNo,
    InventoryStatus: Type.Optional(
      Nullable(
        StringEnum(INVENTORY_STATUSES, { description: 'Only balances in this inventory status; null or absent means every status.' }),
      ),
    ),
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
        ItemNumber: 'MUG-BLUE-12',
        InventoryStatus: 'Available',
        Paging: { PageNo: 1, PageSize: 100 },
      },
    ],
  },
);
export type InventorySearchRequest = Static<typeof InventorySearchRequestSchema>;

/** A balance's key as the inventory answers show it; absent values are null. */
export const balanceKeyProperties = {
  ItemNumber: Type.String(),
  LotNo: Nullable(Type.String({ description: 'null when the stock has no lot.' })),
  GoodsType: Nullable(Type.String({ description: 'null when the stock has no goods type.' })),
  TitleID: Nullable(Type.String({ description: 'null when the stock has no title.' })),
  InventoryStatus: StringEnum(INVENTORY_STATUSES),
  ExpirationDate: Nullable(Type.String({ description: 'yyyy-MM-dd; null when the stock has none.' })),
};

/** The balance columns, in the order docs/compatibility.md gives them. */
export const INVENTORY_HEAD = [
  'ItemNumber',
  'LotNo',
  'GoodsType',
  'TitleID',
  'InventoryStatus',
  'ExpirationDate',
  'UOM',
  'OnHand',
  'Allocated',
  'Available',
] as const;

export const InventoryRowSchema = Type.Object({
  ...balanceKeyProperties,
  UOM: Type.String({ description: 'The unit the stock was received in.' }),
  OnHand: DecimalText('On hand.'),
  Allocated: DecimalText('Allocated to orders.'),
  Available: DecimalText('OnHand − Allocated for Available stock; "0" for Hold and Damaged stock.'),
});
export type InventoryRow = Static<typeof InventoryRowSchema>;

/** A balance of the demo's stock with no goods type or title. */
const demoBalance = (ItemNumber: string, LotNo: string | null, ExpirationDate: string | null) => ({
  ItemNumber,
  LotNo,
  GoodsType: null,
  TitleID: null,
  InventoryStatus: 'Available' as const,
  ExpirationDate,
  UOM: 'EA',
});

export const InventorySearchResultSchema = Type.Object(
  {
    results: Type.Object({
      head: Type.Array(Type.String(), { description: `The column names, in this order: ${INVENTORY_HEAD.join(', ')}.` }),
      data: Type.Array(InventoryRowSchema, {
        description:
          'One row per balance (item, UOM, lot, goods type, title, inventory status, expiration date) with stock on hand, in key order; balances with nothing on hand are left out.',
      }),
    }),
    paging: PagingSchema,
  },
  {
    // The demo's two lots of the blue mug: DN-1 shipped 6 of the older lot, and four orders of 6 hold the rest of it.
    examples: [
      {
        results: {
          head: INVENTORY_HEAD,
          data: [
            { ...demoBalance('MUG-BLUE-12', 'L2403', '2027-03-31'), OnHand: '114', Allocated: '24', Available: '90' },
            { ...demoBalance('MUG-BLUE-12', 'L2409', '2027-09-30'), OnHand: '240', Allocated: '0', Available: '240' },
          ],
        },
        paging: { totalCount: 2, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 2, limit: 100 },
      },
    ],
  },
);
export type InventorySearchResult = Static<typeof InventorySearchResultSchema>;

const LocalDateTime = (description: string) =>
  OptionalDateTime(
    'local-date-time',
    50,
    '2024-03-05T14:07:09.123',
    `${description}, facility-local, inclusive; empty or null means open.`,
  );

export const LedgerSourceSchema = Type.Object(
  {
    Type: Type.Optional(Nullable(StringEnum(LEDGER_SOURCE_TYPES, { description: 'The kind of document that made the posting.' }))),
    ID: OptionalText(100, 'The source document: an SVCPOID (RN-…, DN-…) or an AdjustmentNo.'),
  },
  { description: 'Only the postings of this source; either key alone is a filter too.' },
);

export const LedgerSearchRequestSchema = Type.Object(
  {
    CompanyID,
    FacilityID,
    CustomerID: Type.Optional({ ...CustomerID, description: 'Only this customer’s postings; every customer of the facility when absent.' }),
    ItemNumber,
    LotNo,
    CreatedWhenFrom: LocalDateTime('Lower bound of the posting time'),
    CreatedWhenTo: LocalDateTime('Upper bound of the posting time'),
    Source: Type.Optional(Nullable(LedgerSourceSchema)),
    Paging: Type.Optional(CursorPagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ItemNumber: 'MUG-RED-12',
        CreatedWhenFrom: '2024-01-01T00:00:00.000',
        Source: { Type: 'receipt', ID: 'RN-1' },
        Paging: { PageNo: 1, PageSize: 100 },
      },
    ],
  },
);
export type LedgerSearchRequest = Static<typeof LedgerSearchRequestSchema>;

/** The posting columns, in the order of the rows. */
export const LEDGER_HEAD = [
  'ID',
  'CreatedWhen',
  'CustomerID',
  'ItemNumber',
  'LotNo',
  'GoodsType',
  'TitleID',
  'InventoryStatus',
  'ExpirationDate',
  'UOM',
  'Qty',
  'OnHandAfter',
  'SourceType',
  'SourceID',
  'SourceLine',
  'KeyID',
] as const;

export const PostingRowSchema = Type.Object({
  ID: Type.Integer({ description: 'The posting’s number; increases with every posting.' }),
  CreatedWhen: Type.String({ description: 'When the posting was made: facility-local ISO date-time with milliseconds.' }),
  CustomerID: Type.String(),
  ItemNumber: Type.String(),
  LotNo: Text,
  GoodsType: Text,
  TitleID: Text,
  InventoryStatus: StringEnum(INVENTORY_STATUSES),
  ExpirationDate: Nullable(Type.String({ description: 'yyyy-MM-dd; null when the stock has none.' })),
  UOM: Type.String(),
  Qty: DecimalText('The signed change of on-hand: positive for a receipt, negative for a shipment.'),
  OnHandAfter: DecimalText('What the balance held on hand right after this posting.'),
  SourceType: StringEnum(LEDGER_SOURCE_TYPES),
  SourceID: Type.String({ description: 'The source document: the receipt’s or order’s SVCPOID, or the AdjustmentNo.' }),
  SourceLine: Nullable(
    Type.String({ description: 'Within the source: the ConfirmationNo of a receipt or shipment, or the adjustment line; null when none.' }),
  ),
  KeyID: Nullable(Type.Integer({ description: 'The API key that made the posting; null for the command line.' })),
});
export type PostingRow = Static<typeof PostingRowSchema>;

export const LedgerSearchResultSchema = Type.Object(
  {
    results: Type.Object({
      head: Type.Array(Type.String(), { description: `The column names, in this order: ${LEDGER_HEAD.join(', ')}.` }),
      data: Type.Array(PostingRowSchema, { description: 'One row per posting, oldest first (posting time, then ID).' }),
    }),
    paging: PagingSchema,
  },
  {
    // The demo's RN-1 received 48 red mugs with RCV-DEMO-1000 (the demo seeds with the admin key, KeyID 3).
    examples: [
      {
        results: {
          head: LEDGER_HEAD,
          data: [
            {
              ID: 6,
              CreatedWhen: '2024-03-05T14:07:09.123',
              CustomerID: 'ACME',
              ...demoBalance('MUG-RED-12', null, null),
              Qty: '48',
              OnHandAfter: '144',
              SourceType: 'receipt',
              SourceID: 'RN-1',
              SourceLine: 'RCV-DEMO-1000',
              KeyID: 3,
            },
          ],
        },
        paging: { totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 },
      },
    ],
  },
);
export type LedgerSearchResult = Static<typeof LedgerSearchResultSchema>;
