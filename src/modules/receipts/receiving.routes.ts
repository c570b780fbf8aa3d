import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema, requestIdentity } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import {
  ConfirmationRequestSchema,
  ConfirmationResultSchema,
  ReceiptActionResultSchema,
  ReceiptActionSchema,
  ReceiptDocumentSchema,
  ReceiptListRequestSchema,
  ReceiptListResultSchema,
  ReceiptLookupSchema,
} from './receiving.schemas.js';
import { OPERATOR_ROLES, confirmReceipt, getReceipt, listReceipts, moveReceipt, type ReceiptMove } from './receiving.service.js';

const tags = ['3PL inbound'];
const MOVE_SUMMARIES: Record<ReceiptMove, string> = {
  open: 'Open an Imported receipt (the warehouse has taken it on)',
  cancel: 'Cancel an Imported or Open receipt (the operator’s cancellation)',
  'force-close': 'Close a receipt that will receive nothing more',
};

export function receivingRoutes(app: App, { db, clock, authorize }: RouteDeps): void {
  app.post(
    '/edi/3pl/inbound/receipt/list',
    {
      schema: {
        tags,
        summary: 'Inbound List RNs: a facility’s receipts, with MarkOpen to take them on',
        security: apiKeySecurity,
        body: ReceiptListRequestSchema,
        response: { 200: ReceiptListResultSchema, ...errorResponses() },
      },
      preHandler: authorize(OPERATOR_ROLES),
    },
    async (request) => listReceipts(db, clock, request.principal, request.body),
  );

  app.post(
    '/edi/3pl/inbound/receipt/get',
    {
      schema: {
        tags,
        summary: 'Inbound Get RN Details: the whole receipt with what each line received so far',
        security: apiKeySecurity,
        body: ReceiptLookupSchema,
        response: { 200: ReceiptDocumentSchema, ...errorResponses(404) },
      },
      // The document echoes every key it was imported with, which the schema cannot list.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(OPERATOR_ROLES),
    },
    async (request) => getReceipt(db, request.body),
  );

  for (const move of Object.keys(MOVE_SUMMARIES) as ReceiptMove[]) {
    app.post(
      `/edi/3pl/inbound/receipt/${move}`,
      {
        schema: {
          tags,
          summary: MOVE_SUMMARIES[move],
          security: apiKeySecurity,
          headers: IdempotencyHeadersSchema,
          body: ReceiptActionSchema,
          response: { 200: ReceiptActionResultSchema, ...errorResponses(404, 409) },
        },
        preHandler: authorize(OPERATOR_ROLES),
      },
      async (request, reply) => {
        const answer = await moveReceipt(db, clock, request.principal, move, request.body, requestIdentity(request));
        return reply.status(answer.statusCode).send(answer.body);
      },
    );
  }

  app.post(
    '/edi/3pl/inbound/receipt/post-confirmation',
    {
      schema: {
        tags,
        summary: 'Inbound Post RN Confirmation: receive goods, post stock and write the RC',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ConfirmationRequestSchema,
        response: { 200: ConfirmationResultSchema, ...errorResponses(404, 409) },
      },
      preHandler: authorize(OPERATOR_ROLES),
    },
    async (request, reply) => {
      const answer = await confirmReceipt(db, clock, request.principal, request.body, requestIdentity(request));
      return reply.status(answer.statusCode).send(answer.body);
    },
  );
}
