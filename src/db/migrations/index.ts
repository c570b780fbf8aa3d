import type { Migration } from 'kysely';
import * as tenants from './2026-11-22T2100-tenants.js';
import * as items from './2026-11-22T2101-items.js';
import * as inventory from './2026-11-22T2200-inventory.js';
import * as idempotency from './2026-11-22T2300-idempotency.js';
import * as acks from './2026-11-22T2301-acks.js';
import * as receipts from './2026-11-22T2302-receipts.js';
import * as adjustments from './2026-11-22T2400-adjustments.js';
import * as inventoryReads from './2026-11-22T2401-inventory-reads.js';
import * as orders from './2026-11-23T0100-orders.js';
import * as orderSearchIndex from './2026-11-23T2200-order-search-index.js';
import * as rateCards from './2026-11-23T2300-rate-cards.js';
import * as idempotencyRefusals from './2026-11-25T1000-idempotency-refusals.js';
import * as waitingOrdersIndex from './2026-11-25T1100-waiting-orders-index.js';
import * as rateLimits from './2026-11-25T1400-rate-limits.js';
import * as apiKeyExpiry from './2026-11-26T0900-api-key-expiry.js';
import * as events from './2026-11-27T1000-events.js';
import * as webhooks from './2026-11-27T1100-webhooks.js';
import * as adminChanges from './2026-11-27T1200-admin-changes.js';
import * as x12Partners from './2026-11-27T1300-x12-partners.js';
import * as x12Interchanges from './2026-11-27T1400-x12-interchanges.js';
import * as x12Outbox from './2026-11-27T1500-x12-outbox.js';
import * as x12Identities from './2026-11-27T1600-x12-identities.js';
import * as adjustmentsFillfactor from './2026-11-28T0900-adjustments-fillfactor.js';
import * as ledgerWithoutForeignKeys from './2026-11-28T1000-ledger-without-foreign-keys.js';
import * as ledgerItemIndex from './2026-11-28T1100-ledger-item-index.js';
import * as documentsWithoutTenantLocks from './2026-11-29T0900-documents-without-tenant-locks.js';
import * as ledgerItemsBehind from './2026-11-29T1000-ledger-items-behind.js';
import * as eventsByRowId from './2026-11-29T1100-events-by-row-id.js';
import * as eventsFillfactor from './2026-11-30T0900-events-fillfactor.js';
import * as webhookEndpointFacilities from './2026-12-01T1000-webhook-endpoint-facilities.js';
import * as webhookClaimIndexes from './2026-12-01T1300-webhook-claim-indexes.js';
import * as apiKeySuccessor from './2026-12-01T1400-api-key-successor.js';
import * as orderLineShortages from './2026-12-08T0900-order-line-shortages.js';
import * as dropAllocatingOrdersIndex from './2026-12-08T0901-drop-allocating-orders-index.js';
import * as retentionIndexes from './2026-12-08T1000-retention-indexes.js';
import * as autovacuumSettings from './2026-12-08T1001-autovacuum-settings.js';
import * as searchCounts from './2026-12-08T1100-search-counts.js';
import * as receiptSearchIndex from './2026-12-08T1101-receipt-search-index.js';
import * as numberLookupIndexes from './2026-12-08T1102-number-lookup-indexes.js';
import * as keptRowsAutovacuum from './2026-12-08T1103-kept-rows-autovacuum.js';
import * as ledgerItemCounts from './2026-12-08T1200-ledger-item-counts.js';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '2026-11-22T2100-tenants': tenants,
  '2026-11-22T2101-items': items,
  '2026-11-22T2200-inventory': inventory,
  '2026-11-22T2300-idempotency': idempotency,
  '2026-11-22T2301-acks': acks,
  '2026-11-22T2302-receipts': receipts,
  '2026-11-22T2400-adjustments': adjustments,
  '2026-11-22T2401-inventory-reads': inventoryReads,
  '2026-11-23T0100-orders': orders,
  '2026-11-23T2200-order-search-index': orderSearchIndex,
  '2026-11-23T2300-rate-cards': rateCards,
  '2026-11-25T1000-idempotency-refusals': idempotencyRefusals,
  '2026-11-25T1100-waiting-orders-index': waitingOrdersIndex,
  '2026-11-25T1400-rate-limits': rateLimits,
  '2026-11-26T0900-api-key-expiry': apiKeyExpiry,
  '2026-11-27T1000-events': events,
  '2026-11-27T1100-webhooks': webhooks,
  '2026-11-27T1200-admin-changes': adminChanges,
  '2026-11-27T1300-x12-partners': x12Partners,
  '2026-11-27T1400-x12-interchanges': x12Interchanges,
  '2026-11-27T1500-x12-outbox': x12Outbox,
  '2026-11-27T1600-x12-identities': x12Identities,
  '2026-11-28T0900-adjustments-fillfactor': adjustmentsFillfactor,
  '2026-11-28T1000-ledger-without-foreign-keys': ledgerWithoutForeignKeys,
  '2026-11-28T1100-ledger-item-index': ledgerItemIndex,
  '2026-11-29T0900-documents-without-tenant-locks': documentsWithoutTenantLocks,
  '2026-11-29T1000-ledger-items-behind': ledgerItemsBehind,
  '2026-11-29T1100-events-by-row-id': eventsByRowId,
  '2026-11-30T0900-events-fillfactor': eventsFillfactor,
  '2026-12-01T1000-webhook-endpoint-facilities': webhookEndpointFacilities,
  '2026-12-01T1300-webhook-claim-indexes': webhookClaimIndexes,
  '2026-12-01T1400-api-key-successor': apiKeySuccessor,
  '2026-12-08T0900-order-line-shortages': orderLineShortages,
  '2026-12-08T0901-drop-allocating-orders-index': dropAllocatingOrdersIndex,
  '2026-12-08T1000-retention-indexes': retentionIndexes,
  '2026-12-08T1001-autovacuum-settings': autovacuumSettings,
  '2026-12-08T1100-search-counts': searchCounts,
  '2026-12-08T1101-receipt-search-index': receiptSearchIndex,
  '2026-12-08T1102-number-lookup-indexes': numberLookupIndexes,
  '2026-12-08T1103-kept-rows-autovacuum': keptRowsAutovacuum,
  '2026-12-08T1200-ledger-item-counts': ledgerItemCounts,
};
