import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { errorResponses } from '../../http/schemas.js';
import { ApiKeyDescriptionSchema } from './api-key.schemas.js';
import { describeApiKey } from './tenants.service.js';

/** The key a request is made with, described to its holder (any role): the console's sign-in reads it. */
export function apiKeyRoutes(app: App, { db }: RouteDeps): void {
  app.get(
    '/edi/api-key',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'describeApiKey',
        tags: ['API keys'],
        summary: 'The API key this request is made with: its role and where it may act',
        description:
          'Any valid key may call it and sees only itself: its role, its company, the customers and facilities it may act for (a key limited to none reaches every one of its company), its UserIDs and when it expires. The key itself is never shown.',
        security: apiKeySecurity,
        response: { 200: ApiKeyDescriptionSchema, ...errorResponses() },
      },
    },
    (request) => describeApiKey(db, request.principal),
  );
}
