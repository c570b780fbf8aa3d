/**
 * The request bodies of the benchmark: a realistic item of the item master (about 2 KB as an import
 * body of one item), the item import and search bodies, the JSON schema the B1 baseline validates,
 * the receipt bodies (RN import, receiving confirmation, RC search), the inventory adjustment body
 * and the order bodies (DN import, DN header query).
 */

/** The size, in bytes, that a one-item import body is padded to. */
export const IMPORT_BODY_BYTES = 2048;

const pad = (n, width) => String(n).padStart(width, '0');

/** The itemID of the n-th item a customer's item master is seeded with (n from 1). */
export const itemIdOf = (n) => `ITEM-${pad(n, 5)}`;

/** A deterministic item with the keys a customer's system typically sends; `revision` changes its text. */
export function makeItem(itemID, n, revision = 0) {
  return {
    itemID,
    itemDescription: `Bench item ${itemID} revision ${revision}: stainless steel widget, assorted finishes`,
    shortDescription: `Widget ${n % 97}`,
    abbreviation: `WDG${n % 10}`,
    ItemGroupID: `GRP-${n % 12}`,
    ItemSubGroupID: `SUB-${n % 40}`,
    tags: ['bench', `lot-${n % 7}`],
    brandID: `BRAND-${n % 5}`,
    grade: 'A',
    freightClass: '70',
    nmfc: '156600',
    commodityDescription: 'Hardware, metal',
    countryOrigin: 'US',
    UPCCode: `0${pad(n, 11)}`,
    EANCode: `40${pad(n, 11)}`,
    status: 'Active',
    hasSerialNumber: 'N',
    isHazardousMaterial: 'N',
    BaseUOM: 'EA',
    BasePrice: 12.5 + (n % 100),
    BaseCurrency: 'USD',
    BaseLength: 4,
    BaseWidth: 3,
    BaseHeight: 2,
    BaseUnitLength: 'IN',
    BaseWeight: 0.75,
    BaseUnitWeight: 'LB',
    InnerPackQty: 6,
    InnerPackUOM: 'IP',
    CaseUOM: 'CS',
    CaseQty: 24,
    CaseLength: 16,
    CaseWidth: 12,
    CaseHeight: 10,
    CaseUnitLength: 'IN',
    CaseWeight: 19,
    CaseUnitWeight: 'LB',
    PalletTi: 8,
    PalletHi: 5,
    CasesPerPallet: 40,
    ...Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        [`DynTxtPropertyName${pad(i + 1, 2)}`, `Attribute ${i + 1}`],
        [`DynTxtPropertyValue${pad(i + 1, 2)}`, `value-${(n * (i + 3)) % 1000}`],
      ]).flat(),
    ),
    AKAValue01: `ALT-${pad(n, 8)}`,
    AKAName01: 'Retailer SKU',
    AKAValue02: `MFR-${pad(n * 7, 8)}`,
    AKAName02: 'Manufacturer part',
  };
}

/** The import body of `items`. */
export function importBody(company, customer, items) {
  return JSON.stringify({ CompanyID: company, CustomerID: customer, Items: items });
}

/** A one-item import body of exactly IMPORT_BODY_BYTES bytes (the padding goes into DiverseProperty01). */
export function oneItemImportBody(company, customer, itemID, n, revision = 0) {
  const item = { ...makeItem(itemID, n, revision), DiverseProperty01: '' };
  const bare = Buffer.byteLength(importBody(company, customer, [item]));
  item.DiverseProperty01 = 'x'.repeat(Math.max(0, IMPORT_BODY_BYTES - bare));
  return importBody(company, customer, [item]);
}

export function searchBody(company, customer, pageNo, pageSize) {
  return JSON.stringify({ CompanyID: company, CustomerID: customer, Paging: { PageNo: pageNo, PageSize: pageSize } });
}

/** The JSON schema of an import body, one property per key of the sample item, typed as Wharf types them. */
export function importBodySchema() {
  const sample = { ...makeItem('X', 1), DiverseProperty01: '' };
  const text = { type: 'string', maxLength: 1000 };
  const properties = Object.fromEntries(
    Object.entries(sample).map(([key, value]) => {
      if (Array.isArray(value)) return [key, { anyOf: [text, { type: 'array', items: text, maxItems: 100 }, { type: 'null' }] }];
      if (typeof value === 'number') return [key, { type: ['number', 'null'], minimum: 0 }];
      return [key, { type: ['string', 'null'], maxLength: 1000 }];
    }),
  );
  properties.itemID = { type: 'string', minLength: 1, maxLength: 30 };
  properties.status = { type: ['string', 'null'], enum: ['Active', 'Inactive', null] };
  const id = { type: 'string', minLength: 1, maxLength: 15 };
  return {
    type: 'object',
    required: ['CompanyID', 'CustomerID', 'Items'],
    properties: {
      CompanyID: id,
      CustomerID: id,
      FacilityID: id,
      Items: {
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        items: { type: 'object', required: ['itemID'], properties },
      },
    },
  };
}

/** The number of lines of a benchmark receipt. */
export const RECEIPT_LINES = 10;

/**
 * The RN import body of receipt `n` (`poNo` and `referenceNo` make it new): RECEIPT_LINES lines of
 * items from the first `itemCount` of the customer's item master, 24 EA each.
 */
export function receiptImportBody({ company, customer, facility }, { poNo, referenceNo, n, itemCount }) {
  const items = Array.from({ length: RECEIPT_LINES }, (_, i) => ({
    POLineNo: i + 1,
    ItemNumber: itemIdOf(((n * RECEIPT_LINES + i) % itemCount) + 1),
    ExpectedQty: '24',
    UOM: 'EA',
    LotNo: `LOT-${n % 50}`,
    Pallets: '1',
  }));
  return JSON.stringify({
    CompanyID: company,
    CustomerID: customer,
    FacilityID: facility,
    ASNContent: {
      ReceiptType: 'Regular Receipt',
      SupplierID: `SUP-${n % 20}`,
      PONo: poNo,
      ReferenceNo: referenceNo,
      BOLNo: `BOL-${pad(n, 8)}`,
      ContainerNo: `CONT${pad(n, 7)}`,
      CarrierName: 'Bench Freight',
      SCACCode: 'BNCH',
      ShippingInstruction: 'Dock door 4, call ahead',
      Status: 'Imported',
      Items: items,
    },
  });
}

/** A receiving confirmation that receives every line of `lines` (the import body's Items) in full. */
export function confirmationBody({ company, facility }, { svcpoid, confirmationNo, lines }) {
  return JSON.stringify({
    CompanyID: company,
    FacilityID: facility,
    SVCPOID: svcpoid,
    ConfirmationNo: confirmationNo,
    PalletQty: 1,
    Items: lines.map((line) => ({
      POLineNo: line.POLineNo,
      ItemNumber: line.ItemNumber,
      ReceivedQuantity: line.ExpectedQty,
      UOM: line.UOM,
      LotNo: line.LotNo,
    })),
  });
}

export function rcSearchBody({ company, facility, customer }, pageNo, pageSize) {
  return JSON.stringify({ CompanyID: company, FacilityID: facility, CustomerID: customer, Paging: { PageNo: pageNo, PageSize: pageSize } });
}

/**
 * An inventory-adjust-qty-incremental body: +1 EA (no lot, Available) on each of `itemIds`, one
 * line an item, under `adjustmentNo`.
 */
export function adjustmentBody({ company, customer, facility }, { adjustmentNo, itemIds, qty = '1' }) {
  return JSON.stringify({
    CompanyID: company,
    FacilityID: facility,
    CustomerID: customer,
    AdjustmentNo: adjustmentNo,
    ReasonCode: 'BENCH',
    Items: itemIds.map((ItemNumber) => ({ ItemNumber, UOM: 'EA', Qty: qty })),
  });
}

/**
 * The DN import body of order `n` (`referenceNo` makes it new): one line of 1 EA for each of
 * `itemIds`, and a header with what a retailer's order typically carries (ship-to, carrier, dates,
 * a label note), so that the stored document and the header query's columns are not empty.
 */
export function orderImportBody({ company, customer, facility }, { poNo, referenceNo, n, itemIds }) {
  return JSON.stringify({
    CompanyID: company,
    CustomerID: customer,
    FacilityID: facility,
    POContent: {
      ReferenceNo: referenceNo,
      PONo: poNo,
      OrderType: 'Regular Order',
      ShipNotBefore: '20240305080000',
      ShipNoLater: '3/7/2024 5:00:00 PM',
      Address: {
        ShipToName: `Bench Store ${n % 500}`,
        ShipToAddress1: `${(n % 9000) + 100} Commerce Way`,
        ShipToCity: 'Reno',
        ShipToState: 'NV',
        ShipToZipCode: '89501',
        ShipToCountry: 'US',
      },
      ShippingInfo: { FreightTerm: 'PP', ShipMethod: 'U', CarrierName: 'Bench Parcel', SCACCode: 'BNCP', DeliveryService: 'Ground' },
      OrderNotes: { LabelNote: 'Fragile, this side up' },
      Items: itemIds.map((ItemID, i) => ({ LineNo: i + 1, ItemID, OrderedQty: '1', UOM: 'EA' })),
    },
  });
}

/**
 * A body of one page of a customer's orders in a facility: the DN header query's (spec 2.10) and
 * the 3PL order list's; the same shape as the RC search's.
 */
export const orderPageBody = rcSearchBody;
