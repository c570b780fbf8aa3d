import type { Trx } from '../../db/database.js';
import { asScaled, formatDecimal, type Scaled } from '../../lib/decimal.js';
import * as inventory from '../inventory/inventory.service.js';
import { compareItems, lockItems, type StockMadeAvailable } from '../inventory/transaction-stock.js';
import { isAllocating } from './order-states.js';
import * as repo from './orders.repository.js';

/**
 * An order's hold on stock (docs/orders.md), in one home: its lines allocate Available stock on import
 * (FEFO, then FIFO), give it back on cancel, update and close, and a shipment takes it (the order's
 * allocation first, then Available stock) and gives back what a line no longer needs. Shipping
 * orchestrates; every stock decision is made here.
 */

/** What allocation needs to know of an order: which it is, and where it keeps its stock. */
export type OrderRef = Pick<repo.OrderRow, 'company_id' | 'svcpoid' | 'customer_id' | 'facility_id'>;

/** Where an order keeps its stock: its company, customer and facility. */
export function scopeOf(order: OrderRef): inventory.StockScope {
  return { companyId: order.company_id, customerId: order.customer_id, facilityId: order.facility_id };
}

const blankToUndefined = (value: string) => (value === '' ? undefined : value);

/** What an order line may take: its item and UOM, and its lot, goods type and title when it names them. */
export function allocatableBy(order: OrderRef, line: repo.OrderLineRow) {
  return {
    companyId: order.company_id,
    customerId: order.customer_id,
    facilityId: order.facility_id,
    itemId: line.item_id,
    uom: line.uom,
    lotNo: blankToUndefined(line.lot_no),
    goodsType: blankToUndefined(line.goods_type),
    titleId: blankToUndefined(line.title_id),
  };
}

/** Lines by item, so that two orders of the same items take their locks and balances in the same order. */
const itemOrder = (a: repo.OrderLineRow, b: repo.OrderLineRow) =>
  compareItems({ itemId: a.item_id, uom: a.uom }, { itemId: b.item_id, uom: b.uom }) || a.line_no - b.line_no;

/** The rows that record what a line now holds more: one per balance. */
function allocationRows(order: OrderRef, line: repo.OrderLineRow, allocations: inventory.Allocation[]) {
  // Object.assign onto a fresh object, not a spread: see "Per-line objects" in docs/decisions.md.
  return allocations.map(({ key, quantity }) =>
    Object.assign(inventory.balanceColumnsOf(scopeOf(order), key), { svcpoid: order.svcpoid, line_no: line.line_no, quantity }),
  );
}

/** Allocates up to `quantity` of Available stock to one line and records what the line now holds more. */
async function allocateLine(trx: Trx, order: OrderRef, line: repo.OrderLineRow, quantity: number, at: number): Promise<number> {
  const allocations = await inventory.allocateStock(trx, { ...allocatableBy(order, line), quantity: asScaled(quantity), at });
  await repo.addAllocations(trx, allocationRows(order, line, allocations));
  return allocations.reduce((sum, a) => sum + a.quantity, 0);
}

/** An order that allocates, and its place in the queue of backorders: its creation time (an update keeps it). */
export type AllocatingOrder = OrderRef & Pick<repo.OrderRow, 'created_at'>;

/**
 * Allocates every line of an order as far as stock allows and records what each line holds, and
 * that its short lines wait for stock (order_line_shortages): a fully allocated order writes
 * nothing more. Lines are allocated by item, so two orders of the same items lock balances in the
 * same order. Answers one text per short line: "SKU-1: ordered 20, allocated 6, short 14", in line order.
 */
export async function allocateOrder(trx: Trx, order: AllocatingOrder, lines: repo.OrderLineRow[], at: number): Promise<string[]> {
  // Lines by item, so that an item's lines take its balances in line order (allocateEach locks the items and takes the balances in key order).
  const sorted = [...lines].sort(itemOrder);
  const allocations = await inventory.allocateEach(
    trx,
    sorted.map((line) => Object.assign(allocatableBy(order, line), { quantity: asScaled(line.ordered_qty), at })),
  );
  await repo.addAllocations(
    trx,
    sorted.flatMap((line, index) => allocationRows(order, line, allocations[index]!)),
  );
  const allocated = new Map(sorted.map((line, index) => [line.line_no, allocations[index]!.reduce((sum, a) => sum + a.quantity, 0)]));
  const short = lines.filter((line) => allocated.get(line.line_no)! < line.ordered_qty);
  await repo.insertShortages(
    trx,
    short.map((line) => ({
      company_id: order.company_id,
      svcpoid: order.svcpoid,
      line_no: line.line_no,
      customer_id: order.customer_id,
      facility_id: order.facility_id,
      item_id: line.item_id,
      uom: line.uom,
      order_created_at: order.created_at,
    })),
  );
  return short.map((line) => {
    const got = allocated.get(line.line_no)!;
    return `${line.item_id}: ordered ${formatDecimal(line.ordered_qty)}, allocated ${formatDecimal(got)}, short ${formatDecimal(line.ordered_qty - got)}`;
  });
}

/**
 * Backorders (docs/orders.md): stock a change made Available goes to the short lines of the customer's
 * orders that still allocate (Imported, Open) in that facility, the oldest order first, in the same
 * transaction as the change. A line never gets more than it still has to ship (ordered − shipped −
 * allocated). Each order is locked before its need is read, so two changes that free the same item
 * at once fill a line once, and they lock orders in the same order. Once a line that may take any
 * lot is left short, nothing of the item is Available any more and the rest wait for it. The fill
 * reads the waiting lines of every freed item at once, in one statement; a line it fills waits no
 * more (order_line_shortages). An order that gets stock shows it as an update (UpdatedWhen, the key
 * of the change that freed it).
 */
export async function fillBackorders(trx: Trx, freed: StockMadeAvailable[], change: { at: number; keyId: number }): Promise<void> {
  // Almost always one scope: the customer and facility of the document that changed.
  const scopes = new Map<string, { scope: inventory.StockScope; items: StockMadeAvailable[] }>();
  for (const stock of freed) {
    const id = JSON.stringify([stock.companyId, stock.customerId, stock.facilityId]);
    const group = scopes.get(id) ?? { scope: stock, items: [] };
    group.items.push(stock);
    scopes.set(id, group);
  }
  for (const { scope, items } of scopes.values()) {
    // Under the items' locks (see lockItems in inventory/transaction-stock.ts), no import of them is between reading its stock and committing.
    await lockItems(trx, scope, items);
    const waiting = await waitingLines(trx, scope, items);
    const exhausted = new Set<string>();
    for (const candidate of waiting) {
      const item = JSON.stringify([candidate.item_id, candidate.uom]);
      if (exhausted.has(item)) continue;
      const order = await repo.findOrder(trx, { companyId: candidate.company_id, svcpoid: candidate.svcpoid }, { lock: true });
      if (!order || !isAllocating(order.status)) continue;
      // Read again under the lock: a shipment may have changed the line since it was found.
      const key = { companyId: order.company_id, svcpoid: order.svcpoid };
      const line = (await repo.findLines(trx, key)).find((l) => l.line_no === candidate.line_no)!;
      const held = (await repo.findAllocations(trx, key))
        .filter((allocation) => allocation.line_no === line.line_no)
        .reduce((sum, allocation) => sum + allocation.quantity, 0);
      const need = line.ordered_qty - line.shipped_qty - held;
      const got = need > 0 ? await allocateLine(trx, order, line, need, change.at) : 0;
      // The order changed: its update time tells the header searches and the 3PL list.
      if (got > 0) await repo.updateOrder(trx, key, { updated_at: change.at, updated_by_key_id: change.keyId });
      // Filled (or found full under the lock): the line waits no more.
      if (got >= need) await repo.deleteShortage(trx, key, line.line_no);
      const takesAnyLot = line.lot_no === '' && line.goods_type === '' && line.title_id === '';
      if (got < need && takesAnyLot) exhausted.add(item);
    }
  }
}

/** The waiting lines of `items` read ahead in a transaction, and which scope and items they are of. */
const waitingLinesAhead = new WeakMap<Trx, { id: string; lines: () => Promise<repo.WaitingLineRow[]> }>();

/** One text for a scope and a set of items and UOMs, whatever their order. */
const waitingLinesId = (scope: inventory.StockScope, items: readonly StockMadeAvailable[]) =>
  JSON.stringify([
    scope.companyId,
    scope.customerId,
    scope.facilityId,
    items.map((item) => JSON.stringify([item.itemId, item.uom])).sort(),
  ]);

function waitingFilter(scope: inventory.StockScope, items: readonly StockMadeAvailable[]): repo.WaitingLinesFilter {
  return { companyId: scope.companyId, customerId: scope.customerId, facilityId: scope.facilityId, items };
}

/**
 * Reads ahead the waiting lines of stock a posting is about to make Available (registered with the
 * inventory by app.ts): sent under the items' locks with the posting's statements, it costs no round
 * trip of its own on PostgreSQL. The stock is one posting's, of one scope.
 */
export async function readWaitingLinesAhead(trx: Trx, stock: StockMadeAvailable[]): Promise<void> {
  const scope = stock[0]!;
  const lines = await repo.sendWaitingLinesAhead(trx, waitingFilter(scope, stock));
  waitingLinesAhead.set(trx, { id: waitingLinesId(scope, stock), lines });
}

/**
 * The waiting lines of `items`: those read ahead when they are of the same scope and items, else
 * read now. What was read ahead is only a list of candidates, as a read now is: the fill reads each
 * order and line again under the order's lock. The transactions that make stock Available by a
 * posting (receipts, adjustments, property moves) change no order before their fill, so no line
 * begins to wait between the two reads.
 */
async function waitingLines(trx: Trx, scope: inventory.StockScope, items: StockMadeAvailable[]): Promise<repo.WaitingLineRow[]> {
  const ahead = waitingLinesAhead.get(trx);
  waitingLinesAhead.delete(trx);
  if (ahead && ahead.id === waitingLinesId(scope, items)) return ahead.lines();
  return repo.findWaitingLines(trx, waitingFilter(scope, items));
}

/**
 * The order's lines wait for stock no more: it stops allocating (cancelled, shipping) or its lines
 * are replaced (an update). Every move out of Imported and Open calls it in the move's transaction,
 * so that order_line_shortages holds the lines of allocating orders only.
 */
export async function stopWaiting(trx: Trx, order: OrderRef): Promise<void> {
  await repo.deleteShortages(trx, { companyId: order.company_id, svcpoid: order.svcpoid });
}

/**
 * Whether a line of the order holds less allocated than it still has to ship: in an Imported or
 * Open order, whether order_line_shortages holds a line of it.
 */
export function hasShortLine(lines: repo.OrderLineRow[], allocations: repo.OrderAllocationRow[]): boolean {
  const held = new Map<number, number>();
  for (const allocation of allocations) held.set(allocation.line_no, (held.get(allocation.line_no) ?? 0) + allocation.quantity);
  return lines.some((line) => line.ordered_qty - line.shipped_qty > (held.get(line.line_no) ?? 0));
}

/** Gives back everything the order still holds allocated. */
export async function releaseOrder(trx: Trx, order: OrderRef, at: number): Promise<void> {
  const key = { companyId: order.company_id, svcpoid: order.svcpoid };
  const held = await repo.findAllocations(trx, key);
  await inventory.releaseAllocations(
    trx,
    scopeOf(order),
    held.map((row) => ({ key: inventory.balanceKeyOf(row), quantity: asScaled(row.quantity) })),
    at,
  );
  await repo.deleteAllocations(trx, key);
}

/** A shipped line matched to its order line: what it asks to take, and of which lot. */
export interface ShipmentWant {
  target: repo.OrderLineRow;
  quantity: Scaled;
  /** The lot the shipped line names; absent takes any lot the order line may. */
  lotNo?: string;
  /** How a problem names the shipped line, e.g. "Items[2] item SKU-1". */
  where: string;
}

/** Where the stock of each want comes from, or why there is not enough. */
export interface ShipmentPlan {
  /** Per want, in the wants' order: the balances it takes from, or its problem. */
  outcomes: ({ takes: inventory.StockPostingLine[] } | { problem: string })[];
  /** What each of the order's allocations still holds once the takes are done. */
  allocationsLeft: Map<repo.OrderAllocationRow, number>;
}

/**
 * Plans where each want takes its stock: first what its order line holds allocated (of the named
 * lot), then Available stock, earliest expiration first. A want that needs more than both is a
 * problem; nothing is taken while planning.
 */
export async function planShipment(
  trx: Trx,
  order: OrderRef,
  allocations: repo.OrderAllocationRow[],
  wants: ShipmentWant[],
): Promise<ShipmentPlan> {
  const allocationsLeft = new Map(allocations.map((a) => [a, a.quantity]));
  const availableTaken = new Map<string, number>();
  const outcomes: ShipmentPlan['outcomes'] = [];
  for (const { target, quantity, lotNo, where } of wants) {
    const takes: inventory.StockPostingLine[] = [];
    let need: number = quantity;
    for (const allocation of allocations) {
      const left = allocationsLeft.get(allocation)!;
      if (need === 0 || allocation.line_no !== target.line_no || left === 0 || (lotNo && allocation.lot_no !== lotNo)) continue;
      const take = Math.min(need, left);
      allocationsLeft.set(allocation, left - take);
      takes.push({ ...inventory.balanceKeyOf(allocation), quantity: asScaled(-take), fromAllocated: asScaled(take) });
      need -= take;
    }
    const fromAllocation = quantity - need;
    if (need > 0) {
      const free = await inventory.findAllocatable(trx, { ...allocatableBy(order, target), ...(lotNo ? { lotNo } : {}) });
      for (const { key, quantity: available } of free) {
        const id = JSON.stringify(key);
        const take = Math.min(need, available - (availableTaken.get(id) ?? 0));
        if (take <= 0) continue;
        availableTaken.set(id, (availableTaken.get(id) ?? 0) + take);
        takes.push({ ...key, quantity: asScaled(-take) });
        need -= take;
        if (need === 0) break;
      }
    }
    outcomes.push(
      need > 0
        ? {
            problem: `${where}: ${formatDecimal(quantity)} to ship, ${formatDecimal(fromAllocation)} allocated to this order and ${formatDecimal(quantity - fromAllocation - need)} more available`,
          }
        : { takes },
    );
  }
  return { outcomes, allocationsLeft };
}

/**
 * A shipment's takes, one line per balance: what its lines took of one balance, out of the
 * allocation and out of Available stock, is summed, so that the balance changes in one statement
 * and the ledger shows one row per balance per confirmation. In the order the balances were first
 * taken, so the ledger reads like the shipment.
 */
function takesPerBalance(takes: inventory.StockPostingLine[]): inventory.StockPostingLine[] {
  const merged = new Map<string, inventory.StockPostingLine>();
  for (const take of takes) {
    const id = JSON.stringify(inventory.normalizeBalanceKey(take));
    const before = merged.get(id);
    merged.set(
      id,
      before
        ? {
            ...before,
            quantity: asScaled(before.quantity + take.quantity),
            fromAllocated: asScaled((before.fromAllocated ?? 0) + (take.fromAllocated ?? 0)),
          }
        : take,
    );
  }
  return [...merged.values()];
}

/** An allocation of a line and how much of it the line no longer needs. */
interface Excess {
  allocation: repo.OrderAllocationRow;
  quantity: number;
}

/**
 * What the lines hold allocated beyond what they still have to ship (ordered − shipped): a line
 * can never ship more than ordered, so such stock would be held from every other order for nothing.
 * The excess comes off each line's worst allocations first, the reverse of the order allocation
 * took them (an undated balance first, then the latest expiration), so the line keeps its best stock.
 * `allocationsLeft` is in that allocation order (see findAllocations).
 */
function excessAllocations(
  lines: repo.OrderLineRow[],
  shippedAfter: Map<number, number>,
  allocationsLeft: Map<repo.OrderAllocationRow, number>,
): Excess[] {
  const excesses: Excess[] = [];
  for (const line of lines) {
    const held = [...allocationsLeft].filter(([allocation]) => allocation.line_no === line.line_no);
    const toShip = line.ordered_qty - shippedAfter.get(line.line_no)!;
    let excess = held.reduce((sum, [, left]) => sum + left, 0) - toShip;
    for (const [allocation, left] of held.reverse()) {
      if (excess <= 0) break;
      const quantity = Math.min(excess, left);
      if (quantity > 0) excesses.push({ allocation, quantity });
      excess -= quantity;
    }
  }
  return excesses;
}

/** Who ships, which confirmation, when: what the shipment's ledger rows record. */
export interface ShipmentSource {
  keyId: number;
  confirmationNo: string;
  at: number;
}

/**
 * Takes a planned shipment's stock (one posting per balance, the allocation falling with on-hand),
 * then gives back what each line holds allocated beyond what it still has to ship and records what
 * each allocation holds after. `shippedAfter` is every line's shipped quantity after the shipment.
 */
export async function takeShipment(
  trx: Trx,
  order: OrderRef,
  plan: ShipmentPlan,
  lines: repo.OrderLineRow[],
  shippedAfter: Map<number, number>,
  source: ShipmentSource,
): Promise<void> {
  const takes = plan.outcomes.flatMap((outcome) => ('takes' in outcome ? outcome.takes : []));
  await inventory.postStock(trx, {
    ...scopeOf(order),
    keyId: source.keyId,
    sourceType: 'shipment',
    sourceId: order.svcpoid,
    sourceLine: source.confirmationNo,
    at: source.at,
    lines: takesPerBalance(takes),
  });
  const { allocationsLeft } = plan;
  const excesses = excessAllocations(lines, shippedAfter, allocationsLeft);
  await inventory.releaseAllocations(
    trx,
    scopeOf(order),
    excesses.map(({ allocation, quantity }) => ({ key: inventory.balanceKeyOf(allocation), quantity: asScaled(quantity) })),
    source.at,
  );
  for (const { allocation, quantity } of excesses) allocationsLeft.set(allocation, allocationsLeft.get(allocation)! - quantity);
  for (const [allocation, left] of allocationsLeft) {
    if (left !== allocation.quantity) await repo.setAllocationQuantity(trx, allocation, left);
  }
}
