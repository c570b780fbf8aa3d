import { beforeAll, describe, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import type { Role } from '../../src/http/auth.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, type Tenant, problems } from '../helpers/factories.js';
import { ITEM_IMPORT as IMPORT, ITEM_SEARCH as SEARCH } from '../helpers/paths.js';

/** Authentication (401), role and scope (403), Not found facility (400) and their order (docs/access.md). */

/** The spec's error array, one entry per message. */

const MISSING = 'Missing Authorization header; send Authorization: APIKey <key>';
const MALFORMED = 'Authorization header must be APIKey <key>';
const UNKNOWN = 'Unknown or revoked API key';

describeEachDialect('authentication and scope', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let other: Tenant;
  let customerKey: string;
  let adminKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 2, facilities: 2 });
    other = await createTenant(database.db, clock);
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    adminKey = await createKey(database.db, clock, tenant, 'admin');
  });

  /** A key made through the service, with its numeric id. */
  async function keyWithId(role: Role, scope: { customerIds?: string[]; facilityIds?: string[] } = {}) {
    const { key, view } = await tenants.createApiKey(ctx().database.db, ctx().clock, {
      role,
      companyId: tenant.companyId,
      customerIds: scope.customerIds ?? (role === 'customer' ? [tenant.customerIds[0]!] : []),
      facilityIds: scope.facilityIds ?? [],
      userIds: role === 'rater' ? [1] : [],
      label: `auth test ${role}`,
    });
    return { key, id: view.id };
  }

  const search = () => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] });
  const postWithAuthorization = (authorization: string, body: unknown = search()) =>
    ctx().app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${SEARCH}`,
      headers: { 'content-type': 'application/json', authorization },
      payload: JSON.stringify(body),
    });

  describe('401', () => {
    it('401s a request without an Authorization header', async () => {
      const response = await ctx().post(SEARCH, search());
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(problems(MISSING));
    });

    it.each([
      ['another scheme', 'Bearer x'],
      ['the scheme with no key', 'APIKey'],
      ['the scheme and blanks only', 'APIKey    '],
      ['two words after the scheme', 'APIKey abc def'],
      ['a bare key without the scheme', 'wk_abcdef'],
      ['Basic credentials', 'Basic dXNlcjpwYXNz'],
    ])('401s a malformed Authorization header: %s', async (_name, header) => {
      const response = await postWithAuthorization(header);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(problems(MALFORMED));
    });

    it('401s an unknown key, and does not echo the presented key', async () => {
      const response = await ctx().post(SEARCH, search(), 'wk_this-key-does-not-exist');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(problems(UNKNOWN));
      expect(response.body).not.toContain('wk_this-key-does-not-exist');
    });

    it('401s a near miss of a real key (one character changed)', async () => {
      const last = customerKey.at(-1) === 'A' ? 'B' : 'A';
      const response = await ctx().post(SEARCH, search(), customerKey.slice(0, -1) + last);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(problems(UNKNOWN));
    });

    it('accepts the scheme in any letter case and extra blanks before the key', async () => {
      expect((await postWithAuthorization(`apikey ${customerKey}`)).statusCode).toBe(200);
      expect((await postWithAuthorization(`APIKEY   ${customerKey}`)).statusCode).toBe(200);
    });

    it('401s a revoked key once the second a process may trust a key lookup has passed, as it 401s an unknown key', async () => {
      const { key, id } = await keyWithId('customer');
      expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(200);
      const revoked = await tenants.revokeApiKey(ctx().database.db, ctx().clock, id);
      expect(revoked.revokedAt).toBe(new Date(ctx().clock.now()).toISOString());
      // Within the second (the test clock has not moved) the remembered lookup may still stand.
      expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(200);
      ctx().clock.advance(1001);
      const response = await ctx().post(SEARCH, search(), key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(problems(UNKNOWN));
      // Revoking one key leaves the others working.
      expect((await ctx().post(SEARCH, search(), customerKey)).statusCode).toBe(200);
    });

    it('401s before it looks at the body: invalid, malformed, empty, non-JSON', async () => {
      const invalid = await ctx().post(SEARCH, { CompanyID: 5, Paging: { PageNo: 0 } });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toEqual(problems(MISSING));

      const malformed = await ctx().post(SEARCH, '{"a":', 'wk_unknown');
      expect(malformed.statusCode).toBe(401);
      expect(malformed.json()).toEqual(problems(UNKNOWN));

      const empty = await ctx().post(SEARCH, '', undefined);
      expect(empty.statusCode).toBe(401);
      expect(empty.json()).toEqual(problems(MISSING));

      const text = await ctx().post(SEARCH, 'hello', undefined, { 'content-type': 'text/plain' });
      expect(text.statusCode).toBe(401);
      expect(text.json()).toEqual(problems(MISSING));

      const importWithBadKey = await ctx().post(IMPORT, { Items: [] }, 'wk_unknown');
      expect(importWithBadKey.statusCode).toBe(401);
      expect(importWithBadKey.json()).toEqual(problems(UNKNOWN));
    });
  });

  it('403s a role that may not call the operation', async () => {
    const operator = await createKey(ctx().database.db, ctx().clock, tenant, 'operator');
    const opImport = await ctx().post(IMPORT, { ...search(), Items: [{ itemID: 'OP-1' }] }, operator);
    expect(opImport.statusCode).toBe(403);
    expect(opImport.json()).toEqual(problems('An API key with role operator may not call this operation'));

    const rater = await createKey(ctx().database.db, ctx().clock, tenant, 'rater');
    const raterSearch = await ctx().post(SEARCH, search(), rater);
    expect(raterSearch.statusCode).toBe(403);
    expect(raterSearch.json()).toEqual(problems('An API key with role rater may not call this operation'));
    const raterImport = await ctx().post(IMPORT, { ...search(), Items: [{ itemID: 'R-1' }] }, rater);
    expect(raterImport.statusCode).toBe(403);
    expect(raterImport.json()).toEqual(problems('An API key with role rater may not call this operation'));

    // Nothing was imported by the refused calls.
    const found = await ctx().post(SEARCH, { ...search(), Paging: { PageSize: 1000 } }, adminKey);
    const ids = found.json().results.data.map((d: { itemID: string }) => d.itemID);
    expect(ids).not.toContain('OP-1');
    expect(ids).not.toContain('R-1');
  });

  it("403s another company's CompanyID, for every role", async () => {
    const foreign = { CompanyID: other.companyId, CustomerID: other.customerIds[0] };
    const message = `CompanyID ${other.companyId} is outside this API key's scope`;
    for (const key of [customerKey, adminKey]) {
      const response = await ctx().post(SEARCH, foreign, key);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(problems(message));
    }
    const imported = await ctx().post(IMPORT, { ...foreign, Items: [{ itemID: 'X-1' }] }, adminKey);
    expect(imported.statusCode).toBe(403);
    expect(imported.json()).toEqual(problems(message));
    // A CompanyID that exists nowhere is refused the same way.
    const nowhere = await ctx().post(SEARCH, { CompanyID: 'NO-SUCH-CO', CustomerID: 'C' }, adminKey);
    expect(nowhere.statusCode).toBe(403);
    expect(nowhere.json()).toEqual(problems("CompanyID NO-SUCH-CO is outside this API key's scope"));
  });

  it("403s a CustomerID outside a customer key's scope; admin and operator keys read every customer of the company", async () => {
    const second = tenant.customerIds[1]!;
    const outside = await ctx().post(SEARCH, { ...search(), CustomerID: second }, customerKey);
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toEqual(problems(`CustomerID ${second} is outside this API key's scope`));
    const outsideImport = await ctx().post(IMPORT, { ...search(), CustomerID: second, Items: [{ itemID: 'Z' }] }, customerKey);
    expect(outsideImport.statusCode).toBe(403);
    expect(outsideImport.json()).toEqual(problems(`CustomerID ${second} is outside this API key's scope`));

    // Another company's customer, named under our CompanyID.
    const foreignCustomer = other.customerIds[0]!;
    const borrowed = await ctx().post(SEARCH, { ...search(), CustomerID: foreignCustomer }, adminKey);
    expect(borrowed.statusCode).toBe(403);
    expect(borrowed.json()).toEqual(problems(`CustomerID ${foreignCustomer} is outside this API key's scope`));

    const operator = await createKey(ctx().database.db, ctx().clock, tenant, 'operator');
    expect((await ctx().post(SEARCH, { ...search(), CustomerID: second }, operator)).statusCode).toBe(200);
    expect((await ctx().post(SEARCH, { ...search(), CustomerID: second }, adminKey)).statusCode).toBe(200);
    const unknownCustomer = await ctx().post(SEARCH, { ...search(), CustomerID: 'NOBODY' }, operator);
    expect(unknownCustomer.statusCode).toBe(403);
    expect(unknownCustomer.json()).toEqual(problems("CustomerID NOBODY is outside this API key's scope"));
  });

  it("403s a FacilityID outside an operator key's facilities; 400 Not found facility for one the company lacks", async () => {
    const [inside, outside] = tenant.facilityIds as [string, string];
    const operator = await createKey(ctx().database.db, ctx().clock, tenant, 'operator', { facilityIds: [inside] });
    expect((await ctx().post(SEARCH, { ...search(), FacilityID: inside }, operator)).statusCode).toBe(200);

    const refused = await ctx().post(SEARCH, { ...search(), FacilityID: outside }, operator);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(problems(`FacilityID ${outside} is outside this API key's scope`));

    const unknown = await ctx().post(SEARCH, { ...search(), FacilityID: 'NOPE' }, operator);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ error: 'Not found facility' });

    // Another company's facility is, for this company, a facility it does not have.
    const foreignFacility = await ctx().post(SEARCH, { ...search(), FacilityID: other.facilityIds[0] }, adminKey);
    expect(foreignFacility.statusCode).toBe(400);
    expect(foreignFacility.json()).toEqual({ error: 'Not found facility' });

    // A key without a facility list acts in every facility of its company.
    expect((await ctx().post(SEARCH, { ...search(), FacilityID: outside }, adminKey)).statusCode).toBe(200);
    expect((await ctx().post(SEARCH, { ...search(), FacilityID: outside }, customerKey)).statusCode).toBe(200);
  });

  it("403s a FacilityID outside a customer key's facilities", async () => {
    const [inside, outside] = tenant.facilityIds as [string, string];
    const key = await createKey(ctx().database.db, ctx().clock, tenant, 'customer', { facilityIds: [inside] });
    expect((await ctx().post(SEARCH, { ...search(), FacilityID: inside }, key)).statusCode).toBe(200);
    const refused = await ctx().post(IMPORT, { ...search(), FacilityID: outside, Items: [{ itemID: 'F-1' }] }, key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(problems(`FacilityID ${outside} is outside this API key's scope`));
  });

  it('checks in the order of docs/access.md: key, schema, role and company, facility exists, scope', async () => {
    const [inside, outside] = tenant.facilityIds as [string, string];
    const operator = await createKey(ctx().database.db, ctx().clock, tenant, 'operator', { facilityIds: [inside] });

    // schema (400) before role/company (403): a foreign CompanyID in an invalid body.
    const schemaFirst = await ctx().post(
      SEARCH,
      { CompanyID: other.companyId, CustomerID: other.customerIds[0], Paging: { PageNo: 0 } },
      customerKey,
    );
    expect(schemaFirst.statusCode).toBe(400);
    expect(schemaFirst.json()).toEqual(problems('Paging.PageNo must be at least 1'));
    const roleAfterSchema = await ctx().post(IMPORT, { ...search(), Items: [] }, operator);
    expect(roleAfterSchema.statusCode).toBe(400);
    expect(roleAfterSchema.json()).toEqual(problems('Items must have at least 1 item'));

    // role (403) before Not found facility (400).
    const roleFirst = await ctx().post(IMPORT, { ...search(), FacilityID: 'NOPE', Items: [{ itemID: 'A' }] }, operator);
    expect(roleFirst.statusCode).toBe(403);
    expect(roleFirst.json()).toEqual(problems('An API key with role operator may not call this operation'));

    // company (403) before Not found facility (400), whether or not the facility exists elsewhere.
    for (const FacilityID of ['NOPE', other.facilityIds[0]!]) {
      const companyFirst = await ctx().post(SEARCH, { CompanyID: other.companyId, CustomerID: other.customerIds[0], FacilityID }, operator);
      expect(companyFirst.statusCode).toBe(403);
      expect(companyFirst.json()).toEqual(problems(`CompanyID ${other.companyId} is outside this API key's scope`));
    }

    // Not found facility (400) before the CustomerID scope (403) ...
    const facilityBeforeCustomer = await ctx().post(
      SEARCH,
      { ...search(), CustomerID: tenant.customerIds[1], FacilityID: 'NOPE' },
      customerKey,
    );
    expect(facilityBeforeCustomer.statusCode).toBe(400);
    expect(facilityBeforeCustomer.json()).toEqual({ error: 'Not found facility' });
    // ... and before the FacilityID scope (403).
    const facilityBeforeScope = await ctx().post(SEARCH, { ...search(), CustomerID: 'NOBODY', FacilityID: 'NOPE' }, operator);
    expect(facilityBeforeScope.statusCode).toBe(400);
    expect(facilityBeforeScope.json()).toEqual({ error: 'Not found facility' });

    // Both scope checks failing is still one 403.
    const bothScopes = await ctx().post(SEARCH, { ...search(), CustomerID: 'NOBODY', FacilityID: outside }, operator);
    expect(bothScopes.statusCode).toBe(403);
    expect(bothScopes.json()).toHaveLength(1);
  });

  it('describes a key to its holder: where it may act (every customer and facility, by id, when it is limited to none), never the key', async () => {
    const describe = async (key: string) =>
      ctx().app.inject({ method: 'GET', url: `${EDI_PREFIX}/edi/api-key`, headers: { authorization: `APIKey ${key}` } });
    const limited = await keyWithId('operator', { facilityIds: [tenant.facilityIds[1]!] });
    const expiring = await tenants.createApiKey(ctx().database.db, ctx().clock, {
      role: 'customer',
      companyId: tenant.companyId,
      customerIds: [tenant.customerIds[1]!],
      facilityIds: [],
      userIds: [],
      label: 'expiring',
      expiresAt: Date.parse('2030-01-01T00:00:00Z'),
    });
    const answers = await Promise.all([describe(limited.key), describe(expiring.key)]);
    expect(answers.map((answer) => [answer.statusCode, answer.json()])).toEqual([
      [
        200,
        {
          KeyID: limited.id,
          Role: 'operator',
          CompanyID: tenant.companyId,
          Customers: [...tenant.customerIds].sort(),
          Facilities: [tenant.facilityIds[1]],
          UserIDs: [],
          Label: 'auth test operator',
          ExpiresAt: null,
        },
      ],
      [
        200,
        {
          KeyID: expiring.view.id,
          Role: 'customer',
          CompanyID: tenant.companyId,
          Customers: [tenant.customerIds[1]],
          Facilities: [...tenant.facilityIds].sort(),
          UserIDs: [],
          Label: 'expiring',
          ExpiresAt: '2030-01-01T00:00:00.000Z',
        },
      ],
    ]);
    expect(answers.some((answer) => answer.body.includes(limited.key) || answer.body.includes(expiring.key))).toBe(false);
    const without = await ctx().app.inject({ method: 'GET', url: `${EDI_PREFIX}/edi/api-key` });
    expect([without.statusCode, without.json()]).toEqual([401, problems(MISSING)]);
  });

  it('writes last_used_at on first use and at most once a minute after', async () => {
    const { database, clock } = ctx();
    const { key, id } = await keyWithId('customer');
    const lastUsed = async () => (await tenants.listApiKeys(database.db, tenant.companyId)).find((k) => k.id === id)!.lastUsedAt;
    const iso = (ms: number) => new Date(ms).toISOString();

    expect(await lastUsed()).toBeNull();
    const first = clock.now();
    expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(iso(first));

    clock.advance(30_000);
    expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(iso(first));

    clock.advance(30_000); // exactly a minute after the recorded use: still not rewritten
    expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(iso(first));

    // Past the minute, and past the second for which the last lookup is remembered.
    clock.advance(1_001);
    const later = clock.now();
    // A request refused after authentication (400 here) is still a use of the key.
    expect((await ctx().post(SEARCH, { ...search(), Paging: { PageNo: 0 } }, key)).statusCode).toBe(400);
    expect(await lastUsed()).toBe(iso(later));

    // A revoked key is not touched by the attempts made with it.
    await tenants.revokeApiKey(database.db, clock, id);
    clock.advance(120_000);
    expect((await ctx().post(SEARCH, search(), key)).statusCode).toBe(401);
    expect(await lastUsed()).toBe(iso(later));
  });

  it("refuses another company's admin key this company's data", async () => {
    const { database, clock } = ctx();
    const otherKey = await createKey(database.db, clock, other, 'admin');
    const response = await ctx().post(SEARCH, search(), otherKey);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual(problems(`CompanyID ${tenant.companyId} is outside this API key's scope`));
  });
});
