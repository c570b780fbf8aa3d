import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { ItemImportRequestSchema, ItemImportResultSchema, ItemSearchRequestSchema, ItemSearchResultSchema } from './items.schemas.js';
import { importItems, searchItems } from './items.service.js';

export function itemRoutes(app: App, { db, authorize, cx }: RouteDeps): void {
  app.post(
    '/edi/item-master/import',
    {
      schema: {
        operationId: 'importItems',
        tags: ['Item master'],
        summary: 'Create or update items (upsert by itemID, at most 1000 a call, all or nothing)',
        description:
          'Called by the customer’s system (a customer or admin key). Each item is answered Created, Updated or Unchanged, and each created or updated item is told as an item.created or item.updated event; a repeated itemID, or a companyId or customerId other than the request’s, is 400 and nothing is saved. The same Idempotency-Key with the same body replays the first answer.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: ItemImportRequestSchema,
        response: { 200: ItemImportResultSchema, ...errorResponses() },
      },
      config: { blankMeansAbsent: true, document: { type: 'item', action: 'import' } },
      preHandler: authorize(ROLES_OF.customer),
    },
    (request) => importItems(cx(request), request.body),
  );

  app.post(
    '/edi/item-master/search-by-paging',
    {
      schema: {
        operationId: 'searchItems',
        tags: ['Item master'],
        summary: 'Item master inquiry (spec 2.12): items of a customer, in pages',
        description:
          'Called by the customer’s system or the warehouse’s (a customer, operator or admin key). Status Active or Inactive returns the items of that status, none every item; UpdatedWhenFrom/To (with a UTC offset, inclusive) return only the items changed in that window, for delta sync. The paging is in the answer’s paging object; a PageNo at the top level is read as the page number (Paging.PageNo wins).',
        security: apiKeySecurity,
        body: ItemSearchRequestSchema,
        response: { 200: ItemSearchResultSchema, ...errorResponses() },
      },
      // A page is up to 1000 records of 203 keys, mostly null. fast-json-stringify is over ten times
      // slower than JSON.stringify on such nullable, open records, and the presenter already builds
      // the exact wire shape; the schema still documents it.
      serializerCompiler: () => (data) => JSON.stringify(data),
      preHandler: authorize(['customer', 'operator', 'admin']),
    },
    async (request) => searchItems(db, request.body),
  );
}
