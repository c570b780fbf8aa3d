import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema, requestIdentity } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { AdjustmentResultSchema, PropertyAdjustmentRequestSchema, QuantityAdjustmentRequestSchema } from './adjustments.schemas.js';
import { ADJUSTMENT_ROLES, adjustQuantities, moveProperties } from './adjustments.service.js';

const tags = ['3PL inventory'];

export function adjustmentRoutes(app: App, { db, clock, authorize }: RouteDeps): void {
  app.post(
    '/edi/3pl/adjust/inventory-adjust-qty-incremental',
    {
      schema: {
        tags,
        summary: 'Adjust Inventory Quantity: add or take stock, all lines or none, once per AdjustmentNo',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: QuantityAdjustmentRequestSchema,
        response: { 200: AdjustmentResultSchema, ...errorResponses(409) },
      },
      preHandler: authorize(ADJUSTMENT_ROLES),
    },
    async (request, reply) => {
      const answer = await adjustQuantities(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );

  app.post(
    '/edi/3pl/adjust/inventory-adjust-property',
    {
      schema: {
        tags,
        summary: 'Adjust Inventory Property: move stock to another lot, goods type, title, status or expiration',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: PropertyAdjustmentRequestSchema,
        response: { 200: AdjustmentResultSchema, ...errorResponses(409) },
      },
      preHandler: authorize(ADJUSTMENT_ROLES),
    },
    async (request, reply) => {
      const answer = await moveProperties(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );
}
