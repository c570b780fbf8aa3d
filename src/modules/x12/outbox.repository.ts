import type { Insertable, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { X12OutboxTable } from './x12.tables.js';

/** The SQL of the X12 outbox: advices waiting for partners, read through x12_outbox_customer_idx. */

export type OutboxRow = Selectable<X12OutboxTable>;

export async function insertAdvice(db: Db, row: Insertable<X12OutboxTable>): Promise<number> {
  const { id } = await db.insertInto('x12_outbox').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

export interface OutboxFilter {
  companyId: string;
  customerId: string;
  /** Only advices of these facilities (a key limited to facilities); every facility when absent. */
  facilityIds?: readonly string[];
  /** Waiting (not taken), taken, or both (undefined). */
  taken?: boolean;
}

function advices(db: Db, filter: OutboxFilter) {
  return db
    .selectFrom('x12_outbox')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .$if(filter.facilityIds !== undefined, (q) => q.where('facility_id', 'in', filter.facilityIds!))
    .$if(filter.taken === true, (q) => q.where('taken_at', 'is not', null))
    .$if(filter.taken === false, (q) => q.where('taken_at', 'is', null));
}

export async function countAdvices(db: Db, filter: OutboxFilter): Promise<number> {
  const { count } = await advices(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest first: the order the changes they tell were made in. */
export async function pageAdvices(db: Db, filter: OutboxFilter, offset: number, limit: number): Promise<OutboxRow[]> {
  return advices(db, filter).selectAll().orderBy('id').limit(limit).offset(offset).execute();
}

/** Every company's (or one company's) advices waiting to be taken, oldest first. */
export async function findWaitingAdvices(db: Db, companyId?: string): Promise<OutboxRow[]> {
  return db
    .selectFrom('x12_outbox')
    .selectAll()
    .where('taken_at', 'is', null)
    .where('interchange', 'is not', null)
    .$if(companyId !== undefined, (q) => q.where('company_id', '=', companyId!))
    .orderBy('company_id')
    .orderBy('id')
    .execute();
}

/** The customer's advices of these ids (any other id is not the customer's, not in the facilities, or does not exist). */
export async function findAdvices(db: Db, filter: OutboxFilter, ids: readonly number[]): Promise<OutboxRow[]> {
  return advices(db, filter).selectAll().where('id', 'in', ids).orderBy('id').execute();
}

/** Marks waiting advices taken at `at`; answers the ids it marked (an advice taken before keeps its time). */
export async function markTaken(db: Db, companyId: string, ids: readonly number[], at: number): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('x12_outbox')
    .set({ taken_at: at })
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .where('taken_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/**
 * Deletes up to `limit` advices taken before `before`, the longest taken first
 * (x12_outbox_taken_idx, which holds the taken ones only); answers how many. An advice not taken
 * is never deleted.
 */
export async function deleteTakenAdvicesBefore(trx: Trx, before: number, limit: number): Promise<number> {
  const oldest = trx
    .selectFrom('x12_outbox')
    .select(['company_id', 'id'])
    .where('taken_at', 'is not', null)
    .where('taken_at', '<', before)
    .orderBy('taken_at')
    .limit(limit);
  const result = await trx
    .deleteFrom('x12_outbox')
    .where((eb) => eb(eb.refTuple('company_id', 'id'), 'in', oldest.$asTuple('company_id', 'id')))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
