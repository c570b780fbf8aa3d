import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { controlNumberAfter, LAST_CONTROL_NUMBER } from './x12-syntax.js';
import type { X12IdentityTable, X12InterchangeTable, X12PartnerTable } from './x12.tables.js';

export type PartnerRow = Selectable<X12PartnerTable>;
export type InterchangeRow = Selectable<X12InterchangeTable>;

/** A partner by the key of x12_partners. */
export interface PartnerKey {
  companyId: string;
  qualifier: string;
  partnerId: string;
}

/** The columns that name a partner, in x12_partners and in the tables keyed by it. */
const partnerColumns = (key: PartnerKey) => ({ company_id: key.companyId, qualifier: key.qualifier, partner_id: key.partnerId });

export async function insertPartner(db: Db, row: Insertable<X12PartnerTable>): Promise<void> {
  await db.insertInto('x12_partners').values(row).execute();
}

/** The partners of every company, or of one, by company, qualifier and id. */
export async function listPartners(db: Db, companyId?: string): Promise<PartnerRow[]> {
  return db
    .selectFrom('x12_partners')
    .selectAll()
    .$if(companyId !== undefined, (q) => q.where('company_id', '=', companyId!))
    .orderBy('company_id')
    .orderBy('qualifier')
    .orderBy('partner_id')
    .execute();
}

export async function findPartner(db: Db, key: PartnerKey): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('x12_partners')
    .selectAll()
    .where((eb) => eb.and(partnerColumns(key)))
    .executeTakeFirst();
}

/** The partners of a company's customers, by qualifier and id. */
export async function findPartnersOfCustomers(db: Db, companyId: string, customerIds: readonly string[]): Promise<PartnerRow[]> {
  if (customerIds.length === 0) return [];
  return db
    .selectFrom('x12_partners')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('customer_id', 'in', customerIds)
    .orderBy('qualifier')
    .orderBy('partner_id')
    .execute();
}

/** A counter advanced by `taken` numbers, from 1 again after LAST_CONTROL_NUMBER: the last number taken. */
const advanced = (column: 'last_interchange_no' | 'last_group_no' | 'last_set_no', taken: number) =>
  sql<number>`(${sql.ref(column)} + ${taken - 1}) % ${LAST_CONTROL_NUMBER} + 1`;

/**
 * Takes the next control numbers of what Wharf sends a partner: one ISA13, `groups` GS06 and
 * `sets` ST02, in one statement whose row lock orders concurrent takers. Each counter wraps from
 * LAST_CONTROL_NUMBER to 1 (an ISA13 has nine digits), in the statement itself, so a counter
 * never holds a number X12 cannot carry. Answers the first of each.
 */
export async function takeControlNumbers(
  trx: Trx,
  key: PartnerKey,
  counts: { groups: number; sets: number },
): Promise<{ interchange: number; group: number; set: number }> {
  const row = await trx
    .updateTable('x12_partners')
    .set({
      last_interchange_no: advanced('last_interchange_no', 1),
      last_group_no: advanced('last_group_no', counts.groups),
      last_set_no: advanced('last_set_no', counts.sets),
    })
    .where((eb) => eb.and(partnerColumns(key)))
    .returning(['last_interchange_no', 'last_group_no', 'last_set_no'])
    .executeTakeFirstOrThrow();
  return {
    interchange: Number(row.last_interchange_no),
    group: controlNumberAfter(Number(row.last_group_no), 1 - counts.groups),
    set: controlNumberAfter(Number(row.last_set_no), 1 - counts.sets),
  };
}

export async function findInterchange(db: Db, key: PartnerKey, controlNo: string): Promise<InterchangeRow | undefined> {
  return db
    .selectFrom('x12_interchanges')
    .selectAll()
    .where((eb) => eb.and(partnerColumns(key)))
    .where('control_no', '=', controlNo)
    .executeTakeFirst();
}

/** Records an answered interchange; false when another request recorded the same ISA13 first. */
export async function insertInterchange(db: Db, row: Insertable<X12InterchangeTable>): Promise<boolean> {
  const result = await db
    .insertInto('x12_interchanges')
    .values(row)
    .onConflict((oc) => oc.columns(['company_id', 'qualifier', 'partner_id', 'control_no']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/**
 * Deletes up to `limit` records of interchanges received before `before`, the oldest first
 * (x12_interchanges_created_idx); answers how many. The partners' control numbers are theirs.
 */
export async function deleteInterchangesBefore(trx: Trx, before: number, limit: number): Promise<number> {
  const oldest = trx
    .selectFrom('x12_interchanges')
    .select(['company_id', 'qualifier', 'partner_id', 'control_no'])
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit);
  const result = await trx
    .deleteFrom('x12_interchanges')
    .where((eb) =>
      eb(
        eb.refTuple('company_id', 'qualifier', 'partner_id', 'control_no'),
        'in',
        oldest.$asTuple('company_id', 'qualifier', 'partner_id', 'control_no'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findIdentity(db: Db, companyId: string): Promise<Selectable<X12IdentityTable> | undefined> {
  return db.selectFrom('x12_identities').selectAll().where('company_id', '=', companyId).executeTakeFirst();
}

/** Sets the company's own ids, replacing any it had. */
export async function saveIdentity(db: Db, row: Insertable<X12IdentityTable>): Promise<void> {
  await db
    .insertInto('x12_identities')
    .values(row)
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet((eb) => ({
        qualifier: eb.ref('excluded.qualifier'),
        isa_id: eb.ref('excluded.isa_id'),
        gs_id: eb.ref('excluded.gs_id'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}
