import type { Db, Trx } from '../../db/database.js';
import { ROLES_OF } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { parseScheduleDate, skippedTimeProblems } from '../../http/time.js';
import { tryParseDecimal } from '../../lib/decimal.js';
import { conflict, invalid, notFound } from '../../lib/refusal.js';
import * as acks from '../acks/acks.service.js';
import { runCommand, type RejectedBodyRule } from '../commands/commands.service.js';
import * as items from '../items/items.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { recordReceiptEvent } from './receipt-events.js';
import { requireMove } from './receipt-states.js';
import * as repo from './receipts.repository.js';
import type { AsnContent, ReceiptCancelRequest, ReceiptImportRequest, ReceiptImportResult } from './receipts.schemas.js';
import { storedDocumentOf } from './receiving.present.js';

/**
 * Inbound receipts (RN): the customer's import, update and cancel (docs/receipts.md's receipt state
 * machine), each acknowledged once.
 */

/** How a receipt import or cancel that fails validation is acknowledged. */
export const REJECTED_RECEIPT: RejectedBodyRule = { documentType: 'RN', roles: ROLES_OF.customer, contentKey: 'ASNContent' };

/** The document a request names, with whatever numbers it carries: what its ACK is about. */
function ackedDocument(
  request: { CompanyID: string; CustomerID: string; FacilityID: string },
  numbers: { poNo: string | null; referenceNo: string | null },
): acks.AckedDocument {
  return {
    documentType: 'RN',
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    poNo: numbers.poNo,
    referenceNo: numbers.referenceNo,
  };
}

/** The one problem of an import that the schema cannot see: its two priority keys disagreeing. */
function importProblems(content: AsnContent): string[] {
  return (content.Items ?? []).flatMap((line, index) => {
    const priorities = [line.ReceivingPriority, line['Receiving Priority']].filter((p) => p !== undefined && p !== null);
    return priorities.length === 2 && String(priorities[0]) !== String(priorities[1])
      ? [`ASNContent.Items[${index}].ReceivingPriority and Receiving Priority disagree`]
      : [];
  });
}

/** What is saved but worth telling: the answer's Status becomes Warning with these in Error. */
async function importWarnings(db: Db, request: ReceiptImportRequest): Promise<string[]> {
  const content = request.ASNContent;
  const lines = content.Items ?? [];
  const warnings: string[] = [];
  const unknown = await items.findUnknownItemIds(
    db,
    request.CompanyID,
    request.CustomerID,
    lines.map((l) => l.ItemNumber),
  );
  if (unknown.length > 0) warnings.push(`Items not in the item master: ${unknown.join(', ')}`);
  const seen = new Map<string, number>();
  lines.forEach((line, index) => {
    const key = JSON.stringify([line.ItemNumber, line.LotNo ?? '', line.UOM]);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      warnings.push(
        `Items[${index}] repeats item ${line.ItemNumber}${line.LotNo ? ` lot ${line.LotNo}` : ''} ${line.UOM} of Items[${first}]`,
      );
  });
  return warnings;
}

function answerOf(customerId: string, poNo: string, referenceNo: string | null, svcpoid: string, warnings: string[]): ReceiptImportResult {
  return {
    Receipt: {
      CustomerID: customerId,
      PONo: poNo,
      ReferenceNo: referenceNo ?? [],
      SVCPOID: svcpoid,
      Status: warnings.length > 0 ? 'Warning' : 'Success',
      Error: warnings.length > 0 ? warnings.join('; ') : [],
    },
  };
}

/** Only an Imported receipt is the customer's to cancel; afterwards the operator cancels it. */
async function cancelByCustomer(
  trx: Trx,
  receipt: repo.ReceiptRow,
  subject: acks.AckSubject,
  note: string | null,
): Promise<ReceiptImportResult> {
  requireMove(receipt, 'customer-cancel');
  const key = { companyId: receipt.company_id, svcpoid: receipt.svcpoid };
  await repo.updateReceipt(trx, key, { status: 'Cancelled', updated_at: subject.at, updated_by_key_id: subject.keyId });
  await repo.insertEvent(trx, {
    company_id: key.companyId,
    svcpoid: key.svcpoid,
    action: 'cancel',
    from_status: receipt.status,
    to_status: 'Cancelled',
    note,
    key_id: subject.keyId,
    created_at: subject.at,
  });
  const numbers = { poNo: receipt.po_no, referenceNo: receipt.reference_no };
  await acks.recordSuccess(trx, { ...subject, ...numbers }, { svcpoid: receipt.svcpoid, status: 'Success', error: null });
  recordReceiptEvent(trx, 'receipt.cancelled', receipt, 'Cancelled', subject);
  return answerOf(receipt.customer_id, receipt.po_no, receipt.reference_no, receipt.svcpoid, []);
}

async function applyImport(trx: Trx, cx: CommandContext, request: ReceiptImportRequest, warnings: string[]): Promise<ReceiptImportResult> {
  const content = request.ASNContent;
  const referenceNo = content.ReferenceNo ?? null;
  const now = cx.clock.now();
  const keyId = cx.principal.keyId;
  const subject: acks.AckSubject = { ...ackedDocument(request, { poNo: content.PONo, referenceNo }), keyId, at: now };
  const key = { companyId: request.CompanyID, customerId: request.CustomerID, facilityId: request.FacilityID, poNo: content.PONo };
  // Sent with the lookup, before it answers whether the receipt is new.
  const nextSvcpoid = content.ActionCode === 'Cancelled' ? undefined : await repo.svcpoidAhead(trx);
  // Locked: a confirmation or an operator move of the same receipt waits for this import. The
  // holder of the ReferenceNo, read in the same round trip, is locked too; its import is refused.
  const found =
    referenceNo === null ? await repo.findLive(trx, key, { lock: true }) : await repo.findLiveForImport(trx, { ...key, referenceNo });
  const live = found.find((r) => r.facility_id === key.facilityId && r.po_no === key.poNo);

  if (content.ActionCode === 'Cancelled') {
    if (!live) throw notFound(`Not found receipt with PONo ${content.PONo}`);
    return cancelByCustomer(trx, live, subject, null);
  }

  const timeZone = await tenants.facilityTimeZone(trx, request.CompanyID, request.FacilityID, cx.facility);
  const problems = [
    ...importProblems(content),
    ...skippedTimeProblems('schedule-date', { 'ASNContent.ScheduledDate': content.ScheduledDate, 'ASNContent.ETD': content.ETD }, timeZone),
  ];
  if (problems.length > 0) throw invalid(...problems);
  if (referenceNo !== null) {
    const holder = found.find((r) => r.reference_no === referenceNo && r.svcpoid !== live?.svcpoid);
    // A holder in another facility is not named: the key may be limited to this facility, and the
    // failure ACK is read here (docs/access.md: no key reads another facility's data).
    if (holder?.facility_id === request.FacilityID) {
      throw conflict(`ReferenceNo ${referenceNo} is already used by receipt ${holder.svcpoid} (PONo ${holder.po_no})`);
    }
    if (holder) throw conflict(`ReferenceNo ${referenceNo} is already used by a receipt in another facility`);
  }
  if (live) requireMove(live, 'update');

  const scheduled = content.ScheduledDate ?? null;
  const header = {
    reference_no: referenceNo,
    status: 'Imported',
    receipt_type: content.ReceiptType ?? 'Regular Receipt',
    supplier_id: content.SupplierID ?? null,
    carrier_name: content.CarrierName ?? null,
    scac_code: content.SCACCode ?? null,
    bol_no: content.BOLNo ?? null,
    container_no: content.ContainerNo ?? null,
    scheduled_at: scheduled === null ? null : parseScheduleDate(scheduled, timeZone)!,
    document: storedDocumentOf(request),
    updated_at: now,
    updated_by_key_id: keyId,
  };
  const svcpoid = live ? live.svcpoid : await nextSvcpoid!();
  if (!live) {
    await repo.insertReceipt(trx, {
      company_id: request.CompanyID,
      customer_id: request.CustomerID,
      facility_id: request.FacilityID,
      svcpoid,
      po_no: content.PONo,
      ...header,
      created_at: now,
      created_by_key_id: keyId,
    });
  } else {
    const documentKey = { companyId: request.CompanyID, svcpoid };
    await repo.updateReceipt(trx, documentKey, header);
    // An update replaces the lines; nothing has been received on them (Imported or Open only).
    await repo.deleteLines(trx, documentKey);
  }
  await repo.insertLines(
    trx,
    content.Items!.map((line, index) => ({
      company_id: request.CompanyID,
      svcpoid,
      line_no: index + 1,
      po_line_no: typeof line.POLineNo === 'number' ? line.POLineNo : null,
      item_id: line.ItemNumber,
      uom: line.UOM,
      lot_no: line.LotNo ?? '',
      goods_type: line.GoodsType ?? '',
      title_id: line.TitleID ?? request.TitleID ?? '',
      expected_qty: tryParseDecimal(line.ExpectedQty)!,
    })),
  );

  await acks.recordSuccess(trx, subject, {
    svcpoid,
    status: warnings.length > 0 ? 'Warning' : 'Success',
    error: warnings.length > 0 ? warnings.join('; ') : null,
  });
  const receipt = {
    company_id: request.CompanyID,
    customer_id: request.CustomerID,
    facility_id: request.FacilityID,
    svcpoid,
    po_no: content.PONo,
    reference_no: referenceNo,
  };
  recordReceiptEvent(trx, live ? 'receipt.updated' : 'receipt.imported', receipt, 'Imported', subject);
  return answerOf(request.CustomerID, content.PONo, referenceNo, svcpoid, warnings);
}

/**
 * RN import (spec 2.3, 2.4): creates, updates or cancels a receipt by (customer, facility, PONo)
 * and writes its ACK in the same transaction; a refusal's failure ACK is written after the rollback.
 */
export async function importReceipt(cx: CommandContext, request: ReceiptImportRequest): Promise<ReceiptImportResult> {
  const content = request.ASNContent;
  // Read before the transaction, from committed items, which the item master remembers once found.
  const warnings = content.ActionCode === 'Cancelled' ? [] : await importWarnings(cx.db, request);
  return runCommand(cx, {
    run: (trx) => applyImport(trx, cx, request, warnings),
    acknowledge: ackedDocument(request, { poNo: content.PONo, referenceNo: content.ReferenceNo ?? null }),
  });
}

/**
 * The customer's cancel (`PUT …/receipt/cancel`): the live receipt of the customer in the facility
 * matching PONo and/or ReferenceNo; only an Imported one can be cancelled (409 otherwise).
 */
export function cancelReceipt(cx: CommandContext, request: ReceiptCancelRequest): Promise<ReceiptImportResult> {
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
          referenceNo: referenceNo ?? undefined,
        },
        { lock: true },
      );
      if (matches.length === 0) throw notFound(`Not found receipt with ${poNo !== null ? `PONo ${poNo}` : `ReferenceNo ${referenceNo}`}`);
      const subject = { ...document, keyId: cx.principal.keyId, at: cx.clock.now() };
      return cancelByCustomer(trx, matches[0]!, subject, request.CancelNote ?? null);
    },
    acknowledge: document,
  });
}
