import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RateCardTable } from './rating.tables.js';

export type RateCardRow = Selectable<RateCardTable>;
/** What choosing the card in force needs: everything but the card's content. */
export type RateCardVersion = Omit<RateCardRow, 'card'>;

const versionColumns = [
  'company_id',
  'id',
  'user_id',
  'version',
  'name',
  'effective_from',
  'effective_to',
  'time_zone',
  'card_hash',
  'loaded_by_key_id',
  'loaded_at',
] as const;

/** Every version of the company's default card and, when given, of one UserID's card; newest first. */
export async function findVersions(db: Db, companyId: string, userIds: number[]): Promise<RateCardVersion[]> {
  return db
    .selectFrom('rate_cards')
    .select(versionColumns)
    .where('company_id', '=', companyId)
    .where('user_id', 'in', userIds)
    .orderBy('user_id')
    .orderBy('version', 'desc')
    .execute();
}

/** Every version of every card of a company, by binding then newest first. */
export async function listVersions(db: Db, companyId: string): Promise<RateCardVersion[]> {
  return db
    .selectFrom('rate_cards')
    .select(versionColumns)
    .where('company_id', '=', companyId)
    .orderBy('user_id')
    .orderBy('version', 'desc')
    .execute();
}

export async function findCard(db: Db, companyId: string, id: number): Promise<RateCardRow | undefined> {
  return db.selectFrom('rate_cards').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

export async function latestVersion(db: Db, companyId: string, userId: number): Promise<RateCardVersion | undefined> {
  return db
    .selectFrom('rate_cards')
    .select(versionColumns)
    .where('company_id', '=', companyId)
    .where('user_id', '=', userId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertCard(db: Db, row: Insertable<RateCardTable>): Promise<void> {
  await db.insertInto('rate_cards').values(row).execute();
}
