import type { Db } from '../../db/database.js';
import { pageRequest, pagingOf, type Paging } from '../../http/paging.js';
import { localWindow, offsetWindow } from '../../http/time.js';
import * as counts from '../counts/counts.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { presentRcRecord, presentReceiptLevelRow } from './receipt-searches.present.js';
import * as repo from './receipt-searches.repository.js';
import {
  RECEIPT_LEVEL_HEAD,
  type RcRecord,
  type RcSearchRequest,
  type ReceiptLevelSearchRequest,
  type ReceiptLevelSearchResult,
} from './receipt-searches.schemas.js';

/**
 * What a customer reads back about its receipts: the receiving confirmations (RC search, spec 2.5
 * and 2.6) and the receipt headers (receipt-level search, docs/compatibility.md). The route's authorize()
 * has already checked the CompanyID, FacilityID and CustomerID against the key, and every query
 * below is bound to all three, so a key reads nothing outside its scope.
 */

export const SEARCH_ROLES = ['customer', 'operator', 'admin'] as const;

/** A text filter; empty or null means no filter, as it does for the time bounds. */
const filterText = (value: string | null | undefined) => (value === undefined || value === null || value === '' ? undefined : value);

/**
 * One page of a customer's confirmations in a facility, oldest first (creation time, then id).
 * Unlike the ACK search, nothing matching is an empty page, not a 404.
 */
export async function searchConfirmations(db: Db, request: RcSearchRequest): Promise<{ records: RcRecord[]; paging: Paging }> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = localWindow(request.CreatedWhenFrom, request.CreatedWhenTo, timeZone);

  const filter: repo.ConfirmationSearchFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    poNo: filterText(request.PONo),
    referenceNo: filterText(request.ReferenceNo),
    createdFrom: window.from,
    createdTo: window.to,
  };
  const { totalCount, page } = await counts.countSearch(
    db,
    { companyId: filter.companyId, counted: 'receipt_confirmations', facilityId: filter.facilityId, customerId: filter.customerId },
    { from: filter.createdFrom, to: filter.createdTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
    pageRequest(request.Paging, 'id'),
    {
      range: (from, to) => repo.countConfirmations(db, { ...filter, createdFrom: from, createdTo: to }),
      through: (at, id) => repo.countConfirmations(db, { ...filter, createdFrom: at, createdTo: at, idThrough: id as number }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageConfirmations(db, filter, page) : [];
  const last = rows.at(-1);
  return {
    records: rows.map((row) => presentRcRecord(row, timeZone)),
    paging: pagingOf(page, totalCount, rows.length, last && { at: last.created_at, tie: last.id }),
  };
}

/** One receiving confirmation as the RC search shows it (undefined when there is none). */
export async function findConfirmation(
  db: Db,
  key: { companyId: string; facilityId: string; svcpoid: string; confirmationNo: string },
): Promise<RcRecord | undefined> {
  const row = await repo.findConfirmationRecord(db, key);
  return row && presentRcRecord(row, await tenants.facilityTimeZone(db, key.companyId, key.facilityId));
}

/** One page of a customer's receipt headers in a facility, oldest update first, ties by SVCPOID. */
export async function searchReceiptHeaders(db: Db, request: ReceiptLevelSearchRequest): Promise<ReceiptLevelSearchResult> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);

  const filter: repo.ReceiptHeaderFilter = {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    status: request.Status,
    poNo: filterText(request.PONo),
    referenceNo: filterText(request.ReferenceNo),
    updatedFrom: window.from,
    updatedTo: window.to,
  };
  const { totalCount, page } = await counts.countSearch(
    db,
    {
      companyId: filter.companyId,
      counted: 'receipts',
      facilityId: filter.facilityId,
      customerId: filter.customerId,
      statuses: filter.status === undefined ? undefined : [filter.status],
    },
    { from: filter.updatedFrom, to: filter.updatedTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
    pageRequest(request.Paging, 'svcpoid'),
    {
      range: (from, to) => repo.countReceiptHeaders(db, { ...filter, updatedFrom: from, updatedTo: to }),
      through: (at, svcpoid) =>
        repo.countReceiptHeaders(db, { ...filter, updatedFrom: at, updatedTo: at, svcpoidThrough: String(svcpoid) }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageReceiptHeaders(db, filter, page) : [];
  const last = rows.at(-1);
  return {
    results: { head: [...RECEIPT_LEVEL_HEAD], data: rows.map((row) => presentReceiptLevelRow(row, timeZone)) },
    paging: pagingOf(page, totalCount, rows.length, last && { at: last.updated_at, tie: last.svcpoid }),
  };
}
