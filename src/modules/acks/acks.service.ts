import type { Db, Trx } from '../../db/database.js';
import { pageRequest, pagingOf, type Paging } from '../../http/paging.js';
import { localWindow } from '../../http/time.js';
import { isStorableText } from '../../lib/json-values.js';
import { notFound } from '../../lib/refusal.js';
import * as counts from '../counts/counts.service.js';
import * as events from '../events/events.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { presentAck } from './acks.present.js';
import * as repo from './acks.repository.js';

/** Where a page of ACKs ends in their order (creation time, then id). */
const lastOf = (rows: repo.AckRow[]) => (rows.length === 0 ? undefined : { at: rows.at(-1)!.created_at, tie: rows.at(-1)!.id });
import type { AckRecord, AckSearchRequest } from './acks.schemas.js';

/**
 * Acknowledgements: one per import or cancel call whose identifiers are valid and in scope
 * (docs/receipts.md, docs/orders.md). The success form is written with the effect; the failure form after the rollback.
 */

export type DocumentType = 'RN' | 'DN';

/** The document an ACK is about, as far as the request named it. */
export interface AckedDocument {
  documentType: DocumentType;
  companyId: string;
  customerId: string;
  facilityId: string;
  poNo: string | null;
  referenceNo: string | number | null;
}

/** An ACK's document, the key that called and when. */
export interface AckSubject extends AckedDocument {
  keyId: number;
  at: number;
}

/** Writes an ACK and counts it for its search (docs/paging.md). */
async function insertAck(trx: Trx, row: Parameters<typeof repo.insertAck>[1] & ReturnType<typeof subjectColumns>): Promise<void> {
  await repo.insertAck(trx, row);
  await counts.countNew(trx, `acks:${row.document_type}`, {
    companyId: row.company_id,
    facilityId: row.facility_id,
    customerId: row.customer_id,
    at: row.created_at,
  });
}

function subjectColumns(subject: AckSubject) {
  return {
    company_id: subject.companyId,
    document_type: subject.documentType,
    customer_id: subject.customerId,
    facility_id: subject.facilityId,
    po_no: subject.poNo,
    reference_no: subject.referenceNo === null ? null : String(subject.referenceNo),
    reference_no_type: subject.referenceNo === null ? null : typeof subject.referenceNo,
    key_id: subject.keyId,
    created_at: subject.at,
  };
}

export async function recordSuccess(
  trx: Trx,
  subject: AckSubject,
  outcome: { svcpoid: string; status: 'Success' | 'Warning'; error: string | null },
): Promise<void> {
  await insertAck(trx, {
    ...subjectColumns(subject),
    svcpoid: outcome.svcpoid,
    status: outcome.status,
    error: outcome.error,
    failure_code: null,
    failure_error: null,
  });
}

/** An ack.failed event's Error keeps this much of the refusal; the ACK search shows all of it. */
const EVENT_ERROR_LENGTH = 10_000;

/** `text` cut to `length` and marked with …, never inside a character beyond the BMP. */
function shortened(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** The failure form: one `{code, error}`, the refusal's messages joined; and its `ack.failed` event. */
export async function recordFailure(trx: Trx, subject: AckSubject, messages: readonly string[]): Promise<void> {
  const message = messages.join('; ');
  await insertAck(trx, {
    ...subjectColumns(subject),
    svcpoid: null,
    status: null,
    error: null,
    failure_code: `EDI-ERROR-${message}`,
    failure_error: message,
  });
  events.recordEvent(trx, {
    type: 'ack.failed',
    keyId: subject.keyId,
    at: subject.at,
    data: {
      CompanyID: subject.companyId,
      CustomerID: subject.customerId,
      FacilityID: subject.facilityId,
      DocumentType: subject.documentType,
      PONo: subject.poNo,
      ReferenceNo: subject.referenceNo,
      Error: shortened(message, EVENT_ERROR_LENGTH),
    },
  });
}

/** A text the failure ACK can carry: one that passed its own type and length checks and can be stored, else null. */
function textWithin(value: unknown, maxLength: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= maxLength && isStorableText(value) ? value : null;
}

/** A ReferenceNo the failure ACK can carry; an order's may be a whole number (spec 2.9). */
function referenceNoWithin(documentType: DocumentType, value: unknown): string | number | null {
  if (documentType === 'DN' && typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  return textWithin(value, 50);
}

/**
 * The document a body that failed validation names, as far as it can be read: its identifiers
 * (already checked against the key's scope) and the PONo and ReferenceNo that pass their own checks.
 * `contentKey` is the import's content object (ASNContent, POContent); a cancel carries its numbers
 * at the root. Undefined when the body names no customer and facility, which an ACK belongs to.
 */
export function documentNamedBy(documentType: DocumentType, body: unknown, contentKey: string): AckedDocument | undefined {
  const ids = body as Record<string, unknown> & { CompanyID: string };
  if (typeof ids.CustomerID !== 'string' || typeof ids.FacilityID !== 'string') return undefined;
  const content = ids[contentKey];
  const numbers = (content && typeof content === 'object' ? content : ids) as { PONo?: unknown; ReferenceNo?: unknown };
  return {
    documentType,
    companyId: ids.CompanyID,
    customerId: ids.CustomerID,
    facilityId: ids.FacilityID,
    poNo: textWithin(numbers.PONo, 50),
    referenceNo: referenceNoWithin(documentType, numbers.ReferenceNo),
  };
}

/** An empty filter value filters nothing, as an absent one. */
const blankToUndefined = (value: string | null | undefined) => (value === null || value === '' ? undefined : value);

export const NOT_FOUND: Record<DocumentType, string> = { RN: 'Not found receipt', DN: 'Not found order' };

/**
 * One page of a customer's ACKs in a facility, oldest first. Nothing matching the filter is 404
 * with the spec's not-found message; a page past the end is an empty page.
 */
export async function searchAcks(
  db: Db,
  documentType: DocumentType,
  request: AckSearchRequest,
): Promise<{ records: AckRecord[]; paging: Paging }> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = localWindow(request.CreatedWhenFrom, request.CreatedWhenTo, timeZone);

  const filter: repo.AckFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    documentType,
    poNo: blankToUndefined(request.PONo),
    referenceNo: blankToUndefined(
      request.ReferenceNo === null || request.ReferenceNo === undefined ? undefined : String(request.ReferenceNo),
    ),
    createdFrom: window.from,
    createdTo: window.to,
  };
  const { totalCount, page } = await counts.countSearch(
    db,
    { companyId: filter.companyId, counted: `acks:${documentType}`, facilityId: filter.facilityId, customerId: filter.customerId },
    { from: filter.createdFrom, to: filter.createdTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
    pageRequest(request.Paging, 'id'),
    {
      range: (from, to) => repo.countAcks(db, { ...filter, createdFrom: from, createdTo: to }),
      through: (at, id) => repo.countAcks(db, { ...filter, createdFrom: at, createdTo: at, idThrough: id as number }),
    },
  );
  if (totalCount === 0) throw notFound(NOT_FOUND[documentType]);
  const rows = page.offset < totalCount ? await repo.pageAcks(db, filter, page) : [];
  return { records: rows.map((row) => presentAck(row, timeZone)), paging: pagingOf(page, totalCount, rows.length, lastOf(rows)) };
}
