import { formatFacilityLocal, parseScheduleDate } from '../../http/time.js';
import { decimalToNumber, formatDecimal } from '../../lib/decimal.js';
import type { ItemDescription } from '../items/items.service.js';
import type { ReceiptLineRow, ReceiptRow } from './receipts.repository.js';
import { ReceiptImportRequestSchema, type ReceiptImportRequest } from './receipts.schemas.js';
import type { ConfirmationLine, ConfirmationRequest } from './receiving.schemas.js';

/**
 * A receipt's stored import: the ASNContent as it came, the root TitleID and, when the import sent
 * any, the root keys the spec does not define. Documents stored before root keys were kept have no
 * `RootExtras` and read as having none.
 */
export interface StoredDocument {
  TitleID: string | null;
  ASNContent: Record<string, unknown> & { Items?: Record<string, unknown>[] };
  RootExtras?: Record<string, unknown>;
}

/** The root keys the RN import defines; any other root key is the customer's own, kept as sent. */
const IMPORT_ROOT_KEYS = new Set(Object.keys(ReceiptImportRequestSchema.properties));

/** The `document` column of an imported receipt (StoredDocument as JSON). */
export function storedDocumentOf(request: ReceiptImportRequest): string {
  const document: StoredDocument = { TitleID: request.TitleID ?? null, ASNContent: request.ASNContent };
  const rootExtras = Object.entries(request).filter(([key]) => !IMPORT_ROOT_KEYS.has(key));
  // Without extras the JSON stays byte for byte what it always was.
  return JSON.stringify(rootExtras.length > 0 ? { ...document, RootExtras: Object.fromEntries(rootExtras) } : document);
}

/** The ASNContent dates, which the 3PL get shows in the facility-local form of every other time. */
const RECEIPT_DATE_KEYS = ['ScheduledDate', 'ETD'] as const;

/** A ScheduledDate or ETD as imported (already validated), shown facility-local; null when not given. */
function receiptDate(text: unknown, timeZone: string): string | null {
  if (typeof text !== 'string' || text.trim() === '') return null;
  return formatFacilityLocal(parseScheduleDate(text, timeZone)!, timeZone);
}

/**
 * What the 3PL get shows of the import, before the service's own fields: the root keys the spec
 * does not define first, then every ASNContent key (so a content key wins over a root key of the
 * same name), its dates in the facility-local form.
 */
export function presentImportedReceipt(document: StoredDocument, timeZone: string): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...document.RootExtras, ...document.ASNContent };
  for (const key of RECEIPT_DATE_KEYS) {
    if (key in document.ASNContent) shown[key] = receiptDate(document.ASNContent[key], timeZone);
  }
  return shown;
}

/** A confirmed line and the receipt line it filled (none when the receipt did not announce it). */
export interface MatchedLine {
  line: ConfirmationLine;
  quantity: number;
  target: ReceiptLineRow | undefined;
}

/** DynTxtPropertyValue01–20 of `source`, under the keys `prefixFor(n)` names (null where unset). */
function dynamicValues(source: Record<string, unknown>, prefixFor: (n: number) => string) {
  return Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => {
      const n = String(i + 1).padStart(2, '0');
      return [`${prefixFor(i + 1)}${n}`, (source[`DynTxtPropertyValue${n}`] as string | undefined) ?? null];
    }),
  );
}

/** A value a line actually sends: null, absent, `""` and spaces alone are no value (docs/operations.md). */
const sendsValue = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * The customized fields of a received line: per property, the confirmation line's own value when it
 * sends one, otherwise the value the matched RN line announced (the warehouse rarely re-keys what
 * the ASN already said, and the customer expects it back on the RC).
 */
function receivedLineDynamics(line: Record<string, unknown>, announced: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!announced) return line;
  return Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => {
      const key = `DynTxtPropertyValue${String(i + 1).padStart(2, '0')}`;
      return [key, sendsValue(line[key]) || !sendsValue(announced[key]) ? line[key] : announced[key]];
    }),
  );
}

/**
 * The RC object of spec 2.6 for one confirmation, quirks included (`SVCCompanyID`, the lower-case
 * `dynTxtPropertyValue11–20` of the published example, SerialNumber as an array, ReceivedQuantity a
 * number and ExpectedQty text). ReceivedDate is added when it is shown, in the facility's zone. An
 * item's customized fields fall back to its RN line's (receivedLineDynamics).
 */
export function presentRc(
  receipt: ReceiptRow,
  document: StoredDocument,
  request: ConfirmationRequest,
  matched: MatchedLine[],
  descriptions: Map<string, ItemDescription>,
) {
  return {
    SVCCompanyID: receipt.company_id,
    CustomerID: receipt.customer_id,
    SupplierID: receipt.supplier_id,
    PONo: receipt.po_no,
    ReferenceNo: receipt.reference_no,
    SVCPOID: receipt.svcpoid,
    ContainerNumber: receipt.container_no,
    BOLNo: receipt.bol_no,
    CarrierName: receipt.carrier_name,
    SCACCode: receipt.scac_code,
    ...dynamicValues(document.ASNContent, () => 'DynTxtPropertyValue'),
    Items: matched.map(({ line, quantity, target }) => ({
      POLineNo: line.POLineNo ?? target?.po_line_no ?? null,
      ItemNumber: line.ItemNumber,
      ItemShortDescription: descriptions.get(line.ItemNumber)?.shortDescription ?? null,
      ItemDescription: descriptions.get(line.ItemNumber)?.itemDescription ?? null,
      ReceivedQuantity: decimalToNumber(quantity),
      CustomerMaterial: null,
      Diverse: null,
      ItemNote: line.ItemNote ?? null,
      SerialNumber: line.SerialNumber ?? [],
      LotNo: line.LotNo ?? null,
      UOM: line.UOM,
      ExpectedQty: target ? formatDecimal(target.expected_qty) : null,
      ExpirationDate: line.ExpirationDate ?? null,
      SHIPMENTLINEID: target ? String(target.line_no) : null,
      SupplierID: receipt.supplier_id,
      SupplierName: null,
      ...dynamicValues(receivedLineDynamics(line, target && document.ASNContent.Items?.[target.line_no - 1]), (n) =>
        n > 10 ? 'dynTxtPropertyValue' : 'DynTxtPropertyValue',
      ),
    })),
    Cartons: request.Cartons ?? [],
    Note: request.Note ?? null,
    PalletQty: request.PalletQty ?? null,
    TitleID: document.TitleID,
    RECEIPTSOURCECODE: null,
    ORGANIZATIONCODE: null,
    TOSUBINVENTORY: null,
  };
}
