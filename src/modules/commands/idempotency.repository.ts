import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { IdempotencyRecordTable } from './idempotency.tables.js';

/** All SQL of idempotency records. */

export type IdempotencyRecord = Selectable<IdempotencyRecordTable>;

export interface RecordKey {
  companyId: string;
  keyId: number;
  idempotencyKey: string;
}

export async function findRecord(db: Db, key: RecordKey): Promise<IdempotencyRecord | undefined> {
  return db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('key_id', '=', key.keyId)
    .where('idempotency_key', '=', key.idempotencyKey)
    .executeTakeFirst();
}

export async function insertRecord(db: Db, row: Insertable<IdempotencyRecordTable>): Promise<void> {
  await db.insertInto('idempotency_records').values(row).execute();
}

export async function deleteRecordsBefore(db: Db, before: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
