import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { errorResponses } from '../../http/schemas.js';
import {
  InventorySearchRequestSchema,
  InventorySearchResultSchema,
  LedgerSearchRequestSchema,
  LedgerSearchResultSchema,
} from './inquiry.schemas.js';
import { INVENTORY_SEARCH_ROLES, LEDGER_SEARCH_ROLES, searchInventory, searchLedger } from './inquiry.service.js';

export function inventoryInquiryRoutes(app: App, { db, authorize }: RouteDeps): void {
  app.post(
    '/edi/inventory/search-by-paging',
    {
      schema: {
        operationId: 'searchInventory',
        tags: ['Inventory'],
        summary: 'Inventory of a customer in a facility: on hand, allocated and available per balance',
        description:
          'One row per balance with stock on hand, in key order (item, UOM, lot, goods type, title, inventory status, expiration date). Quantities are exact decimal text; a lot, goods type, title or expiration date the stock does not have is null. Available is OnHand − Allocated for Available stock and "0" for Hold and Damaged stock.',
        security: apiKeySecurity,
        body: InventorySearchRequestSchema,
        response: { 200: InventorySearchResultSchema, ...errorResponses() },
      },
      preHandler: authorize(INVENTORY_SEARCH_ROLES),
    },
    async (request) => searchInventory(db, request.body),
  );

  app.post(
    '/edi/3pl/inventory/ledger/search-by-paging',
    {
      schema: {
        operationId: 'searchInventoryLedger',
        tags: ['3PL inventory'],
        summary: 'The inventory ledger of a facility: every posting with its source, oldest first',
        description:
          'One row per posting: the signed quantity, the on-hand it left, the source document (receipt SVCPOID and ConfirmationNo, order, AdjustmentNo) and the key that made it. CreatedWhenFrom/To are read in the facility’s time zone and are inclusive.',
        security: apiKeySecurity,
        body: LedgerSearchRequestSchema,
        response: { 200: LedgerSearchResultSchema, ...errorResponses() },
      },
      preHandler: authorize(LEDGER_SEARCH_ROLES),
    },
    async (request) => searchLedger(db, request.body),
  );
}
