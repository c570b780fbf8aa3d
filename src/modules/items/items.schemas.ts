import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TopLevelPageNoSchema, PagingRequestSchema, PagingSchema } from '../../http/paging.js';
import { CompanyID, CustomerID, FacilityID, Nullable, StringEnum, UpdatedWhenBound } from '../../http/schemas.js';
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

export const ItemInputSchema = Type.Unsafe<ItemInput>(
  Type.Object(
    {
      ...itemProperties((kind, key) =>
        Type.Optional(Nullable(key.startsWith('DynNumberPropertyValue') ? Type.Number() : inputKinds[kind])),
      ),
      itemID: Type.String({ minLength: 1, maxLength: 30, description: 'The SKU, unique per customer.' }),
    },
    { description: 'An item record with the spec 2.12 keys; other keys are kept and echoed back.' },
  ),
);

export const ItemImportRequestSchema = Type.Object({
  CompanyID,
  CustomerID,
  FacilityID: Type.Optional(FacilityID),
  Items: Type.Array(ItemInputSchema, { minItems: 1, maxItems: MAX_ITEMS_PER_IMPORT }),
});
export type ItemImportRequest = Static<typeof ItemImportRequestSchema>;

export const ItemImportStatus = StringEnum(['Created', 'Updated', 'Unchanged']);
export type ItemImportStatus = Static<typeof ItemImportStatus>;

export const ItemImportResultSchema = Type.Object({
  Items: Type.Array(Type.Object({ itemID: Type.String(), Status: ItemImportStatus })),
});
export type ItemImportResult = Static<typeof ItemImportResultSchema>;

export const ItemSearchRequestSchema = Type.Object({
  CompanyID,
  CustomerID,
  FacilityID: Type.Optional(FacilityID),
  Status: Type.Optional(StringEnum(ITEM_STATUSES, { description: 'Only items of this status; every item when absent.' })),
  UpdatedWhenFrom: UpdatedWhenBound('Lower'),
  UpdatedWhenTo: UpdatedWhenBound('Upper'),
  PageNo: Type.Optional(TopLevelPageNoSchema),
  Paging: Type.Optional(PagingRequestSchema),
});
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

export const ItemSearchResultSchema = Type.Object({
  results: Type.Object({
    head: Type.Array(Type.String(), { description: `The ${ITEM_HEAD.length} item keys in spec order.` }),
    data: Type.Array(ItemRecordSchema),
  }),
  paging: PagingSchema,
});
export type ItemSearchResult = Static<typeof ItemSearchResultSchema>;
