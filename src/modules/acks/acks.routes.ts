import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { sendPagingHeaders } from '../../http/paging.js';
import { errorResponses } from '../../http/schemas.js';
import { AckSearchRequestSchema, AckSearchResultSchema } from './acks.schemas.js';
import { searchAcks } from './acks.service.js';

export function ackRoutes(app: App, { db, authorize }: RouteDeps): void {
  app.post(
    '/edi/inbound/receipt/ack/search-by-paging',
    {
      schema: {
        tags: ['Inbound receipts'],
        summary: 'RN ACK search (spec 2.7, 2.8): the outcome of every RN import and cancel, oldest first',
        description: 'Nothing matching the filter is 404 {"error":"Not found receipt"}; a page past the end is [].',
        security: apiKeySecurity,
        body: AckSearchRequestSchema,
        response: { 200: AckSearchResultSchema, ...errorResponses(404) },
      },
      preHandler: authorize(['customer', 'operator', 'admin']),
    },
    async (request, reply) => {
      const { records, paging } = await searchAcks(db, 'RN', request.body);
      sendPagingHeaders(reply, paging);
      return records;
    },
  );
}
