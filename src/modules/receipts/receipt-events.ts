import type { Trx } from '../../db/database.js';
import * as events from '../events/events.service.js';
import type { EventType } from '../events/events.schemas.js';
import type { ReceiptStatus } from './receipt-states.js';
import type { ReceiptRow } from './receipts.repository.js';

/** What the changes of a receipt tell subscribers (DESIGN §13): the receipt's numbers and its new status. */

export type ReceiptEventType = Extract<EventType, `receipt.${string}`>;

/** Who made the change, and when. */
export interface Change {
  keyId: number;
  at: number;
}

type NamedReceipt = Pick<ReceiptRow, 'company_id' | 'customer_id' | 'facility_id' | 'svcpoid' | 'po_no' | 'reference_no'>;

/** Records `type` for the receipt, now in `status`; `details` say what else the event is about. */
export function recordReceiptEvent(
  trx: Trx,
  type: ReceiptEventType,
  receipt: NamedReceipt,
  status: ReceiptStatus,
  change: Change,
  details: Record<string, unknown> = {},
): void {
  events.recordEvent(trx, {
    type,
    keyId: change.keyId,
    at: change.at,
    data: {
      CompanyID: receipt.company_id,
      CustomerID: receipt.customer_id,
      FacilityID: receipt.facility_id,
      SVCPOID: receipt.svcpoid,
      PONo: receipt.po_no,
      ReferenceNo: receipt.reference_no,
      Status: status,
      ...details,
    },
  });
}
