import type { Db, Trx } from '../../db/database.js';
import type { Principal } from '../../http/auth.js';
import { badRequest, conflict, notFound, type Answer } from '../../http/errors.js';
import type { RequestIdentity } from '../../http/request-identity.js';
import { parseOrderDate } from '../../http/time.js';
import type { Clock } from '../../lib/clock.js';
import { tryParseDecimal } from '../../lib/decimal.js';
import * as acks from '../acks/acks.service.js';
import * as idempotency from '../idempotency/idempotency.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { allocateOrder, releaseOrder } from './allocation.service.js';
import { referenceNoOf, storedOrderDocumentOf } from './orders.present.js';
import * as repo from './orders.repository.js';
import type { OrderCancelRequest, OrderImportRequest } from './orders.schemas.js';

/**
 * Outbound orders (DN): the customer's import, update and cancel (DESIGN §4's order state
 * machine), each acknowledged once; an import allocates stock and reports what it could not.
 */

export const CUSTOMER_ROLES = ['customer', 'admin'] as const;

/** How an order import or cancel that fails validation is acknowledged. */
export const REJECTED_ORDER: acks.RejectedBodyRule = { documentType: 'DN', roles: CUSTOMER_ROLES, contentKey: 'POContent' };

/** Statuses in which the customer may still replace the order by importing it again. */
const UPDATABLE = ['Imported', 'Open'];

const blankToNull = (value: string | null | undefined) => (value === undefined || value === null || value === '' ? null : value);

/** The ACK subject of a request, from whatever numbers it carries. */
function ackSubject(
  request: { CompanyID: string; CustomerID: string; FacilityID: string },
  numbers: { poNo: string | null; referenceNo: string | number | null },
  principal: Principal,
  at: number,
): acks.AckSubject {
  return {
    documentType: 'DN',
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    poNo: numbers.poNo,
    referenceNo: numbers.referenceNo,
    keyId: principal.keyId,
    at,
  };
}

/** The import's answer; as in the RN import reply, an empty PONo or Error is `[]`. */
function answerOf(
  order: { customerId: string; poNo: string | null; referenceNo: string | number; svcpoid: string },
  warnings: string[],
): Answer {
  return {
    statusCode: 200,
    body: {
      Order: {
        CustomerID: order.customerId,
        PONo: order.poNo ?? [],
        ReferenceNo: order.referenceNo,
        SVCPOID: order.svcpoid,
        Status: warnings.length > 0 ? 'Warning' : 'Success',
        Error: warnings.length > 0 ? warnings.join('; ') : [],
      },
    },
  };
}

/**
 * What the schema cannot see: the two spellings of the latest ship date naming different times
 * (read in the facility's zone), and a LineNo given twice (shipments name lines by it).
 */
async function importProblems(trx: Trx, request: OrderImportRequest): Promise<string[]> {
  const problems: string[] = [];
  const { ShipNoLater: a, ShipNotLater: b } = request.POContent;
  if (blankToNull(a) !== null && blankToNull(b) !== null) {
    const zone = (await tenants.findFacility(trx, request.CompanyID, request.FacilityID))!.time_zone;
    if (parseOrderDate(a!, zone) !== parseOrderDate(b!, zone)) problems.push('POContent.ShipNoLater and ShipNotLater disagree');
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

export async function recordEvent(
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

/** Who cancels: the statuses they may cancel from, and what a refusal says. */
export interface CancelRule {
  from: readonly string[];
  refusal: (order: repo.OrderRow) => string;
}

const CUSTOMER_CANCEL: CancelRule = {
  from: ['Imported'],
  refusal: (order) => `Order ${order.svcpoid} is ${order.status}; only an Imported order can be cancelled by the customer`,
};

/** Cancels an order and gives back its allocation; a status the rule does not allow is 409. */
export async function cancelOrder(
  trx: Trx,
  order: repo.OrderRow,
  rule: CancelRule,
  action: { name: string; note: string | null; keyId: number; at: number },
): Promise<void> {
  const key = { companyId: order.company_id, svcpoid: order.svcpoid };
  if (!(await repo.moveStatus(trx, key, rule.from, 'Cancelled', action.at, action.keyId))) throw conflict(rule.refusal(order));
  await releaseOrder(trx, order, action.at);
  await recordEvent(trx, order, action.name, 'Cancelled', action.note, action.keyId, action.at);
}

async function cancelByCustomer(trx: Trx, order: repo.OrderRow, subject: acks.AckSubject, note: string | null): Promise<Answer> {
  await cancelOrder(trx, order, CUSTOMER_CANCEL, { name: 'cancel', note, keyId: subject.keyId, at: subject.at });
  const numbers = { poNo: order.po_no, referenceNo: referenceNoOf(order) };
  await acks.recordSuccess(trx, { ...subject, ...numbers }, { svcpoid: order.svcpoid, status: 'Success', error: null });
  return answerOf({ customerId: order.customer_id, ...numbers, svcpoid: order.svcpoid }, []);
}

async function applyImport(trx: Trx, clock: Clock, principal: Principal, request: OrderImportRequest): Promise<Answer> {
  const content = request.POContent;
  const poNo = blankToNull(content.PONo);
  const referenceNo = content.ReferenceNo;
  const now = clock.now();
  const subject = ackSubject(request, { poNo, referenceNo }, principal, now);
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
  const problems = await importProblems(trx, request);
  if (problems.length > 0) throw badRequest(...problems);
  if (live && live.facility_id !== request.FacilityID) {
    throw conflict(`ReferenceNo ${referenceNo} is already used by order ${live.svcpoid} in another facility`);
  }
  if (live && !UPDATABLE.includes(live.status)) throw conflict(`Order ${live.svcpoid} is ${live.status}; it can no longer be updated`);

  const svcpoid = live?.svcpoid ?? (await repo.nextSvcpoid(trx));
  const key = { companyId: request.CompanyID, svcpoid };
  const header = {
    reference_no: String(referenceNo),
    reference_no_type: typeof referenceNo,
    po_no: poNo,
    status: 'Imported',
    document: storedOrderDocumentOf(request),
    updated_at: now,
    updated_by_key_id: principal.keyId,
  };
  if (live) {
    // An update starts over: what the old lines held goes back to stock before the new lines allocate.
    await releaseOrder(trx, live, now);
    await repo.deleteLines(trx, key);
    await repo.updateOrder(trx, key, header);
  } else {
    await repo.insertOrder(trx, {
      company_id: request.CompanyID,
      svcpoid,
      customer_id: request.CustomerID,
      facility_id: request.FacilityID,
      ...header,
      created_at: now,
      created_by_key_id: principal.keyId,
    });
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
  const order = { company_id: request.CompanyID, svcpoid, customer_id: request.CustomerID, facility_id: request.FacilityID };
  const shortfalls = await allocateOrder(trx, order, lines, now);

  await acks.recordSuccess(trx, subject, {
    svcpoid,
    status: shortfalls.length > 0 ? 'Warning' : 'Success',
    error: shortfalls.length > 0 ? shortfalls.join('; ') : null,
  });
  return answerOf({ customerId: request.CustomerID, poNo, referenceNo, svcpoid }, shortfalls);
}

/**
 * DN import: creates an order for a new ReferenceNo and allocates its stock, replaces an Imported
 * or Open one (allocating again), or cancels an Imported one with ActionCode Cancelled; writes its
 * ACK in the same transaction, and a refusal's failure ACK after the rollback.
 */
export async function importOrder(
  db: Db,
  clock: Clock,
  principal: Principal,
  request: OrderImportRequest,
  identity: RequestIdentity,
): Promise<Answer> {
  const content = request.POContent;
  return idempotency.runCommand(db, clock, identity, {
    run: (trx) => applyImport(trx, clock, principal, request),
    recordRefusal: (trx, refusal) =>
      acks.recordFailure(
        trx,
        ackSubject(request, { poNo: blankToNull(content.PONo), referenceNo: content.ReferenceNo }, principal, clock.now()),
        refusal,
      ),
  });
}

/**
 * The customer's cancel (`PUT …/order/cancel`): the live order of the customer in the facility
 * with that ReferenceNo and/or PONo. A PONo alone that several live orders share is refused, naming
 * them; only an Imported order can be cancelled (409 otherwise).
 */
export async function cancelOrderByCustomer(
  db: Db,
  clock: Clock,
  principal: Principal,
  request: OrderCancelRequest,
  identity: RequestIdentity,
): Promise<Answer> {
  const poNo = blankToNull(request.PONo);
  const referenceNo = request.ReferenceNo ?? null;
  const subject = (at: number) => ackSubject(request, { poNo, referenceNo }, principal, at);
  return idempotency.runCommand(db, clock, identity, {
    run: async (trx) => {
      if (poNo === null && referenceNo === null) throw badRequest('PONo or ReferenceNo is required');
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
        throw badRequest(
          `PONo ${poNo} matches ${matches.length} live orders (${matches.map((o) => o.svcpoid).join(', ')}); send the ReferenceNo`,
        );
      }
      return cancelByCustomer(trx, matches[0]!, subject(clock.now()), blankToNull(request.CancelNote));
    },
    recordRefusal: (trx, refusal) => acks.recordFailure(trx, subject(clock.now()), refusal),
  });
}
