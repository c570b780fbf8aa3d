import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import {
  ReceiptCancelRequestSchema,
  ReceiptCancelResultSchema,
  ReceiptImportRequestSchema,
  ReceiptImportResultSchema,
} from './receipts.schemas.js';
import { REJECTED_RECEIPT, cancelReceipt, importReceipt } from './receipts.service.js';

export function receiptRoutes(app: App, { authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/inbound/receipt',
    {
      schema: {
        operationId: 'importReceipt',
        tags: ['Inbound receipts'],
        summary: 'RN import (spec 2.3, 2.4): create, update or cancel an inbound receipt notice',
        description:
          'Creates a receipt for a new (customer, facility, PONo), replaces an Imported or Open one, or cancels an Imported one with ActionCode Cancelled. Every call that names valid identifiers writes one ACK.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ReceiptImportRequestSchema,
        response: { 200: ReceiptImportResultSchema, ...errorResponses(404, 409) },
      },
      config: { rejectedBody: REJECTED_RECEIPT, blankMeansAbsent: true, document: { type: 'RN', action: 'import' } },
      preHandler: authorize(ROLES_OF.customer),
    },
    (request) => importReceipt(cx(request), request.body),
  );

  app.put(
    '/edi/inbound/receipt/cancel',
    {
      schema: {
        operationId: 'cancelReceipt',
        tags: ['Inbound receipts'],
        summary: 'Cancel an Imported receipt by PONo and/or ReferenceNo',
        description:
          'Called by the customer’s system. When both PONo and ReferenceNo are sent, both must match; neither is 400, and no live receipt matching (one already cancelled included) is 404. A receipt past Imported is 409 (once the warehouse has opened it, only the warehouse can cancel it); every call that names valid identifiers writes one ACK, and an Idempotency-Key replays the first answer.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ReceiptCancelRequestSchema,
        response: { 200: ReceiptCancelResultSchema, ...errorResponses(404, 409) },
      },
      config: { rejectedBody: REJECTED_RECEIPT, blankMeansAbsent: true, document: { type: 'RN', action: 'cancel' } },
      preHandler: authorize(ROLES_OF.customer),
    },
    (request) => cancelReceipt(cx(request), request.body),
  );
}
