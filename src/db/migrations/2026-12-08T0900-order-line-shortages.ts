import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Backorders (docs/orders.md): when stock becomes Available, the lines waiting for it were found by
 * reading every line of the customer's Imported and Open orders in the facility and keeping the
 * short ones; with 100,000 fully allocated open orders a one-line adjustment took 0.5 s, under
 * SQLite's writer lock. `order_line_shortages` holds exactly the lines that wait: one row for each
 * line of an Imported or Open order that holds less allocated than it still has to ship, with the
 * order's customer, facility and creation time, so that the read seeks the waiting lines of an
 * item, oldest order first, and touches no other line. The migration fills it for the orders
 * already waiting. On SQLite the table is its primary key (WITHOUT ROWID): one b-tree less to write.
 */

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  const table = db.schema
    .createTable('order_line_shortages')
    .addColumn('company_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('svcpoid', 'varchar(50)', (col) => col.notNull())
    .addColumn('line_no', 'integer', (col) => col.notNull())
    .addColumn('customer_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('facility_id', 'varchar(15)', (col) => col.notNull())
    .addColumn('item_id', 'varchar(50)', (col) => col.notNull())
    .addColumn('uom', 'varchar(15)', (col) => col.notNull())
    .addColumn('order_created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('order_line_shortages_pk', ['company_id', 'svcpoid', 'line_no'])
    .addForeignKeyConstraint('order_line_shortages_line_fk', ['company_id', 'svcpoid', 'line_no'], 'order_lines', [
      'company_id',
      'svcpoid',
      'line_no',
    ]);
  await (isPostgres(db) ? table : table.modifyEnd(sql`without rowid`)).execute();
  await db.schema
    .createIndex('order_line_shortages_waiting_idx')
    .on('order_line_shortages')
    .columns(['company_id', 'customer_id', 'facility_id', 'item_id', 'uom', 'order_created_at', 'svcpoid', 'line_no'])
    .execute();
  await sql`insert into order_line_shortages (company_id, svcpoid, line_no, customer_id, facility_id, item_id, uom, order_created_at)
    select l.company_id, l.svcpoid, l.line_no, o.customer_id, o.facility_id, l.item_id, l.uom, o.created_at
    from orders o join order_lines l on l.company_id = o.company_id and l.svcpoid = o.svcpoid
    where o.status in ('Imported', 'Open')
      and l.ordered_qty - l.shipped_qty > coalesce(
        (select sum(a.quantity) from order_allocations a
          where a.company_id = l.company_id and a.svcpoid = l.svcpoid and a.line_no = l.line_no),
        0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_line_shortages').execute();
}
