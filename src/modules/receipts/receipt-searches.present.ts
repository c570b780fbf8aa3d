import { formatFacilityLocal, formatWithOffset } from '../../http/time.js';
import type { ConfirmationRecordRow, ReceiptHeaderRow } from './receipt-searches.repository.js';
import { RC_DYNAMIC_KEYS, type Rc, type RcRecord, type ReceiptLevelRow } from './receipt-searches.schemas.js';
import type { ReceiptStatus } from './receipt-states.js';

/** Rows → the spec's wire shapes (RC records of spec 2.6; receipt-level rows of docs/compatibility.md). */

type Json = Record<string, unknown>;

const nullDynamics = () => Object.fromEntries(RC_DYNAMIC_KEYS.map((key) => [key, null]));

/**
 * A carton as the confirmation sent it, with every spec key present (null where it was left out)
 * and in the spec's order; keys the spec does not list stay, after them.
 */
function presentCarton(carton: Json): Json {
  const lines = Array.isArray(carton.ItemLines) ? (carton.ItemLines as Json[]) : [];
  return {
    CartonNo: null,
    PoundPerCarton: null,
    ...carton,
    ItemLines: lines.map((line) => ({ ItemID: null, LotNo: null, QtyInCarton: null, UOM: null, ...nullDynamics(), ...line })),
  };
}

/**
 * The stored RC object with its time field: ReceivedDate, facility-local, right after SVCPOID
 * where the spec lists it.
 */
function presentRc(stored: Json, receivedAt: number, timeZone: string): Rc {
  const receivedDate = formatFacilityLocal(receivedAt, timeZone);
  const rc: Json = {};
  for (const [key, value] of Object.entries(stored)) {
    if (key === 'ReceivedDate') continue;
    rc[key] = key === 'Cartons' && Array.isArray(value) ? (value as Json[]).map(presentCarton) : value;
    if (key === 'SVCPOID') rc.ReceivedDate = receivedDate;
  }
  if (!('ReceivedDate' in rc)) rc.ReceivedDate = receivedDate;
  return rc as Rc;
}

export function presentRcRecord(row: ConfirmationRecordRow, timeZone: string): RcRecord {
  return {
    FacilityID: row.facility_id,
    CustomerID: row.customer_id,
    ReferenceNo: row.reference_no,
    PONo: row.po_no,
    RC: presentRc(JSON.parse(row.rc) as Json, row.received_at, timeZone),
    CreatedWhen: formatFacilityLocal(row.created_at, timeZone),
  };
}

export function presentReceiptLevelRow(row: ReceiptHeaderRow, timeZone: string): ReceiptLevelRow {
  return {
    Facility: row.facility_id,
    Customer: row.customer_id,
    'Receipt #': row.svcpoid,
    Status: row.status as ReceiptStatus,
    'PO #': row.po_no,
    'Ref.#': row.reference_no,
    Carrier: row.carrier_name,
    'Container No': row.container_no,
    BOL: row.bol_no,
    'SCAC Code': row.scac_code,
    'Schedule Date': row.scheduled_at === null ? null : formatFacilityLocal(row.scheduled_at, timeZone),
    'Received Date': row.last_received_at === null ? null : formatFacilityLocal(Number(row.last_received_at), timeZone),
    'Create Time': formatFacilityLocal(row.created_at, timeZone),
    'Update Time': formatWithOffset(row.updated_at, timeZone),
  };
}
