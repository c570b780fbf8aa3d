import type { Insertable, Selectable } from 'kysely';
import { boundOnce } from '../../db/compiled-queries.js';
import { writeLater } from '../../db/trailing-writes.js';
import type { Db } from '../../db/database.js';
import { afterPosition, timeOrder, type PageSlice } from '../../db/keyset.js';
import type { AckTable } from './acks.tables.js';

/** All SQL of acknowledgements. */

export type AckRow = Selectable<AckTable>;

export interface AckFilter {
  companyId: string;
  customerId: string;
  facilityId: string;
  documentType: string;
  poNo?: string;
  referenceNo?: string;
  createdFrom?: number;
  createdTo?: number;
  /** With a time bound at one instant: only the rows at it up to this tie-breaking value (a cursor's place). */
  idThrough?: number;
}

const insertAckQuery = boundOnce((db: Db, row: Insertable<AckTable>) => db.insertInto('acks').values(row));

/** In a transaction, a trailing write (db/trailing-writes.ts): an ACK is read by later requests only. */
export async function insertAck(db: Db, row: Insertable<AckTable>): Promise<void> {
  await writeLater(db, insertAckQuery(db, row));
}

function filtered(db: Db, filter: AckFilter) {
  return db
    .selectFrom('acks')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .where('facility_id', '=', filter.facilityId)
    .where('document_type', '=', filter.documentType)
    .$if(filter.poNo !== undefined, (q) => q.where('po_no', '=', filter.poNo!))
    .$if(filter.referenceNo !== undefined, (q) => q.where('reference_no', '=', filter.referenceNo!))
    .$if(filter.createdFrom !== undefined, (q) => q.where('created_at', '>=', filter.createdFrom!))
    .$if(filter.createdTo !== undefined, (q) => q.where('created_at', '<=', filter.createdTo!))
    .$if(filter.idThrough !== undefined, (q) => q.where('id', '<=', filter.idThrough!));
}

export async function countAcks(db: Db, filter: AckFilter): Promise<number> {
  const { count } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest first; ties on the creation time break on the id, so pages are stable. */
export async function pageAcks(db: Db, filter: AckFilter, slice: PageSlice): Promise<AckRow[]> {
  return filtered(db, filter)
    .$if(slice.after !== undefined, (q) => q.where(afterPosition('created_at', 'id', slice.after!)))
    .selectAll()
    .orderBy(timeOrder('created_at', filter.poNo !== undefined || filter.referenceNo !== undefined))
    .orderBy('id')
    .limit(slice.limit)
    .offset(slice.after === undefined ? slice.offset : 0)
    .execute();
}
