import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { OrderCancelRequestSchema, OrderCancelResultSchema, OrderImportRequestSchema, OrderImportResultSchema } from './orders.schemas.js';
import { REJECTED_ORDER, cancelOrderByCustomer, importOrder } from './orders.service.js';

const tags = ['Outbound orders'];

export function orderRoutes(app: App, { authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/outbound/order',
    {
      schema: {
        operationId: 'importOrder',
        tags,
        summary: 'DN import: create, update or cancel an outbound order, allocating its stock',
        description:
          'Creates an order for a new ReferenceNo and allocates Available stock line by line (earliest expiration first, then earliest received); replaces an Imported or Open order and allocates again; cancels an Imported one with ActionCode Cancelled. A shortfall is not an error: the order is saved and the answer is Warning with one text per short line. Every call that names valid identifiers writes one ACK.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: OrderImportRequestSchema,
        response: { 200: OrderImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { rejectedBody: REJECTED_ORDER, blankMeansAbsent: true, document: { type: 'DN', action: 'import' } },
      preHandler: authorize(ROLES_OF.customer),
    },
    (request) => importOrder(cx(request), request.body),
  );

  app.put(
    '/edi/outbound/order/cancel',
    {
      schema: {
        operationId: 'cancelOrder',
        tags,
        summary: 'Cancel an Imported order by ReferenceNo and/or PONo, releasing its allocation',
        description:
          'Called by the customer’s system. Sending neither ReferenceNo nor PONo is 400, as is a PONo that several live orders of the facility share (send the ReferenceNo); no live order matching is 404. An order past Imported is 409 (the warehouse can cancel an Open one); every call that names valid identifiers writes one ACK, and an Idempotency-Key replays the first answer.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: OrderCancelRequestSchema,
        response: { 200: OrderCancelResultSchema, ...errorResponses(404, 409) },
      },
      config: { rejectedBody: REJECTED_ORDER, blankMeansAbsent: true, document: { type: 'DN', action: 'cancel' } },
      preHandler: authorize(ROLES_OF.customer),
    },
    (request) => cancelOrderByCustomer(cx(request), request.body),
  );
}
