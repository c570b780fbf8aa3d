import type { Db } from '../../db/database.js';
import { afterPosition, timeOrder, type PageSlice } from '../../db/keyset.js';

/**
 * The SQL of the customer's receipt searches. The RC search reads receipt_confirmations through
 * receipt_confirmations_search_idx (company, customer, facility, created_at, id); the header search
 * reads receipts through receipts_updated_svcpoid_idx (company, facility, customer, updated_at, svcpoid), and each
 * page row's latest confirmation through receipt_confirmations_number_uq (company, svcpoid, …).
 */

export interface ConfirmationSearchFilter {
  companyId: string;
  customerId: string;
  facilityId: string;
  poNo?: string;
  referenceNo?: string;
  createdFrom?: number;
  createdTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  idThrough?: number;
}

export interface ConfirmationRecordRow {
  id: number;
  customer_id: string;
  facility_id: string;
  po_no: string;
  reference_no: string | null;
  rc: string;
  received_at: number;
  created_at: number;
}

function confirmations(db: Db, filter: ConfirmationSearchFilter) {
  return db
    .selectFrom('receipt_confirmations')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .where('facility_id', '=', filter.facilityId)
    .$if(filter.poNo !== undefined, (q) => q.where('po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('reference_no', '=', filter.referenceNo!))
    .$if(filter.createdFrom !== undefined, (q) => q.where('created_at', '>=', filter.createdFrom!))
    .$if(filter.createdTo !== undefined, (q) => q.where('created_at', '<=', filter.createdTo!))
    .$if(filter.idThrough !== undefined, (q) => q.where('id', '<=', filter.idThrough!));
}

export async function countConfirmations(db: Db, filter: ConfirmationSearchFilter): Promise<number> {
  const { count } = await confirmations(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest first; ties on the creation time break on the id, so pages are stable. */
export async function pageConfirmations(db: Db, filter: ConfirmationSearchFilter, slice: PageSlice): Promise<ConfirmationRecordRow[]> {
  return confirmations(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('created_at', 'id', slice.after!)))
    .select(['id', 'customer_id', 'facility_id', 'po_no', 'reference_no', 'rc', 'received_at', 'created_at'])
    .orderBy(timeOrder('created_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('id')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}

/** One confirmation by its receipt and ConfirmationNo (receipt_confirmations_number_uq). */
export async function findConfirmationRecord(
  db: Db,
  key: { companyId: string; svcpoid: string; confirmationNo: string },
): Promise<ConfirmationRecordRow | undefined> {
  return db
    .selectFrom('receipt_confirmations')
    .select(['id', 'customer_id', 'facility_id', 'po_no', 'reference_no', 'rc', 'received_at', 'created_at'])
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('confirmation_no', '=', key.confirmationNo)
    .executeTakeFirst();
}

export interface ReceiptHeaderFilter {
  companyId: string;
  facilityId: string;
  customerId: string;
  status?: string;
  poNo?: string;
  referenceNo?: string;
  updatedFrom?: number;
  updatedTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  svcpoidThrough?: string;
}

export interface ReceiptHeaderRow {
  svcpoid: string;
  customer_id: string;
  facility_id: string;
  po_no: string;
  reference_no: string | null;
  status: string;
  carrier_name: string | null;
  scac_code: string | null;
  bol_no: string | null;
  container_no: string | null;
  scheduled_at: number | null;
  created_at: number;
  updated_at: number;
  /** received_at of the receipt's latest confirmation (by creation time, then id); null before any. */
  last_received_at: number | null;
}

function receipts(db: Db, filter: ReceiptHeaderFilter) {
  return db
    .selectFrom('receipts')
    .where('receipts.company_id', '=', filter.companyId)
    .where('receipts.facility_id', '=', filter.facilityId)
    .where('receipts.customer_id', '=', filter.customerId)
    .$if(filter.status !== undefined, (q) => q.where('receipts.status', '=', filter.status!))
    .$if(filter.poNo !== undefined, (q) => q.where('receipts.po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('receipts.reference_no', '=', filter.referenceNo!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('receipts.updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('receipts.updated_at', '<=', filter.updatedTo!))
    .$if(filter.svcpoidThrough !== undefined, (q) => q.where('receipts.svcpoid', '<=', filter.svcpoidThrough!));
}

export async function countReceiptHeaders(db: Db, filter: ReceiptHeaderFilter): Promise<number> {
  const { count } = await receipts(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest update first; SVCPOIDs break ties, so pages are stable while nothing changes. */
export async function pageReceiptHeaders(db: Db, filter: ReceiptHeaderFilter, slice: PageSlice): Promise<ReceiptHeaderRow[]> {
  return receipts(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('receipts.updated_at', 'receipts.svcpoid', slice.after!)))
    .select([
      'receipts.svcpoid',
      'receipts.customer_id',
      'receipts.facility_id',
      'receipts.po_no',
      'receipts.reference_no',
      'receipts.status',
      'receipts.carrier_name',
      'receipts.scac_code',
      'receipts.bol_no',
      'receipts.container_no',
      'receipts.scheduled_at',
      'receipts.created_at',
      'receipts.updated_at',
    ])
    .select((eb) =>
      eb
        .selectFrom('receipt_confirmations as c')
        .select('c.received_at')
        .whereRef('c.company_id', '=', 'receipts.company_id')
        .whereRef('c.svcpoid', '=', 'receipts.svcpoid')
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .limit(1)
        .as('last_received_at'),
    )
    .orderBy(timeOrder('receipts.updated_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('receipts.svcpoid')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}
