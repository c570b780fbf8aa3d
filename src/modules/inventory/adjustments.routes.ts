import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import {
  AdjustmentResultSchema,
  PropertyAdjustmentRequestSchema,
  PropertyAdjustmentResultSchema,
  QuantityAdjustmentRequestSchema,
} from './adjustments.schemas.js';
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
        description:
          'Called by the warehouse’s system: adds each line’s signed Qty to its balance of the customer’s stock in the facility (an item missing from the item master is adjusted, with a warning). A line that would take a balance below zero or below what is allocated refuses the whole adjustment (409). An AdjustmentNo applies once per customer in a facility: the same body again replays the first answer, another body is 409.',
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
        description:
          'Called by the warehouse’s system: moves each line’s Qty from its From balance to its To balance; a key To leaves out keeps From’s value, and a To that changes nothing is 400. A From that holds less than Qty beyond its allocation refuses the whole move (409): allocated stock cannot move. An AdjustmentNo applies once per customer in a facility: the same body again replays the first answer, another body is 409.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: PropertyAdjustmentRequestSchema,
        response: { 200: PropertyAdjustmentResultSchema, ...errorResponses(409) },
      },
      config: { document: { type: 'inventory', action: 'move' } },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => moveProperties(cx(request), request.body),
  );
}
