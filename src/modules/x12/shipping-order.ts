/**
 * A 940 (Warehouse Shipping Order) as the DN import or cancel it stands for, by its W05-01 purpose
 * (docs/x12.md; docs/x12.md maps every element). The body is checked later, by the operation's own
 * schema and service; here every field only remembers the element it came from.
 */
import type { OrderCancelRequest, OrderImportRequest } from '../orders/orders.schemas.js';
import { isoLocalDate, itemIdElement, KEPT_SEGMENTS_KEY, SetReader, wharfUom } from './set-reading.js';
import { ElementError, elementValue, type PositionedSegment, type X12TransactionSet } from './x12-syntax.js';

export const SHIPPING_ORDER_SET = '940';

/** W05-01 (473): N original and R replace import the order (a re-import updates it), F cancels it. */
const PURPOSES = { N: 'import', R: 'import', F: 'cancel' } as const;
/** N1-01 (98) entity codes of the warehouse that ships, the first found first. */
const WAREHOUSE_PARTIES = ['WH', 'SF'];
/** N1-01 of the addresses an order carries, and the prefix of their fields in Address. */
const ADDRESS_PARTIES: Record<string, 'ShipTo' | 'SoldTo' | 'BillTo'> = { ST: 'ShipTo', BT: 'BillTo', SO: 'SoldTo', BY: 'SoldTo' };
/** N9-01 (128) reference qualifiers Wharf keeps, and their POContent fields. */
const REFERENCES: Record<string, string> = { BM: 'BOLNo', LO: 'LoadNo', CO: 'CustomerSONo', IV: 'InvoiceNo' };
/** G62-01 (432) date qualifiers, and their POContent fields. */
const DATES: Record<string, string> = { '37': 'ShipNotBefore', '38': 'ShipNoLater', '10': 'ScheduledDate', '02': 'DeliveryRequestDate' };
/** PER's communication number qualifiers (365), and the address fields they fill. */
const CONTACT_NUMBERS: Record<string, 'Phone' | 'Email'> = { TE: 'Phone', EM: 'Email' };
/** The ship-to fields an order requires: the segment and element (and its reference number) each comes from. */
const SHIP_TO_REQUIRED = [
  ['Name', 'N1', 2, '93'],
  ['Address1', 'N3', 1, '166'],
  ['City', 'N4', 1, '19'],
  ['State', 'N4', 2, '156'],
  ['ZipCode', 'N4', 3, '116'],
] as const;
/** W01's product id pairs: 04/05, 06/07, 15/16. */
const W01_ITEM_PAIRS = [
  [4, 5],
  [6, 7],
  [15, 16],
] as const;

export type ReadShippingOrder =
  | { action: 'import'; body: OrderImportRequest; reader: SetReader }
  | { action: 'cancel'; body: OrderCancelRequest; reader: SetReader };

/** Reads a 940 for a partner's customer into the DN import or cancel body it stands for. */
export function readShippingOrder(set: X12TransactionSet, ids: { companyId: string; customerId: string }): ReadShippingOrder {
  const reader = new SetReader(set, 'POContent.ReferenceNo');
  const content: Record<string, unknown> = {};
  const root: Record<string, unknown> = { CompanyID: ids.companyId, CustomerID: ids.customerId };
  const address: Record<string, unknown> = {};
  const shipping: Record<string, unknown> = {};
  const lines: Record<string, unknown>[] = [];
  const warehouses = new Map<string, PositionedSegment>();
  const notes: string[] = [];
  let header: PositionedSegment | undefined;
  let party: 'ShipTo' | 'SoldTo' | 'BillTo' | undefined;
  let line: Record<string, unknown> | undefined;
  let lineNo: PositionedSegment | undefined;

  for (const segment of reader.segments) {
    const id = segment.id;
    const at = `POContent.Items[${lines.length - 1}]`;
    if (id !== 'N2' && id !== 'N3' && id !== 'N4' && id !== 'PER') party = undefined;
    switch (id) {
      case 'W05':
        if (header) continue;
        header = segment;
        break;
      case 'N1': {
        const code = elementValue(segment, 1);
        if (line) continue;
        if (WAREHOUSE_PARTIES.includes(code) && !warehouses.has(code)) {
          warehouses.set(code, segment);
          break;
        }
        const prefix = ADDRESS_PARTIES[code];
        if (!prefix || address[`${prefix}Name`] !== undefined) continue;
        party = prefix;
        putAddress(reader, address, segment, `${prefix}Name`, 2, '93');
        break;
      }
      case 'N3':
        if (!party) continue;
        putAddress(reader, address, segment, `${party}Address1`, 1, '166');
        putAddress(reader, address, segment, `${party}Address2`, 2, '166');
        break;
      case 'N4':
        if (!party) continue;
        putAddress(reader, address, segment, `${party}City`, 1, '19');
        putAddress(reader, address, segment, `${party}State`, 2, '156');
        putAddress(reader, address, segment, `${party}ZipCode`, 3, '116');
        // N4-04 is sent only outside the United States (its 004010 note).
        if (!putAddress(reader, address, segment, `${party}Country`, 4, '26')) address[`${party}Country`] = 'US';
        break;
      case 'PER':
        if (party !== 'ShipTo') continue;
        putAddress(reader, address, segment, 'ShipToContact', 2, '93');
        for (const numberAt of [3, 5, 7]) {
          const field = CONTACT_NUMBERS[elementValue(segment, numberAt)];
          if (field) putAddress(reader, address, segment, `ShipTo${field}`, numberAt + 1, '364');
        }
        break;
      case 'N9': {
        const field = REFERENCES[elementValue(segment, 1)];
        if (line || !field || content[field] !== undefined) continue;
        reader.put(content, field, `POContent.${field}`, segment, { id, element: 2, reference: '127' });
        break;
      }
      case 'G62': {
        const field = DATES[elementValue(segment, 1)];
        if (line || !field || content[field] !== undefined) continue;
        reader.put(content, field, `POContent.${field}`, segment, { id, element: 2, reference: '373' }, (date) =>
          isoLocalDate(date, elementValue(segment, 4)),
        );
        break;
      }
      case 'NTE':
        if (line || elementValue(segment, 2) === '') continue;
        notes.push(elementValue(segment, 2));
        reader.sources.set('POContent.OrderNotes.Note', { segmentId: id, position: segment.position, element: 2, reference: '352' });
        break;
      case 'W66':
        if (line || Object.keys(shipping).length > 0) continue;
        reader.put(shipping, 'FreightTerm', 'POContent.ShippingInfo.FreightTerm', segment, { id, element: 1, reference: '146' });
        reader.put(shipping, 'ShipMethod', 'POContent.ShippingInfo.ShipMethod', segment, { id, element: 2, reference: '91' });
        reader.put(shipping, 'CarrierName', 'POContent.ShippingInfo.CarrierName', segment, { id, element: 5, reference: '387' });
        reader.put(shipping, 'SCACCode', 'POContent.ShippingInfo.SCACCode', segment, { id, element: 10, reference: '140' });
        break;
      case 'LX':
        lineNo = segment;
        line = undefined;
        break;
      case 'W01': {
        line = {};
        lines.push(line);
        const path = `POContent.Items[${lines.length - 1}]`;
        if (lineNo && /^\d{1,9}$/.test(elementValue(lineNo, 1))) {
          line.LineNo = Number(elementValue(lineNo, 1));
          reader.sources.set(`${path}.LineNo`, { segmentId: 'LX', position: lineNo.position, element: 1, reference: '554' });
        }
        lineNo = undefined;
        reader.put(line, 'OrderedQty', `${path}.OrderedQty`, segment, { id, element: 1, reference: '330' });
        reader.put(line, 'UOM', `${path}.UOM`, segment, { id, element: 2, reference: '355' }, wharfUom);
        reader.put(line, 'ItemID', `${path}.ItemID`, segment, { id, element: itemIdElement(segment, W01_ITEM_PAIRS), reference: '234' });
        reader.put(line, 'LotNo', `${path}.LotNo`, segment, { id, element: 13, reference: '461' });
        break;
      }
      case 'G69':
        if (!line || line.ItemNote !== undefined) continue;
        reader.put(line, 'ItemNote', `${at}.ItemNote`, segment, { id, element: 1, reference: '352' });
        break;
      case 'W76':
        // The totals repeat what the lines say; the lines are what Wharf keeps.
        break;
      default:
        continue;
    }
    reader.take(segment);
  }

  reader.put(content, 'ReferenceNo', 'POContent.ReferenceNo', header, { id: 'W05', element: 2, reference: '285' });
  reader.put(content, 'PONo', 'POContent.PONo', header, { id: 'W05', element: 3, reference: '324' });
  const warehouse = WAREHOUSE_PARTIES.map((code) => warehouses.get(code)).find((found) => found !== undefined);
  reader.put(root, 'FacilityID', 'FacilityID', warehouse, { id: 'N1', element: 4, reference: '67' });

  const purposeCode = header ? elementValue(header, 1) : '';
  const action = PURPOSES[purposeCode as keyof typeof PURPOSES];
  if (header && !action) {
    reader.problems.push({
      source: { segmentId: 'W05', position: header.position, element: 1, reference: '473', value: purposeCode },
      code: purposeCode === '' ? ElementError.mandatoryMissing : ElementError.invalidCode,
      message: `W05-01 ${purposeCode === '' ? 'is missing' : `${purposeCode} is not a purpose Wharf takes`}: N (new), R (replace) or F (cancel)`,
    });
  }
  if (action === 'cancel') {
    const body = { ...root, ReferenceNo: content.ReferenceNo, ...(content.PONo !== undefined ? { PONo: content.PONo } : {}) };
    reader.sources.set('ReferenceNo', reader.sources.get('POContent.ReferenceNo')!);
    reader.sources.set('PONo', reader.sources.get('POContent.PONo')!);
    return { action, body: body as OrderCancelRequest, reader };
  }

  // The ship-to fields an order requires, where a 940 that lacks them would have carried them.
  for (const [field, segmentId, element, reference] of SHIP_TO_REQUIRED) {
    const path = `POContent.Address.ShipTo${field}`;
    if (!reader.sources.get(path)) reader.sources.set(path, { segmentId, position: reader.endPosition, missing: true, element, reference });
  }
  if (Object.keys(address).length > 0) content.Address = address;
  else
    reader.sources.set('POContent.Address', { segmentId: 'N1', position: reader.endPosition, missing: true, element: 1, reference: '98' });
  if (Object.keys(shipping).length > 0) content.ShippingInfo = shipping;
  if (notes.length > 0) content.OrderNotes = { Note: notes.join(' ') };
  if (lines.length > 0) content.Items = lines;
  else
    reader.sources.set('POContent.Items', { segmentId: 'W01', position: reader.endPosition, missing: true, element: 1, reference: '330' });
  const kept = reader.keptSegments();
  const body = { ...root, POContent: content, ...(kept.length > 0 ? { [KEPT_SEGMENTS_KEY]: kept } : {}) };
  return { action: 'import', body: body as unknown as OrderImportRequest, reader };
}

/** One Address field from an N1 loop segment; answers whether the element had a value. */
function putAddress(
  reader: SetReader,
  address: Record<string, unknown>,
  segment: PositionedSegment,
  field: string,
  element: number,
  reference: string,
): boolean {
  return reader.put(address, field, `POContent.Address.${field}`, segment, { id: segment.id, element, reference }) !== undefined;
}
