import type { Trx } from '../../db/database.js';
import * as events from '../events/events.service.js';
import type { EventType } from '../events/events.schemas.js';
import type { OrderStatus } from './order-states.js';
import { referenceNoOf } from './orders.present.js';
import type { OrderRow } from './orders.repository.js';

/** What the changes of an order tell subscribers (DESIGN §13): the order's numbers and its new status. */

export type OrderEventType = Extract<EventType, `order.${string}`>;

/** Who made the change, and when. */
export interface Change {
  keyId: number;
  at: number;
}

type NamedOrder = Pick<OrderRow, 'company_id' | 'customer_id' | 'facility_id' | 'svcpoid' | 'po_no' | 'reference_no' | 'reference_no_type'>;

/** Records `type` for the order, now in `status`; `details` say what else the event is about. */
export function recordOrderEvent(
  trx: Trx,
  type: OrderEventType,
  order: NamedOrder,
  status: OrderStatus,
  change: Change,
  details: Record<string, unknown> = {},
): void {
  events.recordEvent(trx, {
    type,
    keyId: change.keyId,
    at: change.at,
    data: {
      CompanyID: order.company_id,
      CustomerID: order.customer_id,
      FacilityID: order.facility_id,
      SVCPOID: order.svcpoid,
      PONo: order.po_no,
      // In the JSON type of the order's latest import, as every answer echoes it.
      ReferenceNo: referenceNoOf(order),
      Status: status,
      ...details,
    },
  });
}
