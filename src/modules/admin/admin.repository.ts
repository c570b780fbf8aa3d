import type { Insertable, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { AdminChangeTable } from './admin.tables.js';

/** All SQL of the admin API's own table: the record of its changes. */

export type AdminChangeRow = Selectable<AdminChangeTable>;

export async function insertChange(trx: Trx, row: Insertable<AdminChangeTable>): Promise<void> {
  await trx.insertInto('admin_changes').values(row).execute();
}

/** A company's changes, newest first, before the change `before` when given. */
export async function listChanges(db: Db, companyId: string, limit: number, before?: number): Promise<AdminChangeRow[]> {
  return db
    .selectFrom('admin_changes')
    .selectAll()
    .where('company_id', '=', companyId)
    .$if(before !== undefined, (q) => q.where('id', '<', before!))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
