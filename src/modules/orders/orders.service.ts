import type { Trx } from '../../db/database.js';
import { ROLES_OF } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { parseOrderDate, skippedTimeProblems } from '../../http/time.js';
import { tryParseDecimal } from '../../lib/decimal.js';
import { conflict, invalid, notFound } from '../../lib/refusal.js';
import * as acks from '../acks/acks.service.js';
import { runCommand, type RejectedBodyRule } from '../commands/commands.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { allocateOrder, releaseOrder, stopWaiting } from './allocation.service.js';
import { recordOrderEvent } from './order-events.js';
import { ORDER_MOVES, requireMove, type OrderMove } from './order-states.js';
import { referenceNoOf, storedOrderDocumentOf } from './orders.present.js';
import * as repo from './orders.repository.js';
import type { OrderCancelRequest, OrderImportRequest, OrderImportResult } from './orders.schemas.js';

/**
 * Outbound orders (DN): the customer's import, update and cancel (docs/orders.md's order state
 * machine), each acknowledged once; an import allocates stock and reports what it could not.
 */

/** How an order import or cancel that fails validation is acknowledged. */
export const REJECTED_ORDER: RejectedBodyRule = { documentType: 'DN', roles: ROLES_OF.customer, contentKey: 'POContent' };

/** The document a request names, with whatever numbers it carries: what its ACK is about. */
function ackedDocument(
  request: { CompanyID: string; CustomerID: string; FacilityID: string },
  numbers: { poNo: string | null; referenceNo: string | number | null },
): acks.AckedDocument {
  return {
    documentType: 'DN',
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    poNo: numbers.poNo,
    referenceNo: numbers.referenceNo,
  };
}

/** The import's answer; as in the RN import reply, an empty PONo or Error is `[]`. */
function answerOf(
  order: { customerId: string; poNo: string | null; referenceNo: string | number; svcpoid: string },
  warnings: string[],
): OrderImportResult {
  return {
    Order: {
      CustomerID: order.customerId,
      PONo: order.poNo ?? [],
      ReferenceNo: order.referenceNo,
      SVCPOID: order.svcpoid,
      Status: warnings.length > 0 ? 'Warning' : 'Success',
      Error: warnings.length > 0 ? warnings.join('; ') : [],
    },
  };
}

/** The order's date fields, each read in the facility's zone. */
const ORDER_DATE_KEYS = [
  'ShipNotBefore',
  'ShipNoLater',
  'ShipNotLater',
  'ScheduledDate',
  'AppointmentTime',
  'DeliveryRequestDate',
] as const;

/**
 * What the schema cannot see: a date that the facility's zone skips (a DST gap), the two spellings
 * of the latest ship date naming different times, and a LineNo given twice (shipments name lines by it).
 */
async function importProblems(trx: Trx, cx: CommandContext, request: OrderImportRequest): Promise<string[]> {
  const content = request.POContent;
  const dates = Object.fromEntries(ORDER_DATE_KEYS.map((key) => [`POContent.${key}`, content[key]]));
  const zone = await tenants.facilityTimeZone(trx, request.CompanyID, request.FacilityID, cx.facility);
  const problems = skippedTimeProblems('order-date', dates, zone);
  const { ShipNoLater: a, ShipNotLater: b } = content;
  if (a != null && b != null && parseOrderDate(a, zone) !== parseOrderDate(b, zone)) {
    problems.push('POContent.ShipNoLater and ShipNotLater disagree');
  }
  const seen = new Map<number, number>();
  (request.POContent.Items ?? []).forEach((line, index) => {
    if (line.LineNo === undefined || line.LineNo === null) return;
    const first = seen.get(line.LineNo);
    if (first === undefined) seen.set(line.LineNo, index);
    else problems.push(`POContent.Items[${index}].LineNo ${line.LineNo} repeats Items[${first}]`);
  });
  return problems;
}

/** Writes a move to the order's history (order_events). */
export async function recordMove(
  trx: Trx,
  order: repo.OrderRow,
  action: string,
  to: string,
  note: string | null,
  keyId: number,
  at: number,
) {
  await repo.insertEvent(trx, {
    company_id: order.company_id,
    svcpoid: order.svcpoid,
    action,
    from_status: order.status,
    to_status: to,
    note,
    key_id: keyId,
    created_at: at,
  });
}

/** Cancels an order (the customer's or the operator's cancel) and gives back its allocation; a status the move does not allow is 409. */
export async function cancelOrder(
  trx: Trx,
  order: repo.OrderRow,
  move: Extract<OrderMove, 'customer-cancel' | 'cancel'>,
  action: { note: string | null; keyId: number; at: number },
): Promise<void> {
  requireMove(order, move);
  const key = { companyId: order.company_id, svcpoid: order.svcpoid };
  await repo.moveStatus(trx, key, ORDER_MOVES[move].from, 'Cancelled', action.at, action.keyId);
  await releaseOrder(trx, order, action.at);
  await stopWaiting(trx, order);
  await recordMove(trx, order, 'cancel', 'Cancelled', action.note, action.keyId, action.at);
  recordOrderEvent(trx, 'order.cancelled', order, 'Cancelled', action);
}

async function cancelByCustomer(trx: Trx, order: repo.OrderRow, subject: acks.AckSubject, note: string | null): Promise<OrderImportResult> {
  await cancelOrder(trx, order, 'customer-cancel', { note, keyId: subject.keyId, at: subject.at });
  const numbers = { poNo: order.po_no, referenceNo: referenceNoOf(order) };
  await acks.recordSuccess(trx, { ...subject, ...numbers }, { svcpoid: order.svcpoid, status: 'Success', error: null });
  return answerOf({ customerId: order.customer_id, ...numbers, svcpoid: order.svcpoid }, []);
}

async function applyImport(trx: Trx, cx: CommandContext, request: OrderImportRequest): Promise<OrderImportResult> {
  const content = request.POContent;
  const poNo = content.PONo ?? null;
  const referenceNo = content.ReferenceNo;
  const now = cx.clock.now();
  const keyId = cx.principal.keyId;
  const subject: acks.AckSubject = { ...ackedDocument(request, { poNo, referenceNo }), keyId, at: now };
  // Sent with the lookup, before it answers whether the order is new.
  const nextSvcpoid = content.ActionCode === 'Cancelled' ? undefined : await repo.svcpoidAhead(trx);
  // Locked: a shipment or an operator move of the same order waits for this import.
  const [live] = await repo.findLive(
    trx,
    { companyId: request.CompanyID, customerId: request.CustomerID, referenceNo: String(referenceNo) },
    { lock: true },
  );

  if (content.ActionCode === 'Cancelled') {
    if (!live || live.facility_id !== request.FacilityID) throw notFound(`Not found order with ReferenceNo ${referenceNo}`);
    return cancelByCustomer(trx, live, subject, null);
  }
  const problems = await importProblems(trx, cx, request);
  if (problems.length > 0) throw invalid(...problems);
  if (live && live.facility_id !== request.FacilityID) {
    // Not named: the key may be limited to this facility, and the failure ACK is read here (docs/access.md).
    throw conflict(`ReferenceNo ${referenceNo} is already used by an order in another facility`);
  }
  if (live) requireMove(live, 'update');

  const header = {
    reference_no: String(referenceNo),
    reference_no_type: typeof referenceNo,
    po_no: poNo,
    status: 'Imported',
    document: storedOrderDocumentOf(request),
    updated_at: now,
    updated_by_key_id: keyId,
  };
  const svcpoid = live ? live.svcpoid : await nextSvcpoid!();
  if (!live) {
    await repo.insertOrder(trx, {
      company_id: request.CompanyID,
      customer_id: request.CustomerID,
      facility_id: request.FacilityID,
      svcpoid,
      ...header,
      created_at: now,
      created_by_key_id: keyId,
    });
  } else {
    // An update starts over: what the old lines held goes back to stock before the new lines allocate.
    const key = { companyId: request.CompanyID, svcpoid };
    await releaseOrder(trx, live, now);
    await stopWaiting(trx, live);
    await repo.deleteLines(trx, key);
    await repo.updateOrder(trx, key, header);
  }
  const lines = content.Items!.map((line, index) => ({
    company_id: request.CompanyID,
    svcpoid,
    line_no: index + 1,
    customer_line_no: line.LineNo ?? null,
    item_id: line.ItemID,
    uom: line.UOM,
    lot_no: line.LotNo ?? '',
    goods_type: line.GoodsType ?? '',
    title_id: line.TitleID || request.TitleID || '',
    ordered_qty: tryParseDecimal(line.OrderedQty)!,
    shipped_qty: 0,
  }));
  await repo.insertLines(trx, lines);
  const order = {
    company_id: request.CompanyID,
    svcpoid,
    customer_id: request.CustomerID,
    facility_id: request.FacilityID,
    created_at: live ? live.created_at : now,
  };
  const shortfalls = await allocateOrder(trx, order, lines, now);

  await acks.recordSuccess(trx, subject, {
    svcpoid,
    status: shortfalls.length > 0 ? 'Warning' : 'Success',
    error: shortfalls.length > 0 ? shortfalls.join('; ') : null,
  });
  const named = { ...order, po_no: poNo, reference_no: header.reference_no, reference_no_type: header.reference_no_type };
  recordOrderEvent(trx, live ? 'order.updated' : 'order.imported', named, 'Imported', subject);
  return answerOf({ customerId: request.CustomerID, poNo, referenceNo, svcpoid }, shortfalls);
}

/**
 * DN import: creates an order for a new ReferenceNo and allocates its stock, replaces an Imported
 * or Open one (allocating again), or cancels an Imported one with ActionCode Cancelled; writes its
 * ACK in the same transaction, and a refusal's failure ACK after the rollback.
 */
export function importOrder(cx: CommandContext, request: OrderImportRequest): Promise<OrderImportResult> {
  const content = request.POContent;
  return runCommand(cx, {
    run: (trx) => applyImport(trx, cx, request),
    acknowledge: ackedDocument(request, { poNo: content.PONo ?? null, referenceNo: content.ReferenceNo }),
  });
}

/**
 * The customer's cancel (`PUT …/order/cancel`): the live order of the customer in the facility
 * with that ReferenceNo and/or PONo. A PONo alone that several live orders share is refused, naming
 * them; only an Imported order can be cancelled (409 otherwise).
 */
export function cancelOrderByCustomer(cx: CommandContext, request: OrderCancelRequest): Promise<OrderImportResult> {
  const poNo = request.PONo ?? null;
  const referenceNo = request.ReferenceNo ?? null;
  const document = ackedDocument(request, { poNo, referenceNo });
  return runCommand(cx, {
    run: async (trx) => {
      if (poNo === null && referenceNo === null) throw invalid('PONo or ReferenceNo is required');
      const matches = await repo.findLive(
        trx,
        {
          companyId: request.CompanyID,
          customerId: request.CustomerID,
          facilityId: request.FacilityID,
          poNo: poNo ?? undefined,
          referenceNo: referenceNo === null ? undefined : String(referenceNo),
        },
        { lock: true },
      );
      if (matches.length === 0) {
        throw notFound(`Not found order with ${referenceNo !== null ? `ReferenceNo ${referenceNo}` : `PONo ${poNo}`}`);
      }
      if (matches.length > 1) {
        throw invalid(
          `PONo ${poNo} matches ${matches.length} live orders (${matches.map((o) => o.svcpoid).join(', ')}); send the ReferenceNo`,
        );
      }
      const subject = { ...document, keyId: cx.principal.keyId, at: cx.clock.now() };
      return cancelByCustomer(trx, matches[0]!, subject, request.CancelNote ?? null);
    },
    acknowledge: document,
  });
}
