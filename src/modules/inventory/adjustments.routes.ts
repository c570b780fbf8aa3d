import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { AdjustmentResultSchema, PropertyAdjustmentRequestSchema, QuantityAdjustmentRequestSchema } from './adjustments.schemas.js';
import { adjustQuantities, moveProperties } from './adjustments.service.js';

const tags = ['3PL inventory'];

export function adjustmentRoutes(app: App, { authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/3pl/adjust/inventory-adjust-qty-incremental',
    {
      schema: {
        operationId: 'adjustInventoryQuantity',
        tags,
        summary: 'Adjust Inventory Quantity: add or take stock, all lines or none, once per AdjustmentNo',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: QuantityAdjustmentRequestSchema,
        response: { 200: AdjustmentResultSchema, ...errorResponses(409) },
      },
      config: { document: { type: 'inventory', action: 'adjust' } },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => adjustQuantities(cx(request), request.body),
  );

  app.post(
    '/edi/3pl/adjust/inventory-adjust-property',
    {
      schema: {
        operationId: 'adjustInventoryProperty',
        tags,
        summary: 'Adjust Inventory Property: move stock to another lot, goods type, title, status or expiration',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: PropertyAdjustmentRequestSchema,
        response: { 200: AdjustmentResultSchema, ...errorResponses(409) },
      },
      config: { document: { type: 'inventory', action: 'move' } },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => moveProperties(cx(request), request.body),
  );
}
