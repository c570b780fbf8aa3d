import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TopLevelPageNoSchema, CursorPagingRequestSchema, PagingSchema } from '../../http/paging.js';
import {
  CompanyID,
  CustomerID,
  FacilityID,
  Nullable,
  OptionalText,
  StringEnum,
  UpdatedWhenBound,
  refusingOwnedNames,
} from '../../http/schemas.js';
import { ITEM_FIELDS, ITEM_HEAD, ITEM_STATUSES, type ItemFieldKind } from './items.fields.js';

export const MAX_ITEMS_PER_IMPORT = 1000;

const Text = Type.String({ maxLength: 1000 });
const inputKinds: Record<ItemFieldKind, TSchema> = {
  text: Text,
  flag: StringEnum(['Y', 'N']),
  number: Type.Number({ minimum: 0 }),
  list: Type.Union([Text, Type.Array(Text, { maxItems: 100 })], { 'x-message': 'must be a string or an array of strings' }),
  status: StringEnum(ITEM_STATUSES, { description: 'Default Active.' }),
};

function itemProperties(kindSchema: (kind: ItemFieldKind, key: string) => TSchema) {
  return Object.fromEntries(ITEM_FIELDS.map(([key, kind]) => [key, kindSchema(kind, key)]));
}

/** One item as imported: every spec 2.12 key optional but itemID; null means unset. */
export interface ItemInput {
  itemID: string;
  status?: (typeof ITEM_STATUSES)[number] | null;
  companyId?: string | null;
  customerId?: string | null;
  [key: string]: unknown;
}

/**
 * The names Wharf owns in an item (docs/compatibility.md): the keys of the item records the search
 * answers (every one an import field too), and those the import's answer and the item.* events
 * use for an item. An item refuses the ones that are not its fields, so that an unknown key the
 * import keeps and the search shows back (a `CompanyID` beside `companyId`) never passes for Wharf's.
 */
export const ITEM_OWNED_NAMES: readonly string[] = [...ITEM_HEAD, 'itemID', 'Status', 'CompanyID', 'CustomerID', 'ItemID', 'Sequence'];

const itemInputProperties = {
  ...itemProperties((kind, key) => Type.Optional(Nullable(key.startsWith('DynNumberPropertyValue') ? Type.Number() : inputKinds[kind]))),
  itemID: Type.String({ minLength: 1, maxLength: 30, description: 'The SKU, unique per customer.' }),
};

export const ItemInputSchema = Type.Unsafe<ItemInput>(
  Type.Object(itemInputProperties, {
    description: 'An item record with the spec 2.12 keys; other keys are kept and echoed back.',
    ...refusingOwnedNames(itemInputProperties, ITEM_OWNED_NAMES),
  }),
);

export const ItemImportRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityID: Type.Optional(FacilityID),
    Items: Type.Array(ItemInputSchema, { minItems: 1, maxItems: MAX_ITEMS_PER_IMPORT }),
  },
  {
    // New items of the demo's ACME (docs/admin.md): a second call answers Unchanged.
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        Items: [
          {
            itemID: 'MUG-GRN-12',
            itemDescription: 'Ceramic mug, green, 12 oz',
            BaseUOM: 'EA',
            BaseLength: 4.5,
            BaseWidth: 3.5,
            BaseHeight: 4,
            BaseUnitLength: 'Inch',
            BaseWeight: 0.9,
            BaseUnitWeight: 'Pound',
            CaseQty: 24,
            CaseUOM: 'CS',
            tags: ['kitchen', 'mugs'],
          },
          { itemID: 'TEE-BLK-L', itemDescription: 'T-shirt, black, L', BaseUOM: 'EA', BaseWeight: 0.45, BaseUnitWeight: 'Pound' },
        ],
      },
    ],
  },
);
export type ItemImportRequest = Static<typeof ItemImportRequestSchema>;

export const ItemImportStatus = StringEnum(['Created', 'Updated', 'Unchanged']);
export type ItemImportStatus = Static<typeof ItemImportStatus>;

export const ItemImportResultSchema = Type.Object(
  { Items: Type.Array(Type.Object({ itemID: Type.String(), Status: ItemImportStatus })) },
  {
    examples: [
      {
        Items: [
          { itemID: 'MUG-GRN-12', Status: 'Created' },
          { itemID: 'TEE-BLK-L', Status: 'Created' },
        ],
      },
    ],
  },
);
export type ItemImportResult = Static<typeof ItemImportResultSchema>;

export const ItemSearchRequestSchema = Type.Object(
  {
    CompanyID,
    CustomerID,
    FacilityID: Type.Optional(FacilityID),
    Status: Type.Optional(StringEnum(ITEM_STATUSES, { description: 'Only items of this status; every item when absent.' })),
    itemID: OptionalText(30, 'Only this item (exact); every item when absent or empty. Not in the spec: how the console finds one.'),
    UpdatedWhenFrom: UpdatedWhenBound('Lower'),
    UpdatedWhenTo: UpdatedWhenBound('Upper'),
    PageNo: Type.Optional(TopLevelPageNoSchema),
    Paging: Type.Optional(CursorPagingRequestSchema),
  },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        CustomerID: 'ACME',
        Status: 'Active',
        UpdatedWhenFrom: '2024-01-01T00:00:00.000-08:00',
        Paging: { PageNo: 1, PageSize: 2 },
      },
    ],
  },
);
export type ItemSearchRequest = Static<typeof ItemSearchRequestSchema>;

const outputKinds: Record<ItemFieldKind, TSchema> = {
  text: Type.String(),
  flag: Type.String(),
  number: Type.Number(),
  list: Type.Union([Type.String(), Type.Array(Type.String())]),
  status: Type.String(),
};

/** An item as the search returns it: every head key, null where unset, plus any extra keys it was imported with. */
export const ItemRecordSchema = Type.Object(
  itemProperties((kind) => Nullable(outputKinds[kind])),
  { additionalProperties: true },
);
export type ItemRecord = Record<string, unknown>;

/** An item of the demo as the search shows it: every head key, null where the item has no value. */
const demoItem = (values: Record<string, unknown>): ItemRecord => ({
  ...Object.fromEntries(ITEM_HEAD.map((key) => [key, null])),
  companyId: 'DEMO',
  customerId: 'ACME',
  status: 'Active',
  ...values,
});

export const ItemSearchResultSchema = Type.Object(
  {
    results: Type.Object({
      head: Type.Array(Type.String(), { description: `The ${ITEM_HEAD.length} item keys in spec order.` }),
      data: Type.Array(ItemRecordSchema),
    }),
    paging: PagingSchema,
  },
  {
    examples: [
      {
        results: {
          head: ITEM_HEAD,
          data: [
            demoItem({
              itemID: 'LAMP-DESK',
              itemDescription: 'Desk lamp with LED bulb',
              hasSerialNumber: 'Y',
              BaseUOM: 'EA',
              BaseLength: 18,
              BaseWidth: 7,
              BaseHeight: 7,
              BaseUnitLength: 'Inch',
              BaseWeight: 3.2,
              BaseUnitWeight: 'Pound',
            }),
            demoItem({
              itemID: 'MUG-BLUE-12',
              itemDescription: 'Ceramic mug, blue, 12 oz',
              BaseUOM: 'EA',
              BaseLength: 4.5,
              BaseWidth: 3.5,
              BaseHeight: 4,
              BaseUnitLength: 'Inch',
              BaseWeight: 0.9,
              BaseUnitWeight: 'Pound',
              CaseUOM: 'CS',
              CaseQty: 24,
            }),
          ],
        },
        paging: { totalCount: 4, pageNo: 1, totalPage: 2, startIndex: 1, endIndex: 2, limit: 2 },
      },
    ],
  },
);
export type ItemSearchResult = Static<typeof ItemSearchResultSchema>;
