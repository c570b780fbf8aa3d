import { sql, type Insertable, type Selectable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import type { Db } from '../../db/database.js';
import { writeLater } from '../../db/trailing-writes.js';
import { writersLockRows } from '../../db/dialect.js';
import * as counts from '../counts/counts.service.js';
import { KEY_COLUMNS } from './balance-keys.js';
import type { BalanceKeyColumns, InventoryBalanceTable, InventoryLedgerTable } from './inventory.tables.js';

/**
 * All SQL of the inventory: balances and their ledger. The ledger's rows are only ever inserted,
 * here, which also counts them for the ledger search (docs/paging.md), by creation day.
 */

export type BalanceRow = Selectable<InventoryBalanceTable>;
export type LedgerRow = Selectable<InventoryLedgerTable>;
export type NewLedgerRow = Insertable<InventoryLedgerTable>;

/** A balance's quantities as a change left them. */
export interface BalanceQuantities {
  on_hand: number;
  allocated: number;
}

export interface BalanceFilter {
  companyId: string;
  customerId: string;
  facilityId?: string;
  itemId?: string;
  /** '' selects the balances without a lot. */
  lotNo?: string;
  inventoryStatus?: string;
  /** Balances with nothing on hand are left out unless this is set. */
  includeEmpty?: boolean;
  /** Only balances changed in this window (epoch ms, inclusive): delta sync. */
  updatedFrom?: number;
  updatedTo?: number;
}

export interface LedgerSourceFilter {
  companyId: string;
  sourceType: string;
  sourceId: string;
  customerId?: string;
  facilityId?: string;
}

/** Rows per ledger INSERT: 17 parameters a row stays far below either database's limit. */
const LEDGER_INSERT_CHUNK = 500;

/** Every balance column of the key, as one equality filter for `eb.and`. */
function keyEquals(key: BalanceKeyColumns): BalanceKeyColumns {
  return {
    company_id: key.company_id,
    customer_id: key.customer_id,
    facility_id: key.facility_id,
    item_id: key.item_id,
    uom: key.uom,
    lot_no: key.lot_no,
    goods_type: key.goods_type,
    title_id: key.title_id,
    inventory_status: key.inventory_status,
    expiration_date: key.expiration_date,
  };
}

/** A balance's key and its quantities as a change left them. */
export type ChangedBalance = BalanceKeyColumns & BalanceQuantities;

/** The net change of one balance in a multi-row statement; no balance appears twice in one. */
export interface BalanceChange {
  key: BalanceKeyColumns;
  /** Signed change of on-hand: > 0 for increaseBalances, < 0 for decreaseBalances. */
  quantity: number;
  /** The part of a decrease taken out of the allocation (0 ≤ it ≤ −quantity); 0 for an increase. */
  fromAllocated: number;
}

/**
 * Balances per multi-row statement: a decrease binds 12 parameters a row, an increase 14, so even
 * the largest chunk stays far below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
 */
export const BALANCE_CHANGE_CHUNK = 500;

const increaseBalancesQuery = compiledOnce((db: Db, change: { changes: BalanceChange[]; max: number; at: number }) =>
  db
    .insertInto('inventory_balances')
    .values(
      // Object.assign onto a fresh object, not a spread: see "Per-line objects" in docs/decisions.md.
      change.changes.map(({ key, quantity }) =>
        Object.assign(keyEquals(key), { on_hand: quantity, allocated: 0, first_received_at: change.at, updated_at: change.at }),
      ),
    )
    .onConflict((oc) =>
      oc
        .columns(KEY_COLUMNS)
        .doUpdateSet((eb) => ({
          on_hand: eb('inventory_balances.on_hand', '+', eb.ref('excluded.on_hand')),
          first_received_at: eb.fn.coalesce('inventory_balances.first_received_at', 'excluded.first_received_at'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        .where((eb) => eb(eb('inventory_balances.on_hand', '+', eb.ref('excluded.on_hand')), '<=', change.max)),
    )
    .returning([...KEY_COLUMNS, 'on_hand', 'allocated']),
);

/**
 * Adds each change's quantity (> 0) to its balance, creating the balance when absent, in one
 * statement: the rows are locked and changed by the database, never read and written back, and
 * PostgreSQL takes them in the order given (callers give key order, so that writers never
 * deadlock). `first_received_at` is set by the first increase and kept after. A balance whose sum
 * would pass `max` is left unchanged and is missing from the answer; a new balance above `max` is
 * the caller's to refuse before (the CHECK would fail the statement).
 */
export async function increaseBalances(db: Db, changes: BalanceChange[], max: number, at: number): Promise<ChangedBalance[]> {
  return (await increaseBalancesQuery(db, { changes, max, at })).rows;
}

/** The columns of the changes a decrease binds, in VALUES order; `ordinal` is the row's position. */
interface DecreaseRow extends BalanceKeyColumns {
  ordinal: number;
  on_hand_change: number;
  from_allocated: number;
}

/**
 * The changes as a VALUES list. The quantities are cast because PostgreSQL would type a bare
 * parameter in VALUES as text; the ordinal is a literal, so that the SQL text depends only on the
 * number of rows (and SQLite's statement cache can reuse it).
 */
function decreaseValues(changes: BalanceChange[]) {
  const rows = changes.map(
    ({ key, quantity, fromAllocated }, ordinal) =>
      sql`(${sql.join([
        sql.lit(ordinal),
        ...KEY_COLUMNS.map((column) => key[column]),
        sql`cast(${quantity} as bigint)`,
        sql`cast(${fromAllocated} as bigint)`,
      ])})`,
  );
  return sql<DecreaseRow>`(values ${sql.join(rows)})`;
}

const DECREASE_COLUMNS = `balance_change(ordinal, ${KEY_COLUMNS.join(', ')}, on_hand_change, from_allocated)` as const;

/** The balances `changes` name, as `c`, joined to the changes (see decreaseBalances for the locks). */
const changedBalances = (db: Db, changes: BalanceChange[]) =>
  db
    .with(DECREASE_COLUMNS, () => decreaseValues(changes))
    .updateTable('inventory_balances')
    .from(
      writersLockRows(db)
        ? (eb) =>
            eb
              .selectFrom('balance_change as l')
              .innerJoin('inventory_balances as t', (join) =>
                KEY_COLUMNS.reduce((on, column) => on.onRef(`t.${column}`, '=', `l.${column}`), join),
              )
              .selectAll('l')
              .orderBy('l.ordinal')
              .forUpdate(['t'])
              .as('c')
        : 'balance_change as c',
    );

const decreaseBalancesQuery = compiledOnce((db: Db, change: { changes: BalanceChange[]; at: number }) =>
  changedBalances(db, change.changes)
    .set((eb) => ({
      on_hand: eb('inventory_balances.on_hand', '+', eb.ref('c.on_hand_change')),
      allocated: eb('inventory_balances.allocated', '-', eb.ref('c.from_allocated')),
      updated_at: change.at,
    }))
    .where((eb) =>
      eb.and([
        ...KEY_COLUMNS.map((column) => eb(`inventory_balances.${column}`, '=', eb.ref(`c.${column}`))),
        eb('inventory_balances.allocated', '>=', eb.ref('c.from_allocated')),
        eb(
          eb('inventory_balances.on_hand', '+', eb.ref('c.on_hand_change')),
          '>=',
          eb(eb.ref('inventory_balances.allocated'), '-', eb.ref('c.from_allocated')),
        ),
      ]),
    )
    .returning([
      ...KEY_COLUMNS.map((column) => `inventory_balances.${column}` as const),
      'inventory_balances.on_hand',
      'inventory_balances.allocated',
    ]),
);

/**
 * Adds each change's quantity (< 0) to its balance in one conditional statement, `fromAllocated`
 * of it out of the balance's allocation: on-hand falls by −quantity and allocated by
 * `fromAllocated`, so a shipment that takes its own allocation and some Available stock of one
 * balance is one change. It never takes on-hand below what stays allocated, nor the allocation
 * below zero. A balance that is missing or short is left unchanged and is missing from the
 * answer; concurrent callers queue on the rows and each sees the previous one's result.
 *
 * PostgreSQL would lock the rows an UPDATE … FROM joins in whatever order its plan reads them, so
 * the changes come through a subquery that locks them first, FOR UPDATE after ORDER BY ordinal:
 * in the order given (key order), as the other writers of balances do. SQLite needs no row locks:
 * its write transactions run one at a time. The updated table has no alias because SQLite's
 * RETURNING accepts only its own name as a qualifier.
 */
export async function decreaseBalances(db: Db, changes: BalanceChange[], at: number): Promise<ChangedBalance[]> {
  return (await decreaseBalancesQuery(db, { changes, at })).rows;
}

const allocateQuery = boundOnce((db: Db, change: { changes: BalanceChange[]; at: number }) =>
  changedBalances(db, change.changes)
    .set((eb) => ({ allocated: eb('inventory_balances.allocated', '-', eb.ref('c.from_allocated')), updated_at: change.at }))
    .where((eb) => eb.and(KEY_COLUMNS.map((column) => eb(`inventory_balances.${column}`, '=', eb.ref(`c.${column}`))))),
);

/**
 * Allocates each take's quantity (> 0) of its balance, in one statement whose answer nothing reads:
 * in a transaction, a trailing write (db/trailing-writes.ts). The caller read the balances under
 * their items' locks, which keep every other writer of them out until the commit, so each take is
 * free and each balance there; a take beyond what is free would fail the statement on the
 * balances' CHECK (allocated ≤ on-hand), and the transaction with it. An allocation is a change
 * that leaves on-hand as it is and takes −quantity "out of" the allocation. Takes in key order, no
 * balance twice, at most BALANCE_CHANGE_CHUNK.
 */
export async function allocateFromBalances(db: Db, takes: { key: BalanceKeyColumns; quantity: number }[], at: number): Promise<void> {
  const changes = takes.map(({ key, quantity }) => ({ key, quantity: 0, fromAllocated: -quantity }));
  await writeLater(db, allocateQuery(db, { changes, at }));
}

export async function findBalance(db: Db, key: BalanceKeyColumns): Promise<BalanceRow | undefined> {
  return db
    .selectFrom('inventory_balances')
    .selectAll()
    .where((eb) => eb.and(keyEquals(key)))
    .executeTakeFirst();
}

const insertLedgerRowsQuery = boundOnce((db: Db, rows: NewLedgerRow[]) => db.insertInto('inventory_ledger').values(rows));

/** In a transaction, a trailing write (db/trailing-writes.ts): a later read of the ledger sends it first. */
export async function insertLedgerRows(db: Db, rows: NewLedgerRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += LEDGER_INSERT_CHUNK) {
    await writeLater(db, insertLedgerRowsQuery(db, rows.slice(start, start + LEDGER_INSERT_CHUNK)));
  }
  await countLedgerRows(db, rows);
}

/** A posting's rows share their customer, facility and time: counted a run at a time, not a row at a time. */
async function countLedgerRows(db: Db, rows: NewLedgerRow[]): Promise<void> {
  for (let start = 0, end = 0; start < rows.length; start = end) {
    const first = rows[start]!;
    while (
      end < rows.length &&
      rows[end]!.company_id === first.company_id &&
      rows[end]!.facility_id === first.facility_id &&
      rows[end]!.customer_id === first.customer_id &&
      rows[end]!.created_at === first.created_at
    )
      end++;
    await counts.countNew(
      db,
      'ledger',
      { companyId: first.company_id, facilityId: first.facility_id, customerId: first.customer_id, at: first.created_at },
      end - start,
    );
  }
}

/** The filter walks the primary key: (company, customer, facility, item, …). */
function filteredBalances(db: Db, filter: BalanceFilter) {
  return db
    .selectFrom('inventory_balances')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .$if(filter.facilityId !== undefined, (q) => q.where('facility_id', '=', filter.facilityId!))
    .$if(filter.itemId !== undefined, (q) => q.where('item_id', '=', filter.itemId!))
    .$if(filter.lotNo !== undefined, (q) => q.where('lot_no', '=', filter.lotNo!))
    .$if(filter.inventoryStatus !== undefined, (q) => q.where('inventory_status', '=', filter.inventoryStatus!))
    .$if(!filter.includeEmpty, (q) => q.where('on_hand', '>', 0))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('updated_at', '<=', filter.updatedTo!));
}

export async function countBalances(db: Db, filter: BalanceFilter): Promise<number> {
  const { count } = await filteredBalances(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** One page in key order, which is the primary key's order, so pages neither overlap nor skip. */
export async function pageBalances(db: Db, filter: BalanceFilter, offset: number, limit: number): Promise<BalanceRow[]> {
  return filteredBalances(db, filter)
    .selectAll()
    .orderBy('facility_id')
    .orderBy('item_id')
    .orderBy('uom')
    .orderBy('lot_no')
    .orderBy('goods_type')
    .orderBy('title_id')
    .orderBy('inventory_status')
    .orderBy('expiration_date')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The postings of one source document, in the order they were written (the source index). */
export async function findLedgerBySource(db: Db, filter: LedgerSourceFilter): Promise<LedgerRow[]> {
  return db
    .selectFrom('inventory_ledger')
    .selectAll()
    .where('company_id', '=', filter.companyId)
    .where('source_type', '=', filter.sourceType)
    .where('source_id', '=', filter.sourceId)
    .$if(filter.customerId !== undefined, (q) => q.where('customer_id', '=', filter.customerId!))
    .$if(filter.facilityId !== undefined, (q) => q.where('facility_id', '=', filter.facilityId!))
    .orderBy('id')
    .execute();
}

/** The balances an order line may allocate from, and what each still has free. */
export interface AllocatableFilter {
  companyId: string;
  customerId: string;
  facilityId: string;
  itemId: string;
  uom: string;
  inventoryStatus: string;
  lotNo?: string;
  goodsType?: string;
  titleId?: string;
}

/**
 * A customer's balances in a facility with stock not yet allocated, of one inventory status, in
 * the order allocation takes them: the earliest expiration first (a balance without one after
 * every dated one), then the earliest first receipt, then key order so that the order is total.
 */
function freeBalances(db: Db, filter: Pick<AllocatableFilter, 'companyId' | 'customerId' | 'facilityId' | 'inventoryStatus'>) {
  return db
    .selectFrom('inventory_balances')
    .selectAll()
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .where('facility_id', '=', filter.facilityId)
    .where('inventory_status', '=', filter.inventoryStatus)
    .where((eb) => eb('on_hand', '>', eb.ref('allocated')))
    .orderBy((eb) => eb.case().when('expiration_date', '=', '').then(1).else(0).end())
    .orderBy('expiration_date')
    .orderBy('first_received_at')
    .orderBy('lot_no')
    .orderBy('goods_type')
    .orderBy('title_id');
}

const findAllocatableBalancesQuery = compiledOnce((db: Db, filter: AllocatableFilter) =>
  freeBalances(db, filter)
    .where('item_id', '=', filter.itemId)
    .where('uom', '=', filter.uom)
    .$if(filter.lotNo !== undefined, (q) => q.where('lot_no', '=', filter.lotNo!))
    .$if(filter.goodsType !== undefined, (q) => q.where('goods_type', '=', filter.goodsType!))
    .$if(filter.titleId !== undefined, (q) => q.where('title_id', '=', filter.titleId!)),
);

/** The balances several order lines may allocate from: their items and UOMs, with any lot, goods type or title. */
export interface AllocatableItemsFilter {
  companyId: string;
  customerId: string;
  facilityId: string;
  inventoryStatus: string;
  itemIds: string[];
  uoms: string[];
}

const findAllocatableBalancesOfItemsQuery = compiledOnce((db: Db, filter: AllocatableItemsFilter) =>
  freeBalances(db, filter).where('item_id', 'in', filter.itemIds).where('uom', 'in', filter.uoms),
);

/** The free balances one order line may allocate from, in allocation order (see freeBalances). */
export async function findAllocatableBalances(db: Db, filter: AllocatableFilter): Promise<BalanceRow[]> {
  return (await findAllocatableBalancesQuery(db, filter)).rows;
}

/**
 * In one statement, the balances with free stock of any of the items in any of the UOMs (every
 * pairing of the two lists: the caller keeps those of its lines), in allocation order.
 */
export async function findAllocatableBalancesOfItems(db: Db, filter: AllocatableItemsFilter): Promise<BalanceRow[]> {
  return (await findAllocatableBalancesOfItemsQuery(db, filter)).rows;
}

const allocateFromBalanceQuery = compiledOnce((db: Db, change: { key: BalanceKeyColumns; quantity: number; at: number }) =>
  db
    .updateTable('inventory_balances')
    .set((eb) => ({ allocated: eb('allocated', '+', change.quantity), updated_at: change.at }))
    .where((eb) => eb.and([eb.and(keyEquals(change.key)), eb(eb('on_hand', '-', eb.ref('allocated')), '>=', change.quantity)]))
    .returning(['on_hand', 'allocated']),
);

/**
 * Allocates `quantity` (> 0) of a balance in one conditional statement: only while that much is
 * still free. Answers undefined, changing nothing, when another writer took it first.
 */
export async function allocateFromBalance(
  db: Db,
  key: BalanceKeyColumns,
  quantity: number,
  at: number,
): Promise<BalanceQuantities | undefined> {
  return (await allocateFromBalanceQuery(db, { key, quantity, at })).rows[0];
}

const releaseFromBalanceQuery = compiledOnce((db: Db, change: { key: BalanceKeyColumns; quantity: number; at: number }) =>
  db
    .updateTable('inventory_balances')
    .set((eb) => ({ allocated: eb('allocated', '-', change.quantity), updated_at: change.at }))
    .where((eb) => eb.and([eb.and(keyEquals(change.key)), eb('allocated', '>=', change.quantity)]))
    .returning(['on_hand', 'allocated']),
);

/** Gives back `quantity` (> 0) of a balance's allocation; undefined, changing nothing, when the balance holds less allocated. */
export async function releaseFromBalance(
  db: Db,
  key: BalanceKeyColumns,
  quantity: number,
  at: number,
): Promise<BalanceQuantities | undefined> {
  return (await releaseFromBalanceQuery(db, { key, quantity, at })).rows[0];
}
