import type { Insertable, Selectable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import { writeLater } from '../../db/trailing-writes.js';
import type { Db, Trx } from '../../db/database.js';
import type { IdempotencyRecordTable } from './idempotency.tables.js';

/** All SQL of idempotency records. */

export type IdempotencyRecord = Selectable<IdempotencyRecordTable>;

export interface RecordKey {
  companyId: string;
  keyId: number;
  idempotencyKey: string;
}

const findRecordQuery = compiledOnce((db: Db, key: RecordKey) =>
  db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('company_id', '=', key.companyId)
    .where('key_id', '=', key.keyId)
    .where('idempotency_key', '=', key.idempotencyKey),
);

export async function findRecord(db: Db, key: RecordKey): Promise<IdempotencyRecord | undefined> {
  const { companyId, keyId, idempotencyKey } = key;
  return (await findRecordQuery(db, { companyId, keyId, idempotencyKey })).rows[0];
}

const insertRecordQuery = boundOnce((db: Db, row: Insertable<IdempotencyRecordTable>) => db.insertInto('idempotency_records').values(row));

/**
 * In a transaction, a trailing write (db/trailing-writes.ts): the last of a command. A concurrent
 * request with the same key fails the transaction on the unique key when it is sent, at the latest
 * just before the commit, as it would have at once.
 */
export async function insertRecord(db: Db, row: Insertable<IdempotencyRecordTable>): Promise<void> {
  await writeLater(db, insertRecordQuery(db, row));
}

/**
 * Deletes up to `limit` records made before `before`, the oldest first, found through
 * idempotency_records_created_idx; answers how many.
 */
export async function deleteRecordsBefore(trx: Trx, before: number, limit: number): Promise<number> {
  const oldest = trx
    .selectFrom('idempotency_records')
    .select(['company_id', 'key_id', 'idempotency_key'])
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit);
  const result = await trx
    .deleteFrom('idempotency_records')
    .where((eb) =>
      eb(eb.refTuple('company_id', 'key_id', 'idempotency_key'), 'in', oldest.$asTuple('company_id', 'key_id', 'idempotency_key')),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
