import type { Trx } from '../../db/database.js';
import type { EventType } from './events.schemas.js';
import { recordEvent } from './events.service.js';

/** Receipts and orders tell subscribers the same things about a change (docs/webhooks.md), so their payloads are built in one place. */

/** Who made the change, and when. */
export interface Change {
  keyId: number;
  at: number;
}

/** The numbers every receipt and order row carries, which its events name it by. */
export interface DocumentNumbers {
  company_id: string;
  customer_id: string;
  facility_id: string;
  svcpoid: string;
  po_no: string | null;
}

/**
 * The recorder of one kind of document's events: `type` for the document, now in `status`;
 * `details` say what else the event is about. Only the ReferenceNo differs between kinds, in how
 * it is shown, so `referenceNoOf` says that.
 */
export function documentEventRecorder<Type extends EventType, Document extends DocumentNumbers, Status extends string>(
  referenceNoOf: (document: Document) => string | number | null,
) {
  return (trx: Trx, type: Type, document: Document, status: Status, change: Change, details: Record<string, unknown> = {}): void =>
    recordEvent(trx, {
      type,
      keyId: change.keyId,
      at: change.at,
      data: {
        CompanyID: document.company_id,
        CustomerID: document.customer_id,
        FacilityID: document.facility_id,
        SVCPOID: document.svcpoid,
        PONo: document.po_no,
        ReferenceNo: referenceNoOf(document),
        Status: status,
        ...details,
      },
    });
}
