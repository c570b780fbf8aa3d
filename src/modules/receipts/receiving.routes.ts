import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import {
  ConfirmationRequestSchema,
  ConfirmationResultSchema,
  RECEIPT_MOVE_SCHEMAS,
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

const MOVE_DESCRIPTIONS: Record<OperatorReceiptMove, string> = {
  open: 'Called by the warehouse’s system: the same move as the list with MarkOpen. A receipt that is not Imported is 409, and an SVCPOID unknown in the facility is 404. No ACK is written (the customer sees the new status), and an Idempotency-Key replays the first answer.',
  cancel:
    'Called by the warehouse’s system, also once the receipt is Open (the customer can cancel only an Imported one). Once receiving has started the receipt can no longer be cancelled (409; force-close it instead), and an SVCPOID unknown in the facility is 404. An Idempotency-Key replays the first answer.',
  'force-close':
    'Called by the warehouse’s system for an Imported, Open or In Progress receipt, which becomes Force Closed: receiving is over. Any other status is 409, and an SVCPOID unknown in the facility is 404. An Idempotency-Key replays the first answer.',
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
        description:
          'Called by the warehouse’s system (an operator or admin key): the facility’s receipts, oldest update first, filtered by CustomerID, Status (one or several), PONo, ReferenceNo and UpdatedWhenFrom/To. With MarkOpen every Imported receipt on the returned page becomes Open in the same transaction and is shown as Open. The paging is in the answer’s paging object.',
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
        description:
          'Called by the warehouse’s system. The receipt has every key it was imported with (unknown keys included) and each line its ExpectedQty and ReceivedQty; its dates are facility-local ISO date-times with milliseconds. An SVCPOID that is unknown or belongs to another facility is 404.',
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
          description: MOVE_DESCRIPTIONS[move],
          security: apiKeySecurity,
          headers: IdempotencyHeadersSchema,
          body: RECEIPT_MOVE_SCHEMAS[move].body,
          response: { 200: RECEIPT_MOVE_SCHEMAS[move].result, ...errorResponses(404, 409) },
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
        description:
          'Called by the warehouse’s system: posts the received stock, adds it to the matched lines, writes the RC record and moves the receipt to In Progress (with Close, Closed when every line has received its expected quantity, else Partial Received), all in one transaction. A Partial Received, Closed, Force Closed or Cancelled receipt is 409, and an SVCPOID unknown in the facility is 404. A ConfirmationNo applies once per receipt: the same body again replays the first answer, another body is 409.',
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
