import type { Db } from '../../db/database.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import { localWindow, offsetWindow } from '../../http/time.js';
import * as counts from '../counts/counts.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { presentBalance, presentPosting } from './inquiry.present.js';
import * as repo from './inquiry.repository.js';
import {
  INVENTORY_HEAD,
  LEDGER_HEAD,
  LEDGER_SOURCE_TYPES,
  type InventorySearchRequest,
  type InventorySearchResult,
  type LedgerSearchRequest,
  type LedgerSearchResult,
} from './inquiry.schemas.js';
import * as inventory from './inventory.service.js';

/**
 * What customers and operators read about stock (docs/compatibility.md, docs/orders.md): the balances of a customer in a
 * facility, and the ledger of the postings that made them. The route's authorize() has checked the
 * CompanyID, FacilityID and CustomerID against the key; every query is bound to the company and
 * the facility, and the balance search to the customer too, so a key reads nothing outside its scope.
 */

/** The balance search: a customer's own stock, and any stock the operator and admin keys see. */
export const INVENTORY_SEARCH_ROLES = ['customer', 'operator', 'admin'] as const;
/** The ledger is the warehouse's book: operator and admin keys only. */
export const LEDGER_SEARCH_ROLES = ['operator', 'admin'] as const;

/** A text filter; empty or null means no filter. */
const filterText = (value: string | null | undefined) => (value === undefined || value === null || value === '' ? undefined : value);

/**
 * One page of a customer's balances in a facility, in key order (item, UOM, lot, goods type, title,
 * inventory status, expiration date), which is the primary key's order, so pages are stable.
 * Balances with nothing on hand are left out (allocated never exceeds on hand, so they hold nothing
 * allocated either) — except in a delta sync (UpdatedWhenFrom/To), where a balance emptied in the
 * window is a change the caller must learn of.
 */
export async function searchInventory(db: Db, request: InventorySearchRequest): Promise<InventorySearchResult> {
  const updated = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);
  const filter: inventory.BalanceFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    itemId: filterText(request.ItemNumber),
    lotNo: filterText(request.LotNo),
    inventoryStatus: request.InventoryStatus ?? undefined,
    updatedFrom: updated.from,
    updatedTo: updated.to,
    includeEmpty: updated.from !== undefined || updated.to !== undefined,
  };
  const page = pageRequest(request.Paging);
  const totalCount = await inventory.countBalances(db, filter);
  const balances = page.offset < totalCount ? await inventory.findBalances(db, filter, page) : [];
  return {
    results: { head: [...INVENTORY_HEAD], data: balances.map((balance) => presentBalance(balance, balance)) },
    paging: pagingOf(page, totalCount, balances.length),
  };
}

/**
 * One page of a facility's postings, oldest first (posting time, then id): each with its source
 * document, signed quantity, the balance it left and when, in the facility's time zone.
 */
export async function searchLedger(db: Db, request: LedgerSearchRequest): Promise<LedgerSearchResult> {
  const timeZone = await tenants.facilityTimeZone(db, request.CompanyID, request.FacilityID);
  const window = localWindow(request.CreatedWhenFrom, request.CreatedWhenTo, timeZone);

  const sourceType = request.Source?.Type ?? undefined;
  const sourceId = filterText(request.Source?.ID);
  const filter: repo.LedgerSearchFilter = {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    itemId: filterText(request.ItemNumber),
    lotNo: filterText(request.LotNo),
    createdFrom: window.from,
    createdTo: window.to,
    sourceTypes: sourceType !== undefined ? [sourceType] : sourceId !== undefined ? LEDGER_SOURCE_TYPES : undefined,
    sourceId,
  };
  // An item, a lot or a source: few postings match, and the index counts them (docs/paging.md).
  const narrowed =
    filter.itemId !== undefined || filter.lotNo !== undefined || filter.sourceTypes !== undefined || filter.sourceId !== undefined;
  const { totalCount, page } = await counts.countSearch(
    db,
    { companyId: filter.companyId, counted: 'ledger', facilityId: filter.facilityId, customerId: filter.customerId },
    { from: filter.createdFrom, to: filter.createdTo, narrowed },
    pageRequest(request.Paging, 'id'),
    {
      range: (from, to) => repo.countLedger(db, { ...filter, createdFrom: from, createdTo: to }),
      through: (at, id) => repo.countLedger(db, { ...filter, createdFrom: at, createdTo: at, idThrough: id as number }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageLedger(db, filter, page) : [];
  const last = rows.at(-1);
  return {
    results: { head: [...LEDGER_HEAD], data: rows.map((row) => presentPosting(row, timeZone)) },
    paging: pagingOf(page, totalCount, rows.length, last && { at: last.created_at, tie: last.id }),
  };
}
