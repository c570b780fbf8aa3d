import type { Kysely, Transaction } from 'kysely';
import type { ItemTables } from '../modules/items/items.tables.js';
import type { TenantTables } from '../modules/tenants/tenants.tables.js';

/** The whole schema, composed from the tables each module owns. */
export interface Database extends TenantTables, ItemTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
