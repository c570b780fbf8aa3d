import type { FastifyRequest } from 'fastify';
import type { AppError } from '../../http/errors.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema, requestIdentity } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { ReceiptCancelRequestSchema, ReceiptImportRequestSchema, ReceiptImportResultSchema } from './receipts.schemas.js';
import * as acks from '../acks/acks.service.js';
import { CUSTOMER_ROLES, REJECTED_RECEIPT, cancelReceipt, importReceipt } from './receipts.service.js';

export function receiptRoutes(app: App, { db, clock, authorize }: RouteDeps): void {
  // A body that fails validation still gets its failure ACK, when its identifiers allow one.
  const onRejectedBody = (request: FastifyRequest, refusal: AppError) =>
    acks.recordRejectedBody(db, clock, authorize, REJECTED_RECEIPT, request.principal, request.body, requestIdentity(request), refusal);

  app.post(
    '/edi/inbound/receipt',
    {
      schema: {
        tags: ['Inbound receipts'],
        summary: 'RN import (spec 2.3, 2.4): create, update or cancel an inbound receipt notice',
        description:
          'Creates a receipt for a new (customer, facility, PONo), replaces an Imported or Open one, or cancels an Imported one with ActionCode Cancelled. Every call that names valid identifiers writes one ACK.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ReceiptImportRequestSchema,
        response: { 200: ReceiptImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { onRejectedBody },
      preHandler: authorize(CUSTOMER_ROLES),
    },
    async (request, reply) => {
      const answer = await importReceipt(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );

  app.put(
    '/edi/inbound/receipt/cancel',
    {
      schema: {
        tags: ['Inbound receipts'],
        summary: 'Cancel an Imported receipt by PONo and/or ReferenceNo',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ReceiptCancelRequestSchema,
        response: { 200: ReceiptImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { onRejectedBody },
      preHandler: authorize(CUSTOMER_ROLES),
    },
    async (request, reply) => {
      const answer = await cancelReceipt(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );
}
