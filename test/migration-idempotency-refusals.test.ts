import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * Idempotency records kept an HTTP status until commands stopped knowing statuses; the migration
 * that gives them a refusal kind keeps every answer already stored, and its down step restores them.
 */

const MIGRATION = '2026-11-25T1000-idempotency-refusals';
const BEFORE = migrationBefore(MIGRATION);

const problem = (error: string) => ({ code: `EDI-ERROR-${error}`, error });

/** What records held before: a success and each kind of refusal, as statuses and wire bodies. */
const LEGACY = [
  { key: 'ok', status_code: 200, body: { Receipt: { SVCPOID: 'RN-1', Status: 'Success' } } },
  { key: 'conflict', status_code: 409, body: [problem('Receipt RN-1 is Closed; it can no longer be updated')] },
  { key: 'missing', status_code: 404, body: { error: 'Not found receipt with PONo P-1' } },
  { key: 'invalid', status_code: 400, body: [problem('ASNContent.PONo is required'), problem('CustomerID is required')] },
  { key: 'facility', status_code: 400, body: { error: 'Not found facility' } },
];

describeEachDialect('the idempotency-refusals migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);
  const rows = async () =>
    (await database.db.selectFrom('idempotency_records').selectAll().orderBy('idempotency_key').execute()) as unknown as Record<
      string,
      unknown
    >[];

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    await database.db
      .insertInto('idempotency_records' as never)
      .values(
        LEGACY.map(({ key, status_code, body }) => ({
          company_id: 'CO',
          key_id: 1,
          idempotency_key: key,
          request_hash: 'h'.repeat(64),
          status_code,
          response_body: JSON.stringify(body),
          created_at: 1,
        })) as never,
      )
      .execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('turns each stored status and body into a refusal kind and its messages, and a success into a body alone', async () => {
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    const answers = (await rows()).map((row) => [row.idempotency_key, row.refusal_kind, JSON.parse(row.response_body as string)]);
    expect(answers).toEqual([
      ['conflict', 'conflict', ['Receipt RN-1 is Closed; it can no longer be updated']],
      ['facility', 'unknown-facility', ['Not found facility']],
      ['invalid', 'invalid', ['ASNContent.PONo is required', 'CustomerID is required']],
      ['missing', 'not-found', ['Not found receipt with PONo P-1']],
      ['ok', null, { Receipt: { SVCPOID: 'RN-1', Status: 'Success' } }],
    ]);
    expect((await rows())[0]).not.toHaveProperty('status_code');
  });

  it('goes back down to the statuses and bodies it started from', async () => {
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    const answers = (await rows()).map((row) => [row.idempotency_key, row.status_code, JSON.parse(row.response_body as string)]);
    expect(answers).toEqual(
      [...LEGACY].sort((a, b) => (a.key < b.key ? -1 : 1)).map(({ key, status_code, body }) => [key, status_code, body]),
    );
  });
});
