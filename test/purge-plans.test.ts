import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Trx } from '../src/db/database.js';
import * as idempotency from '../src/modules/commands/idempotency.repository.js';
import * as events from '../src/modules/events/events.repository.js';
import * as deliveries from '../src/modules/webhooks/deliveries.repository.js';
import * as outbox from '../src/modules/x12/outbox.repository.js';
import * as partners from '../src/modules/x12/partners.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * Each purge's batch (docs/operations.md, "Retention") finds its rows through an index that holds
 * them in the order it takes them, on either database: it reads about what it deletes, however
 * large the table, and never sorts the table. The events are found in Sequence order, with no
 * condition on their time that PostgreSQL's planner could misjudge (it cannot know that the lowest
 * Sequences are the oldest events); their delete is a range of the Sequence's index.
 */

const ROWS = 5000;
const CUTOFF = 2500;

describeEachDialect('the plans of the purges', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    await db.insertInto('companies').values({ company_id: 'CO', name: 'Co', created_at: 0 }).execute();
    await db.insertInto('customers').values({ company_id: 'CO', customer_id: 'CU', name: 'Cu', created_at: 0 }).execute();
    await db
      .insertInto('x12_partners')
      .values({ company_id: 'CO', qualifier: 'ZZ', partner_id: 'P', gs_id: 'P', customer_id: 'CU', created_at: 0 })
      .execute();
    for (let start = 0; start < ROWS; start += 500) {
      const at = Array.from({ length: 500 }, (_, i) => start + i);
      await db
        .insertInto('idempotency_records')
        .values(
          at.map((i) => ({
            company_id: 'CO',
            key_id: 1,
            idempotency_key: `k${i}`,
            request_hash: 'h',
            refusal_kind: null,
            response_body: '{}',
            created_at: i,
          })),
        )
        .execute();
      await db
        .insertInto('events')
        .values(
          at.map((i) => ({
            company_id: 'CO',
            event_id: `evt_${i}`,
            type: 'item.created',
            customer_id: 'CU',
            facility_id: null,
            data: '{}',
            key_id: null,
            created_at: i,
          })),
        )
        .execute();
      await db
        .insertInto('webhook_deliveries')
        .values(
          at.map((i) => ({
            company_id: 'CO',
            delivery_id: `dlv_${i}`,
            endpoint_id: 1,
            event_id: i,
            event_type: 'item.created',
            sequence: i,
            status: i % 10 === 0 ? 'Pending' : 'Succeeded',
            attempt_count: 1,
            retry_step: 0,
            next_attempt_at: i % 10 === 0 ? i : null,
            leased_until: null,
            created_at: i,
            updated_at: i,
          })),
        )
        .execute();
      await db
        .insertInto('x12_interchanges')
        .values(
          at.map((i) => ({
            company_id: 'CO',
            qualifier: 'ZZ',
            partner_id: 'P',
            control_no: String(i).padStart(9, '0'),
            request_hash: 'h',
            answer: 'ISA',
            created_at: i,
          })),
        )
        .execute();
      await db
        .insertInto('x12_outbox')
        .values(
          at.map((i) => ({
            company_id: 'CO',
            customer_id: 'CU',
            facility_id: 'F',
            qualifier: 'ZZ',
            partner_id: 'P',
            set_id: '846',
            document_no: `D${i}`,
            control_no: null,
            interchange: 'ISA',
            problem: null,
            created_at: i,
            taken_at: i % 10 === 0 ? null : i,
          })),
        )
        .execute();
    }
    // As the sequencer leaves them on PostgreSQL (on SQLite the Sequence is the row id).
    if (dialect === 'postgres') await sql`update events set sequence = id`.execute(db);
    await sql`analyze`.execute(db);
  });
  afterAll(() => database?.destroy());

  /** The plans of every statement `run` sends, one after the other. */
  const plansOf = async (run: (trx: Trx) => Promise<unknown>) => {
    const sent = await sentBy(dialect, (db) => run(db as Trx));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const plans: string[] = [];
    for (const statement of sent) {
      const { rows } = await database.db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(explain + statement.sql, [...statement.parameters]),
      );
      plans.push(rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n'));
    }
    return plans;
  };

  /** The batch's rows are read from `index` in order (a seek, no sort), and no table is read whole to find them. */
  const expectFoundThrough = (plan: string, index: string) => {
    expect(plan).toMatch(
      dialect === 'sqlite'
        ? new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} `)
        : new RegExp(`(Index (Only )?Scan using|Bitmap Index Scan on) ${index} `),
    );
    if (dialect === 'sqlite') expect(plan).not.toMatch(/\bSCAN\b|USE TEMP B-TREE/);
    else expect(plan).not.toMatch(/Sort\b/);
  };

  it('finds old idempotency records by their time', async () => {
    const [plan] = await plansOf((trx) => idempotency.deleteRecordsBefore(trx, CUTOFF, 1000));
    expectFoundThrough(plan!, 'idempotency_records_created_idx');
  });

  it('finds ended webhook deliveries by when they ended', async () => {
    const [plan] = await plansOf((trx) => deliveries.deleteEndedDeliveries(trx, CUTOFF, 1000));
    expectFoundThrough(plan!, 'webhook_deliveries_ended_idx');
  });

  it('finds X12 interchanges by when they came, taken advices by when they were taken', async () => {
    const [interchanges] = await plansOf((trx) => partners.deleteInterchangesBefore(trx, CUTOFF, 1000));
    expectFoundThrough(interchanges!, 'x12_interchanges_created_idx');
    const [advices] = await plansOf((trx) => outbox.deleteTakenAdvicesBefore(trx, CUTOFF, 1000));
    expectFoundThrough(advices!, 'x12_outbox_taken_idx');
  });

  it('finds events in Sequence order and deletes a range of Sequences', async () => {
    const [found] = await plansOf((trx) => events.findFirstNumbered(trx, ROWS, 1000));
    const [deleted] = await plansOf((trx) => events.deleteNumbered(trx, { first: 1, last: 1000 }));
    if (dialect === 'sqlite') {
      expect([found, deleted]).toEqual([
        'SEARCH events USING INTEGER PRIMARY KEY (rowid<?)',
        'SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)',
      ]);
    } else {
      expectFoundThrough(found!, 'events_sequence_idx');
      expectFoundThrough(deleted!, 'events_sequence_idx');
    }
  });

  it('finds the earliest delivery still to attempt among those still to attempt only', async () => {
    // The recording database answers no row, where the statement always has one.
    const [plan] = await plansOf((trx) => deliveries.findFirstPendingSequence(trx).catch(() => undefined));
    expect(plan).toMatch(
      dialect === 'sqlite' ? /USING INDEX webhook_deliveries_(endpoint_)?due_idx/ : /webhook_deliveries_(endpoint_)?due_idx/,
    );
    expect(plan).not.toMatch(dialect === 'sqlite' ? /SCAN d\b/ : /Seq Scan on webhook_deliveries/);
  });
});
