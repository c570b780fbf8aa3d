import { formatFacilityLocal, formatWithOffset, parseOrderDate } from '../../http/time.js';
import type * as repo from './orders.repository.js';
import { OrderImportRequestSchema, type OrderImportRequest, type PoContent } from './orders.schemas.js';
import type { OrderStatus } from './order-states.js';
import type { OrderHeader } from './shipping.schemas.js';

/**
 * An order's stored import: the POContent as it came, the root TitleID and, when the import sent
 * any, the root keys the spec does not define. Documents stored before root keys were kept have no
 * `RootExtras` and read as having none.
 */
export interface StoredOrder {
  TitleID: string | null;
  POContent: PoContent & Record<string, unknown>;
  RootExtras?: Record<string, unknown>;
}

export const storedOrder = (order: repo.OrderRow): StoredOrder => JSON.parse(order.document) as StoredOrder;

/** The root keys the DN import defines; any other root key is the customer's own, kept as sent. */
const IMPORT_ROOT_KEYS = new Set(Object.keys(OrderImportRequestSchema.properties));

/** The `document` column of an imported order (StoredOrder as JSON). */
export function storedOrderDocumentOf(request: OrderImportRequest): string {
  const document: StoredOrder = { TitleID: request.TitleID ?? null, POContent: request.POContent };
  const rootExtras = Object.entries(request).filter(([key]) => !IMPORT_ROOT_KEYS.has(key));
  // Without extras the JSON stays byte for byte what it always was.
  return JSON.stringify(rootExtras.length > 0 ? { ...document, RootExtras: Object.fromEntries(rootExtras) } : document);
}

/** The ReferenceNo as it was sent: a number when it came as one. */
export const referenceNoOf = (row: { reference_no: string; reference_no_type: string }): string | number =>
  row.reference_no_type === 'number' ? Number(row.reference_no) : row.reference_no;

/** An order line's number as shipments name it: the customer's LineNo, or its position from 1. */
export const lineNoOf = (line: repo.OrderLineRow): number => line.customer_line_no ?? line.line_no;

/** An order date of the import (validated by its format), shown facility-local; null when not given. */
export function orderDate(text: string | null | undefined, timeZone: string): string | null {
  if (text === undefined || text === null || text === '') return null;
  return formatFacilityLocal(parseOrderDate(text, timeZone)!, timeZone);
}

export function presentOrderHeader(order: repo.OrderRow, document: StoredOrder, timeZone: string): OrderHeader {
  const content = document.POContent;
  return {
    SVCPOID: order.svcpoid,
    CustomerID: order.customer_id,
    FacilityID: order.facility_id,
    ReferenceNo: referenceNoOf(order),
    PONo: order.po_no,
    Status: order.status as OrderStatus,
    OrderType: content.OrderType ?? null,
    ShipToName: content.Address?.ShipToName ?? null,
    CarrierName: content.ShippingInfo?.CarrierName ?? null,
    SCACCode: content.ShippingInfo?.SCACCode ?? null,
    ShipNotBefore: orderDate(content.ShipNotBefore, timeZone),
    ShipNoLater: orderDate(content.ShipNoLater || content.ShipNotLater, timeZone),
    CreatedWhen: formatFacilityLocal(order.created_at, timeZone),
    UpdatedWhen: formatWithOffset(order.updated_at, timeZone),
  };
}

/** Every POContent date, which the 3PL get shows in the facility-local form of every other time. */
const ORDER_DATE_KEYS = [
  'ShipNotBefore',
  'ShipNoLater',
  'ShipNotLater',
  'ScheduledDate',
  'AppointmentTime',
  'DeliveryRequestDate',
] as const;

/**
 * What the 3PL get shows of the import, before the service's own fields: the root keys the spec
 * does not define first, then every POContent key (so a content key wins over a root key of the
 * same name), its dates in the facility-local form.
 */
export function presentImportedOrder(document: StoredOrder, timeZone: string): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...document.RootExtras, ...document.POContent };
  for (const key of ORDER_DATE_KEYS) {
    if (key in document.POContent) shown[key] = orderDate(document.POContent[key], timeZone);
  }
  return shown;
}
