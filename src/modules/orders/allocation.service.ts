import type { Trx } from '../../db/database.js';
import { asScaled, formatDecimal } from '../../lib/decimal.js';
import * as inventory from '../inventory/inventory.service.js';
import * as repo from './orders.repository.js';

/**
 * An order's hold on stock (DESIGN §4): its lines allocate Available stock on import (FEFO, then
 * FIFO), give it back on cancel, update and close, and shipping consumes it (and gives back what a
 * line no longer needs).
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
    ...scopeOf(order),
    itemId: line.item_id,
    uom: line.uom,
    lotNo: blankToUndefined(line.lot_no),
    goodsType: blankToUndefined(line.goods_type),
    titleId: blankToUndefined(line.title_id),
  };
}

const itemOrder = (a: repo.OrderLineRow, b: repo.OrderLineRow) =>
  a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : a.uom < b.uom ? -1 : a.uom > b.uom ? 1 : a.line_no - b.line_no;

/**
 * Allocates every line of an order as far as stock allows and records what each line holds.
 * Lines are allocated by item, so two orders of the same items lock balances in the same order.
 * Answers one text per short line: "SKU-1: ordered 20, allocated 6, short 14", in line order.
 */
export async function allocateOrder(trx: Trx, order: OrderRef, lines: repo.OrderLineRow[], at: number): Promise<string[]> {
  const allocated = new Map<number, number>();
  for (const line of [...lines].sort(itemOrder)) {
    const allocations = await inventory.allocateStock(trx, { ...allocatableBy(order, line), quantity: asScaled(line.ordered_qty), at });
    await repo.insertAllocations(
      trx,
      allocations.map(({ key, quantity }) => ({
        company_id: order.company_id,
        svcpoid: order.svcpoid,
        line_no: line.line_no,
        customer_id: order.customer_id,
        facility_id: order.facility_id,
        item_id: key.itemId,
        uom: key.uom,
        lot_no: key.lotNo,
        goods_type: key.goodsType,
        title_id: key.titleId,
        inventory_status: key.inventoryStatus,
        expiration_date: key.expirationDate,
        quantity,
      })),
    );
    allocated.set(
      line.line_no,
      allocations.reduce((sum, a) => sum + a.quantity, 0),
    );
  }
  return lines.flatMap((line) => {
    const got = allocated.get(line.line_no)!;
    if (got >= line.ordered_qty) return [];
    const short = `short ${formatDecimal(line.ordered_qty - got)}`;
    return [`${line.item_id}: ordered ${formatDecimal(line.ordered_qty)}, allocated ${formatDecimal(got)}, ${short}`];
  });
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
