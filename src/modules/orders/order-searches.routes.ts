import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { sendPagingHeaders } from '../../http/paging.js';
import { errorResponses } from '../../http/schemas.js';
import {
  DcSearchRequestSchema,
  DcSearchResultSchema,
  OrderLevelSearchRequestSchema,
  OrderLevelSearchResultSchema,
} from './order-searches.schemas.js';
import { SEARCH_ROLES, searchOrderHeaders, searchShipmentConfirmations } from './order-searches.service.js';

const tags = ['Outbound orders'];

export function orderSearchRoutes(app: App, { db, authorize }: RouteDeps): void {
  app.post(
    '/edi/outbound/order/dc/search-by-paging',
    {
      schema: {
        operationId: 'searchShipmentConfirmations',
        tags,
        summary: 'DC search: the shipment confirmations of a customer’s orders, oldest first',
        description:
          'One record per shipment confirmation. Nothing matching is [] (unlike the ACK search). The paging is in the X-Total-Count, X-Page-No and X-Page-Size headers. CreatedWhenFrom/To are read in the facility’s time zone; ReferenceNo may be text or a whole number.',
        security: apiKeySecurity,
        body: DcSearchRequestSchema,
        response: { 200: DcSearchResultSchema, ...errorResponses() },
      },
      // A page is up to 1000 confirmations of up to 1000 lines each. The presenter builds the
      // exact wire shape, so JSON.stringify writes it (as the RC search does); the schema documents it.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(SEARCH_ROLES),
    },
    async (request, reply) => {
      const { records, paging } = await searchShipmentConfirmations(db, request.body);
      sendPagingHeaders(reply, paging);
      return records;
    },
  );

  app.post(
    '/edi/outbound/order-level/search-by-paging',
    {
      schema: {
        operationId: 'searchOrderHeaders',
        tags,
        summary: 'DN header level query (spec 2.10): a customer’s orders in a facility, oldest update first',
        description:
          'Each row is keyed by the head names, null where the order has no value. UpdatedWhenFrom/To must carry a UTC offset. Shipped Time, Shipped Date and Pro # are the latest shipment confirmation’s, null before any; Carrier and SCAC Code are its, else the import’s.',
        security: apiKeySecurity,
        body: OrderLevelSearchRequestSchema,
        response: { 200: OrderLevelSearchResultSchema, ...errorResponses() },
      },
      preHandler: authorize(SEARCH_ROLES),
    },
    async (request) => searchOrderHeaders(db, request.body),
  );
}
