import type { Db, Trx } from '../../db/database.js';
import type { CommandContext } from '../../http/command-context.js';
import { timelineOf } from '../../http/document-timeline.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import { offsetWindow, parseFacilityLocal, refuseSkippedTimes } from '../../http/time.js';
import { decimalToNumber, formatDecimal, tryParseDecimal } from '../../lib/decimal.js';
import { conflict, notFound } from '../../lib/refusal.js';
import { replayApplied, runCommand } from '../commands/commands.service.js';
import * as counts from '../counts/counts.service.js';
import type * as inventory from '../inventory/inventory.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { hasShortLine, planShipment, releaseOrder, stopWaiting, takeShipment, type ShipmentWant } from './allocation.service.js';
import {
  isAllocating,
  isClosed,
  mayMove,
  operatorMovesFrom,
  ORDER_MOVES,
  requireMove,
  type OperatorOrderMove,
  type OrderStatus,
} from './order-states.js';
import * as repo from './orders.repository.js';
import { cancelOrder, recordMove } from './orders.service.js';
import { recordOrderEvent } from './order-events.js';
import { lineNoOf, presentImportedOrder, presentOrderHeader, storedOrder } from './orders.present.js';
import {
  ORDER_LIST_HEAD,
  type OrderAction,
  type OrderActionResult,
  type OrderListRequest,
  type OrderLookup,
  type ShipmentLine,
  type ShipmentRequest,
  type ShipmentResult,
} from './shipping.schemas.js';

/**
 * The warehouse's side of an order (docs/orders.md, docs/compatibility.md): what it lists and reads, the operator's moves,
 * and the shipment confirmations that take stock out of the order's allocation and write the DC.
 */

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
  const timeZone = await tenants.facilityTimeZone(db, lookup.CompanyID, lookup.FacilityID);
  const [lines, allocations, moves] = await Promise.all([
    repo.findLines(db, keyOf(order)),
    repo.findAllocations(db, keyOf(order)),
    repo.findMoves(db, keyOf(order)),
  ]);
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
    Moves: operatorMovesFrom(order.status),
    Timeline: timelineOf(order.created_at, moves, timeZone),
  };
}

/**
 * The 3PL list: a facility's orders, oldest update first. With MarkOpen, every Imported order on
 * the page becomes Open in the same transaction and is shown as Open.
 */
export async function listOrders(cx: CommandContext, request: OrderListRequest) {
  const { db, principal } = cx;
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
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
  const list = async (trx: Trx) => {
    const { totalCount: total, page } = await counts.countSearch(
      trx,
      {
        companyId: filter.companyId,
        counted: 'orders',
        facilityId: filter.facilityId,
        customerId: filter.customerId,
        statuses: filter.statuses,
      },
      { from: filter.updatedFrom, to: filter.updatedTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
      pageRequest(request.Paging, 'svcpoid'),
      {
        range: (from, to) => repo.countOrders(trx, { ...filter, updatedFrom: from, updatedTo: to }),
        through: (at, svcpoid) => repo.countOrders(trx, { ...filter, updatedFrom: at, updatedTo: at, svcpoidThrough: String(svcpoid) }),
      },
    );
    const found = page.offset < total ? await repo.pageOrders(trx, filter, page) : [];
    // Where the page ends in the list's order, before MarkOpen moves its rows to the end.
    const last = found.length === 0 ? undefined : { at: found.at(-1)!.updated_at, tie: found.at(-1)!.svcpoid };
    if (request.MarkOpen) {
      const now = cx.clock.now();
      for (const row of found.filter((r) => mayMove('open', r.status))) {
        if (await repo.moveStatus(trx, keyOf(row), ORDER_MOVES.open.from, 'Open', now, principal.keyId)) {
          await recordMove(trx, row, 'open', 'Open', 'MarkOpen', principal.keyId, now);
          recordOrderEvent(trx, 'order.opened', row, 'Open', { keyId: principal.keyId, at: now });
          Object.assign(row, { status: 'Open', updated_at: now, updated_by_key_id: principal.keyId });
        }
      }
    }
    return {
      results: { head: [...ORDER_LIST_HEAD], data: found.map((row) => presentOrderHeader(row, storedOrder(row), timeZone)) },
      paging: pagingOf(page, total, found.length, last),
    };
  };
  // A list that opens orders is a change like any other; a plain one reads in one snapshot.
  return request.MarkOpen ? runCommand(cx, { run: list }) : db.transaction().execute(list);
}

/** An operator's move (open, cancel) with its note; a move from the wrong status is 409. */
export function moveOrder(cx: CommandContext, move: OperatorOrderMove, request: OrderAction): Promise<OrderActionResult> {
  return runCommand(cx, {
    run: async (trx) => {
      const order = await requireOrder(trx, request, { lock: true });
      const action = { note: request.Note ?? null, keyId: cx.principal.keyId, at: cx.clock.now() };
      if (move === 'cancel') {
        await cancelOrder(trx, order, 'cancel', action);
      } else {
        requireMove(order, 'open');
        await repo.moveStatus(trx, keyOf(order), ORDER_MOVES.open.from, 'Open', action.at, action.keyId);
        await recordMove(trx, order, move, 'Open', action.note, action.keyId, action.at);
        recordOrderEvent(trx, 'order.opened', order, 'Open', action);
      }
      return { Order: { SVCPOID: order.svcpoid, Status: ORDER_MOVES[move].to[0] } };
    },
  });
}

/** A shipped line matched to its order line, and where its stock comes from once planned. */
interface PlannedLine extends ShipmentWant {
  line: ShipmentLine;
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
 * Matches each shipped line to its order line. A line that is not on the order, or ships more than
 * its order line ordered, is a problem; the rest ask the allocation for their stock. Answers the
 * lines and problems in the request's order: all problems are answered at once (409), and then
 * nothing moves.
 */
function matchShipment(
  order: repo.OrderRow,
  request: ShipmentRequest,
  lines: repo.OrderLineRow[],
): ({ planned: PlannedLine } | { problem: string })[] {
  const shipped = new Map<number, number>();
  return request.Items.map((line, index) => {
    const quantity = tryParseDecimal(line.ShippedQty)!;
    const where = `Items[${index}] item ${line.ItemNumber}`;
    const target = matchLine(lines, line, shipped);
    if (!target) {
      return {
        problem: `${where} ${line.UOM}${line.LotNo ? ` lot ${line.LotNo}` : ''}${line.LineNo != null ? ` LineNo ${line.LineNo}` : ''} is not on order ${order.svcpoid}`,
      };
    }
    const before = shipped.get(target.line_no) ?? target.shipped_qty;
    if (before + quantity > target.ordered_qty) {
      return {
        problem: `${where}: ${formatDecimal(quantity)} more would ship ${formatDecimal(before + quantity)} of line ${lineNoOf(target)}, which ordered ${formatDecimal(target.ordered_qty)}`,
      };
    }
    shipped.set(target.line_no, before + quantity);
    const planned: PlannedLine = { line, target, quantity, lotNo: line.LotNo || undefined, where, shippedAfter: before + quantity };
    return { planned };
  });
}

/** The DC object (docs/compatibility.md) without its ShippedDate, which is shown in the facility's zone. */
function presentDc(order: repo.OrderRow, request: ShipmentRequest, planned: { line: PlannedLine; takes: inventory.StockPostingLine[] }[]) {
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
    Items: planned.map(({ line: { line, target, quantity, shippedAfter }, takes }) => {
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
export function confirmShipment(cx: CommandContext, request: ShipmentRequest): Promise<ShipmentResult> {
  const { principal, identity } = cx;
  return runCommand(cx, {
    run: async (trx) => {
      const timeZone = await tenants.facilityTimeZone(trx, request.CompanyID, request.FacilityID, cx.facility);
      refuseSkippedTimes('local-date-time', { ShippedTime: request.ShippedTime }, timeZone);
      const order = await requireOrder(trx, request, { lock: true });
      const key = keyOf(order);
      const earlier = await repo.findConfirmation(trx, { ...key, confirmationNo: request.ConfirmationNo });
      if (earlier) {
        return replayApplied<ShipmentResult>(
          cx,
          earlier,
          `ConfirmationNo ${request.ConfirmationNo} was already applied to ${order.svcpoid} with a different body`,
        );
      }
      requireMove(order, 'ship');
      const now = cx.clock.now();
      const shippedAt = request.ShippedTime ? parseFacilityLocal(request.ShippedTime, timeZone)! : now;

      const lines = await repo.findLines(trx, key);
      const matched = matchShipment(order, request, lines);
      const wants = matched.flatMap((m) => ('planned' in m ? [m.planned] : []));
      const allocations = await repo.findAllocations(trx, key);
      const plan = await planShipment(trx, order, allocations, wants);
      let wanted = 0;
      const problems = matched.flatMap((m) => {
        if ('problem' in m) return [m.problem];
        const outcome = plan.outcomes[wanted++]!;
        return 'problem' in outcome ? [outcome.problem] : [];
      });
      if (problems.length > 0) throw conflict(...problems);

      const shippedNow = new Map<number, number>();
      for (const { target, quantity } of wants) shippedNow.set(target.line_no, (shippedNow.get(target.line_no) ?? 0) + quantity);
      const shippedAfter = new Map(lines.map((line) => [line.line_no, line.shipped_qty + (shippedNow.get(line.line_no) ?? 0)]));
      await takeShipment(trx, order, plan, lines, shippedAfter, {
        keyId: principal.keyId,
        confirmationNo: request.ConfirmationNo,
        at: now,
      });
      for (const [lineNo, quantity] of shippedNow) await repo.addShippedQuantity(trx, key, lineNo, quantity);

      const complete = lines.every((line) => shippedAfter.get(line.line_no)! >= line.ordered_qty);
      const status: OrderStatus = request.Close ? (complete ? 'Shipped' : 'Short Shipped') : 'Partial Shipped';
      if (request.Close) await releaseOrder(trx, order, now);
      await repo.moveStatus(trx, key, ORDER_MOVES.ship.from, status, now, principal.keyId);
      // Shipping ends allocating: a short line of an Imported or Open order waits for stock no more.
      if (isAllocating(order.status) && hasShortLine(lines, allocations)) await stopWaiting(trx, order);
      await recordMove(trx, order, 'ship', status, request.Note ?? null, principal.keyId, now);
      const change = { keyId: principal.keyId, at: now };
      recordOrderEvent(trx, 'order.shipped', order, status, change, { ConfirmationNo: request.ConfirmationNo });
      if (isClosed(status)) recordOrderEvent(trx, 'order.closed', order, status, change);

      const answer: ShipmentResult = { Order: { SVCPOID: order.svcpoid, Status: status, ConfirmationNo: request.ConfirmationNo } };
      const dc = presentDc(
        order,
        request,
        wants.map((line, index) => ({ line, takes: (plan.outcomes[index] as { takes: inventory.StockPostingLine[] }).takes })),
      );
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
      return answer;
    },
  });
}
