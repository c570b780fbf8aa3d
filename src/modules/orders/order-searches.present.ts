import { formatFacilityLocal, formatWithOffset } from '../../http/time.js';
import type { DcRecordRow, OrderHeaderRow } from './order-searches.repository.js';
import type { Dc, DcRecord, OrderLevelRow } from './order-searches.schemas.js';
import { orderDate, referenceNoOf, type StoredOrder } from './orders.present.js';
import type { OrderStatus } from './order-states.js';

/** Rows → the spec's wire shapes (DC records of docs/compatibility.md; DN header rows of spec 2.10). */

/** The DC as the shipment confirmation stored it: everything but its time, shown in the facility's zone. */
type StoredDc = Omit<Dc, 'ShippedDate'>;

/** The stored DC with ShippedDate, facility-local, right after OrderNo where docs/compatibility.md lists it. */
function presentDc(stored: StoredDc, shippedAt: number, timeZone: string): Dc {
  return {
    CompanyID: stored.CompanyID,
    OrderNo: stored.OrderNo,
    ShippedDate: formatFacilityLocal(shippedAt, timeZone),
    BOLNo: stored.BOLNo ?? null,
    LoadNo: stored.LoadNo ?? null,
    SCACCode: stored.SCACCode ?? null,
    CarrierName: stored.CarrierName ?? null,
    TrackingNo: stored.TrackingNo ?? null,
    ProNo: stored.ProNo ?? null,
    Items: stored.Items,
  };
}

export function presentDcRecord(row: DcRecordRow, timeZone: string): DcRecord {
  return {
    FacilityID: row.facility_id,
    CustomerID: row.customer_id,
    ReferenceNo: referenceNoOf(row),
    PONo: row.po_no,
    DC: presentDc(JSON.parse(row.dc) as StoredDc, row.shipped_at, timeZone),
    CreatedWhen: formatFacilityLocal(row.created_at, timeZone),
  };
}

/** An optional text of the import; an empty one is no value, as an absent one. */
const textOf = (value: string | null | undefined): string | null => (value === undefined || value === null || value === '' ? null : value);

/** The facility-local calendar date of an instant: the date part of its facility-local date-time. */
const facilityLocalDate = (epochMs: number, timeZone: string) => formatFacilityLocal(epochMs, timeZone).slice(0, 'yyyy-MM-dd'.length);

type Address = NonNullable<StoredOrder['POContent']['Address']>;

/** One party's address on one line: Address1, Address2, City, "State Zip", Country, skipping empty parts. */
function addressLine(address: Address | undefined, party: 'ShipTo' | 'SoldTo'): string | null {
  if (!address) return null;
  const part = (name: string) => textOf(address[`${party}${name}` as keyof Address]);
  const stateZip = [part('State'), part('ZipCode')].filter((p) => p !== null).join(' ');
  const parts = [part('Address1'), part('Address2'), part('City'), stateZip, part('Country')].filter((p) => p !== null && p !== '');
  return parts.length > 0 ? parts.join(', ') : null;
}

const DYNAMIC_KEYS = Array.from({ length: 20 }, (_, i) => `DynTxtPropertyValue${String(i + 1).padStart(2, '0')}`);

/** The customized fields the order set, in their numbered order; null when it set none. */
function dynamicProperties(content: StoredOrder['POContent']): Record<string, string> | null {
  const set = DYNAMIC_KEYS.flatMap((key) => {
    const value = textOf(content[key] as string | null | undefined);
    return value === null ? [] : [[key, value] as const];
  });
  return set.length > 0 ? Object.fromEntries(set) : null;
}

/** How an order date of the import is shown, given its text: orderDate, or a memo of it. */
export type OrderDateOf = (text: string | null | undefined) => string | null;

/**
 * orderDate in one zone, remembered by text: the orders of one page often share their dates, and
 * Luxon's parse (a parser built on every call, then the DST check) is most of a row's building.
 * Made for one request, so it holds at most a page's dates.
 */
export function orderDateMemo(timeZone: string): OrderDateOf {
  const shown = new Map<string, string | null>();
  return (text) => {
    if (text === undefined || text === null || text === '') return null;
    if (shown.has(text)) return shown.get(text)!;
    const value = orderDate(text, timeZone);
    shown.set(text, value);
    return value;
  };
}

/**
 * A DN header row of spec 2.10, keyed by the head names. The shipment columns come from the
 * order's latest shipment confirmation; the carrier and SCAC code fall back to what the import
 * asked for. A page passes one `dateOf` for all its rows (orderDateMemo).
 */
export function presentOrderLevelRow(
  row: OrderHeaderRow,
  timeZone: string,
  dateOf: OrderDateOf = (text) => orderDate(text, timeZone),
): OrderLevelRow {
  const content = (JSON.parse(row.document) as StoredOrder).POContent;
  const shipping = content.ShippingInfo;
  const address = content.Address;
  return {
    Facility: row.facility_id,
    Customer: row.customer_id,
    'Order #': row.svcpoid,
    Status: row.status as OrderStatus,
    'Order Type': textOf(content.OrderType),
    'Load #': textOf(content.LoadNo),
    'PO #': row.po_no,
    'Customer BOL': textOf(content.BOLNo),
    'Shipping Account No': textOf(shipping?.ShippingAccountNo),
    // Every order arrives through the EDI import today.
    Source: 'EDI',
    'Ship Not Before': dateOf(content.ShipNotBefore),
    'Ship Not Later': dateOf(content.ShipNoLater || content.ShipNotLater),
    'Hold At Location': textOf(shipping?.HoldAtLocation),
    'Hold At Carrier': textOf(shipping?.HoldAtCarrier),
    'Consolidation No': textOf(content.ConsolidationNo),
    'Ref.#': referenceNoOf(row),
    'Equipment Type': textOf(shipping?.EquipmentType),
    'Appointment Time': dateOf(content.AppointmentTime),
    'Desired Schedule Date': dateOf(content.ScheduledDate),
    'Delivery Request Date': dateOf(content.DeliveryRequestDate),
    'Shipped Time': row.shipped_at === null ? null : formatFacilityLocal(row.shipped_at, timeZone),
    Carrier: textOf(row.shipped_carrier_name) ?? textOf(shipping?.CarrierName),
    'SCAC Code': textOf(row.shipped_scac_code) ?? textOf(shipping?.SCACCode),
    'Delivery Service': textOf(shipping?.DeliveryService),
    'Pro #': textOf(row.shipped_pro_no),
    'Freight Term': textOf(shipping?.FreightTerm),
    'Retailer Name': textOf(content.RetailerName),
    'Ship To Name': textOf(address?.ShipToName),
    'Ship To Address': addressLine(address, 'ShipTo'),
    'Sold To Name': textOf(address?.SoldToName),
    'Sold To Address': addressLine(address, 'SoldTo'),
    'Freight Bill To Name': textOf(address?.BillToName),
    'Label Notes': textOf(content.OrderNotes?.LabelNote),
    InvoiceNo: textOf(content.InvoiceNo),
    'Order Created By': `API key ${row.created_by_key_id}`,
    'Order Dynamic Property': dynamicProperties(content),
    'Shipped Date': row.shipped_at === null ? null : facilityLocalDate(row.shipped_at, timeZone),
    'Created Date': facilityLocalDate(row.created_at, timeZone),
    'Create Time': formatFacilityLocal(row.created_at, timeZone),
    'Update Time': formatWithOffset(row.updated_at, timeZone),
  };
}
