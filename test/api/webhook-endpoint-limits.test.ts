import { expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createWorld, expectOk, problems } from '../helpers/factories.js';
import * as paths from '../helpers/paths.js';

/**
 * How many webhook endpoints a tenant may have: 20 a customer and 100 a company, its customers' and
 * its company-wide ones together. One more is 409 and makes nothing, whoever asks; creations that
 * run at the same time never pass the limit between them.
 */

type Json = Record<string, unknown>;
const ENDPOINT = paths.WEBHOOK_ENDPOINT;

describeEachDialect('webhook endpoint limits', (dialect) => {
  const ctx = useTestApp(dialect, { rateLimitEdi: 0 });
  let hooks = 0;
  const createBody = (body: Json) => ({ Url: `https://hooks.example.com/${++hooks}`, ...body });
  const create = async (body: Json, key: string) => {
    const response = await ctx().post(`${ENDPOINT}/create`, createBody(body), key);
    return { status: response.statusCode, body: response.json() };
  };
  const count = async (body: Json, key: string) => (await expectOk(ctx().post(`${ENDPOINT}/list`, body, key))).json().Endpoints.length;

  it('refuses a customer’s 21st endpoint and a company’s 101st with 409, making nothing; room made by a deletion is room', async () => {
    const w = await createWorld(ctx().database.db, ctx().clock);
    const [c1, c2] = w.tenant.customerIds as [string, string];
    const company = { CompanyID: w.tenant.companyId };
    const limitedKey = await createKey(ctx().database.db, ctx().clock, w.tenant, 'customer', { facilityIds: [w.tenant.facilityIds[0]!] });
    const customerFull = problems(
      `Customer ${c1} already has 20 webhook endpoints, and a customer may have at most 20: delete one before creating another`,
    );

    const made: string[] = [];
    for (let i = 0; i < 20; i++) {
      // Endpoints of every facility and of one count alike, whichever key made them.
      const answer = await create({ ...company, CustomerID: c1 }, i % 2 === 0 ? w.customer : limitedKey);
      expect(answer.status).toBe(200);
      made.push((answer.body as { Endpoint: { EndpointID: string } }).Endpoint.EndpointID);
    }
    expect(await create({ ...company, CustomerID: c1 }, w.customer)).toEqual({ status: 409, body: customerFull });
    expect(await create({ ...company, CustomerID: c1 }, limitedKey)).toEqual({ status: 409, body: customerFull });
    expect(await create({ ...company, CustomerID: c1 }, w.admin)).toEqual({ status: 409, body: customerFull });
    // A disabled endpoint still counts: enabling it again must not pass the limit.
    await expectOk(ctx().post(`${ENDPOINT}/update`, { ...company, CustomerID: c1, EndpointID: made[0], Enabled: false }, w.customer));
    expect(await create({ ...company, CustomerID: c1 }, w.customer)).toEqual({ status: 409, body: customerFull });
    expect(await count({ ...company, CustomerID: c1 }, w.customer)).toBe(20);

    await expectOk(ctx().post(`${ENDPOINT}/delete`, { ...company, CustomerID: c1, EndpointID: made[0] }, w.customer));
    expect((await create({ ...company, CustomerID: c1 }, w.customer)).status).toBe(200);

    // The company: C1's 20 and 80 company-wide ones.
    for (let i = 0; i < 80; i++) expect((await create(company, w.admin)).status).toBe(200);
    expect(await count(company, w.admin)).toBe(100);
    const companyFull = problems(
      `Company ${w.tenant.companyId} already has 100 webhook endpoints, and a company may have at most 100: delete one before creating another`,
    );
    expect(await create(company, w.admin)).toEqual({ status: 409, body: companyFull });
    // C2 has none, but its company has no room.
    expect(await create({ ...company, CustomerID: c2 }, w.otherCustomer)).toEqual({ status: 409, body: companyFull });
    expect(await count(company, w.admin)).toBe(100);
    expect(await count({ ...company, CustomerID: c2 }, w.otherCustomer)).toBe(0);
  });

  it('never passes the limit with creations running at the same time', async () => {
    const w = await createWorld(ctx().database.db, ctx().clock);
    const body = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! };
    const answers = await Promise.all(Array.from({ length: 30 }, () => create(body, w.customer)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(20).fill(200), ...Array<number>(10).fill(409)]);
    expect(await count(body, w.customer)).toBe(20);
  });
});
