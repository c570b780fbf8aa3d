import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import {
  ORDER_MOVE_SCHEMAS,
  OrderDocumentSchema,
  OrderListRequestSchema,
  OrderListResultSchema,
  OrderLookupSchema,
  ShipmentRequestSchema,
  ShipmentResultSchema,
} from './shipping.schemas.js';
import { OPERATOR_ORDER_MOVES, type OperatorOrderMove } from './order-states.js';
import { confirmShipment, getOrder, listOrders, moveOrder } from './shipping.service.js';

const tags = ['3PL outbound'];
const MOVE_SUMMARIES: Record<OperatorOrderMove, string> = {
  open: 'Open an Imported order (the warehouse has taken it on)',
  cancel: 'Cancel an Imported or Open order (the operator’s cancellation), releasing its allocation',
};

const MOVE_DESCRIPTIONS: Record<OperatorOrderMove, string> = {
  open: 'Called by the warehouse’s system: the same move as the list with MarkOpen. An order that is not Imported is 409, and an SVCPOID unknown in the facility is 404. No ACK is written (the customer sees the new status), and an Idempotency-Key replays the first answer.',
  cancel:
    'Called by the warehouse’s system, also once the order is Open (the customer can cancel only an Imported one); the stock it releases fills other orders’ waiting lines, the oldest order first. Once shipping has started the order can no longer be cancelled (409), and an SVCPOID unknown in the facility is 404. An Idempotency-Key replays the first answer.',
};

const MOVE_OPERATIONS: Record<OperatorOrderMove, string> = {
  open: 'openOrder',
  cancel: 'cancelOrderAsOperator',
};

export function shippingRoutes(app: App, { db, authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/3pl/outbound/order/list',
    {
      schema: {
        operationId: 'listFacilityOrders',
        tags,
        summary: 'Outbound List DNs: a facility’s orders, with MarkOpen to take them on',
        description:
          'Called by the warehouse’s system (an operator or admin key): the facility’s orders, oldest update first, filtered by CustomerID, Status (one or several), PONo, ReferenceNo and UpdatedWhenFrom/To. With MarkOpen every Imported order on the returned page becomes Open in the same transaction and is shown as Open. The paging is in the answer’s paging object.',
        security: apiKeySecurity,
        body: OrderListRequestSchema,
        response: { 200: OrderListResultSchema, ...errorResponses() },
      },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => listOrders(cx(request), request.body),
  );

  app.post(
    '/edi/3pl/outbound/order/get',
    {
      schema: {
        operationId: 'getOrderDetails',
        tags,
        summary: 'Outbound Get DN Details: the whole order with what each line holds allocated and has shipped',
        description:
          'Called by the warehouse’s system. The order has every key it was imported with (unknown keys included) and each line its OrderedQty, AllocatedQty (held now, not yet shipped) and ShippedQty; its dates are facility-local ISO date-times with milliseconds. An SVCPOID that is unknown or belongs to another facility is 404.',
        security: apiKeySecurity,
        body: OrderLookupSchema,
        response: { 200: OrderDocumentSchema, ...errorResponses(404) },
      },
      // The document echoes every key it was imported with, which the schema cannot list.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(ROLES_OF.operator),
    },
    async (request) => getOrder(db, request.body),
  );

  for (const move of OPERATOR_ORDER_MOVES) {
    app.post(
      `/edi/3pl/outbound/order/${move}`,
      {
        schema: {
          tags,
          operationId: MOVE_OPERATIONS[move],
          summary: MOVE_SUMMARIES[move],
          description: MOVE_DESCRIPTIONS[move],
          security: apiKeySecurity,
          headers: IdempotencyHeadersSchema,
          body: ORDER_MOVE_SCHEMAS[move].body,
          response: { 200: ORDER_MOVE_SCHEMAS[move].response, ...errorResponses(404, 409) },
        },
        config: { document: { type: 'DN', action: move } },
        preHandler: authorize(ROLES_OF.operator),
      },
      (request) => moveOrder(cx(request), move, request.body),
    );
  }

  app.post(
    '/edi/3pl/outbound/order/post-confirmation',
    {
      schema: {
        operationId: 'confirmShipment',
        tags,
        summary: 'Outbound Post DN Confirmation: ship goods out of the order’s allocation and write the DC',
        description:
          'Each line takes what its order line holds allocated first, then Available stock. A line not on the order, more than ordered, or more than the allocation plus what is Available is 409 and nothing moves. Close ends the order (Shipped or Short Shipped) and releases what is still allocated. A ConfirmationNo applies once.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ShipmentRequestSchema,
        response: { 200: ShipmentResultSchema, ...errorResponses(404, 409) },
      },
      config: { document: { type: 'DN', action: 'ship' } },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => confirmShipment(cx(request), request.body),
  );
}
