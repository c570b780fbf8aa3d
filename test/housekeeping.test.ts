import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startHousekeeping } from '../src/housekeeping.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * The housekeeping of `wharf serve` and `wharf worker` (docs/operations.md, "Retention"): a pass as
 * the process starts, logged by what it purged; stopping ends the pass in flight after its batch
 * (of 1,000 rows) and starts no other.
 */

const HOUR = 3_600_000;
const RETENTION = { idempotencyRetentionHours: 48, webhookRetentionDays: 30, eventRetentionDays: 90, x12RetentionDays: 90 };

function capturingLog() {
  const lines: { level: string; fields: object; message: string }[] = [];
  return {
    lines,
    info: (fields: object, message: string) => void lines.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields, message }),
  };
}

describeEachDialect('housekeeping', (dialect) => {
  let database: TestDatabase;
  const clock = new TestClock();
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(() => database?.destroy());

  /** `count` idempotency records made `ageMs` ago. */
  const records = async (count: number, ageMs: number, prefix: string) => {
    for (let start = 0; start < count; start += 500) {
      const keys = Array.from({ length: Math.min(500, count - start) }, (_, i) => `${prefix}-${start + i}`);
      await database.db
        .insertInto('idempotency_records')
        .values(
          keys.map((key) => ({
            company_id: 'CO',
            key_id: 1,
            idempotency_key: key,
            request_hash: 'h'.repeat(64),
            refusal_kind: null,
            response_body: '{}',
            created_at: clock.now() - ageMs,
          })),
        )
        .execute();
    }
  };
  const left = async () =>
    Number((await sql<{ n: number }>`select count(*) as n from idempotency_records`.execute(database.db)).rows[0]!.n);
  const purgedLines = (log: ReturnType<typeof capturingLog>) =>
    log.lines.filter((line) => line.message === 'purged what is past its retention');

  it('purges as the process starts and logs what went', async () => {
    await records(3, 49 * HOUR, 'old');
    await records(2, HOUR, 'recent');
    const log = capturingLog();
    const housekeeping = await startHousekeeping(database.db, RETENTION, clock, log);
    await housekeeping.idle();
    expect(purgedLines(log)).toEqual([
      { level: 'info', fields: { purged: { 'idempotency records': 3 } }, message: 'purged what is past its retention' },
    ]);
    expect(await left()).toBe(2);
    await housekeeping.stop();
  });

  it('ends the pass in flight after its batch when stopped', async () => {
    await records(2500, 49 * HOUR, 'old');
    const log = capturingLog();
    const housekeeping = await startHousekeeping(database.db, RETENTION, clock, log);
    // The pass started with the process; its first batch is under way.
    await housekeeping.stop();
    expect(await left()).toBe(1500);
    expect(purgedLines(log)).toEqual([
      { level: 'info', fields: { purged: { 'idempotency records': 1000 } }, message: 'purged what is past its retention' },
    ]);
  });
});
