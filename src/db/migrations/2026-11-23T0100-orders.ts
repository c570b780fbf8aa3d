import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // DN-<n> is unique in the whole service, like RN-<n>: a sequence on PostgreSQL, a counter row on SQLite.
  if (postgres) await sql`create sequence order_svcpoid_seq`.execute(db);
  else await db.insertInto('counters').values({ name: 'order_svcpoid_seq', value: 0 }).execute();

  const identity = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
      .addColumn('id', postgres ? 'bigint' : 'integer', (col) =>
        postgres ? col.notNull().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
      );

  await db.schema
    .createTable('orders')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('reference_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('reference_no_type', 'varchar(6)', (col) => col.notNull())
    .addColumn('po_no', 'varchar(50)')
    .addColumn('status', 'varchar(30)', (col) => col.notNull())
    .addColumn('document', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by_key_id', 'bigint', (col) => col.notNull())
    .addColumn('updated_by_key_id', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('orders_pk', ['company_id', 'svcpoid'])
    .addForeignKeyConstraint('orders_customer_fk', ['company_id', 'customer_id'], 'customers', ['company_id', 'customer_id'])
    .addForeignKeyConstraint('orders_facility_fk', ['company_id', 'facility_id'], 'facilities', ['company_id', 'facility_id'])
    .execute();
  // An order's natural key among live (not Cancelled) orders: the customer's ReferenceNo, in every facility.
  await db.schema
    .createIndex('orders_live_reference_uq')
    .on('orders')
    .columns(['company_id', 'customer_id', 'reference_no'])
    .unique()
    .where(sql<boolean>`status <> 'Cancelled'`)
    .execute();
  // Header searches and the 3PL list: a facility's orders (of a customer) by update time; and by PONo.
  await db.schema
    .createIndex('orders_updated_idx')
    .on('orders')
    .columns(['company_id', 'facility_id', 'customer_id', 'updated_at'])
    .execute();
  await db.schema.createIndex('orders_po_idx').on('orders').columns(['company_id', 'customer_id', 'po_no']).execute();

  await db.schema
    .createTable('order_lines')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('line_no', 'integer', (col) => col.notNull())
    .addColumn('customer_line_no', 'integer')
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('lot_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('goods_type', 'varchar(50)', (col) => col.notNull())
    .addColumn('title_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('ordered_qty', 'bigint', (col) => col.notNull())
    .addColumn('shipped_qty', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('order_lines_pk', ['company_id', 'svcpoid', 'line_no'])
    .addForeignKeyConstraint('order_lines_order_fk', ['company_id', 'svcpoid'], 'orders', ['company_id', 'svcpoid'])
    .execute();

  // What each line holds allocated, per balance: released on cancel and close, consumed by shipping.
  await db.schema
    .createTable('order_allocations')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('line_no', 'integer', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('lot_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('goods_type', 'varchar(50)', (col) => col.notNull())
    .addColumn('title_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('inventory_status', 'varchar(20)', (col) => col.notNull())
    .addColumn('expiration_date', 'varchar(10)', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('order_allocations_pk', [
      'company_id',
      'svcpoid',
      'line_no',
      'item_id',
      'uom',
      'lot_no',
      'goods_type',
      'title_id',
      'inventory_status',
      'expiration_date',
    ])
    .addForeignKeyConstraint('order_allocations_line_fk', ['company_id', 'svcpoid', 'line_no'], 'order_lines', [
      'company_id',
      'svcpoid',
      'line_no',
    ])
    .addCheckConstraint('order_allocations_quantity_check', sql`quantity > 0`)
    .execute();

  const events = identity('order_events')
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('action', 'varchar(30)', (col) => col.notNull())
    .addColumn('from_status', 'varchar(30)', (col) => col.notNull())
    .addColumn('to_status', 'varchar(30)', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('order_events_order_fk', ['company_id', 'svcpoid'], 'orders', ['company_id', 'svcpoid']);
  await (postgres ? events.addPrimaryKeyConstraint('order_events_pk', ['company_id', 'id']) : events).execute();
  await db.schema.createIndex('order_events_order_idx').on('order_events').columns(['company_id', 'svcpoid', 'id']).execute();

  // Shipment confirmations (DC): one per applied ConfirmationNo of an order.
  const confirmations = identity('order_confirmations')
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('confirmation_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('po_no', 'varchar(50)')
    .addColumn('reference_no', 'varchar(50)', (col) => col.notNull())
    .addColumn('reference_no_type', 'varchar(6)', (col) => col.notNull())
    .addColumn('request_hash', 'char(64)', (col) => col.notNull())
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('dc', 'text', (col) => col.notNull())
    .addColumn('carrier_name', 'varchar(50)')
    .addColumn('scac_code', 'varchar(15)')
    .addColumn('pro_no', 'varchar(50)')
    .addColumn('shipped_at', 'bigint', (col) => col.notNull())
    .addColumn('key_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addForeignKeyConstraint('order_confirmations_order_fk', ['company_id', 'svcpoid'], 'orders', ['company_id', 'svcpoid']);
  await (postgres ? confirmations.addPrimaryKeyConstraint('order_confirmations_pk', ['company_id', 'id']) : confirmations).execute();
  await db.schema
    .createIndex('order_confirmations_number_uq')
    .on('order_confirmations')
    .columns(['company_id', 'svcpoid', 'confirmation_no'])
    .unique()
    .execute();
  await db.schema
    .createIndex('order_confirmations_search_idx')
    .on('order_confirmations')
    .columns(['company_id', 'customer_id', 'facility_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_confirmations').execute();
  await db.schema.dropTable('order_events').execute();
  await db.schema.dropTable('order_allocations').execute();
  await db.schema.dropTable('order_lines').execute();
  await db.schema.dropTable('orders').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`drop sequence order_svcpoid_seq`.execute(db);
  else await db.deleteFrom('counters').where('name', '=', 'order_svcpoid_seq').execute();
}
