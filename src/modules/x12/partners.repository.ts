import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { X12PartnerTable } from './x12.tables.js';

export type PartnerRow = Selectable<X12PartnerTable>;

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
