import type { Db, Trx } from '../../db/database.js';
import type { CommandContext } from '../../http/command-context.js';
import { timelineOf } from '../../http/document-timeline.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import { formatFacilityLocal, formatWithOffset, offsetWindow, parseFacilityLocal, refuseSkippedTimes } from '../../http/time.js';
import { formatDecimal, tryParseDecimal } from '../../lib/decimal.js';
import { notFound } from '../../lib/refusal.js';
import { replayApplied, runCommand } from '../commands/commands.service.js';
import * as counts from '../counts/counts.service.js';
import * as inventory from '../inventory/inventory.service.js';
import * as items from '../items/items.service.js';
import * as tenants from '../tenants/tenants.service.js';
import * as repo from './receipts.repository.js';
import type {
  ConfirmationLine,
  ConfirmationRequest,
  ConfirmationResult,
  ReceiptAction,
  ReceiptHeader,
  ReceiptListRequest,
  ReceiptActionResult,
  ReceiptLookup,
} from './receiving.schemas.js';
import { RECEIPT_LIST_HEAD } from './receiving.schemas.js';
import { presentImportedReceipt, presentRc, type StoredDocument } from './receiving.present.js';
import { recordReceiptEvent, type ReceiptEventType } from './receipt-events.js';
import {
  isClosed,
  mayMove,
  operatorMovesFrom,
  RECEIPT_MOVES,
  requireMove,
  type OperatorReceiptMove,
  type ReceiptStatus,
} from './receipt-states.js';

/**
 * The warehouse's side of a receipt (docs/receipts.md, docs/compatibility.md): what it lists and reads, the operator's
 * moves, and the confirmations that receive goods into stock and write the RC.
 */

/**
 * The receipt a 3PL request names, in the request's facility; unknown or elsewhere is 404. A writer
 * locks it, so that an import, a confirmation and an operator move of one receipt take turns.
 */
async function requireReceipt(db: Db, lookup: ReceiptLookup, options: { lock?: boolean } = {}): Promise<repo.ReceiptRow> {
  const receipt = await repo.findReceipt(db, lookup.CompanyID, lookup.SVCPOID, options);
  if (!receipt || receipt.facility_id !== lookup.FacilityID) throw notFound(`Not found receipt ${lookup.SVCPOID}`);
  return receipt;
}

function headerOf(row: repo.ReceiptRow, timeZone: string): ReceiptHeader {
  return {
    SVCPOID: row.svcpoid,
    CustomerID: row.customer_id,
    FacilityID: row.facility_id,
    PONo: row.po_no,
    ReferenceNo: row.reference_no,
    Status: row.status as ReceiptStatus,
    ReceiptType: row.receipt_type,
    SupplierID: row.supplier_id,
    CarrierName: row.carrier_name,
    SCACCode: row.scac_code,
    BOLNo: row.bol_no,
    ContainerNo: row.container_no,
    ScheduledDate: row.scheduled_at === null ? null : formatFacilityLocal(row.scheduled_at, timeZone),
    CreatedWhen: formatFacilityLocal(row.created_at, timeZone),
    UpdatedWhen: formatWithOffset(row.updated_at, timeZone),
  };
}

/** The 3PL get: every imported field, each line with what the confirmations received so far. */
export async function getReceipt(db: Db, lookup: ReceiptLookup) {
  const receipt = await requireReceipt(db, lookup);
  const timeZone = await tenants.facilityTimeZone(db, lookup.CompanyID, lookup.FacilityID);
  const [lines, moves] = await Promise.all([
    repo.findLines(db, lookup.CompanyID, lookup.SVCPOID),
    repo.findMoves(db, { companyId: receipt.company_id, svcpoid: receipt.svcpoid }),
  ]);
  const document = JSON.parse(receipt.document) as StoredDocument;
  const imported = document.ASNContent.Items ?? [];
  return {
    Receipt: {
      ...presentImportedReceipt(document, timeZone),
      TitleID: document.TitleID,
      ...headerOf(receipt, timeZone),
      Items: lines.map((line) => ({
        ...imported[line.line_no - 1],
        LineNo: line.line_no,
        ExpectedQty: formatDecimal(line.expected_qty),
        ReceivedQty: formatDecimal(line.received_qty),
      })),
    },
    Moves: operatorMovesFrom(receipt.status),
    Timeline: timelineOf(receipt.created_at, moves, timeZone),
  };
}

async function recordMove(trx: Trx, receipt: repo.ReceiptRow, action: string, to: string, note: string | null, keyId: number, at: number) {
  await repo.insertEvent(trx, {
    company_id: receipt.company_id,
    svcpoid: receipt.svcpoid,
    action,
    from_status: receipt.status,
    to_status: to,
    note,
    key_id: keyId,
    created_at: at,
  });
}

/**
 * The 3PL list: a facility's receipts, oldest update first. With MarkOpen, every Imported receipt
 * on the page becomes Open in the same transaction and is shown as Open.
 */
export async function listReceipts(cx: CommandContext, request: ReceiptListRequest) {
  const { db, principal } = cx;
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const updated = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);
  const filter: repo.ReceiptListFilter = {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    statuses: request.Status === undefined ? undefined : [request.Status].flat(),
    poNo: request.PONo ?? undefined,
    referenceNo: request.ReferenceNo ?? undefined,
    updatedFrom: updated.from,
    updatedTo: updated.to,
  };
  const list = async (trx: Trx) => {
    const { totalCount: total, page } = await counts.countSearch(
      trx,
      {
        companyId: filter.companyId,
        counted: 'receipts',
        facilityId: filter.facilityId,
        customerId: filter.customerId,
        statuses: filter.statuses,
      },
      { from: filter.updatedFrom, to: filter.updatedTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
      pageRequest(request.Paging, 'svcpoid'),
      {
        range: (from, to) => repo.countReceipts(trx, { ...filter, updatedFrom: from, updatedTo: to }),
        through: (at, svcpoid) => repo.countReceipts(trx, { ...filter, updatedFrom: at, updatedTo: at, svcpoidThrough: String(svcpoid) }),
      },
    );
    const found = page.offset < total ? await repo.pageReceipts(trx, filter, page) : [];
    // Where the page ends in the list's order, before MarkOpen moves its rows to the end.
    const last = found.length === 0 ? undefined : { at: found.at(-1)!.updated_at, tie: found.at(-1)!.svcpoid };
    if (request.MarkOpen) {
      const now = cx.clock.now();
      for (const row of found.filter((r) => mayMove('open', r.status))) {
        const key = { companyId: row.company_id, svcpoid: row.svcpoid };
        if (await repo.moveStatus(trx, key, RECEIPT_MOVES.open.from, 'Open', now, principal.keyId)) {
          await recordMove(trx, row, 'open', 'Open', 'MarkOpen', principal.keyId, now);
          recordReceiptEvent(trx, 'receipt.opened', row, 'Open', { keyId: principal.keyId, at: now });
          Object.assign(row, { status: 'Open', updated_at: now, updated_by_key_id: principal.keyId });
        }
      }
    }
    return {
      results: { head: [...RECEIPT_LIST_HEAD], data: found.map((row) => headerOf(row, timeZone)) },
      paging: pagingOf(page, total, found.length, last),
    };
  };
  // A list that opens receipts is a change like any other; a plain one reads in one snapshot.
  return request.MarkOpen ? runCommand(cx, { run: list }) : db.transaction().execute(list);
}

/** The event each operator move makes. */
const MOVE_EVENTS: Record<OperatorReceiptMove, ReceiptEventType> = {
  open: 'receipt.opened',
  cancel: 'receipt.cancelled',
  'force-close': 'receipt.closed',
};

/** An operator's move (open, cancel, force-close) with its note; a move from the wrong status is 409. */
export function moveReceipt(cx: CommandContext, move: OperatorReceiptMove, request: ReceiptAction): Promise<ReceiptActionResult> {
  const { from, to } = RECEIPT_MOVES[move];
  return runCommand(cx, {
    run: async (trx) => {
      const receipt = await requireReceipt(trx, request, { lock: true });
      const now = cx.clock.now();
      const key = { companyId: receipt.company_id, svcpoid: receipt.svcpoid };
      requireMove(receipt, move);
      await repo.moveStatus(trx, key, from, to[0], now, cx.principal.keyId);
      await recordMove(trx, receipt, move, to[0], request.Note ?? null, cx.principal.keyId, now);
      recordReceiptEvent(trx, MOVE_EVENTS[move], receipt, to[0], { keyId: cx.principal.keyId, at: now });
      return { Receipt: { SVCPOID: receipt.svcpoid, Status: to[0] } };
    },
  });
}

/**
 * The receipt line a confirmed line fills: the one with its POLineNo when that line is the same
 * item and UOM, else the first line of that item and UOM that still expects goods, else the first
 * of that item and UOM; none when the receipt did not announce it.
 */
function matchLine(lines: repo.ReceiptLineRow[], line: ConfirmationLine, received: Map<number, number>): repo.ReceiptLineRow | undefined {
  const same = lines.filter((l) => l.item_id === line.ItemNumber && l.uom === line.UOM);
  const byPoLine = line.POLineNo === undefined || line.POLineNo === null ? undefined : same.find((l) => l.po_line_no === line.POLineNo);
  return byPoLine ?? same.find((l) => (received.get(l.line_no) ?? l.received_qty) < l.expected_qty) ?? same[0];
}

/**
 * A 3PL receiving confirmation: matches each received line to the receipt, posts the stock,
 * writes the RC and moves the receipt (In Progress; with Close, Closed or Partial Received). A
 * ConfirmationNo applies once: the same body again replays the first answer, another body is 409.
 */
export function confirmReceipt(cx: CommandContext, request: ConfirmationRequest): Promise<ConfirmationResult> {
  const { principal, identity } = cx;
  return runCommand(cx, {
    run: async (trx) => {
      const timeZone = await tenants.facilityTimeZone(trx, request.CompanyID, request.FacilityID, cx.facility);
      refuseSkippedTimes('local-date-time', { ReceivedDate: request.ReceivedDate }, timeZone);
      const receipt = await requireReceipt(trx, request, { lock: true });
      const key = { companyId: receipt.company_id, svcpoid: receipt.svcpoid };
      const earlier = await repo.findConfirmation(trx, { ...key, confirmationNo: request.ConfirmationNo });
      if (earlier) {
        return replayApplied<ConfirmationResult>(
          cx,
          earlier,
          `ConfirmationNo ${request.ConfirmationNo} was already applied to ${receipt.svcpoid} with a different body`,
        );
      }
      requireMove(receipt, 'receive');

      const now = cx.clock.now();
      const receivedAt = request.ReceivedDate ? parseFacilityLocal(request.ReceivedDate, timeZone)! : now;
      const lines = await repo.findLines(trx, key.companyId, key.svcpoid);
      const received = new Map<number, number>();
      const warnings: string[] = [];
      const matched = request.Items.map((line, index) => {
        const quantity = tryParseDecimal(line.ReceivedQuantity)!;
        const target = matchLine(lines, line, received);
        if (!target) warnings.push(`Items[${index}] item ${line.ItemNumber} ${line.UOM} is not on the receipt`);
        else received.set(target.line_no, (received.get(target.line_no) ?? target.received_qty) + quantity);
        return { line, quantity, target };
      });
      for (const line of lines) {
        const total = received.get(line.line_no);
        if (total !== undefined && total > line.expected_qty) {
          warnings.push(
            `Line ${line.line_no} item ${line.item_id}: ${formatDecimal(total)} received, ${formatDecimal(line.expected_qty)} expected`,
          );
        }
      }

      await inventory.postStock(trx, {
        companyId: key.companyId,
        customerId: receipt.customer_id,
        facilityId: receipt.facility_id,
        keyId: principal.keyId,
        sourceType: 'receipt',
        sourceId: receipt.svcpoid,
        sourceLine: request.ConfirmationNo,
        at: now,
        lines: matched.map(({ line, quantity, target }) => ({
          itemId: line.ItemNumber,
          uom: line.UOM,
          lotNo: line.LotNo,
          goodsType: line.GoodsType ?? target?.goods_type,
          titleId: line.TitleID ?? target?.title_id,
          expirationDate: line.ExpirationDate,
          quantity,
        })),
      });
      for (const [lineNo, total] of received) {
        const before = lines.find((l) => l.line_no === lineNo)!.received_qty;
        await repo.addReceivedQuantity(trx, key, lineNo, total - before);
      }

      const complete = lines.every((line) => (received.get(line.line_no) ?? line.received_qty) >= line.expected_qty);
      const status: ReceiptStatus = request.Close ? (complete ? 'Closed' : 'Partial Received') : 'In Progress';
      await repo.moveStatus(trx, key, RECEIPT_MOVES.receive.from, status, now, principal.keyId);
      await recordMove(trx, receipt, 'confirm', status, request.Note ?? null, principal.keyId, now);
      const change = { keyId: principal.keyId, at: now };
      recordReceiptEvent(trx, 'receipt.received', receipt, status, change, { ConfirmationNo: request.ConfirmationNo });
      if (isClosed(status)) recordReceiptEvent(trx, 'receipt.closed', receipt, status, change);

      const answer: ConfirmationResult = {
        Receipt: { SVCPOID: receipt.svcpoid, Status: status, ConfirmationNo: request.ConfirmationNo, Warnings: warnings },
      };
      const descriptions = await items.findItemDescriptions(
        trx,
        key.companyId,
        receipt.customer_id,
        request.Items.map((l) => l.ItemNumber),
      );
      const rc = presentRc(receipt, JSON.parse(receipt.document) as StoredDocument, request, matched, descriptions);
      await repo.insertConfirmation(trx, {
        company_id: key.companyId,
        svcpoid: receipt.svcpoid,
        confirmation_no: request.ConfirmationNo,
        customer_id: receipt.customer_id,
        facility_id: receipt.facility_id,
        po_no: receipt.po_no,
        reference_no: receipt.reference_no,
        request_hash: identity.requestHash,
        answer: JSON.stringify(answer),
        rc: JSON.stringify(rc),
        received_at: receivedAt,
        key_id: principal.keyId,
        created_at: now,
      });
      return answer;
    },
  });
}
