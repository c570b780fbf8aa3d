import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { sendPagingHeaders } from '../../http/paging.js';
import { errorResponses } from '../../http/schemas.js';
import { DnAckSearchRequestSchema, DnAckSearchResultSchema, RnAckSearchRequestSchema, RnAckSearchResultSchema } from './acks.schemas.js';
import { NOT_FOUND, searchAcks, type DocumentType } from './acks.service.js';

const searches: {
  path: string;
  documentType: DocumentType;
  operationId: string;
  tag: string;
  summary: string;
  /** The request and answer: the same shapes for both, each with the example of its own document type. */
  body: typeof RnAckSearchRequestSchema;
  result: typeof RnAckSearchResultSchema;
}[] = [
  {
    path: '/edi/inbound/receipt/ack/search-by-paging',
    documentType: 'RN',
    operationId: 'searchReceiptAcks',
    tag: 'Inbound receipts',
    summary: 'RN ACK search (spec 2.7, 2.8): the outcome of every RN import and cancel, oldest first',
    body: RnAckSearchRequestSchema,
    result: RnAckSearchResultSchema,
  },
  {
    path: '/edi/outbound/order/ack/search-by-paging',
    documentType: 'DN',
    operationId: 'searchOrderAcks',
    tag: 'Outbound orders',
    summary: 'DN ACK search (spec 2.7, 2.9): the outcome of every DN import and cancel, oldest first',
    body: DnAckSearchRequestSchema,
    result: DnAckSearchResultSchema,
  },
];

export function ackRoutes(app: App, { db, authorize }: RouteDeps): void {
  for (const search of searches) {
    app.post(
      search.path,
      {
        schema: {
          operationId: search.operationId,
          tags: [search.tag],
          summary: search.summary,
          description: `Nothing matching the filter is 404 {"error":"${NOT_FOUND[search.documentType]}"}; a page past the end is []. The paging is in the X-Total-Count, X-Page-No and X-Page-Size headers.`,
          security: apiKeySecurity,
          body: search.body,
          response: { 200: search.result, ...errorResponses(404) },
        },
        preHandler: authorize(['customer', 'operator', 'admin']),
      },
      async (request, reply) => {
        const { records, paging } = await searchAcks(db, search.documentType, request.body);
        sendPagingHeaders(reply, paging);
        return records;
      },
    );
  }
}
