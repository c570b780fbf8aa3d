import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * On SQLite the ledger's (company_id, facility_id, item_id, created_at, id) index becomes a table
 * filled behind the writes. Every posting line wrote that index at a random place, one page per
 * item: in a 20-line adjustment about four fifths of what its commit wrote to the WAL
 * (docs/performance.md). Now a posting only appends to the ledger; once a thousand rows have been
 * posted, the posting that passes the mark copies every newer row into `inventory_ledger_items`
 * in the table's order (src/modules/inventory/ledger-items.ts), and
 * `inventory_ledger_items_mark` says up to which ledger id it holds. The ledger search by item
 * reads that table and the ledger rows after the mark.
 *
 * PostgreSQL keeps the index: its writes to it cost little beside the rest of a posting.
 */

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema
    .createTable('inventory_ledger_items')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('ledger_id', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('inventory_ledger_items_pk', ['company_id', 'facility_id', 'item_id', 'created_at', 'ledger_id'])
    .modifyEnd(sql`without rowid`)
    .execute();
  await db.schema
    .createTable('inventory_ledger_items_mark')
    .addColumn('id', 'integer', (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn('last_ledger_id', 'integer', (col) => col.notNull())
    .execute();
  await sql`insert into inventory_ledger_items (company_id, facility_id, item_id, created_at, ledger_id)
    select company_id, facility_id, item_id, created_at, id from inventory_ledger
    order by company_id, facility_id, item_id, created_at, id`.execute(db);
  await sql`insert into inventory_ledger_items_mark (id, last_ledger_id)
    select 1, coalesce(max(id), 0) from inventory_ledger`.execute(db);
  await db.schema.dropIndex('inventory_ledger_facility_item_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema
    .createIndex('inventory_ledger_facility_item_idx')
    .on('inventory_ledger')
    .columns(['company_id', 'facility_id', 'item_id', 'created_at', 'id'])
    .execute();
  await db.schema.dropTable('inventory_ledger_items_mark').execute();
  await db.schema.dropTable('inventory_ledger_items').execute();
}
