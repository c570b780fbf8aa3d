import { sql, type Insertable, type QueryResult, type Selectable, type Updateable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import { afterPosition, timeOrder, type PageSlice } from '../../db/keyset.js';
import { sendAhead, writeLater } from '../../db/trailing-writes.js';
import { forUpdate, numberAhead, type DocumentNumbers, type NumberAhead } from '../../db/dialect.js';
import * as counts from '../counts/counts.service.js';
import { BALANCE_KEY_COLUMNS } from '../inventory/balance-keys.js';
import type {
  OrderAllocationTable,
  OrderConfirmationTable,
  OrderEventTable,
  OrderLineShortageTable,
  OrderLineTable,
  OrderTable,
} from './orders.tables.js';

/**
 * All SQL of orders, their lines, allocations, events and shipment confirmations. Every write of
 * an order or a shipment confirmation here also keeps its search counts (docs/paging.md): an
 * order is counted by status and update day, a confirmation by creation day.
 */

export type OrderRow = Selectable<OrderTable>;
export type OrderLineRow = Selectable<OrderLineTable>;
export type OrderAllocationRow = Selectable<OrderAllocationTable>;
export type OrderConfirmationRow = Selectable<OrderConfirmationTable>;

export interface OrderKey {
  companyId: string;
  svcpoid: string;
}

const SVCPOIDS: DocumentNumbers = { prefix: 'DN-', sequence: 'order_svcpoid_seq' };

/** Which live orders of a customer to find: every number given must match. */
export interface LiveOrderKey {
  companyId: string;
  customerId: string;
  facilityId?: string;
  poNo?: string;
  referenceNo?: string;
}

const findLiveQuery = compiledOnce((db: Db, key: LiveOrderKey & { lock: boolean }) => {
  const query = db
    .selectFrom('orders')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('customer_id', '=', key.customerId)
    // A literal, so that SQLite can use the partial unique index of live documents (a parameter it cannot match).
    .where('status', '<>', sql.lit('Cancelled'))
    .$if(key.facilityId !== undefined, (q) => q.where('facility_id', '=', key.facilityId!))
    .$if(key.poNo !== undefined, (q) => q.where('po_no', '=', key.poNo!))
    .$if(key.referenceNo !== undefined, (q) => q.where('reference_no', '=', key.referenceNo!))
    .orderBy('svcpoid');
  return key.lock ? forUpdate(db, query) : query;
});

/**
 * The live (not Cancelled) orders of a customer matching every number given, in one facility or,
 * without a FacilityID, in all of them. ReferenceNo is the natural key: at most one matches it.
 */
export async function findLive(db: Db, key: LiveOrderKey, options: { lock?: boolean } = {}): Promise<OrderRow[]> {
  return (await findLiveQuery(db, { ...key, lock: options.lock ?? false })).rows;
}

const findOrderQuery = compiledOnce((db: Db, key: OrderKey & { lock: boolean }) => {
  const query = db.selectFrom('orders').selectAll().where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid);
  return key.lock ? forUpdate(db, query) : query;
});

/** One order; with `lock`, held until the transaction ends so that no other writer moves it meanwhile. */
export async function findOrder(db: Db, key: OrderKey, options: { lock?: boolean } = {}): Promise<OrderRow | undefined> {
  return (await findOrderQuery(db, { ...key, lock: options.lock ?? false })).rows[0];
}

const insertOrderQuery = boundOnce((db: Db, row: Insertable<OrderTable>) => db.insertInto('orders').values(row));

/** The next SVCPOID, taken ahead of the lookup that decides whether the order is new (numberAhead). */
export function svcpoidAhead(db: Db): Promise<NumberAhead> {
  return numberAhead(db, SVCPOIDS);
}

/** Inserts a new order under the SVCPOID svcpoidAhead took; in a transaction, a trailing write (db/trailing-writes.ts). */
export async function insertOrder(db: Db, row: Insertable<OrderTable>): Promise<void> {
  await writeLater(db, insertOrderQuery(db, row));
  await counts.countNew(db, 'orders', counts.countedDocument(row as counts.CountedDocument));
}

/** An order as it is now, locked: what a change of it moves its count from, whatever the caller read before. */
const countedOrderQuery = boundOnce((db: Db, key: OrderKey) =>
  forUpdate(
    db,
    db
      .selectFrom('orders')
      .select(['company_id', 'customer_id', 'facility_id', 'status', 'updated_at'])
      .where('company_id', '=', key.companyId)
      .where('svcpoid', '=', key.svcpoid),
  ),
);

const updateOrderQuery = compiledOnce((db: Db, update: { key: OrderKey; changes: Updateable<OrderTable> }) =>
  db.updateTable('orders').set(update.changes).where('company_id', '=', update.key.companyId).where('svcpoid', '=', update.key.svcpoid),
);

export async function updateOrder(db: Db, key: OrderKey, changes: Updateable<OrderTable>): Promise<void> {
  const before = await sendAhead(db, countedOrderQuery(db, key));
  await updateOrderQuery(db, { key, changes });
  const [row] = (await before()).rows;
  await counts.countDocumentChange(db, 'orders', row, changes as Partial<counts.CountedDocument>);
}

const moveStatusQuery = compiledOnce((db: Db, move: OrderKey & { from: string[]; to: string; at: number; keyId: number }) =>
  db
    .updateTable('orders')
    .set({ status: move.to, updated_at: move.at, updated_by_key_id: move.keyId })
    .where('company_id', '=', move.companyId)
    .where('svcpoid', '=', move.svcpoid)
    .where('status', 'in', move.from),
);

/**
 * Moves an order to `to` only if its status is one of `from` (one statement, so two movers cannot
 * both win); answers whether it moved.
 */
export async function moveStatus(db: Db, key: OrderKey, from: readonly string[], to: string, at: number, keyId: number): Promise<boolean> {
  const before = await sendAhead(db, countedOrderQuery(db, key));
  const result = await moveStatusQuery(db, { ...key, from: [...from], to, at, keyId });
  const [row] = (await before()).rows;
  const moved = (result.numAffectedRows ?? 0n) > 0n;
  if (moved) await counts.countDocumentChange(db, 'orders', row, { status: to, updated_at: at });
  return moved;
}

/** The moves of a document, oldest first: its timeline. */
export async function findMoves(db: Db, key: OrderKey) {
  return db
    .selectFrom('order_events')
    .select(['action', 'from_status', 'to_status', 'note', 'key_id', 'created_at'])
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .orderBy('id')
    .execute();
}

const insertEventQuery = compiledOnce((db: Db, row: Insertable<OrderEventTable>) => db.insertInto('order_events').values(row));

export async function insertEvent(db: Db, row: Insertable<OrderEventTable>): Promise<void> {
  await insertEventQuery(db, row);
}

const findLinesQuery = compiledOnce((db: Db, key: OrderKey) =>
  db.selectFrom('order_lines').selectAll().where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).orderBy('line_no'),
);

export async function findLines(db: Db, key: OrderKey): Promise<OrderLineRow[]> {
  return (await findLinesQuery(db, key)).rows;
}

const insertLinesQuery = boundOnce((db: Db, lines: Insertable<OrderLineTable>[]) => db.insertInto('order_lines').values(lines));

/** In a transaction, a trailing write (db/trailing-writes.ts): a later read of the lines sends it first. */
export async function insertLines(db: Db, lines: Insertable<OrderLineTable>[]): Promise<void> {
  if (lines.length > 0) await writeLater(db, insertLinesQuery(db, lines));
}

/** Removes an order's lines; their allocations must have been released first (a foreign key holds them). */
export async function deleteLines(db: Db, key: OrderKey): Promise<void> {
  await db.deleteFrom('order_lines').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
}

const addShippedQuantityQuery = compiledOnce((db: Db, change: OrderKey & { lineNo: number; quantity: number }) =>
  db
    .updateTable('order_lines')
    .set((eb) => ({ shipped_qty: eb('shipped_qty', '+', change.quantity) }))
    .where('company_id', '=', change.companyId)
    .where('svcpoid', '=', change.svcpoid)
    .where('line_no', '=', change.lineNo),
);

export async function addShippedQuantity(db: Db, key: OrderKey, lineNo: number, quantity: number): Promise<void> {
  await addShippedQuantityQuery(db, { ...key, lineNo, quantity });
}

const findAllocationsQuery = compiledOnce((db: Db, key: OrderKey) =>
  db
    .selectFrom('order_allocations')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .orderBy('line_no')
    .orderBy((eb) => eb.case().when('expiration_date', '=', '').then(1).else(0).end())
    .orderBy('expiration_date')
    .orderBy('lot_no')
    .orderBy('goods_type')
    .orderBy('title_id'),
);

/** An order's allocations, by line, each line's in the order allocation took them (FEFO, then FIFO). */
export async function findAllocations(db: Db, key: OrderKey): Promise<OrderAllocationRow[]> {
  return (await findAllocationsQuery(db, key)).rows;
}

/** The primary key of order_allocations: a line, and the balance it holds stock in. */
const ALLOCATION_KEY = ['company_id', 'svcpoid', 'line_no', ...BALANCE_KEY_COLUMNS] as const;

const addAllocationsQuery = boundOnce((db: Db, rows: Insertable<OrderAllocationTable>[]) =>
  db
    .insertInto('order_allocations')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(ALLOCATION_KEY).doUpdateSet((eb) => ({ quantity: eb('order_allocations.quantity', '+', eb.ref('excluded.quantity')) })),
    ),
);

/** Allocation rows per statement: 13 parameters a row stays far below SQLite's 32,766. */
const ALLOCATIONS_PER_STATEMENT = 1000;

/**
 * Adds to what lines hold allocated: a new balance gets its row, a balance a line already holds
 * grows. No (line, balance) twice in one call. In a transaction, a trailing write
 * (db/trailing-writes.ts): a later read of the allocations sends it first.
 */
export async function addAllocations(db: Db, rows: Insertable<OrderAllocationTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ALLOCATIONS_PER_STATEMENT)
    await writeLater(db, addAllocationsQuery(db, rows.slice(i, i + ALLOCATIONS_PER_STATEMENT)));
}

/** Where backorders wait: items and UOMs of a customer in a facility. */
export interface WaitingLinesFilter {
  companyId: string;
  customerId: string;
  facilityId: string;
  items: readonly { itemId: string; uom: string }[];
}

/** An order line with what it holds allocated now. */
export interface WaitingLineRow extends OrderLineRow {
  allocated: number;
}

const waitingLinesQuery = boundOnce(
  (db: Db, filter: { companyId: string; customerId: string; facilityId: string; itemIds: string[]; uoms: string[] }) =>
    db
      .selectFrom('order_line_shortages as s')
      // CROSS JOIN makes SQLite read the short lines first, through their index, and each line by its
      // primary key; it has no statistics to choose by.
      .crossJoin('order_lines as l')
      .whereRef('l.company_id', '=', 's.company_id')
      .whereRef('l.svcpoid', '=', 's.svcpoid')
      .whereRef('l.line_no', '=', 's.line_no')
      .selectAll('l')
      .select((eb) =>
        eb
          .selectFrom('order_allocations as a')
          .select((sub) => sub.fn.coalesce(sub.fn.sum<number>('a.quantity'), sub.lit(0)).as('held'))
          .whereRef('a.company_id', '=', 'l.company_id')
          .whereRef('a.svcpoid', '=', 'l.svcpoid')
          .whereRef('a.line_no', '=', 'l.line_no')
          .as('allocated'),
      )
      .where('s.company_id', '=', filter.companyId)
      .where('s.customer_id', '=', filter.customerId)
      .where('s.facility_id', '=', filter.facilityId)
      // Two flat IN lists, the pairs matched below: an OR of up to 1000 pairs nests too deep for SQLite.
      .where('s.item_id', 'in', filter.itemIds)
      .where('s.uom', 'in', filter.uoms)
      .orderBy('s.order_created_at')
      .orderBy('s.svcpoid')
      .orderBy('s.line_no'),
);

/**
 * The lines of the given items and UOMs in the customer's Imported and Open orders in the facility
 * that hold less allocated than they still have to ship, the oldest order first (then SVCPOID,
 * line). They are found in order_line_shortages, which holds those lines and no others: the read
 * costs what the waiting lines cost, however many orders are fully allocated.
 */
export async function findWaitingLines(db: Db, filter: WaitingLinesFilter): Promise<WaitingLineRow[]> {
  return waitingLinesIn(filter, await db.executeQuery(waitingLinesCompiled(db, filter)));
}

/**
 * findWaitingLines sent ahead (db/trailing-writes.ts sendAhead): on PostgreSQL it goes out with the
 * transaction's next statement; the function answered awaits the lines.
 */
export async function sendWaitingLinesAhead(db: Db, filter: WaitingLinesFilter): Promise<() => Promise<WaitingLineRow[]>> {
  const answer = await sendAhead(db, waitingLinesCompiled(db, filter));
  return async () => waitingLinesIn(filter, await answer());
}

function waitingLinesCompiled(db: Db, filter: WaitingLinesFilter) {
  return waitingLinesQuery(db, {
    companyId: filter.companyId,
    customerId: filter.customerId,
    facilityId: filter.facilityId,
    itemIds: [...new Set(filter.items.map((item) => item.itemId))],
    uoms: [...new Set(filter.items.map((item) => item.uom))],
  });
}

/** The rows of the waiting-lines query that are waiting lines of the filter's pairs of item and UOM. */
function waitingLinesIn(
  filter: WaitingLinesFilter,
  { rows }: QueryResult<OrderLineRow & { allocated: number | string | null }>,
): WaitingLineRow[] {
  const wanted = new Set(filter.items.map((item) => JSON.stringify([item.itemId, item.uom])));
  return rows
    .map((row) => Object.assign(row, { allocated: Number(row.allocated ?? 0) }))
    .filter((row) => wanted.has(JSON.stringify([row.item_id, row.uom])) && row.ordered_qty - row.shipped_qty > row.allocated);
}

const insertShortagesQuery = boundOnce((db: Db, rows: Insertable<OrderLineShortageTable>[]) =>
  db.insertInto('order_line_shortages').values(rows),
);

/** Shortage rows per statement: 8 parameters a row stays far below SQLite's 32,766. */
const SHORTAGES_PER_STATEMENT = 1000;

/**
 * Records lines that wait for stock (an order's short lines at its import). In a transaction, a
 * trailing write (db/trailing-writes.ts): nothing reads its answer.
 */
export async function insertShortages(db: Db, rows: Insertable<OrderLineShortageTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += SHORTAGES_PER_STATEMENT)
    await writeLater(db, insertShortagesQuery(db, rows.slice(i, i + SHORTAGES_PER_STATEMENT)));
}

const deleteShortageQuery = boundOnce((db: Db, line: OrderKey & { lineNo: number }) =>
  db
    .deleteFrom('order_line_shortages')
    .where('company_id', '=', line.companyId)
    .where('svcpoid', '=', line.svcpoid)
    .where('line_no', '=', line.lineNo),
);

/** One line waits no more (a backorder filled it); in a transaction, a trailing write. */
export async function deleteShortage(db: Db, key: OrderKey, lineNo: number): Promise<void> {
  await writeLater(db, deleteShortageQuery(db, { ...key, lineNo }));
}

const deleteShortagesQuery = boundOnce((db: Db, key: OrderKey) =>
  db.deleteFrom('order_line_shortages').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid),
);

/** No line of the order waits any more (it stopped allocating, or its lines are replaced); in a transaction, a trailing write. */
export async function deleteShortages(db: Db, key: OrderKey): Promise<void> {
  await writeLater(db, deleteShortagesQuery(db, key));
}

export async function deleteAllocations(db: Db, key: OrderKey): Promise<void> {
  await db.deleteFrom('order_allocations').where('company_id', '=', key.companyId).where('svcpoid', '=', key.svcpoid).execute();
}

/** The primary key of one allocation. */
function allocationKey(row: OrderAllocationRow) {
  return Object.fromEntries(ALLOCATION_KEY.map((column) => [column, row[column]])) as Pick<
    OrderAllocationRow,
    (typeof ALLOCATION_KEY)[number]
  >;
}

/** Sets one allocation's quantity; zero removes it. */
export async function setAllocationQuantity(db: Db, row: OrderAllocationRow, quantity: number): Promise<void> {
  if (quantity > 0) {
    await db
      .updateTable('order_allocations')
      .set({ quantity })
      .where((eb) => eb.and(allocationKey(row)))
      .execute();
  } else {
    await db
      .deleteFrom('order_allocations')
      .where((eb) => eb.and(allocationKey(row)))
      .execute();
  }
}

export async function findConfirmation(db: Db, key: OrderKey & { confirmationNo: string }): Promise<OrderConfirmationRow | undefined> {
  return db
    .selectFrom('order_confirmations')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('confirmation_no', '=', key.confirmationNo)
    .executeTakeFirst();
}

export async function insertConfirmation(db: Db, row: Insertable<OrderConfirmationTable>): Promise<void> {
  await db.insertInto('order_confirmations').values(row).execute();
  await counts.countNew(db, 'order_confirmations', {
    companyId: row.company_id,
    facilityId: row.facility_id,
    customerId: row.customer_id,
    at: row.created_at,
  });
}

export interface OrderListFilter {
  companyId: string;
  facilityId: string;
  customerId?: string;
  statuses?: string[];
  poNo?: string;
  referenceNo?: string;
  updatedFrom?: number;
  updatedTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  svcpoidThrough?: string;
}

function listed(db: Db, filter: OrderListFilter) {
  return db
    .selectFrom('orders')
    .where('company_id', '=', filter.companyId)
    .where('facility_id', '=', filter.facilityId)
    .$if(filter.customerId !== undefined, (q) => q.where('customer_id', '=', filter.customerId!))
    .$if(filter.statuses !== undefined, (q) => q.where('status', 'in', filter.statuses!))
    .$if(filter.poNo !== undefined, (q) => q.where('po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('reference_no', '=', filter.referenceNo!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!))
    .$if(filter.svcpoidThrough !== undefined, (q) => q.where('svcpoid', '<=', filter.svcpoidThrough!));
}

export async function countOrders(db: Db, filter: OrderListFilter): Promise<number> {
  const { count } = await listed(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest update first; SVCPOIDs break ties, so pages are stable while nothing changes. */
export async function pageOrders(db: Db, filter: OrderListFilter, slice: PageSlice): Promise<OrderRow[]> {
  return listed(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('updated_at', 'svcpoid', slice.after!)))
    .selectAll()
    .orderBy(timeOrder('updated_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('svcpoid')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}
