import type { EventType } from '../events/events.schemas.js';
import { documentEventRecorder } from '../events/document-events.js';
import type { ReceiptStatus } from './receipt-states.js';
import type { ReceiptRow } from './receipts.repository.js';

/** What the changes of a receipt tell subscribers (docs/webhooks.md): the receipt's numbers and its new status. */

export type ReceiptEventType = Extract<EventType, `receipt.${string}`>;

type NamedReceipt = Pick<ReceiptRow, 'company_id' | 'customer_id' | 'facility_id' | 'svcpoid' | 'po_no' | 'reference_no'>;

/** Records `type` for the receipt, now in `status`; `details` say what else the event is about. */
export const recordReceiptEvent = documentEventRecorder<ReceiptEventType, NamedReceipt, ReceiptStatus>((receipt) => receipt.reference_no);
