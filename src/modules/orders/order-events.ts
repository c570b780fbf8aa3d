import type { EventType } from '../events/events.schemas.js';
import { documentEventRecorder } from '../events/document-events.js';
import type { OrderStatus } from './order-states.js';
import { referenceNoOf } from './orders.present.js';
import type { OrderRow } from './orders.repository.js';

/** What the changes of an order tell subscribers (docs/webhooks.md): the order's numbers and its new status. */

export type OrderEventType = Extract<EventType, `order.${string}`>;

type NamedOrder = Pick<OrderRow, 'company_id' | 'customer_id' | 'facility_id' | 'svcpoid' | 'po_no' | 'reference_no' | 'reference_no_type'>;

/**
 * Records `type` for the order, now in `status`; `details` say what else the event is about. Its
 * ReferenceNo is in the JSON type of the order's latest import, as every answer echoes it.
 */
export const recordOrderEvent = documentEventRecorder<OrderEventType, NamedOrder, OrderStatus>(referenceNoOf);
