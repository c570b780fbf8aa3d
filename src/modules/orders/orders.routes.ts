import type { FastifyRequest } from 'fastify';
import type { AppError } from '../../http/errors.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema, requestIdentity } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import * as acks from '../acks/acks.service.js';
import { OrderCancelRequestSchema, OrderImportRequestSchema, OrderImportResultSchema } from './orders.schemas.js';
import { CUSTOMER_ROLES, REJECTED_ORDER, cancelOrderByCustomer, importOrder } from './orders.service.js';

const tags = ['Outbound orders'];

export function orderRoutes(app: App, { db, clock, authorize }: RouteDeps): void {
  // A body that fails validation still gets its failure ACK, when its identifiers allow one.
  const onRejectedBody = (request: FastifyRequest, refusal: AppError) =>
    acks.recordRejectedBody(db, clock, authorize, REJECTED_ORDER, request.principal, request.body, requestIdentity(request), refusal);

  app.post(
    '/edi/outbound/order',
    {
      schema: {
        tags,
        summary: 'DN import: create, update or cancel an outbound order, allocating its stock',
        description:
          'Creates an order for a new ReferenceNo and allocates Available stock line by line (earliest expiration first, then earliest received); replaces an Imported or Open order and allocates again; cancels an Imported one with ActionCode Cancelled. A shortfall is not an error: the order is saved and the answer is Warning with one text per short line. Every call that names valid identifiers writes one ACK.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: OrderImportRequestSchema,
        response: { 200: OrderImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { onRejectedBody },
      preHandler: authorize(CUSTOMER_ROLES),
    },
    async (request, reply) => {
      const answer = await importOrder(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );

  app.put(
    '/edi/outbound/order/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel an Imported order by ReferenceNo and/or PONo, releasing its allocation',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: OrderCancelRequestSchema,
        response: { 200: OrderImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { onRejectedBody },
      preHandler: authorize(CUSTOMER_ROLES),
    },
    async (request, reply) => {
      const answer = await cancelOrderByCustomer(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );
}
