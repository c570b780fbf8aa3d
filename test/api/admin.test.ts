import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { beforeEach, expect, it } from 'vitest';
import { useTestApp, type TestContext } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createRivals, createWorld, problems, uniqueId, type RivalKey, type Tenant, type World } from '../helpers/factories.js';
import * as paths from '../helpers/paths.js';

/**
 * The admin API (docs/admin.md): an admin key manages its own company's customers, facilities and API
 * keys under /admin/v1, with the API's PascalCase shapes and error shapes; every other key is
 * refused, and another company's records answer as unknown ones.
 */

type Json = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const ADMIN = '/admin/v1';
const NOW = '2026-03-05T14:07:09.123Z';
const HOUR = 3_600_000;

/** Sends an admin request (no body: none sent) with `key`, to a path under /admin/v1. */
const adminCaller = (ctx: () => TestContext) => (method: Method, path: string, key: string | undefined, body?: Json) =>
  ctx().app.inject({
    method,
    url: `${ADMIN}${path}`,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(key ? { authorization: `APIKey ${key}` } : {}),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

describeEachDialect('admin API', (dialect) => {
  const ctx = useTestApp(dialect);
  let w: World;

  beforeEach(async () => {
    ctx().clock.time = Date.parse(NOW);
    w = await createWorld(ctx().database.db, ctx().clock);
  });

  const call = adminCaller(ctx);
  const answer = (response: LightMyRequestResponse) => ({ status: response.statusCode, body: response.json() as unknown });
  const itemSearch = (key: string) =>
    ctx().post(paths.ITEM_SEARCH, { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, PageNo: 1 }, key);

  it('lists, adds and renames customers of its company', async () => {
    const listed = answer(await call('GET', '/customers', w.admin));
    expect(listed).toEqual({
      status: 200,
      body: { Customers: [...w.tenant.customerIds].sort().map((id) => ({ CustomerID: id, Name: id, CreatedWhen: NOW })) },
    });

    const added = await call('POST', '/customers', w.admin, { CustomerID: 'ACME-2', Name: 'Acme West' });
    expect(answer(added)).toEqual({ status: 201, body: { Customer: { CustomerID: 'ACME-2', Name: 'Acme West', CreatedWhen: NOW } } });
    expect(answer(await call('POST', '/customers', w.admin, { CustomerID: 'ACME-2' }))).toEqual({
      status: 409,
      body: problems(`Customer ACME-2 already exists in company ${w.tenant.companyId}`),
    });

    ctx().clock.advance(1000);
    expect(answer(await call('PATCH', '/customers/ACME-2', w.admin, { Name: 'Acme West Coast' }))).toEqual({
      status: 200,
      body: { Customer: { CustomerID: 'ACME-2', Name: 'Acme West Coast', CreatedWhen: NOW } },
    });
    expect(answer(await call('PATCH', '/customers/NOPE', w.admin, { Name: 'x' }))).toEqual({
      status: 404,
      body: { error: `Customer NOPE not found in company ${w.tenant.companyId}` },
    });
  });

  it('refuses a bad customer body with every problem at once, and changes nothing', async () => {
    const before = await call('GET', '/customers', w.admin);
    expect(answer(await call('POST', '/customers', w.admin, { CustomerID: 'has space', Name: '', Extra: 1 }))).toEqual({
      status: 400,
      body: problems('Extra is not allowed', 'CustomerID must be 1 to 15 printable characters without spaces', 'Name must not be empty'),
    });
    expect(answer(await call('PATCH', `/customers/${w.tenant.customerIds[0]}`, w.admin, {}))).toEqual({
      status: 400,
      body: problems('Name is required'),
    });
    expect((await call('GET', '/customers', w.admin)).body).toBe(before.body);
  });

  it('adds a facility in its time zone, renames it and moves it to another zone', async () => {
    const added = await call('POST', '/facilities', w.admin, { FacilityID: 'LAX2', TimeZone: 'America/Los_Angeles' });
    expect(answer(added)).toEqual({
      status: 201,
      body: { Facility: { FacilityID: 'LAX2', Name: 'LAX2', TimeZone: 'America/Los_Angeles', CreatedWhen: NOW } },
    });
    expect(answer(await call('POST', '/facilities', w.admin, { FacilityID: 'UTC1' }))).toEqual({
      status: 201,
      body: { Facility: { FacilityID: 'UTC1', Name: 'UTC1', TimeZone: 'UTC', CreatedWhen: NOW } },
    });
    expect(answer(await call('PATCH', '/facilities/LAX2', w.admin, { Name: 'Los Angeles 2', TimeZone: 'America/Chicago' }))).toEqual({
      status: 200,
      body: { Facility: { FacilityID: 'LAX2', Name: 'Los Angeles 2', TimeZone: 'America/Chicago', CreatedWhen: NOW } },
    });
    const listed = answer(await call('GET', '/facilities', w.admin));
    expect(listed.body).toEqual({
      Facilities: [
        ...[...w.tenant.facilityIds].sort().map((id) => ({ FacilityID: id, Name: id, TimeZone: 'America/Los_Angeles', CreatedWhen: NOW })),
        { FacilityID: 'LAX2', Name: 'Los Angeles 2', TimeZone: 'America/Chicago', CreatedWhen: NOW },
        { FacilityID: 'UTC1', Name: 'UTC1', TimeZone: 'UTC', CreatedWhen: NOW },
      ].sort((a, b) => (a.FacilityID < b.FacilityID ? -1 : 1)),
    });
  });

  it('refuses a time zone that is not an IANA zone, a duplicate and an empty change, and changes nothing', async () => {
    const before = (await call('GET', '/facilities', w.admin)).body;
    expect(answer(await call('POST', '/facilities', w.admin, { FacilityID: 'MARS', TimeZone: 'Mars/Base' }))).toEqual({
      status: 400,
      body: problems('TimeZone Mars/Base is not an IANA time zone (e.g. America/Chicago)'),
    });
    const own = w.tenant.facilityIds[0]!;
    expect(answer(await call('PATCH', `/facilities/${own}`, w.admin, { TimeZone: 'Mars/Base' }))).toEqual({
      status: 400,
      body: problems('TimeZone Mars/Base is not an IANA time zone (e.g. America/Chicago)'),
    });
    expect(answer(await call('PATCH', `/facilities/${own}`, w.admin, {}))).toEqual({
      status: 400,
      body: problems('Request body must change Name, TimeZone or both'),
    });
    expect(answer(await call('POST', '/facilities', w.admin, { FacilityID: own }))).toEqual({
      status: 409,
      body: problems(`Facility ${own} already exists in company ${w.tenant.companyId}`),
    });
    expect(answer(await call('PATCH', '/facilities/NOPE', w.admin, { Name: 'x' }))).toEqual({
      status: 404,
      body: { error: `Facility NOPE not found in company ${w.tenant.companyId}` },
    });
    expect((await call('GET', '/facilities', w.admin)).body).toBe(before);
  });

  it('makes a key that works at once and shows it only then; lists keys without their secrets', async () => {
    const customerId = w.tenant.customerIds[0]!;
    const made = await call('POST', '/keys', w.admin, {
      Role: 'customer',
      Customers: [customerId],
      Label: 'ERP',
      RateLimit: 100,
      ExpiresAt: '2027-01-01T00:00:00+01:00',
    });
    expect(made.statusCode, made.body).toBe(201);
    const { Key } = made.json() as { Key: Json & { Key: string; KeyID: number } };
    expect(Key).toEqual({
      KeyID: expect.any(Number),
      Key: expect.stringMatching(/^wk_[A-Za-z0-9_-]{43}$/),
      Role: 'customer',
      Customers: [customerId],
      Facilities: [],
      UserIDs: [],
      Label: 'ERP',
      CreatedWhen: NOW,
      LastUsedWhen: null,
      RevokedWhen: null,
      RateLimit: 100,
      ExpiresAt: '2026-12-31T23:00:00.000Z',
      ReplacedBy: null,
    });
    expect((await itemSearch(Key.Key)).statusCode).toBe(200);

    const listed = await call('GET', '/keys', w.admin);
    expect(listed.statusCode).toBe(200);
    const keys = (listed.json() as { Keys: Json[] }).Keys;
    expect(keys.at(-1)).toEqual({ ...Key, Key: undefined, LastUsedWhen: NOW });
    expect(keys.map((key) => key.Role)).toEqual(['admin', 'customer', 'customer', 'operator', 'operator', 'customer']);
    expect(listed.body).not.toContain(Key.Key);
  });

  it('refuses a key whose scope does not fit its role or its company, and makes none', async () => {
    const count = async () => ((await call('GET', '/keys', w.admin)).json() as { Keys: unknown[] }).Keys.length;
    const before = await count();
    expect(answer(await call('POST', '/keys', w.admin, { Role: 'customer' }))).toEqual({
      status: 400,
      body: problems('a customer key needs at least one entry in Customers'),
    });
    expect(answer(await call('POST', '/keys', w.admin, { Role: 'admin', Customers: [w.tenant.customerIds[0]!], UserIDs: [1] }))).toEqual({
      status: 400,
      body: problems('a admin key takes no Customers', 'a admin key takes no UserIDs'),
    });
    expect(answer(await call('POST', '/keys', w.admin, { Role: 'customer', Customers: ['OTHER'], Facilities: ['ELSEWHERE'] }))).toEqual({
      status: 400,
      body: problems(
        `customer OTHER does not exist in company ${w.tenant.companyId}`,
        `facility ELSEWHERE does not exist in company ${w.tenant.companyId}`,
      ),
    });
    expect(answer(await call('POST', '/keys', w.admin, { Role: 'rater', UserIDs: [1], ExpiresAt: '2020-01-01T00:00:00Z' }))).toEqual({
      status: 400,
      body: problems('ExpiresAt 2020-01-01T00:00:00.000Z is not in the future'),
    });
    expect(answer(await call('POST', '/keys', w.admin, { Role: 'boss', ExpiresAt: 'tomorrow' }))).toEqual({
      status: 400,
      body: problems(
        'Role must be one of: customer, operator, admin, rater',
        'ExpiresAt must be an ISO 8601 date-time with a UTC offset such as 2027-01-01T00:00:00Z',
      ),
    });
    expect(await count()).toBe(before);
  });

  it('rotates a key: the new one works at once, the old one for the grace period; revokes a key at once', async () => {
    const made = (
      await call('POST', '/keys', w.admin, { Role: 'operator', Facilities: [w.tenant.facilityIds[0]!], Label: 'WMS' })
    ).json() as {
      Key: { KeyID: number; Key: string };
    };
    const rotated = await call('POST', `/keys/${made.Key.KeyID}/rotate`, w.admin, { GraceHours: 2 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { Key, Replaced } = rotated.json() as { Key: Json & { Key: string; KeyID: number }; Replaced: Json };
    expect(Key).toMatchObject({ Role: 'operator', Facilities: [w.tenant.facilityIds[0]!], Label: 'WMS', ExpiresAt: null });
    expect(Key.KeyID).toBeGreaterThan(made.Key.KeyID);
    expect(Replaced).toMatchObject({ KeyID: made.Key.KeyID, ExpiresAt: new Date(Date.parse(NOW) + 2 * HOUR).toISOString() });
    const ledger = (key: string) =>
      ctx().post(paths.LEDGER_SEARCH, { CompanyID: w.tenant.companyId, FacilityID: w.tenant.facilityIds[0]! }, key);
    expect((await ledger(Key.Key)).statusCode).toBe(200);
    expect((await ledger(made.Key.Key)).statusCode).toBe(200);
    ctx().clock.advance(2 * HOUR);
    expect((await ledger(made.Key.Key)).statusCode).toBe(401);
    expect(answer(await call('POST', `/keys/${made.Key.KeyID}/rotate`, w.admin))).toEqual({
      status: 409,
      body: problems(`API key ${made.Key.KeyID} expired at ${new Date(Date.parse(NOW) + 2 * HOUR).toISOString()}; it cannot be rotated`),
    });

    const revoked = await call('DELETE', `/keys/${Key.KeyID}`, w.admin);
    expect(revoked.statusCode).toBe(200);
    expect((revoked.json() as { Key: Json }).Key).toMatchObject({
      KeyID: Key.KeyID,
      RevokedWhen: new Date(ctx().clock.now()).toISOString(),
    });
    // A server trusts a key it found for about a second.
    ctx().clock.advance(1001);
    expect((await ledger(Key.Key)).statusCode).toBe(401);
    expect(answer(await call('DELETE', '/keys/999999', w.admin))).toEqual({ status: 404, body: { error: 'API key 999999 not found' } });
    expect(answer(await call('DELETE', '/keys/0', w.admin))).toEqual({
      status: 400,
      body: problems('KeyID must be a positive whole number'),
    });
  });

  it('loads rate cards as the CLI does, lists every version, and shows one with the card itself', async () => {
    const card = JSON.parse(readFileSync(EXAMPLE_RATE_CARD, 'utf8')) as Json;
    const version = (fields: Json) => ({
      Name: 'Demo Parcel Rates 2026',
      EffectiveFrom: '2026-01-01',
      EffectiveTo: null,
      TimeZone: 'America/New_York',
      LoadedWhen: NOW,
      InForce: true,
      ...fields,
    });
    const loaded = answer(await call('POST', '/rate-cards', w.admin, { Card: card }));
    expect(loaded).toEqual({
      status: 200,
      body: { RateCard: version({ RateCardID: expect.any(Number), UserID: null, Version: 1 }), Changed: true },
    });
    expect(answer(await call('POST', '/rate-cards', w.admin, { Card: card }))).toEqual(
      loaded && { ...loaded, body: { ...(loaded.body as Json), Changed: false } },
    );
    const bound = answer(await call('POST', '/rate-cards', w.admin, { UserID: 1001, Card: { ...card, name: 'For 1001' } }));
    expect(bound).toEqual({
      status: 200,
      body: { RateCard: version({ RateCardID: expect.any(Number), UserID: 1001, Version: 1, Name: 'For 1001' }), Changed: true },
    });

    const listed = answer(await call('GET', '/rate-cards', w.admin));
    expect(listed).toEqual({ status: 200, body: { RateCards: [(loaded.body as Json).RateCard, (bound.body as Json).RateCard] } });
    expect(answer(await call('GET', '/rate-cards/1', w.admin))).toEqual({
      status: 200,
      body: { RateCard: { ...((loaded.body as Json).RateCard as Json), Card: card } },
    });
    expect(answer(await call('GET', '/rate-cards/1?UserID=1001', w.admin))).toEqual({
      status: 200,
      body: { RateCard: { ...((bound.body as Json).RateCard as Json), Card: { ...card, name: 'For 1001' } } },
    });
    expect(answer(await call('GET', '/rate-cards/2', w.admin))).toEqual({
      status: 404,
      body: { error: 'Rate card version 2 of the company default not found' },
    });
    expect(answer(await call('GET', '/rate-cards/1?UserID=7', w.admin))).toEqual({
      status: 404,
      body: { error: 'Rate card version 1 of UserID 7 not found' },
    });
  });

  it('refuses a rate card with a mistake, in the CLI’s words, and keeps the card in force', async () => {
    const card = JSON.parse(readFileSync(EXAMPLE_RATE_CARD, 'utf8')) as Json;
    await call('POST', '/rate-cards', w.admin, { Card: card });
    expect(answer(await call('POST', '/rate-cards', w.admin, { Card: { ...card, effective: { from: 'soon' } } }))).toEqual({
      status: 400,
      body: problems('Card: effective.from must be a date such as 2026-01-31'),
    });
    expect(answer(await call('POST', '/rate-cards', w.admin, { Card: { ...card, timeZone: 'Mars/Base' } }))).toEqual({
      status: 400,
      body: problems('Card: timeZone must be an IANA time zone such as America/New_York, not Mars/Base'),
    });
    const listed = (await call('GET', '/rate-cards', w.admin)).json() as { RateCards: Json[] };
    expect(listed.RateCards.map((c) => [c.Version, c.InForce])).toEqual([[1, true]]);
    expect(answer(await call('POST', '/rate-cards', w.admin, { Card: card, UserID: 0 }))).toEqual({
      status: 400,
      body: problems('UserID must be at least 1'),
    });
  });

  it("lists every webhook endpoint of the company: each customer's and the company-wide ones", async () => {
    const customerId = w.tenant.customerIds[0]!;
    const hook = (body: Json, key: string) =>
      ctx().post('/edi/webhook/endpoint/create', { CompanyID: w.tenant.companyId, Url: 'https://hooks.example.com/wharf', ...body }, key);
    const own = (await hook({ CustomerID: customerId }, w.customer)).json() as { Endpoint: { EndpointID: string } };
    const wide = (await hook({}, w.admin)).json() as { Endpoint: { EndpointID: string } };
    const listed = answer(await call('GET', '/webhook-endpoints', w.admin));
    expect(listed.status).toBe(200);
    expect((listed.body as { Endpoints: Json[] }).Endpoints).toEqual([
      expect.objectContaining({ EndpointID: own.Endpoint.EndpointID, CustomerID: customerId, Enabled: true }),
      expect.objectContaining({ EndpointID: wide.Endpoint.EndpointID, CustomerID: null, Enabled: true }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
  });

  it("adds a customer's X12 trading partner as the CLI does, lists them, and refuses a duplicate, a stranger and a bad id", async () => {
    const customerId = w.tenant.customerIds[0]!;
    expect(answer(await call('GET', '/x12-partners', w.admin))).toEqual({ status: 200, body: { Partners: [] } });
    const added = await call('POST', '/x12-partners', w.admin, { CustomerID: customerId, PartnerID: 'ACMEEDI' });
    const partner = { CustomerID: customerId, Qualifier: 'ZZ', PartnerID: 'ACMEEDI', GsID: 'ACMEEDI', CreatedWhen: NOW };
    expect(answer(added)).toEqual({ status: 201, body: { Partner: partner } });
    const other = { CustomerID: w.tenant.customerIds[1]!, Qualifier: '01', PartnerID: '0123456789', GsID: 'GLOBEXWMS', CreatedWhen: NOW };
    expect(answer(await call('POST', '/x12-partners', w.admin, { ...other, CreatedWhen: undefined }))).toEqual({
      status: 201,
      body: { Partner: other },
    });
    expect(answer(await call('GET', '/x12-partners', w.admin))).toEqual({ status: 200, body: { Partners: [other, partner] } });

    expect(answer(await call('POST', '/x12-partners', w.admin, { CustomerID: customerId, PartnerID: 'ACMEEDI' }))).toEqual({
      status: 409,
      body: problems(`Partner ZZ/ACMEEDI already exists in company ${w.tenant.companyId}`),
    });
    expect(answer(await call('POST', '/x12-partners', w.admin, { CustomerID: 'NOPE', PartnerID: 'NOPEEDI' }))).toEqual({
      status: 404,
      body: { error: `Customer NOPE not found in company ${w.tenant.companyId}` },
    });
    expect(answer(await call('POST', '/x12-partners', w.admin, { CustomerID: customerId, PartnerID: 'BAD*ID', Qualifier: 'zz' }))).toEqual({
      status: 400,
      body: problems(
        'PartnerID must be 1 to 15 letters, digits, spaces or . , & / ( ) @ # _ - characters, as ISA06 takes',
        'Qualifier must be the 2-character ISA qualifier, such as ZZ or 01',
      ),
    });
    expect((await call('GET', '/x12-partners', w.admin)).json().Partners).toHaveLength(2);
  });

  it('rotates a key into one of the same role, scope, label, rate limit and expiry; a key already being replaced is 409', async () => {
    const [customerId, facilityId] = [w.tenant.customerIds[0]!, w.tenant.facilityIds[0]!];
    const made = await call('POST', '/keys', w.admin, {
      Role: 'customer',
      Customers: [customerId],
      Facilities: [facilityId],
      Label: 'ERP',
      RateLimit: 100,
      ExpiresAt: '2027-01-01T00:00:00Z',
    });
    const { Key: old } = made.json() as { Key: Json & { KeyID: number; Key: string } };
    const { Key: _oldSecret, ...oldView } = old;

    const rotated = await call('POST', `/keys/${old.KeyID}/rotate`, w.admin, { GraceHours: 2 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { Key, Replaced } = rotated.json() as { Key: Json & { KeyID: number; Key: string }; Replaced: Json };
    const graceEnd = new Date(Date.parse(NOW) + 2 * HOUR).toISOString();
    expect(Key).toEqual({ ...oldView, KeyID: Key.KeyID, Key: Key.Key, ExpiresAt: '2027-01-01T00:00:00.000Z' });
    expect(Key.KeyID).not.toBe(old.KeyID);
    expect(Replaced).toEqual({ ...oldView, ExpiresAt: graceEnd, ReplacedBy: Key.KeyID });
    const listed = ((await call('GET', '/keys', w.admin)).json() as { Keys: Json[] }).Keys;
    expect(listed.filter((key) => key.KeyID === old.KeyID || key.KeyID === Key.KeyID)).toEqual([
      Replaced,
      { ...oldView, KeyID: Key.KeyID, ExpiresAt: '2027-01-01T00:00:00.000Z' },
    ]);

    // The replaced key, in its grace period, is not rotated again (its replacement is), and nothing changes.
    const before = (await call('GET', '/keys', w.admin)).body;
    expect(answer(await call('POST', `/keys/${old.KeyID}/rotate`, w.admin, { GraceHours: 48 }))).toEqual({
      status: 409,
      body: problems(
        `API key ${old.KeyID} was already replaced by key ${Key.KeyID} and works only until ${graceEnd}; rotate key ${Key.KeyID} instead`,
      ),
    });
    expect((await call('GET', '/keys', w.admin)).body).toBe(before);
    expect((await itemSearch(old.Key)).statusCode).toBe(200);
    const again = await call('POST', `/keys/${Key.KeyID}/rotate`, w.admin);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as { Key: Json }).Key).toMatchObject({ ExpiresAt: '2027-01-01T00:00:00.000Z', RateLimit: 100, Label: 'ERP' });
  });

  it('refuses a key it revoked, or rotated without grace, from the very next request on this server', async () => {
    const make = async () =>
      (
        (await call('POST', '/keys', w.admin, { Role: 'customer', Customers: [w.tenant.customerIds[0]!] })).json() as {
          Key: { KeyID: number; Key: string };
        }
      ).Key;
    const revoked = await make();
    // Found once, so that the server remembers it.
    expect((await itemSearch(revoked.Key)).statusCode).toBe(200);
    expect((await call('DELETE', `/keys/${revoked.KeyID}`, w.admin)).statusCode).toBe(200);
    // The test clock has not moved: still within the second a server may trust a key it found.
    const refused = await itemSearch(revoked.Key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual(problems('Unknown or revoked API key'));

    const cut = await make();
    expect((await itemSearch(cut.Key)).statusCode).toBe(200);
    const rotated = await call('POST', `/keys/${cut.KeyID}/rotate`, w.admin, { GraceHours: 0 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await itemSearch(cut.Key)).statusCode).toBe(401);
    expect((await itemSearch((rotated.json() as { Key: { Key: string } }).Key.Key)).statusCode).toBe(200);
    // Every other key keeps working.
    expect((await itemSearch(w.customer)).statusCode).toBe(200);
  });

  it('records every change with the key that made it, never a key itself, newest first; a refused change records nothing', async () => {
    const made = (await call('POST', '/keys', w.admin, { Role: 'operator', Label: 'WMS' })).json() as {
      Key: { KeyID: number; Key: string };
    };
    await call('POST', '/customers', w.admin, { CustomerID: 'GLOBEX', Name: 'Globex' });
    await call('POST', '/customers', w.admin, { CustomerID: 'GLOBEX' });
    await call('PATCH', '/customers/GLOBEX', w.admin, { Name: 'Globex West' });
    await call('POST', '/facilities', w.admin, { FacilityID: 'ORD1', TimeZone: 'America/Chicago' });
    await call('PATCH', '/facilities/ORD1', w.admin, { TimeZone: 'America/New_York' });
    await call('PATCH', '/facilities/ORD1', w.admin, { TimeZone: 'Mars/Base' });
    const rotated = (await call('POST', `/keys/${made.Key.KeyID}/rotate`, w.admin, { GraceHours: 1 })).json() as { Key: { KeyID: number } };
    await call('DELETE', `/keys/${rotated.Key.KeyID}`, w.admin);
    await call('POST', '/rate-cards', w.admin, { Card: JSON.parse(readFileSync(EXAMPLE_RATE_CARD, 'utf8')) });

    const adminKeyId = ((await call('GET', '/keys', w.admin)).json() as { Keys: { KeyID: number; Role: string }[] }).Keys.find(
      (key) => key.Role === 'admin',
    )!.KeyID;
    const listed = await call('GET', '/changes', w.admin);
    expect(listed.statusCode).toBe(200);
    const changes = (listed.json() as { Changes: Json[] }).Changes;
    expect(changes.map(({ ChangeID: _id, ...change }) => change)).toEqual(
      [
        {
          Action: 'key.created',
          Subject: String(made.Key.KeyID),
          Detail: { Role: 'operator', Customers: [], Facilities: [], UserIDs: [], Label: 'WMS', RateLimit: null, ExpiresAt: null },
        },
        { Action: 'customer.created', Subject: 'GLOBEX', Detail: { Name: 'Globex' } },
        { Action: 'customer.updated', Subject: 'GLOBEX', Detail: { Name: 'Globex West' } },
        { Action: 'facility.created', Subject: 'ORD1', Detail: { Name: 'ORD1', TimeZone: 'America/Chicago' } },
        {
          Action: 'facility.updated',
          Subject: 'ORD1',
          Detail: { Name: 'ORD1', TimeZone: 'America/New_York', Before: { Name: 'ORD1', TimeZone: 'America/Chicago' } },
        },
        {
          Action: 'key.rotated',
          Subject: String(made.Key.KeyID),
          Detail: { NewKeyID: rotated.Key.KeyID, GraceHours: 1, ReplacedExpiresAt: new Date(Date.parse(NOW) + HOUR).toISOString() },
        },
        { Action: 'key.revoked', Subject: String(rotated.Key.KeyID), Detail: { RevokedWhen: NOW } },
        { Action: 'rate-card.loaded', Subject: '1', Detail: { UserID: null, Name: 'Demo Parcel Rates 2026', Changed: true } },
      ]
        .reverse()
        .map((change) => ({ KeyID: adminKeyId, ...change, CreatedWhen: NOW })),
    );
    expect(listed.body).not.toContain(made.Key.Key);
    const ids = changes.map((change) => change.ChangeID as number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const older = await call('GET', `/changes?Before=${ids[1]}`, w.admin);
    expect((older.json() as { Changes: Json[] }).Changes).toEqual(changes.slice(2));
  });

  it('counts admin calls against the key’s limit of requests a minute, with the RateLimit headers and 429', async () => {
    const limited = (await call('POST', '/keys', w.admin, { Role: 'admin', RateLimit: 2 })).json() as { Key: { Key: string } };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call('GET', '/customers', limited.Key.Key));
    expect(
      answers.map((response) => [response.statusCode, response.headers['ratelimit-limit'], response.headers['ratelimit-remaining']]),
    ).toEqual([
      [200, '2', '1'],
      [200, '2', '0'],
      [429, '2', '0'],
    ]);
    const retryAfter = answers[2]!.headers['retry-after'];
    expect(retryAfter).toMatch(/^\d+$/);
    expect(answers[2]!.json()).toEqual(problems(`Too many requests: this API key may make 2 a minute; retry in ${retryAfter} s`));
  });

  it('answers a method the path does not take with 405 and Allow', async () => {
    const response = await call('GET', '/keys/1', w.admin);
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('DELETE');
    expect(response.json()).toEqual(problems('Method GET is not allowed on /admin/v1/keys/1; it takes DELETE'));
  });
});

describeEachDialect('admin API isolation', (dialect) => {
  const ctx = useTestApp(dialect);
  let a: Tenant;
  let b: Tenant;
  let keys: Record<RivalKey, string>;
  let aKeyId: number;

  beforeEach(async () => {
    ctx().clock.time = Date.parse(NOW);
    ({ a, b, keys } = await createRivals(ctx().database.db, ctx().clock));
    const listed = await ctx().app.inject({ method: 'GET', url: `${ADMIN}/keys`, headers: { authorization: `APIKey ${keys.adminA}` } });
    aKeyId = (listed.json() as { Keys: { KeyID: number }[] }).Keys[0]!.KeyID;
  });

  const call = adminCaller(ctx);
  const routes = (): [Method, string, Json | undefined][] => [
    ['GET', '/customers', undefined],
    ['POST', '/customers', { CustomerID: uniqueId('NEW') }],
    ['PATCH', `/customers/${a.customerIds[0]}`, { Name: 'x' }],
    ['GET', '/facilities', undefined],
    ['POST', '/facilities', { FacilityID: uniqueId('NEW') }],
    ['PATCH', `/facilities/${a.facilityIds[0]}`, { Name: 'x' }],
    ['GET', '/keys', undefined],
    ['POST', '/keys', { Role: 'admin' }],
    ['POST', `/keys/${aKeyId}/rotate`, {}],
    ['DELETE', `/keys/${aKeyId}`, undefined],
    ['GET', '/rate-cards', undefined],
    ['POST', '/rate-cards', { Card: { name: 'x' } }],
    ['GET', '/rate-cards/1', undefined],
    ['GET', '/webhook-endpoints', undefined],
    ['GET', '/changes', undefined],
  ];

  it('refuses every admin operation to a request without a key and to every key but an admin’s', async () => {
    const roles: [RivalKey, string][] = [
      ['c1', 'customer'],
      ['opF1', 'operator'],
      ['raterA', 'rater'],
    ];
    for (const [method, path, body] of routes()) {
      const keyless = await call(method, path, undefined, body);
      expect({ route: `${method} ${path}`, status: keyless.statusCode, body: keyless.json() }).toEqual({
        route: `${method} ${path}`,
        status: 401,
        body: problems('Missing Authorization header; send Authorization: APIKey <key>'),
      });
      for (const [key, role] of roles) {
        const refused = await call(method, path, keys[key], body);
        expect({ route: `${method} ${path}`, status: refused.statusCode, body: refused.json() }).toEqual({
          route: `${method} ${path}`,
          status: 403,
          body: problems(`An API key with role ${role} may not call this operation`),
        });
      }
    }
  });

  it("shows another company's admin only its own company, and answers A's records as unknown ones", async () => {
    const listed = await call('GET', '/customers', keys.adminB);
    expect(listed.json()).toEqual({ Customers: [{ CustomerID: b.customerIds[0]!, Name: b.customerIds[0]!, CreatedWhen: NOW }] });
    const facilities = await call('GET', '/facilities', keys.adminB);
    expect((facilities.json() as { Facilities: { FacilityID: string }[] }).Facilities.map((f) => f.FacilityID)).toEqual(b.facilityIds);
    const bKeys = (await call('GET', '/keys', keys.adminB)).json() as { Keys: { KeyID: number }[] };
    expect(bKeys.Keys.map((key) => key.KeyID)).not.toContain(aKeyId);

    expect(answerOf(await call('PATCH', `/customers/${a.customerIds[0]}`, keys.adminB, { Name: 'x' }))).toEqual({
      status: 404,
      body: { error: `Customer ${a.customerIds[0]} not found in company ${b.companyId}` },
    });
    expect(answerOf(await call('PATCH', `/facilities/${a.facilityIds[0]}`, keys.adminB, { Name: 'x' }))).toEqual({
      status: 404,
      body: { error: `Facility ${a.facilityIds[0]} not found in company ${b.companyId}` },
    });
    expect(answerOf(await call('POST', `/keys/${aKeyId}/rotate`, keys.adminB))).toEqual({
      status: 404,
      body: { error: `API key ${aKeyId} not found` },
    });
    expect(answerOf(await call('DELETE', `/keys/${aKeyId}`, keys.adminB))).toEqual({
      status: 404,
      body: { error: `API key ${aKeyId} not found` },
    });
    // A customer of A's name is B's own when B adds it: the companies do not share ids.
    expect((await call('POST', '/customers', keys.adminB, { CustomerID: a.customerIds[0]! })).statusCode).toBe(201);

    // A's records are as they were.
    const aCustomers = await call('GET', '/customers', keys.adminA);
    expect((aCustomers.json() as { Customers: { Name: string }[] }).Customers.map((c) => c.Name)).toEqual([...a.customerIds].sort());
    const aKey = (
      (await call('GET', '/keys', keys.adminA)).json() as { Keys: { KeyID: number; RevokedWhen: unknown; ExpiresAt: unknown }[] }
    ).Keys[0]!;
    expect(aKey).toMatchObject({ KeyID: aKeyId, RevokedWhen: null, ExpiresAt: null });
  });

  const answerOf = (response: LightMyRequestResponse) => ({ status: response.statusCode, body: response.json() as unknown });
});
