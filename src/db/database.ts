import type { Kysely, Transaction } from 'kysely';
import type { AckTables } from '../modules/acks/acks.tables.js';
import type { AdminTables } from '../modules/admin/admin.tables.js';
import type { EventTables } from '../modules/events/events.tables.js';
import type { CountTables } from '../modules/counts/counts.tables.js';
import type { IdempotencyTables } from '../modules/commands/idempotency.tables.js';
import type { AdjustmentTables } from '../modules/inventory/adjustments.tables.js';
import type { InventoryTables } from '../modules/inventory/inventory.tables.js';
import type { ItemTables } from '../modules/items/items.tables.js';
import type { LimitTables } from '../modules/limits/limits.tables.js';
import type { OrderTables } from '../modules/orders/orders.tables.js';
import type { RatingTables } from '../modules/rating/rating.tables.js';
import type { ReceiptTables } from '../modules/receipts/receipts.tables.js';
import type { TenantTables } from '../modules/tenants/tenants.tables.js';
import type { WebhookTables } from '../modules/webhooks/webhooks.tables.js';
import type { X12Tables } from '../modules/x12/x12.tables.js';

/** The whole schema, composed from the tables each module owns. */
export interface Database
  extends TenantTables,
    ItemTables,
    InventoryTables,
    AdjustmentTables,
    IdempotencyTables,
    AckTables,
    ReceiptTables,
    OrderTables,
    RatingTables,
    LimitTables,
    EventTables,
    WebhookTables,
    AdminTables,
    X12Tables,
    CountTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
