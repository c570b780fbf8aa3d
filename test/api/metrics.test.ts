import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { VERSION } from '../../src/lib/version.js';
import { loadRateCard } from '../../src/modules/rating/rating.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, receiptBody, uniqueId, type Tenant } from '../helpers/factories.js';
import { readMetrics, valueOf, type Sample } from '../helpers/metrics.js';
import { RECEIPT_CANCEL, RECEIPT_IMPORT } from '../helpers/paths.js';

/**
 * The business and operations metrics of docs/operations.md on /metrics: documents by type, action and
 * outcome; failure ACKs; rate quotes by outcome; the database pool, the retries and the build.
 */

const RATE = '/api/RateEngine/SVC/lastmile';
const PARCEL = { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' };

describeEachDialect('metrics', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customer: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    customer = await createKey(database.db, clock, tenant, 'customer');
  });

  /** How much each series of `names` grew while `work` ran. */
  const growth = async (work: () => Promise<void>) => {
    const before = await readMetrics(ctx().app);
    await work();
    const after = await readMetrics(ctx().app);
    return (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
  };

  it('names the build and its version', async () => {
    const samples = await readMetrics(ctx().app);
    expect(samples.filter((s) => s.name === 'wharf_build_info')).toEqual([
      { name: 'wharf_build_info', labels: { version: VERSION }, value: 1 },
    ]);
  });

  it('counts state-changing requests by document type, action and outcome, and the failure ACKs they wrote', async () => {
    const poNo = uniqueId('PO');
    const body = receiptBody({ tenant, content: { PONo: poNo } });
    const grew = await growth(async () => {
      const headers = { 'idempotency-key': uniqueId('IK') };
      expect((await ctx().post(RECEIPT_IMPORT, body, customer, headers)).statusCode).toBe(200);
      expect((await ctx().post(RECEIPT_IMPORT, body, customer, headers)).statusCode).toBe(200); // a replay
      // Refused by a rule (409 for a cancel of an unknown PONo is 404): each writes its failure ACK.
      expect(
        (await ctx().post(RECEIPT_IMPORT, receiptBody({ tenant, content: { PONo: uniqueId('PO'), ActionCode: 'Cancelled' } }), customer))
          .statusCode,
      ).toBe(404);
      // Refused by its schema, identifiers valid: a failure ACK too.
      expect(
        (await ctx().post(RECEIPT_IMPORT, receiptBody({ tenant, content: { PONo: uniqueId('PO'), ETD: 'soon' } }), customer)).statusCode,
      ).toBe(400);
      // Refused before any ACK is due (no key): counted as refused, no ACK.
      expect((await ctx().post(RECEIPT_IMPORT, body)).statusCode).toBe(401);
      expect(
        (
          await ctx().put(
            RECEIPT_CANCEL,
            { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0], FacilityID: tenant.facilityIds[0], PONo: poNo },
            customer,
          )
        ).statusCode,
      ).toBe(200);
    });
    expect(grew('wharf_documents_total', { type: 'RN', action: 'import', outcome: 'accepted' })).toBe(1);
    expect(grew('wharf_documents_total', { type: 'RN', action: 'import', outcome: 'replayed' })).toBe(1);
    expect(grew('wharf_documents_total', { type: 'RN', action: 'import', outcome: 'refused' })).toBe(3);
    expect(grew('wharf_documents_total', { type: 'RN', action: 'cancel', outcome: 'accepted' })).toBe(1);
    expect(grew('wharf_ack_failures_total', { document: 'RN' })).toBe(2);
  });

  it('counts rate quotes by the outcome their envelope names', async () => {
    const { database, clock } = ctx();
    await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
    const rater = await createKey(database.db, clock, tenant, 'rater', { userIds: [7] });
    const quote = (data: Record<string, unknown>, key = rater) =>
      ctx().app.inject({
        method: 'POST',
        url: RATE,
        headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
        payload: { UserID: 7, Data: { ...PARCEL, ...data } },
      });
    const grew = await growth(async () => {
      expect((await quote({})).json().ErrorSeverity).toBe(0);
      expect((await quote({})).json().ErrorSeverity).toBe(0);
      expect((await quote({ Weight: 'heavy' })).statusCode).toBe(400);
      expect((await quote({ Weight: '5000' })).json().ErrorSeverity).toBe(3);
      expect((await quote({}, 'wk_unknown')).statusCode).toBe(401);
    });
    expect(grew('wharf_rate_quotes_total', { outcome: 'quoted' })).toBe(2);
    expect(grew('wharf_rate_quotes_total', { outcome: 'badInput' })).toBe(1);
    expect(grew('wharf_rate_quotes_total', { outcome: 'notServiceable' })).toBe(1);
    expect(grew('wharf_rate_quotes_total', { outcome: 'notAuthorized' })).toBe(1);
  });

  it('shows the retries counter, and the pool on PostgreSQL only', async () => {
    const samples = await readMetrics(ctx().app);
    expect(samples.filter((s) => s.name === 'wharf_db_transaction_retries_total')).toEqual([
      { name: 'wharf_db_transaction_retries_total', labels: {}, value: expect.any(Number) },
    ]);
    const pool = samples.filter((s) => s.name === 'wharf_db_pool_connections');
    if (dialect === 'sqlite') expect(pool).toEqual([]);
    else {
      const byState = Object.fromEntries(pool.map((s: Sample) => [s.labels.state, s.value]));
      expect(Object.keys(byState).sort()).toEqual(['idle', 'total', 'waiting']);
      expect(byState.total).toBeGreaterThanOrEqual(1);
      expect(byState.idle).toBeLessThanOrEqual(byState.total!);
    }
  });
});
