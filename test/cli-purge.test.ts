import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';

/**
 * `wharf purge` (docs/operations.md, "Retention"), end to end on a SQLite file: what is past its
 * retention at the real time goes, a line per kind says how much, and it ends with exit 0; run
 * again it finds nothing. The command runs with the real clock, so the rows are written as they
 * would be at the times they stand for.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('wharf purge', () => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget('sqlite');
    expect((await wharf('migrate')).code).toBe(0);
    expect((await wharf('company', 'add', 'CO1')).code).toBe(0);
    expect((await wharf('customer', 'add', 'CO1', 'CU1')).code).toBe(0);
    expect((await wharf('x12', 'partner', 'add', '--company', 'CO1', '--customer', 'CU1', '--id', 'CU1EDI')).code).toBe(0);

    const { db } = target;
    const now = Date.now();
    const record = (key: string, at: number) => ({
      company_id: 'CO1',
      key_id: 1,
      idempotency_key: key,
      request_hash: 'h'.repeat(64),
      refusal_kind: null,
      response_body: '{}',
      created_at: at,
    });
    await db
      .insertInto('idempotency_records')
      .values([record('old', now - 49 * HOUR), record('recent', now - HOUR)])
      .execute();
    const event = (id: string, at: number) => ({
      company_id: 'CO1',
      event_id: id,
      type: 'item.created',
      customer_id: 'CU1',
      facility_id: null,
      data: '{}',
      key_id: null,
      created_at: at,
    });
    await db
      .insertInto('events')
      .values([event('evt_1', now - 100 * DAY), event('evt_2', now - 99 * DAY), event('evt_3', now - DAY)])
      .execute();
    const partner = { company_id: 'CO1', qualifier: 'ZZ', partner_id: 'CU1EDI' };
    await db
      .insertInto('x12_interchanges')
      .values([
        { ...partner, control_no: '000000001', request_hash: 'h'.repeat(64), answer: 'ISA…', created_at: now - 91 * DAY },
        { ...partner, control_no: '000000002', request_hash: 'h'.repeat(64), answer: 'ISA…', created_at: now - 89 * DAY },
      ])
      .execute();
    const advice = (documentNo: string, createdAt: number, takenAt: number | null) => ({
      ...partner,
      customer_id: 'CU1',
      facility_id: 'F1',
      set_id: '846',
      document_no: documentNo,
      control_no: '000000009',
      interchange: 'ISA…',
      problem: null,
      created_at: createdAt,
      taken_at: takenAt,
    });
    await db
      .insertInto('x12_outbox')
      .values([advice('taken', now - 200 * DAY, now - 91 * DAY), advice('waiting', now - 200 * DAY, null)])
      .execute();
  });
  afterAll(async () => {
    await target?.destroy();
  });

  it('prints what went of each kind, a line each, and exits 0; run again, it finds nothing', async () => {
    expect(await wharf('purge')).toEqual({
      code: 0,
      out: [
        'idempotency records: 1 purged (older than 48 hours)',
        'webhook deliveries: 0 purged (ended more than 30 days ago)',
        'events: 2 purged (older than 90 days)',
        'x12 interchanges: 1 purged (older than 90 days)',
        'x12 advices: 1 purged (taken more than 90 days ago)',
      ],
      err: [],
    });
    const left = async (table: 'idempotency_records' | 'events' | 'x12_interchanges' | 'x12_outbox', column: string) =>
      (await sql<{ kept: string }>`select ${sql.ref(column)} as kept from ${sql.table(table)} order by 1`.execute(target.db)).rows.map(
        (row) => row.kept,
      );
    expect(await left('idempotency_records', 'idempotency_key')).toEqual(['recent']);
    expect(await left('events', 'event_id')).toEqual(['evt_3']);
    expect(await left('x12_interchanges', 'control_no')).toEqual(['000000002']);
    expect(await left('x12_outbox', 'document_no')).toEqual(['waiting']);

    expect((await wharf('purge')).out).toEqual([
      'idempotency records: 0 purged (older than 48 hours)',
      'webhook deliveries: 0 purged (ended more than 30 days ago)',
      'events: 0 purged (older than 90 days)',
      'x12 interchanges: 0 purged (older than 90 days)',
      'x12 advices: 0 purged (taken more than 90 days ago)',
    ]);
  });
});
