/**
 * A 943 (Warehouse Stock Transfer Shipment Advice) as the RN import it stands for (docs/x12.md;
 * docs/x12.md maps every element). The body is checked later, by the import's own schema and
 * service; here every field only remembers the element it came from.
 */
import type { ReceiptImportRequest } from '../receipts/receipts.schemas.js';
import { isoLocalDate, itemIdElement, KEPT_SEGMENTS_KEY, SetReader, wharfUom } from './set-reading.js';
import { elementValue, type PositionedSegment, type X12TransactionSet } from './x12-syntax.js';

export const RECEIPT_ADVICE_SET = '943';

/** N1-01 (98) entity codes that name the receiving warehouse, the first found first. */
const WAREHOUSE_PARTIES = ['WH', 'ST'];
/** The parties Wharf maps: the warehouse, and the supplier the goods come from. */
const MAPPED_PARTIES = new Set([...WAREHOUSE_PARTIES, 'SF']);
/** G62-01 (432) qualifiers of the expected arrival. */
const ARRIVAL_DATES = new Set(['17', '02']);
/** W04's product id pairs: 04/05, 06/07, 15/16. */
const W04_ITEM_PAIRS = [
  [4, 5],
  [6, 7],
  [15, 16],
] as const;

export interface ReadReceiptAdvice {
  body: ReceiptImportRequest;
  reader: SetReader;
}

/** Reads a 943 for a partner's customer into the RN import body it stands for. */
export function readReceiptAdvice(set: X12TransactionSet, ids: { companyId: string; customerId: string }): ReadReceiptAdvice {
  const reader = new SetReader(set, 'ASNContent.PONo');
  const content: Record<string, unknown> = { Status: 'Imported' };
  const root: Record<string, unknown> = { CompanyID: ids.companyId, CustomerID: ids.customerId };
  const lines: Record<string, unknown>[] = [];
  const parties = new Map<string, PositionedSegment>();
  const notes: string[] = [];
  let header: PositionedSegment | undefined;
  let carrier: PositionedSegment | undefined;
  let line: Record<string, unknown> | undefined;

  for (const segment of reader.segments) {
    const path = `ASNContent.Items[${lines.length - 1}]`;
    switch (segment.id) {
      case 'W06':
        if (header) continue;
        header = segment;
        break;
      case 'N1': {
        const party = elementValue(segment, 1);
        if (line || parties.has(party) || !MAPPED_PARTIES.has(party)) continue;
        parties.set(party, segment);
        break;
      }
      case 'N9': {
        const field = { BM: 'BOLNo', SN: 'Seals' }[elementValue(segment, 1)];
        if (line || !field || content[field] !== undefined) continue;
        reader.put(content, field, `ASNContent.${field}`, segment, { id: 'N9', element: 2, reference: '127' });
        break;
      }
      case 'G62':
        if (line || !ARRIVAL_DATES.has(elementValue(segment, 1)) || content.ScheduledDate !== undefined) continue;
        reader.put(content, 'ScheduledDate', 'ASNContent.ScheduledDate', segment, { id: 'G62', element: 2, reference: '373' }, (date) =>
          isoLocalDate(date, elementValue(segment, 4)),
        );
        break;
      case 'W27':
        if (line || carrier) continue;
        carrier = segment;
        break;
      case 'NTE':
        if (line || elementValue(segment, 2) === '') continue;
        notes.push(elementValue(segment, 2));
        reader.sources.set('ASNContent.ShippingInstruction', {
          segmentId: 'NTE',
          position: segment.position,
          element: 2,
          reference: '352',
        });
        break;
      case 'W04': {
        line = {};
        lines.push(line);
        const at = `ASNContent.Items[${lines.length - 1}]`;
        reader.put(line, 'ExpectedQty', `${at}.ExpectedQty`, segment, { id: 'W04', element: 1, reference: '382' });
        reader.put(line, 'UOM', `${at}.UOM`, segment, { id: 'W04', element: 2, reference: '355' }, wharfUom);
        const itemElement = itemIdElement(segment, W04_ITEM_PAIRS);
        reader.put(line, 'ItemNumber', `${at}.ItemNumber`, segment, { id: 'W04', element: itemElement, reference: '234' });
        reader.put(line, 'LotNo', `${at}.LotNo`, segment, { id: 'W04', element: 13, reference: '461' });
        break;
      }
      case 'G69':
        if (!line || line.ItemNotes !== undefined) continue;
        reader.put(line, 'ItemNotes', `${path}.ItemNotes`, segment, { id: 'G69', element: 1, reference: '352' });
        break;
      case 'W03':
        // The totals repeat what the lines say; the lines are what Wharf keeps.
        break;
      default:
        continue;
    }
    reader.take(segment);
  }

  reader.put(content, 'ReferenceNo', 'ASNContent.ReferenceNo', header, { id: 'W06', element: 2, reference: '285' });
  const poElement = header && elementValue(header, 6) !== '' ? 6 : 2;
  reader.put(content, 'PONo', 'ASNContent.PONo', header, { id: 'W06', element: poElement, reference: poElement === 6 ? '324' : '285' });
  reader.put(content, 'ETD', 'ASNContent.ETD', header, { id: 'W06', element: 3, reference: '373' }, (date) => isoLocalDate(date, ''));
  // Also without a W27: the carrier is required (either of the two), and the 997 names where it belongs.
  reader.put(content, 'SCACCode', 'ASNContent.SCACCode', carrier, { id: 'W27', element: 2, reference: '140' });
  reader.put(content, 'CarrierName', 'ASNContent.CarrierName', carrier, { id: 'W27', element: 3, reference: '387' });
  // A container is named by its equipment initial (W27-04) and number (W27-05) together.
  reader.put(
    content,
    'ContainerNo',
    'ASNContent.ContainerNo',
    carrier,
    { id: 'W27', element: 5, reference: '207' },
    (number) => elementValue(carrier!, 4) + number,
  );
  const warehouse = WAREHOUSE_PARTIES.map((party) => parties.get(party)).find((found) => found !== undefined);
  reader.put(root, 'FacilityID', 'FacilityID', warehouse, { id: 'N1', element: 4, reference: '67' });
  reader.put(content, 'SupplierID', 'ASNContent.SupplierID', parties.get('SF'), { id: 'N1', element: 4, reference: '67' });
  if (notes.length > 0) content.ShippingInstruction = notes.join(' ');
  if (lines.length > 0) content.Items = lines;
  else
    reader.sources.set('ASNContent.Items', { segmentId: 'W04', position: reader.endPosition, missing: true, element: 1, reference: '382' });

  const kept = reader.keptSegments();
  const body = { ...root, ASNContent: content, ...(kept.length > 0 ? { [KEPT_SEGMENTS_KEY]: kept } : {}) };
  return { body: body as unknown as ReceiptImportRequest, reader };
}
