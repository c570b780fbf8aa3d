import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import * as deliveriesRepo from '../src/modules/webhooks/deliveries.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * The fair claim of due deliveries costs a seek per endpoint, whatever the queue holds: one
 * company's 100 endpoints with 200 deliveries due each (and an endpoint's long history of ended
 * ones) must not make a claim read them all. Its statements seek the endpoint-due index and the
 * lease index; none scans the deliveries.
 */

const NOW = 1_000_000;
const ENDPOINTS = 100;
const DUE_EACH = 200;

describeEachDialect('the claim of due webhook deliveries', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    const endpoint = (companyId: string, n: number) => ({
      company_id: companyId,
      endpoint_id: `ep_${companyId}_${n}`,
      customer_id: null,
      url: `https://example.com/${n}`,
      event_types: null,
      description: null,
      enabled: 1,
      disabled_reason: null,
      secret: 'whsec_x',
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: 0,
      updated_at: 0,
      key_id: null,
    });
    const a = await db
      .insertInto('webhook_endpoints')
      .values(Array.from({ length: ENDPOINTS }, (_, n) => endpoint('COA', n)))
      .returning('id')
      .execute();
    const [b] = await db.insertInto('webhook_endpoints').values(endpoint('COB', 0)).returning('id').execute();
    let n = 0;
    const delivery = (companyId: string, endpointId: number, next: number | null, leased: number | null = null) => ({
      company_id: companyId,
      delivery_id: `dlv_${++n}`,
      endpoint_id: endpointId,
      event_id: n,
      event_type: 'item.created',
      sequence: n,
      status: next === null ? 'Succeeded' : 'Pending',
      attempt_count: 0,
      retry_step: 0,
      next_attempt_at: next,
      leased_until: leased,
      created_at: 0,
      updated_at: 0,
    });
    const rows = [
      ...a.flatMap(({ id }) => Array.from({ length: DUE_EACH }, (_, i) => delivery('COA', Number(id), NOW - 10_000 + i))),
      // Ended deliveries: history that a claim never reads.
      ...Array.from({ length: 5000 }, () => delivery('COA', Number(a[0]!.id), null)),
      // Attempts in flight to A's first endpoint.
      ...Array.from({ length: 3 }, () => delivery('COA', Number(a[0]!.id), NOW + 60_000, NOW + 60_000)),
      delivery('COB', Number(b!.id), NOW - 1),
    ];
    for (let start = 0; start < rows.length; start += 1000)
      await db
        .insertInto('webhook_deliveries')
        .values(rows.slice(start, start + 1000))
        .execute();
    await sql`analyze`.execute(db);
  }, 120_000);

  afterAll(() => database.destroy());

  const planOf = async (run: (db: Db) => Promise<unknown>) => {
    const [sent] = await sentBy(dialect, (db) => run(db).catch(() => undefined));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
    return rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
  };

  it('finds each endpoint’s earliest due delivery and the attempts in flight', async () => {
    const due = await deliveriesRepo.findDueEndpoints(database.db, NOW);
    expect(due).toHaveLength(ENDPOINTS + 1);
    expect(due.filter((endpoint) => endpoint.company_id === 'COA').every((endpoint) => endpoint.due === NOW - 10_000)).toBe(true);
    expect(due.find((endpoint) => endpoint.company_id === 'COB')!.due).toBe(NOW - 1);
    const leased = await deliveriesRepo.countLeasedByEndpoint(database.db, NOW);
    expect(leased).toEqual([{ company_id: 'COA', endpoint_id: due[0]!.id, leased: 3 }]);
  });

  it('seeks the endpoint-due and lease indexes, and never scans the deliveries', async () => {
    const due = await planOf((db) => deliveriesRepo.findDueEndpoints(db, NOW));
    const leased = await planOf((db) => deliveriesRepo.countLeasedByEndpoint(db, NOW));
    const take = await planOf((db) =>
      db.transaction().execute((trx) =>
        deliveriesRepo.takeDue(trx, {
          now: NOW,
          until: NOW + 60_000,
          takes: [
            { companyId: 'COA', endpointId: 1, count: 4 },
            { companyId: 'COB', endpointId: ENDPOINTS + 1, count: 4 },
          ],
        }),
      ),
    );
    if (dialect === 'sqlite') {
      expect(due).toContain(
        'USING INDEX webhook_deliveries_endpoint_due_idx (company_id=? AND endpoint_id=? AND next_attempt_at>? AND next_attempt_at<?)',
      );
      expect(leased).toContain('USING INDEX webhook_deliveries_leased_idx');
      expect(take).toContain(
        'USING INDEX webhook_deliveries_endpoint_due_idx (company_id=? AND endpoint_id=? AND next_attempt_at>? AND next_attempt_at<?)',
      );
      for (const plan of [due, leased, take]) expect(plan).not.toMatch(/SCAN (webhook_deliveries|d)\b/);
    } else {
      expect(due).toContain('webhook_deliveries_endpoint_due_idx');
      expect(leased).toContain('webhook_deliveries_leased_idx');
      expect(take).toContain('webhook_deliveries_endpoint_due_idx');
      for (const plan of [due, leased, take]) expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
    }
  });
});
