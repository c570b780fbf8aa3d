import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, EDI_PREFIX } from '../../src/app.js';
import { ADMIN_PREFIX } from '../../src/modules/admin/admin.routes.js';
import { loadConfig } from '../../src/config.js';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { loadRateCard } from '../../src/modules/rating/rating.service.js';
import type { App } from '../../src/http/module.js';
import { createTestDatabase, describeEachDialect, DIALECTS, type TestDatabase } from '../helpers/dialects.js';
import { useTestApp, TestClock } from '../helpers/app.js';
import { createKey, createTenant, problems, receiptBody, uniqueId, type Tenant } from '../helpers/factories.js';
import { INVENTORY_SEARCH, RECEIPT_ACK_SEARCH, RECEIPT_IMPORT } from '../helpers/paths.js';

/**
 * Rate limits per API key (docs/operations.md): a fixed window of one minute, counted per key; every answer
 * of a limited route says the limit, what is left and when the window ends; past the limit a
 * request is 429 in its route's error shape and changes nothing.
 */

const RATE = '/api/RateEngine/SVC/lastmile';
const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;
const PARCEL = { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' };
/** 14:07:09.123 on the test clock: the window ends at 14:08:00, 50.877 s later. */
const RESET = '51';
const tooMany = (limit: number, seconds = RESET) => `Too many requests: this API key may make ${limit} a minute; retry in ${seconds} s`;

const limitHeaders = (answer: { headers: Record<string, unknown> }) => ({
  limit: answer.headers['ratelimit-limit'],
  remaining: answer.headers['ratelimit-remaining'],
  reset: answer.headers['ratelimit-reset'],
  retryAfter: answer.headers['retry-after'],
});

describeEachDialect('rate limits', (dialect) => {
  const ctx = useTestApp(dialect, { rateLimitEdi: 3, rateLimitRate: 2 });
  let tenant: Tenant;
  const search = () => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], CustomerID: tenant.customerIds[0] });
  const startOfTest = () => {
    ctx().clock.time = Date.parse('2026-03-05T14:07:09.123Z');
  };

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
  });

  it("counts a key's requests in its minute: the headers on every answer, then 429 with Retry-After; the next minute starts afresh", async () => {
    startOfTest();
    const key = await createKey(ctx().database.db, ctx().clock, tenant, 'customer');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await ctx().post(INVENTORY_SEARCH, search(), key));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map(limitHeaders)).toEqual([
      { limit: '3', remaining: '2', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '1', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '0', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '0', reset: RESET, retryAfter: RESET },
    ]);
    expect(answers[3]!.json()).toEqual(problems(tooMany(3)));

    // Another key of the same company has a minute of its own.
    const other = await createKey(ctx().database.db, ctx().clock, tenant, 'operator');
    expect(limitHeaders(await ctx().post(INVENTORY_SEARCH, search(), other))).toMatchObject({ limit: '3', remaining: '2' });

    // 20 s later the window still holds, and says so.
    ctx().clock.advance(20_000);
    const later = await ctx().post(INVENTORY_SEARCH, search(), key);
    expect([later.statusCode, limitHeaders(later)]).toEqual([429, { limit: '3', remaining: '0', reset: '31', retryAfter: '31' }]);
    expect(later.json()).toEqual(problems(tooMany(3, '31')));

    // At 14:08:00 a new window starts.
    ctx().clock.time = Date.parse('2026-03-05T14:08:00.000Z');
    const next = await ctx().post(INVENTORY_SEARCH, search(), key);
    expect([next.statusCode, limitHeaders(next)]).toEqual([200, { limit: '3', remaining: '2', reset: '60', retryAfter: undefined }]);
  });

  it('a refused request changes nothing: an import past the limit writes no receipt and no ACK', async () => {
    startOfTest();
    const key = await createKey(ctx().database.db, ctx().clock, tenant, 'customer');
    for (let i = 0; i < 3; i++) expect((await ctx().post(INVENTORY_SEARCH, search(), key)).statusCode).toBe(200);
    const poNo = uniqueId('PO');
    const refused = await ctx().post(RECEIPT_IMPORT, receiptBody({ tenant, content: { PONo: poNo } }), key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual(problems(tooMany(3)));
    ctx().clock.advance(60_000);
    const acks = await ctx().post(RECEIPT_ACK_SEARCH, { ...search(), PONo: poNo }, key);
    expect([acks.statusCode, acks.json()]).toEqual([404, { error: 'Not found receipt' }]);
    const receipts = await ctx().database.db.selectFrom('receipts').select('svcpoid').where('po_no', '=', poNo).execute();
    expect(receipts).toEqual([]);
  });

  it("a key's own limit replaces the default, and a limit of 0 is none", async () => {
    startOfTest();
    const two = await createKey(ctx().database.db, ctx().clock, tenant, 'customer', { rateLimit: 1 });
    const first = await ctx().post(INVENTORY_SEARCH, search(), two);
    const second = await ctx().post(INVENTORY_SEARCH, search(), two);
    expect([first.statusCode, second.statusCode]).toEqual([200, 429]);
    expect(second.json()).toEqual(problems(tooMany(1)));
    expect(limitHeaders(second)).toEqual({ limit: '1', remaining: '0', reset: RESET, retryAfter: RESET });

    const unlimited = await createKey(ctx().database.db, ctx().clock, tenant, 'customer', { rateLimit: 0 });
    for (let i = 0; i < 10; i++) {
      const answer = await ctx().post(INVENTORY_SEARCH, search(), unlimited);
      expect(answer.statusCode).toBe(200);
      expect(limitHeaders(answer)).toEqual({ limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined });
    }
  });

  it("counts a key's EDI and admin requests as one: the sum past the limit is 429 on either", async () => {
    startOfTest();
    const admin = await createKey(ctx().database.db, ctx().clock, tenant, 'admin');
    const customers = () =>
      ctx().app.inject({ method: 'GET', url: `${ADMIN_PREFIX}/customers`, headers: { authorization: `APIKey ${admin}` } });
    const answers = [
      await ctx().post(INVENTORY_SEARCH, search(), admin),
      await customers(),
      await ctx().post(INVENTORY_SEARCH, search(), admin),
      await customers(),
      await ctx().post(INVENTORY_SEARCH, search(), admin),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429, 429]);
    expect(answers.map(limitHeaders)).toEqual([
      { limit: '3', remaining: '2', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '1', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '0', reset: RESET, retryAfter: undefined },
      { limit: '3', remaining: '0', reset: RESET, retryAfter: RESET },
      { limit: '3', remaining: '0', reset: RESET, retryAfter: RESET },
    ]);
    expect(answers[3]!.json()).toEqual(problems(tooMany(3)));
    expect(answers[4]!.json()).toEqual(problems(tooMany(3)));
  });

  it('limits the rate engine by its own default, and answers 429 in its envelope', async () => {
    startOfTest();
    const rater = await createKey(ctx().database.db, ctx().clock, tenant, 'rater', { userIds: [7] });
    const quote = () =>
      ctx().app.inject({
        method: 'POST',
        url: RATE,
        headers: { 'content-type': 'application/json', authorization: `APIKey ${rater}` },
        payload: { UserID: 7, Data: PARCEL },
      });
    const answers = [await quote(), await quote(), await quote()];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 429]);
    expect(answers.map(limitHeaders)).toEqual([
      { limit: '2', remaining: '1', reset: RESET, retryAfter: undefined },
      { limit: '2', remaining: '0', reset: RESET, retryAfter: undefined },
      { limit: '2', remaining: '0', reset: RESET, retryAfter: RESET },
    ]);
    expect(answers[2]!.json()).toEqual({
      Result: [],
      Page: null,
      ErrorMsg: tooMany(2),
      ErrorSeverity: 4,
      ErrorSource: 'RateEngine.RateLimit',
      Status: false,
    });
  });

  it('never limits /healthz, /readyz, /metrics, nor counts a request without a valid key', async () => {
    startOfTest();
    for (let i = 0; i < 5; i++) {
      for (const url of ['/healthz', '/readyz', '/metrics']) {
        const answer = await ctx().app.inject(url);
        expect(answer.statusCode, url).toBe(200);
        expect(limitHeaders(answer), url).toEqual({ limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined });
      }
      const unknown = await ctx().post(INVENTORY_SEARCH, search(), 'wk_unknown-key');
      expect(unknown.statusCode).toBe(401);
      expect(limitHeaders(unknown)).toEqual({ limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined });
    }
  });

  it("does not count a route that does not exist: its 404 carries no limit and leaves the key's minute untouched", async () => {
    startOfTest();
    const key = await createKey(ctx().database.db, ctx().clock, tenant, 'customer');
    const rater = await createKey(ctx().database.db, ctx().clock, tenant, 'rater', { userIds: [7] });
    const post = (url: string, apiKey: string, payload: object) =>
      ctx().app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', authorization: `APIKey ${apiKey}` },
        payload,
      });
    for (let i = 0; i < 5; i++) {
      // Under the EDI base and under the rate engine's, whose scope answers its own 404 envelope.
      for (const missing of [
        await post(`${EDI_PREFIX}/edi/no-such-route`, key, search()),
        await post(`${RATE}/no-such-route`, rater, {}),
      ]) {
        expect(missing.statusCode).toBe(404);
        expect(limitHeaders(missing)).toEqual({ limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined });
      }
    }
    const counted = await ctx().post(INVENTORY_SEARCH, search(), key);
    expect([counted.statusCode, limitHeaders(counted)]).toEqual([200, { limit: '3', remaining: '2', reset: RESET, retryAfter: undefined }]);
    const quoted = await post(RATE, rater, { UserID: 7, Data: PARCEL });
    expect([quoted.statusCode, limitHeaders(quoted)]).toEqual([200, { limit: '2', remaining: '1', reset: RESET, retryAfter: undefined }]);
  });
});

describeEachDialect('rate limits, switched off', (dialect) => {
  const ctx = useTestApp(dialect, { rateLimitEdi: 0 });

  it("RATE_LIMIT_EDI=0 switches the EDI routes' limits off, the keys' own limits included", async () => {
    const { database, clock } = ctx();
    const tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    const search = { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], CustomerID: tenant.customerIds[0] };
    const key = await createKey(database.db, clock, tenant, 'customer');
    for (let i = 0; i < 700; i++) {
      const answer = await ctx().post(INVENTORY_SEARCH, search, key);
      if (answer.statusCode !== 200 || answer.headers['ratelimit-limit'] !== undefined) expect.fail(`request ${i}: ${answer.statusCode}`);
    }
    const limited = await createKey(database.db, clock, tenant, 'customer', { rateLimit: 1 });
    for (let i = 0; i < 3; i++) {
      const answer = await ctx().post(INVENTORY_SEARCH, search, limited);
      expect([answer.statusCode, answer.headers['ratelimit-limit']]).toEqual([200, undefined]);
    }
  });
});

describe.skipIf(!postgres.enabled)("rate limits on PostgreSQL: two apps on one database share each key's count", () => {
  let database: TestDatabase;
  let apps: App[];
  const clock = new TestClock();

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const config = { ...loadConfig({ databaseUrl: database.url }, {}), rateLimitEdi: 100 };
    apps = [
      await buildApp({ config, db: database.db, clock, logger: false }),
      await buildApp({ config, db: database.db, clock, logger: false }),
    ];
  });
  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
    await database?.destroy();
  });

  it('300 requests at once, alternating between the apps: at most the limit is served, and nearly all of it', async () => {
    const tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    const key = await createKey(database.db, clock, tenant, 'customer');
    const body = JSON.stringify({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], CustomerID: tenant.customerIds[0] });
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        apps[i % 2]!.inject({
          method: 'POST',
          url: `${EDI_PREFIX}${INVENTORY_SEARCH}`,
          headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
          payload: body,
        }),
      ),
    );
    const served = answers.filter((answer) => answer.statusCode === 200).length;
    expect(answers.filter((answer) => answer.statusCode !== 200).map((answer) => answer.statusCode)).toEqual(Array(300 - served).fill(429));
    expect(served).toBeLessThanOrEqual(100);
    // A process may hold at most one lease (a twentieth of the limit) unserved when the window is spent.
    expect(served).toBeGreaterThanOrEqual(100 - 2 * 5);
    const [window] = await database.db.selectFrom('rate_limit_windows').select(['used', 'route_group']).execute();
    expect(window).toEqual({ used: 100, route_group: 'edi' });
  });
});
