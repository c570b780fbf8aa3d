import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { errorResponses } from '../../http/schemas.js';
import { EventSearchRequestSchema, EventSearchResultSchema } from './events.schemas.js';
import { searchEvents } from './events.service.js';

export function eventRoutes(app: App, { db, authorize }: RouteDeps): void {
  app.post(
    '/edi/events/search-by-paging',
    {
      schema: {
        operationId: 'searchEvents',
        tags: ['Events'],
        summary: "A customer's events, oldest first: the pull fallback of webhooks, for reconciling by Sequence",
        description:
          'Send AfterSequence with the last Sequence you applied and PageNo 1 to read on; an empty page means you are up to date.',
        security: apiKeySecurity,
        body: EventSearchRequestSchema,
        response: { 200: EventSearchResultSchema, ...errorResponses() },
      },
      preHandler: authorize(['customer', 'operator', 'admin']),
    },
    (request) => searchEvents(db, request.principal, request.body),
  );
}
