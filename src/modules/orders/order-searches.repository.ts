import type { Db } from '../../db/database.js';
import { afterPosition, timeOrder, type PageSlice } from '../../db/keyset.js';

/**
 * The SQL of the customer's order searches. The DC search reads order_confirmations through
 * order_confirmations_search_idx (company, customer, facility, created_at, id); the header query
 * counts and pages orders through orders_updated_svcpoid_idx (company, facility, customer,
 * updated_at, svcpoid), then reads each page row by the primary key and its latest shipment
 * confirmation through order_confirmations_number_uq (company, svcpoid, …).
 */

export interface DcSearchFilter {
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

export interface DcRecordRow {
  id: number;
  customer_id: string;
  facility_id: string;
  po_no: string | null;
  reference_no: string;
  reference_no_type: string;
  dc: string;
  shipped_at: number;
  created_at: number;
}

function shipmentConfirmations(db: Db, filter: DcSearchFilter) {
  return db
    .selectFrom('order_confirmations')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .where('facility_id', '=', filter.facilityId)
    .$if(filter.poNo !== undefined, (q) => q.where('po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('reference_no', '=', filter.referenceNo!))
    .$if(filter.createdFrom !== undefined, (q) => q.where('created_at', '>=', filter.createdFrom!))
    .$if(filter.createdTo !== undefined, (q) => q.where('created_at', '<=', filter.createdTo!))
    .$if(filter.idThrough !== undefined, (q) => q.where('id', '<=', filter.idThrough!));
}

export async function countShipmentConfirmations(db: Db, filter: DcSearchFilter): Promise<number> {
  const { count } = await shipmentConfirmations(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest first; ties on the creation time break on the id, so pages are stable. */
export async function pageShipmentConfirmations(db: Db, filter: DcSearchFilter, slice: PageSlice): Promise<DcRecordRow[]> {
  return shipmentConfirmations(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('created_at', 'id', slice.after!)))
    .select(['id', 'customer_id', 'facility_id', 'po_no', 'reference_no', 'reference_no_type', 'dc', 'shipped_at', 'created_at'])
    .orderBy(timeOrder('created_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('id')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}

/** One shipment confirmation by its order and ConfirmationNo (order_confirmations_number_uq). */
export async function findShipmentConfirmation(
  db: Db,
  key: { companyId: string; svcpoid: string; confirmationNo: string },
): Promise<DcRecordRow | undefined> {
  return db
    .selectFrom('order_confirmations')
    .select(['id', 'customer_id', 'facility_id', 'po_no', 'reference_no', 'reference_no_type', 'dc', 'shipped_at', 'created_at'])
    .where('company_id', '=', key.companyId)
    .where('svcpoid', '=', key.svcpoid)
    .where('confirmation_no', '=', key.confirmationNo)
    .executeTakeFirst();
}

export interface OrderHeaderFilter {
  companyId: string;
  facilityId: string;
  customerId: string;
  poNo?: string;
  referenceNo?: string;
  updatedFrom?: number;
  updatedTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  svcpoidThrough?: string;
}

export interface OrderHeaderRow {
  svcpoid: string;
  customer_id: string;
  facility_id: string;
  reference_no: string;
  reference_no_type: string;
  po_no: string | null;
  status: string;
  document: string;
  created_at: number;
  updated_at: number;
  created_by_key_id: number;
  /** The order's latest shipment confirmation (by creation time, then id); all null before any. */
  shipped_at: number | null;
  shipped_carrier_name: string | null;
  shipped_scac_code: string | null;
  shipped_pro_no: string | null;
}

function orders(db: Db, filter: OrderHeaderFilter) {
  return db
    .selectFrom('orders')
    .where('orders.company_id', '=', filter.companyId)
    .where('orders.facility_id', '=', filter.facilityId)
    .where('orders.customer_id', '=', filter.customerId)
    .$if(filter.poNo !== undefined, (q) => q.where('orders.po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('orders.reference_no', '=', filter.referenceNo!))
    .$if(filter.updatedFrom !== undefined, (q) => q.where('orders.updated_at', '>=', filter.updatedFrom!))
    .$if(filter.updatedTo !== undefined, (q) => q.where('orders.updated_at', '<=', filter.updatedTo!))
    .$if(filter.svcpoidThrough !== undefined, (q) => q.where('orders.svcpoid', '<=', filter.svcpoidThrough!));
}

export async function countOrderHeaders(db: Db, filter: OrderHeaderFilter): Promise<number> {
  const { count } = await orders(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Oldest update first; SVCPOIDs break ties, so pages are stable while nothing changes. A deferred
 * join: the page's SVCPOIDs are chosen first from orders_updated_svcpoid_idx, in its order (without
 * a PONo or ReferenceNo filter, which the table answers, skipping the pages before reads no table
 * row), and only those rows are then joined to their documents and to their latest shipment
 * confirmation, found by one correlated subquery each.
 */
export async function pageOrderHeaders(db: Db, filter: OrderHeaderFilter, slice: PageSlice): Promise<OrderHeaderRow[]> {
  const page = orders(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('orders.updated_at', 'orders.svcpoid', slice.after!)))
    .select(['orders.svcpoid', 'orders.updated_at'])
    .orderBy(timeOrder('orders.updated_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('orders.svcpoid')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .as('page');
  return db
    .selectFrom(page)
    .innerJoin('orders', (join) => join.on('orders.company_id', '=', filter.companyId).onRef('orders.svcpoid', '=', 'page.svcpoid'))
    .leftJoin('order_confirmations as latest', (join) =>
      join
        .onRef('latest.company_id', '=', 'orders.company_id')
        .on((eb) =>
          eb(
            'latest.id',
            '=',
            eb
              .selectFrom('order_confirmations as c')
              .select('c.id')
              .whereRef('c.company_id', '=', 'orders.company_id')
              .whereRef('c.svcpoid', '=', 'orders.svcpoid')
              .orderBy('c.created_at', 'desc')
              .orderBy('c.id', 'desc')
              .limit(1),
          ),
        ),
    )
    .select([
      'orders.svcpoid',
      'orders.customer_id',
      'orders.facility_id',
      'orders.reference_no',
      'orders.reference_no_type',
      'orders.po_no',
      'orders.status',
      'orders.document',
      'orders.created_at',
      'orders.updated_at',
      'orders.created_by_key_id',
      'latest.shipped_at',
      'latest.carrier_name as shipped_carrier_name',
      'latest.scac_code as shipped_scac_code',
      'latest.pro_no as shipped_pro_no',
    ])
    .orderBy('page.updated_at')
    .orderBy('page.svcpoid')
    .execute();
}
