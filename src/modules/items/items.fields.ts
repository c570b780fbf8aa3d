/**
 * The item master's keys (spec 2.12) in `head` order, with the kind of value each holds. Groups come
 * in the order the spec lists them; paired ranges are interleaved by index (docs/compatibility.md).
 */
export type ItemFieldKind = 'text' | 'flag' | 'number' | 'list' | 'status';

const range = (count: number) => Array.from({ length: count }, (_, i) => String(i + 1).padStart(2, '0'));

const identity: [string, ItemFieldKind][] = [
  ['ActionCodeAU', 'text'],
  ['allowOverWriteItem', 'flag'],
  ['companyId', 'text'],
  ['supplierId', 'text'],
  ['customerId', 'text'],
  ['itemID', 'text'],
  ['itemDescription', 'text'],
  ['shortDescription', 'text'],
  ['abbreviation', 'text'],
  ['ItemGroupID', 'text'],
  ['ItemSubGroupID', 'text'],
  ['titleIds', 'list'],
  ['tags', 'list'],
  ['labels', 'list'],
  ['brandID', 'text'],
  ['groupID', 'text'],
  ['grade', 'text'],
  ['billingGrade', 'text'],
  ['freightClass', 'text'],
  ['nmfc', 'text'],
  ['commodityDescription', 'text'],
  ['countryOrigin', 'text'],
  ['fileIDs', 'list'],
  ['UPCCode', 'text'],
  ['UPCCodeCase', 'text'],
  ['EANCode', 'text'],
  ['status', 'status'],
];

const flags: [string, ItemFieldKind][] = [
  ...[
    'isBundle',
    'hasSerialNumber',
    'isHazardousMaterial',
    'NeedAllowOverwriteByImport',
    'validationInboundSerialNo',
    'serialNoScanLotNoCheck',
    'requireCollectLotNoOnReceive',
    'validationOutboundSerialNo',
    'validatedOutboundSerialNoAgainstInbound',
    'requireCollectExpirationDateOnReceive',
    'requireCollectMfgDateOnReceive',
    'requireCollectShelfLifeDaysOnReceive',
    'requireCollectSnOnShipping',
  ].map((key): [string, ItemFieldKind] => [key, 'flag']),
  ['serialNoLength', 'number'],
  ['defaultPutAwayLocationSubType', 'text'],
  ['needScanOutboundSerialNo', 'flag'],
  ['isAllowOverWriteSuggestedPickLP', 'flag'],
  ['Shipping Rule', 'text'],
  ['Ship Allowed Days', 'number'],
  ['Stack Height', 'number'],
];

const baseUnit: [string, ItemFieldKind][] = [
  ['BaseUOM', 'text'],
  ['BasePrice', 'number'],
  ['BaseCurrency', 'text'],
  ['BaseInsuranceAmount', 'number'],
  ['BaseSetDefaultUOM', 'flag'],
  ['BaseLength', 'number'],
  ['BaseWidth', 'number'],
  ['BaseHeight', 'number'],
  ['BaseUnitLength', 'text'],
  ['BaseWeight', 'number'],
  ['BaseUnitWeight', 'text'],
  ['BaseVolume', 'number'],
  ['BaseUnitVolume', 'text'],
  ['BaseBillingUOM', 'text'],
];

const innerPack: [string, ItemFieldKind][] = [
  ['InnerPackQty', 'number'],
  ['InnerPackUOM', 'text'],
  ['InnerPrice', 'number'],
  ['InnerCurrency', 'text'],
  ['InnerInsuranceAmount', 'number'],
  ['InnerSetDefaultUOM', 'flag'],
  ['InnerBillingUOM', 'text'],
];

const casePack: [string, ItemFieldKind][] = [
  ['CaseUOM', 'text'],
  ['CasePrice', 'number'],
  ['CaseCurrency', 'text'],
  ['CaseInsuranceAmount', 'number'],
  ['CaseSetDefaultUOM', 'flag'],
  ['CaseInsideUOM', 'text'],
  ['CaseQty', 'number'],
  ['CaseLength', 'number'],
  ['CaseWidth', 'number'],
  ['CaseHeight', 'number'],
  ['CaseUnitLength', 'text'],
  ['CaseWeight', 'number'],
  ['CaseUnitWeight', 'text'],
  ['CaseVolume', 'number'],
  ['CaseUnitVolume', 'text'],
  ['CaseBillingUOM', 'text'],
];

const pallet: [string, ItemFieldKind][] = [
  ['PalletTi', 'number'],
  ['PalletHi', 'number'],
  ['CasesPerPallet', 'number'],
];

const customProperties: [string, ItemFieldKind][] = [
  ...range(20).flatMap((n): [string, ItemFieldKind][] => [
    [`DynTxtPropertyName${n}`, 'text'],
    [`DynTxtPropertyValue${n}`, 'text'],
  ]),
  ...range(3).flatMap((n): [string, ItemFieldKind][] => [
    [`DynDateTimePropertyName${n}`, 'text'],
    [`DynDateTimePropertyValue${n}`, 'text'],
  ]),
  ...range(10).flatMap((n): [string, ItemFieldKind][] => [
    [`DynNumberPropertyName${n}`, 'text'],
    [`DynNumberPropertyValue${n}`, 'number'],
  ]),
  ...range(10).map((n): [string, ItemFieldKind] => [`DiverseProperty${n}`, 'text']),
];

const alternateCodes: [string, ItemFieldKind][] = range(10).flatMap((n): [string, ItemFieldKind][] => [
  [`AKAValue${n}`, 'text'],
  [`AKAName${n}`, 'text'],
  [`AKA${n} Tag`, 'text'],
  [`AKA${n} Org`, 'text'],
]);

export const ITEM_FIELDS: readonly (readonly [string, ItemFieldKind])[] = [
  ...identity,
  ...flags,
  ...baseUnit,
  ...innerPack,
  ...casePack,
  ...pallet,
  ...customProperties,
  ...alternateCodes,
];

/** `results.head` of the item master search. */
export const ITEM_HEAD: readonly string[] = ITEM_FIELDS.map(([key]) => key);

/** Keys the server owns: they come from the row's columns, never from the stored attributes. */
export const SERVER_OWNED_KEYS = ['companyId', 'customerId', 'itemID', 'status'] as const;

export const ITEM_STATUSES = ['Active', 'Inactive'] as const;
