import type { Trx } from '../../db/database.js';
import { lockNames } from '../../db/dialect.js';
import { balanceIdOf, type StockScope } from './balance-keys.js';
import type { ChangedBalance } from './inventory.repository.js';

/**
 * What one transaction has done to items so far: the item locks it holds, the stock it made
 * Available for waiting orders, and the balances it changed. They live as long as the transaction
 * object (a retry is a new one).
 */

/** One item in one UOM, the unit that allocation, backorders and their lock work with. */
export interface ItemUom {
  itemId: string;
  uom: string;
}

/** Item, then UOM, by UTF-16 code units, as compareBalanceKeys orders them. */
export const compareItems = (a: ItemUom, b: ItemUom) =>
  a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : a.uom < b.uom ? -1 : a.uom > b.uom ? 1 : 0;

/** The item locks each open transaction holds already (see lockItems). */
const heldItemLocks = new WeakMap<Trx, Set<string>>();

/**
 * Takes the lock of each item (of the scope's customer in its facility) until the transaction ends,
 * those it does not hold yet, in item order. Every writer of an item's balances takes it before it
 * reads or changes them — postings, releases, allocation, the backorder fill — so that an order
 * import and a change that makes stock Available never miss each other (the import would miss the
 * uncommitted stock, the change's fill the uncommitted order), and so that writers of one item
 * queue on it instead of deadlocking between it and the balance rows. One statement on PostgreSQL
 * (advisory locks), nothing on SQLite, whose writers already take turns.
 */
export async function lockItems(trx: Trx, scope: StockScope, items: readonly ItemUom[]): Promise<void> {
  const held = heldItemLocks.get(trx) ?? new Set<string>();
  heldItemLocks.set(trx, held);
  // A Set keeps the first of equal names, and the items are sorted first: the names stay in item order.
  const names = new Set(
    [...items]
      .sort(compareItems)
      .map((item) => JSON.stringify([scope.companyId, scope.customerId, scope.facilityId, item.itemId, item.uom]))
      .filter((name) => !held.has(name)),
  );
  await lockNames(trx, [...names]);
  for (const name of names) held.add(name);
}

/** Stock that a transaction made Available to allocate: one item and UOM of a customer in a facility. */
export interface StockMadeAvailable extends StockScope {
  itemId: string;
  uom: string;
}

/** Per open transaction, what it made Available so far (see takeStockMadeAvailable). */
const madeAvailable = new WeakMap<Trx, Map<string, StockMadeAvailable>>();

export function noteMadeAvailable(trx: Trx, scope: StockScope, key: ItemUom): void {
  const made = madeAvailable.get(trx) ?? new Map<string, StockMadeAvailable>();
  madeAvailable.set(trx, made);
  const stock = {
    companyId: scope.companyId,
    customerId: scope.customerId,
    facilityId: scope.facilityId,
    itemId: key.itemId,
    uom: key.uom,
  };
  made.set(JSON.stringify(stock), stock);
}

/** What reads ahead for stock about to be made Available (one posting's, of one scope): the backorder fill, registered by app.ts. */
export type StockReadAhead = (trx: Trx, stock: StockMadeAvailable[]) => Promise<void>;

let stockReadAhead: StockReadAhead | undefined;

/** Registers what a posting tells, before its statements, of the stock it is about to make Available. */
export function readAheadForStockMadeAvailable(readAhead: StockReadAhead): void {
  stockReadAhead = readAhead;
}

/**
 * Tells the registered read-ahead of the stock a posting is about to make Available, under the
 * items' locks and before the posting's statements: on PostgreSQL its read then goes out with them
 * instead of costing a round trip of its own after them (see fillBackorders).
 */
export async function announceStockMadeAvailable(trx: Trx, stock: StockMadeAvailable[]): Promise<void> {
  if (stock.length > 0) await stockReadAhead?.(trx, stock);
}

/**
 * The items a transaction has made Available so far (received, adjusted up, moved to Available,
 * released from an allocation), each once, in the order they were first freed; a second call
 * answers only what came after the first. Waiting orders allocate from them (backorders).
 */
export function takeStockMadeAvailable(trx: Trx): StockMadeAvailable[] {
  const made = madeAvailable.get(trx);
  madeAvailable.delete(trx);
  return made ? [...made.values()] : [];
}

/** Per open transaction, each balance it changed, as its latest change left it (see takeChangedBalances). */
const changedBalances = new WeakMap<Trx, Map<string, ChangedBalance>>();

/** Keeps what a statement left in a balance: every writer of balances tells, with the row it got back. */
export function noteBalanceChanged(trx: Trx, balance: ChangedBalance): void {
  const changed = changedBalances.get(trx) ?? new Map<string, ChangedBalance>();
  changedBalances.set(trx, changed);
  const id = balanceIdOf(balance);
  // Deleted first, so that the map keeps the balances in the order of their latest change.
  changed.delete(id);
  changed.set(id, balance);
}

/** The balances the transaction changed, each once as it stands now; a second call answers only later changes. */
export function takeChangedBalances(trx: Trx): ChangedBalance[] {
  const changed = changedBalances.get(trx);
  changedBalances.delete(trx);
  return changed ? [...changed.values()] : [];
}
