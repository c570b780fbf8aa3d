import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { sendPagingHeaders } from '../../http/paging.js';
import { errorResponses } from '../../http/schemas.js';
import {
  RcSearchRequestSchema,
  RcSearchResultSchema,
  ReceiptLevelSearchRequestSchema,
  ReceiptLevelSearchResultSchema,
} from './receipt-searches.schemas.js';
import { SEARCH_ROLES, searchConfirmations, searchReceiptHeaders } from './receipt-searches.service.js';

const tags = ['Inbound receipts'];

export function receiptSearchRoutes(app: App, { db, authorize }: RouteDeps): void {
  app.post(
    '/edi/inbound/receipt/rc/search-by-paging',
    {
      schema: {
        operationId: 'searchReceivingConfirmations',
        tags,
        summary: 'RC search (spec 2.5, 2.6): the receiving confirmations of a customer’s receipts, oldest first',
        description:
          'One record per confirmation. Nothing matching is [] (unlike the ACK search). The paging is in the X-Total-Count, X-Page-No and X-Page-Size headers. CreatedWhenFrom/To are read in the facility’s time zone.',
        security: apiKeySecurity,
        body: RcSearchRequestSchema,
        response: { 200: RcSearchResultSchema, ...errorResponses() },
      },
      // A page is up to 1000 confirmations of up to 1000 lines of 36 keys, mostly null, and
      // cartons echo what the confirmation sent. The presenter builds the exact wire shape, so
      // JSON.stringify writes it (as the item search does); the schema documents it.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(SEARCH_ROLES),
    },
    async (request, reply) => {
      const { records, paging } = await searchConfirmations(db, request.body);
      sendPagingHeaders(reply, paging);
      return records;
    },
  );

  app.post(
    '/edi/inbound/receipt-level/search-by-paging',
    {
      schema: {
        operationId: 'searchReceiptHeaders',
        tags,
        summary: 'Receipt headers of a customer in a facility, oldest update first',
        description:
          'Each row is keyed by the head names. UpdatedWhenFrom/To must carry a UTC offset. Received Date is the latest confirmation’s ReceivedDate, null before any.',
        security: apiKeySecurity,
        body: ReceiptLevelSearchRequestSchema,
        response: { 200: ReceiptLevelSearchResultSchema, ...errorResponses() },
      },
      preHandler: authorize(SEARCH_ROLES),
    },
    async (request) => searchReceiptHeaders(db, request.body),
  );
}
