import type { Db, Trx } from '../../db/database.js';
import type { Principal } from '../../http/auth.js';
import { conflict, notFound, type Answer } from '../../http/errors.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import type { RequestIdentity } from '../../http/request-identity.js';
import { offsetWindow, parseFacilityLocal } from '../../http/time.js';
import type { Clock } from '../../lib/clock.js';
import { asScaled, decimalToNumber, formatDecimal, tryParseDecimal, type Scaled } from '../../lib/decimal.js';
import * as idempotency from '../idempotency/idempotency.service.js';
import * as inventory from '../inventory/inventory.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { allocatableBy, releaseOrder, scopeOf } from './allocation.service.js';
import * as repo from './orders.repository.js';
import { cancelOrder, recordEvent, type CancelRule } from './orders.service.js';
import { lineNoOf, presentImportedOrder, presentOrderHeader, storedOrder } from './orders.present.js';
import {
  ORDER_LIST_HEAD,
  type OrderAction,
  type OrderListRequest,
  type OrderLookup,
  type OrderStatus,
  type ShipmentLine,
  type ShipmentRequest,
  type ShipmentResult,
} from './shipping.schemas.js';

/**
 * The warehouse's side of an order (DESIGN §4, §4b): what it lists and reads, the operator's moves,
 * and the shipment confirmations that take stock out of the order's allocation and write the DC.
 */

export const OPERATOR_ROLES = ['operator', 'admin'] as const;

export type OrderMove = 'open' | 'cancel';
const OPERATOR_CANCEL: CancelRule = {
  from: ['Imported', 'Open'],
  refusal: (order) => `Order ${order.svcpoid} is ${order.status}; cancel needs Imported or Open`,
};

const SHIPPABLE = ['Imported', 'Open', 'Partial Shipped'];

async function timeZoneOf(db: Db, companyId: string, facilityId: string): Promise<string> {
  return (await tenants.findFacility(db, companyId, facilityId))!.time_zone;
}

/**
 * The order a 3PL request names, in the request's facility; unknown or elsewhere is 404. A writer
 * locks it, so that an import, a shipment and an operator move of one order take turns.
 */
async function requireOrder(db: Db, lookup: OrderLookup, options: { lock?: boolean } = {}): Promise<repo.OrderRow> {
  const order = await repo.findOrder(db, { companyId: lookup.CompanyID, svcpoid: lookup.SVCPOID }, options);
  if (!order || order.facility_id !== lookup.FacilityID) throw notFound(`Not found order ${lookup.SVCPOID}`);
  return order;
}

const keyOf = (order: repo.OrderRow): repo.OrderKey => ({ companyId: order.company_id, svcpoid: order.svcpoid });

/** The 3PL get: every imported field, each line with what it holds allocated and has shipped. */
export async function getOrder(db: Db, lookup: OrderLookup) {
  const order = await requireOrder(db, lookup);
  const timeZone = await timeZoneOf(db, lookup.CompanyID, lookup.FacilityID);
  const [lines, allocations] = await Promise.all([repo.findLines(db, keyOf(order)), repo.findAllocations(db, keyOf(order))]);
  const document = storedOrder(order);
  const imported = document.POContent.Items ?? [];
  return {
    Order: {
      ...presentImportedOrder(document, timeZone),
      TitleID: document.TitleID,
      ...presentOrderHeader(order, document, timeZone),
      Items: lines.map((line) => ({
        ...imported[line.line_no - 1],
        LineNo: lineNoOf(line),
        OrderedQty: formatDecimal(line.ordered_qty),
        AllocatedQty: formatDecimal(allocations.filter((a) => a.line_no === line.line_no).reduce((sum, a) => sum + a.quantity, 0)),
        ShippedQty: formatDecimal(line.shipped_qty),
      })),
    },
  };
}

/**
 * The 3PL list: a facility's orders, oldest update first. With MarkOpen, every Imported order on
 * the page becomes Open in the same transaction and is shown as Open.
 */
export async function listOrders(db: Db, clock: Clock, principal: Principal, request: OrderListRequest) {
  const timeZone = await timeZoneOf(db, request.CompanyID, request.FacilityID);
  const updated = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);
  const filter: repo.OrderListFilter = {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    statuses: request.Status === undefined ? undefined : [request.Status].flat(),
    poNo: request.PONo || undefined,
    referenceNo:
      request.ReferenceNo === undefined || request.ReferenceNo === null || request.ReferenceNo === ''
        ? undefined
        : String(request.ReferenceNo),
    updatedFrom: updated.from,
    updatedTo: updated.to,
  };
  const page = pageRequest(request.Paging);

  const { total, found } = await db.transaction().execute(async (trx) => {
    const total = await repo.countOrders(trx, filter);
    const found = page.offset < total ? await repo.pageOrders(trx, filter, page.offset, page.pageSize) : [];
    if (request.MarkOpen) {
      const now = clock.now();
      for (const row of found.filter((r) => r.status === 'Imported')) {
        if (await repo.moveStatus(trx, keyOf(row), ['Imported'], 'Open', now, principal.keyId)) {
          await recordEvent(trx, row, 'open', 'Open', 'MarkOpen', principal.keyId, now);
          Object.assign(row, { status: 'Open', updated_at: now, updated_by_key_id: principal.keyId });
        }
      }
    }
    return { total, found };
  });
  return {
    results: { head: [...ORDER_LIST_HEAD], data: found.map((row) => presentOrderHeader(row, storedOrder(row), timeZone)) },
    paging: pagingOf(page, total, found.length),
  };
}

/** An operator's move (open, cancel) with its note; a move from the wrong status is 409. */
export async function moveOrder(
  db: Db,
  clock: Clock,
  principal: Principal,
  move: OrderMove,
  request: OrderAction,
  identity: RequestIdentity,
): Promise<Answer> {
  return idempotency.runCommand(db, clock, identity, {
    run: async (trx) => {
      const order = await requireOrder(trx, request, { lock: true });
      const action = { name: move, note: request.Note ?? null, keyId: principal.keyId, at: clock.now() };
      if (move === 'cancel') {
        await cancelOrder(trx, order, OPERATOR_CANCEL, action);
      } else {
        if (!(await repo.moveStatus(trx, keyOf(order), ['Imported'], 'Open', action.at, action.keyId))) {
          throw conflict(`Order ${order.svcpoid} is ${order.status}; open needs Imported`);
        }
        await recordEvent(trx, order, move, 'Open', action.note, action.keyId, action.at);
      }
      return { statusCode: 200, body: { Order: { SVCPOID: order.svcpoid, Status: move === 'cancel' ? 'Cancelled' : 'Open' } } };
    },
  });
}

/** One shipped line, matched to its order line, and the balances it takes stock from. */
interface PlannedLine {
  line: ShipmentLine;
  target: repo.OrderLineRow;
  quantity: Scaled;
  takes: inventory.StockPostingLine[];
  /** The order line's shipped quantity after this line. */
  shippedAfter: number;
}

/**
 * The order line a shipped line fills: the one with its LineNo, else the first line of that item
 * and UOM (and lot, where the line names one) that is not fully shipped, else the first such line.
 */
function matchLine(lines: repo.OrderLineRow[], line: ShipmentLine, shipped: Map<number, number>): repo.OrderLineRow | undefined {
  const same = lines.filter(
    (l) => l.item_id === line.ItemNumber && l.uom === line.UOM && (!line.LotNo || !l.lot_no || l.lot_no === line.LotNo),
  );
  if (line.LineNo !== undefined && line.LineNo !== null) return same.find((l) => lineNoOf(l) === line.LineNo);
  return same.find((l) => (shipped.get(l.line_no) ?? l.shipped_qty) < l.ordered_qty) ?? same[0];
}

/**
 * Plans where each shipped line takes its stock: first what its order line holds allocated (of the
 * shipped lot, when named), then Available stock, earliest expiration first. A line that is not on
 * the order, ships more than ordered, or more than the allocation plus what is Available, is a
 * problem; all problems are answered at once (409) and nothing moves.
 */
async function planShipment(
  trx: Trx,
  order: repo.OrderRow,
  request: ShipmentRequest,
  lines: repo.OrderLineRow[],
  allocations: repo.OrderAllocationRow[],
): Promise<{ planned: PlannedLine[]; problems: string[]; allocationsLeft: Map<repo.OrderAllocationRow, number> }> {
  const shipped = new Map<number, number>();
  const allocationsLeft = new Map(allocations.map((a) => [a, a.quantity]));
  const availableTaken = new Map<string, number>();
  const problems: string[] = [];
  const planned: PlannedLine[] = [];

  for (const [index, line] of request.Items.entries()) {
    const quantity = tryParseDecimal(line.ShippedQty)!;
    const where = `Items[${index}] item ${line.ItemNumber}`;
    const target = matchLine(lines, line, shipped);
    if (!target) {
      problems.push(
        `${where} ${line.UOM}${line.LotNo ? ` lot ${line.LotNo}` : ''}${line.LineNo != null ? ` LineNo ${line.LineNo}` : ''} is not on order ${order.svcpoid}`,
      );
      continue;
    }
    const before = shipped.get(target.line_no) ?? target.shipped_qty;
    if (before + quantity > target.ordered_qty) {
      problems.push(
        `${where}: ${formatDecimal(quantity)} more would ship ${formatDecimal(before + quantity)} of line ${lineNoOf(target)}, which ordered ${formatDecimal(target.ordered_qty)}`,
      );
      continue;
    }
    shipped.set(target.line_no, before + quantity);

    const takes: inventory.StockPostingLine[] = [];
    let need: number = quantity;
    for (const allocation of allocations) {
      const left = allocationsLeft.get(allocation)!;
      if (need === 0 || allocation.line_no !== target.line_no || left === 0 || (line.LotNo && allocation.lot_no !== line.LotNo)) continue;
      const take = Math.min(need, left);
      allocationsLeft.set(allocation, left - take);
      takes.push({ ...inventory.balanceKeyOf(allocation), quantity: asScaled(-take), fromAllocated: asScaled(take) });
      need -= take;
    }
    const fromAllocation = quantity - need;
    if (need > 0) {
      const free = await inventory.findAllocatable(trx, { ...allocatableBy(order, target), ...(line.LotNo ? { lotNo: line.LotNo } : {}) });
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
    if (need > 0) {
      problems.push(
        `${where}: ${formatDecimal(quantity)} to ship, ${formatDecimal(fromAllocation)} allocated to this order and ${formatDecimal(quantity - fromAllocation - need)} more available`,
      );
      continue;
    }
    planned.push({ line, target, quantity, takes, shippedAfter: before + quantity });
  }
  return { planned, problems, allocationsLeft };
}

/**
 * A confirmation's takes, one line per balance: what its shipped lines took of one balance, out of
 * the allocation and out of Available stock, is summed, so that the balance changes in one statement
 * and the ledger shows one row per balance per confirmation. In the order the balances were first
 * taken, so the ledger reads like the shipment.
 */
function takesPerBalance(planned: PlannedLine[]): inventory.StockPostingLine[] {
  const merged = new Map<string, inventory.StockPostingLine>();
  for (const take of planned.flatMap((p) => p.takes)) {
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

/** The DC object (DESIGN §4b) without its ShippedDate, which is shown in the facility's zone. */
function presentDc(order: repo.OrderRow, request: ShipmentRequest, planned: PlannedLine[]) {
  const content = storedOrder(order).POContent;
  return {
    CompanyID: order.company_id,
    OrderNo: order.svcpoid,
    BOLNo: request.BOLNo || content.BOLNo || null,
    LoadNo: request.LoadNo || content.LoadNo || null,
    SCACCode: request.SCACCode || content.ShippingInfo?.SCACCode || null,
    CarrierName: request.CarrierName || content.ShippingInfo?.CarrierName || null,
    TrackingNo: request.TrackingNo || null,
    ProNo: request.ProNo || null,
    Items: planned.map(({ line, target, quantity, takes, shippedAfter }) => {
      const lots = [...new Set(takes.map((take) => take.lotNo ?? ''))];
      return {
        LineNo: lineNoOf(target),
        ItemNumber: line.ItemNumber,
        LotNo: line.LotNo || (lots.length === 1 && lots[0] !== '' ? lots[0]! : null),
        OrderedQty: decimalToNumber(target.ordered_qty),
        ShippedQty: decimalToNumber(quantity),
        DifferenceQty: decimalToNumber(target.ordered_qty - shippedAfter),
        UOM: line.UOM,
        SerialNumber: line.SerialNumber ?? [],
      };
    }),
  };
}

/**
 * A 3PL shipment confirmation: takes each shipped line's stock (the order's allocation first, one
 * posting per balance), gives back what a line holds allocated beyond what it still has to ship,
 * writes the DC and moves the order (Partial Shipped; with Close, Shipped or Short Shipped, and what
 * is still allocated goes back to stock). A ConfirmationNo applies once: the same body again replays
 * the first answer, another body is 409.
 */
export async function confirmShipment(
  db: Db,
  clock: Clock,
  principal: Principal,
  request: ShipmentRequest,
  identity: RequestIdentity,
): Promise<Answer> {
  return idempotency.runCommand(db, clock, identity, {
    run: async (trx) => {
      const order = await requireOrder(trx, request, { lock: true });
      const key = keyOf(order);
      const earlier = await repo.findConfirmation(trx, { ...key, confirmationNo: request.ConfirmationNo });
      if (earlier) {
        if (earlier.request_hash !== identity.requestHash) {
          throw conflict(`ConfirmationNo ${request.ConfirmationNo} was already applied to ${order.svcpoid} with a different body`);
        }
        return { statusCode: 200, body: JSON.parse(earlier.answer) };
      }
      if (!SHIPPABLE.includes(order.status)) {
        throw conflict(`Order ${order.svcpoid} is ${order.status}; only ${SHIPPABLE.join(', ')} orders can be shipped`);
      }
      const timeZone = await timeZoneOf(trx, request.CompanyID, request.FacilityID);
      const now = clock.now();
      const shippedAt = request.ShippedTime ? parseFacilityLocal(request.ShippedTime, timeZone)! : now;

      const lines = await repo.findLines(trx, key);
      const allocations = await repo.findAllocations(trx, key);
      const { planned, problems, allocationsLeft } = await planShipment(trx, order, request, lines, allocations);
      if (problems.length > 0) throw conflict(...problems);

      await inventory.postStock(trx, {
        ...scopeOf(order),
        keyId: principal.keyId,
        sourceType: 'shipment',
        sourceId: order.svcpoid,
        sourceLine: request.ConfirmationNo,
        at: now,
        lines: takesPerBalance(planned),
      });
      const shippedNow = new Map<number, number>();
      for (const { target, quantity } of planned) shippedNow.set(target.line_no, (shippedNow.get(target.line_no) ?? 0) + quantity);
      for (const [lineNo, quantity] of shippedNow) await repo.addShippedQuantity(trx, key, lineNo, quantity);

      const shippedAfter = new Map(lines.map((line) => [line.line_no, line.shipped_qty + (shippedNow.get(line.line_no) ?? 0)]));
      const excesses = excessAllocations(lines, shippedAfter, allocationsLeft);
      await inventory.releaseAllocations(
        trx,
        scopeOf(order),
        excesses.map(({ allocation, quantity }) => ({ key: inventory.balanceKeyOf(allocation), quantity: asScaled(quantity) })),
        now,
      );
      for (const { allocation, quantity } of excesses) allocationsLeft.set(allocation, allocationsLeft.get(allocation)! - quantity);
      for (const [allocation, left] of allocationsLeft) {
        if (left !== allocation.quantity) await repo.setAllocationQuantity(trx, allocation, left);
      }

      const complete = lines.every((line) => shippedAfter.get(line.line_no)! >= line.ordered_qty);
      const status: OrderStatus = request.Close ? (complete ? 'Shipped' : 'Short Shipped') : 'Partial Shipped';
      if (request.Close) await releaseOrder(trx, order, now);
      await repo.moveStatus(trx, key, SHIPPABLE, status, now, principal.keyId);
      await recordEvent(trx, order, 'ship', status, request.Note ?? null, principal.keyId, now);

      const answer: ShipmentResult = { Order: { SVCPOID: order.svcpoid, Status: status, ConfirmationNo: request.ConfirmationNo } };
      const dc = presentDc(order, request, planned);
      await repo.insertConfirmation(trx, {
        company_id: key.companyId,
        svcpoid: order.svcpoid,
        confirmation_no: request.ConfirmationNo,
        customer_id: order.customer_id,
        facility_id: order.facility_id,
        po_no: order.po_no,
        reference_no: order.reference_no,
        reference_no_type: order.reference_no_type,
        request_hash: identity.requestHash,
        answer: JSON.stringify(answer),
        dc: JSON.stringify(dc),
        carrier_name: dc.CarrierName,
        scac_code: dc.SCACCode,
        pro_no: dc.ProNo,
        shipped_at: shippedAt,
        key_id: principal.keyId,
        created_at: now,
      });
      return { statusCode: 200, body: answer };
    },
  });
}
