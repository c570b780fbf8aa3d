import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
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
import { OPERATOR_RECEIPT_MOVES, type OperatorReceiptMove } from './receipt-states.js';
import { confirmReceipt, getReceipt, listReceipts, moveReceipt } from './receiving.service.js';

const tags = ['3PL inbound'];
const MOVE_SUMMARIES: Record<OperatorReceiptMove, string> = {
  open: 'Open an Imported receipt (the warehouse has taken it on)',
  cancel: 'Cancel an Imported or Open receipt (the operator’s cancellation)',
  'force-close': 'Close a receipt that will receive nothing more',
};

const MOVE_OPERATIONS: Record<OperatorReceiptMove, string> = {
  open: 'openReceipt',
  cancel: 'cancelReceiptAsOperator',
  'force-close': 'forceCloseReceipt',
};

export function receivingRoutes(app: App, { db, authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/3pl/inbound/receipt/list',
    {
      schema: {
        operationId: 'listFacilityReceipts',
        tags,
        summary: 'Inbound List RNs: a facility’s receipts, with MarkOpen to take them on',
        security: apiKeySecurity,
        body: ReceiptListRequestSchema,
        response: { 200: ReceiptListResultSchema, ...errorResponses() },
      },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => listReceipts(cx(request), request.body),
  );

  app.post(
    '/edi/3pl/inbound/receipt/get',
    {
      schema: {
        operationId: 'getReceiptDetails',
        tags,
        summary: 'Inbound Get RN Details: the whole receipt with what each line received so far',
        security: apiKeySecurity,
        body: ReceiptLookupSchema,
        response: { 200: ReceiptDocumentSchema, ...errorResponses(404) },
      },
      // The document echoes every key it was imported with, which the schema cannot list.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(ROLES_OF.operator),
    },
    async (request) => getReceipt(db, request.body),
  );

  for (const move of OPERATOR_RECEIPT_MOVES) {
    app.post(
      `/edi/3pl/inbound/receipt/${move}`,
      {
        schema: {
          tags,
          operationId: MOVE_OPERATIONS[move],
          summary: MOVE_SUMMARIES[move],
          security: apiKeySecurity,
          headers: IdempotencyHeadersSchema,
          body: ReceiptActionSchema,
          response: { 200: ReceiptActionResultSchema, ...errorResponses(404, 409) },
        },
        config: { document: { type: 'RN', action: move } },
        preHandler: authorize(ROLES_OF.operator),
      },
      (request) => moveReceipt(cx(request), move, request.body),
    );
  }

  app.post(
    '/edi/3pl/inbound/receipt/post-confirmation',
    {
      schema: {
        operationId: 'confirmReceiving',
        tags,
        summary: 'Inbound Post RN Confirmation: receive goods, post stock and write the RC',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ConfirmationRequestSchema,
        response: { 200: ConfirmationResultSchema, ...errorResponses(404, 409) },
      },
      config: { document: { type: 'RN', action: 'receive' } },
      preHandler: authorize(ROLES_OF.operator),
    },
    (request) => confirmReceipt(cx(request), request.body),
  );
}
