import type { Db } from '../../db/database.js';
import { pageRequest, pagingOf, type Paging } from '../../http/paging.js';
import { localWindow, offsetWindow } from '../../http/time.js';
import * as counts from '../counts/counts.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { orderDateMemo, presentDcRecord, presentOrderLevelRow } from './order-searches.present.js';
import * as repo from './order-searches.repository.js';
import {
  ORDER_LEVEL_HEAD,
  type DcRecord,
  type DcSearchRequest,
  type OrderLevelSearchRequest,
  type OrderLevelSearchResult,
} from './order-searches.schemas.js';

/**
 * What a customer reads back about its orders: the shipment confirmations (DC search, docs/compatibility.md)
 * and the order headers (DN header level query, spec 2.10). The route's authorize() has already
 * checked the CompanyID, FacilityID and CustomerID against the key, and every query below is bound
 * to all three, so a key reads nothing outside its scope.
 */

export const SEARCH_ROLES = ['customer', 'operator', 'admin'] as const;

/** A text filter; empty or null means no filter, as it does for the time bounds. */
const filterText = (value: string | null | undefined) => (value === undefined || value === null || value === '' ? undefined : value);

/** A ReferenceNo filter: a number is compared as text, as the order stored it. */
const referenceNoFilter = (value: string | number | null | undefined) => filterText(typeof value === 'number' ? String(value) : value);

/**
 * One page of a customer's shipment confirmations in a facility, oldest first (creation time, then
 * id). As in the RC search, nothing matching is an empty page, not a 404.
 */
export async function searchShipmentConfirmations(db: Db, request: DcSearchRequest): Promise<{ records: DcRecord[]; paging: Paging }> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = localWindow(request.CreatedWhenFrom, request.CreatedWhenTo, timeZone);

  const filter: repo.DcSearchFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    poNo: filterText(request.PONo),
    referenceNo: referenceNoFilter(request.ReferenceNo),
    createdFrom: window.from,
    createdTo: window.to,
  };
  const { totalCount, page } = await counts.countSearch(
    db,
    { companyId: filter.companyId, counted: 'order_confirmations', facilityId: filter.facilityId, customerId: filter.customerId },
    { from: filter.createdFrom, to: filter.createdTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
    pageRequest(request.Paging, 'id'),
    {
      range: (from, to) => repo.countShipmentConfirmations(db, { ...filter, createdFrom: from, createdTo: to }),
      through: (at, id) => repo.countShipmentConfirmations(db, { ...filter, createdFrom: at, createdTo: at, idThrough: id as number }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageShipmentConfirmations(db, filter, page) : [];
  const last = rows.at(-1);
  return {
    records: rows.map((row) => presentDcRecord(row, timeZone)),
    paging: pagingOf(page, totalCount, rows.length, last && { at: last.created_at, tie: last.id }),
  };
}

/** One shipment confirmation as the DC search shows it (undefined when there is none). */
export async function findShipmentConfirmation(
  db: Db,
  key: { companyId: string; facilityId: string; svcpoid: string; confirmationNo: string },
): Promise<DcRecord | undefined> {
  const row = await repo.findShipmentConfirmation(db, key);
  return row && presentDcRecord(row, await tenants.facilityTimeZone(db, key.companyId, key.facilityId));
}

/** One page of a customer's order headers in a facility, oldest update first, ties by SVCPOID. */
export async function searchOrderHeaders(db: Db, request: OrderLevelSearchRequest): Promise<OrderLevelSearchResult> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);

  const filter: repo.OrderHeaderFilter = {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    poNo: filterText(request.PONo),
    referenceNo: referenceNoFilter(request.ReferenceNo),
    updatedFrom: window.from,
    updatedTo: window.to,
  };
  const { totalCount, page } = await counts.countSearch(
    db,
    { companyId: filter.companyId, counted: 'orders', facilityId: filter.facilityId, customerId: filter.customerId },
    { from: filter.updatedFrom, to: filter.updatedTo, narrowed: filter.poNo !== undefined || filter.referenceNo !== undefined },
    pageRequest(request.Paging, 'svcpoid'),
    {
      range: (from, to) => repo.countOrderHeaders(db, { ...filter, updatedFrom: from, updatedTo: to }),
      through: (at, svcpoid) => repo.countOrderHeaders(db, { ...filter, updatedFrom: at, updatedTo: at, svcpoidThrough: String(svcpoid) }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageOrderHeaders(db, filter, page) : [];
  const last = rows.at(-1);
  // The page's order dates are parsed once per distinct text, not once per row.
  const dateOf = orderDateMemo(timeZone);
  return {
    results: { head: [...ORDER_LEVEL_HEAD], data: rows.map((row) => presentOrderLevelRow(row, timeZone, dateOf)) },
    paging: pagingOf(page, totalCount, rows.length, last && { at: last.updated_at, tie: last.svcpoid }),
  };
}
