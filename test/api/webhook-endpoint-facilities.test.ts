import { beforeEach, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../src/modules/admin/admin.routes.js';
import { fanOut } from '../../src/modules/webhooks/deliveries.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, createWorld, expectOk, problems, receiptBody, type World } from '../helpers/factories.js';
import * as paths from '../helpers/paths.js';

/**
 * Webhook endpoints limited to facilities: FacilityIDs on create, update and every answer; a key
 * limited to facilities manages exactly the endpoints limited to some of its facilities, and makes
 * its own limited to its facilities; an endpoint limited to facilities is sent their events and its
 * customer's events of no facility (the item master's), and nothing of another facility.
 */

type Json = Record<string, unknown>;
const ENDPOINT = paths.WEBHOOK_ENDPOINT;
const DELIVERY = paths.WEBHOOK_DELIVERY;

describeEachDialect('webhook endpoints limited to facilities', (dialect) => {
  const ctx = useTestApp(dialect, { rateLimitEdi: 0 });
  let w: World;
  /** A key of the first customer limited to the first facility. */
  let f1Key: string;
  let F1: string;
  let F2: string;

  beforeEach(async () => {
    w = await createWorld(ctx().database.db, ctx().clock);
    [F1, F2] = w.tenant.facilityIds as [string, string];
    f1Key = await createKey(ctx().database.db, ctx().clock, w.tenant, 'customer', {
      customerIds: [w.tenant.customerIds[0]!],
      facilityIds: [F1],
    });
  });

  const customer = (index = 0) => ({ CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[index]! });
  const call = async (path: string, body: Json, key: string) => {
    const response = await ctx().post(path, body, key);
    return { status: response.statusCode, body: response.json() };
  };
  let hooks = 0;
  const create = async (body: Json, key: string) =>
    (await expectOk(ctx().post(`${ENDPOINT}/create`, { ...customer(), Url: `https://hooks.example.com/${++hooks}`, ...body }, key))).json()
      .Endpoint as { EndpointID: string; FacilityIDs: string[] | null };
  const listed = async (key: string, body: Json = customer()) =>
    ((await expectOk(ctx().post(`${ENDPOINT}/list`, body, key))).json().Endpoints as { EndpointID: string; FacilityIDs: unknown }[]).map(
      (e) => [e.EndpointID, e.FacilityIDs],
    );

  it('takes FacilityIDs at creation and in an update, and shows them in every answer; null takes every facility', async () => {
    const both = [F1, F2].sort();
    const made = await create({ FacilityIDs: [...both].reverse() }, w.customer);
    expect(made.FacilityIDs).toEqual(both);
    const plain = await create({}, w.customer);
    expect(plain.FacilityIDs).toBeNull();
    expect(await listed(w.customer)).toEqual([
      [made.EndpointID, both],
      [plain.EndpointID, null],
    ]);

    const id = { ...customer(), EndpointID: made.EndpointID };
    const narrowed = await call(`${ENDPOINT}/update`, { ...id, FacilityIDs: [F2] }, w.customer);
    expect(narrowed).toMatchObject({ status: 200, body: { Endpoint: { EndpointID: made.EndpointID, FacilityIDs: [F2] } } });
    // An update that does not send FacilityIDs keeps them.
    const described = await call(`${ENDPOINT}/update`, { ...id, Description: 'F2 only' }, w.customer);
    expect(described).toMatchObject({ status: 200, body: { Endpoint: { FacilityIDs: [F2], Description: 'F2 only' } } });
    const rotated = await call(`${ENDPOINT}/rotate-secret`, id, w.customer);
    expect(rotated).toMatchObject({ status: 200, body: { Endpoint: { FacilityIDs: [F2] } } });
    const everywhere = await call(`${ENDPOINT}/update`, { ...id, FacilityIDs: null }, w.customer);
    expect(everywhere).toMatchObject({ status: 200, body: { Endpoint: { FacilityIDs: null } } });

    // An admin's endpoint of every customer may be limited too; the admin API lists them all.
    const companyWide = await create({ CustomerID: undefined, FacilityIDs: [F1] }, w.admin);
    expect(companyWide.FacilityIDs).toEqual([F1]);
    const admin = await ctx().app.inject({
      method: 'GET',
      url: `${ADMIN_PREFIX}/webhook-endpoints`,
      headers: { authorization: `APIKey ${w.admin}` },
    });
    expect(admin.statusCode, admin.body).toBe(200);
    expect((admin.json().Endpoints as { EndpointID: string; FacilityIDs: unknown }[]).map((e) => [e.EndpointID, e.FacilityIDs])).toEqual([
      [made.EndpointID, null],
      [plain.EndpointID, null],
      [companyWide.EndpointID, [F1]],
    ]);
  });

  it('refuses a facility the company does not have (400 Not found facility) before one outside the key (403), and changes nothing', async () => {
    const other = await createTenant(ctx().database.db, ctx().clock);
    const notFound = { status: 400, body: { error: 'Not found facility' } };
    const create = (body: Json, key: string) =>
      call(`${ENDPOINT}/create`, { ...customer(), Url: 'https://hooks.example.com/refused', ...body }, key);
    expect(await create({ FacilityIDs: ['NOWHERE'] }, w.customer)).toEqual(notFound);
    expect(await create({ FacilityIDs: [F1, other.facilityIds[0]!] }, w.customer)).toEqual(notFound);
    // Every facility's existence is checked before any one's scope.
    expect(await create({ FacilityIDs: [F2, 'NOWHERE'] }, f1Key)).toEqual(notFound);
    expect(await create({ FacilityIDs: [F1, F2] }, f1Key)).toEqual({
      status: 403,
      body: problems(`FacilityID ${F2} is outside this API key's scope`),
    });
    expect(await create({ FacilityIDs: null }, f1Key)).toEqual({
      status: 403,
      body: problems("FacilityIDs null (every facility) is outside this API key's scope"),
    });
    expect(await create({ FacilityIDs: [] }, w.customer)).toEqual({
      status: 400,
      body: problems('FacilityIDs must have at least 1 item'),
    });
    expect(await create({ FacilityIDs: [F1, F1] }, w.customer)).toEqual({
      status: 400,
      body: problems('FacilityIDs must NOT have duplicate items (items ## 1 and 0 are identical)'),
    });
    expect(await listed(w.admin, { CompanyID: w.tenant.companyId })).toEqual([]);

    const own = await create({}, f1Key);
    expect(own.status).toBe(200);
    const id = { ...customer(), EndpointID: (own.body as { Endpoint: { EndpointID: string } }).Endpoint.EndpointID };
    expect(await call(`${ENDPOINT}/update`, { ...id, FacilityIDs: ['NOWHERE'] }, w.customer)).toEqual(notFound);
    expect(await call(`${ENDPOINT}/update`, { ...id, FacilityIDs: [F2] }, f1Key)).toEqual({
      status: 403,
      body: problems(`FacilityID ${F2} is outside this API key's scope`),
    });
    expect(await call(`${ENDPOINT}/update`, { ...id, FacilityIDs: null }, f1Key)).toEqual({
      status: 403,
      body: problems("FacilityIDs null (every facility) is outside this API key's scope"),
    });
    expect(await listed(w.customer)).toEqual([[id.EndpointID, [F1]]]);
  });

  it('lets a key limited to facilities manage exactly the endpoints limited to some of its facilities; its own are limited to its facilities', async () => {
    const every = await create({}, w.customer);
    const onlyF1 = await create({ FacilityIDs: [F1] }, w.customer);
    const both = await create({ FacilityIDs: [F1, F2] }, w.customer);
    const onlyF2 = await create({ FacilityIDs: [F2] }, w.customer);
    const companyWide = await create({ CustomerID: undefined, FacilityIDs: [F1] }, w.admin);
    const own = await create({ Description: 'made by the F1 key' }, f1Key);
    expect(own.FacilityIDs).toEqual([F1]);

    expect(await listed(f1Key)).toEqual([
      [onlyF1.EndpointID, [F1]],
      [own.EndpointID, [F1]],
    ]);
    // The whole customer's key sees them all.
    expect((await listed(w.customer)).map(([id]) => id)).toEqual([
      every.EndpointID,
      onlyF1.EndpointID,
      both.EndpointID,
      onlyF2.EndpointID,
      own.EndpointID,
    ]);

    for (const outside of [every, both, onlyF2, companyWide]) {
      const id = { ...customer(), EndpointID: outside.EndpointID };
      const unknown = { status: 404, body: { error: `Not found endpoint ${outside.EndpointID}` } };
      expect(await call(`${ENDPOINT}/update`, { ...id, Description: 'taken over' }, f1Key)).toEqual(unknown);
      expect(await call(`${ENDPOINT}/rotate-secret`, id, f1Key)).toEqual(unknown);
      expect(await call(`${ENDPOINT}/delete`, id, f1Key)).toEqual(unknown);
      expect(await call(`${DELIVERY}/replay`, { ...id, Since: '2026-01-01T00:00:00Z' }, f1Key)).toEqual(unknown);
    }
    expect((await listed(w.customer)).length).toBe(5);

    const id = { ...customer(), EndpointID: onlyF1.EndpointID };
    expect(await call(`${ENDPOINT}/update`, { ...id, Description: 'F1 feed' }, f1Key)).toMatchObject({
      status: 200,
      body: { Endpoint: { EndpointID: onlyF1.EndpointID, FacilityIDs: [F1], Description: 'F1 feed' } },
    });
    expect(await call(`${ENDPOINT}/rotate-secret`, id, f1Key)).toMatchObject({ status: 200, body: { Endpoint: { FacilityIDs: [F1] } } });
    expect(await call(`${ENDPOINT}/delete`, id, f1Key)).toEqual({
      status: 200,
      body: { Endpoint: { EndpointID: onlyF1.EndpointID, Deleted: true } },
    });
    expect(await listed(f1Key)).toEqual([[own.EndpointID, [F1]]]);
  });

  it('sends an endpoint limited to facilities their events and the item master’s, nothing of another facility; its key’s log shows only its endpoints', async () => {
    const every = await create({ EventTypes: ['receipt.imported', 'item.created'] }, w.customer);
    const own = await create({ EventTypes: ['receipt.imported', 'item.created'] }, f1Key);
    const companyF2 = await create({ CustomerID: undefined, FacilityIDs: [F2], EventTypes: ['receipt.imported', 'item.created'] }, w.admin);
    const importReceipt = (customerIndex: number, facility: number, key: string) =>
      expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant, customer: customerIndex, facility }), key));
    await importReceipt(0, 0, w.customer);
    await importReceipt(0, 1, w.customer);
    await importReceipt(1, 1, w.otherCustomer);
    await expectOk(ctx().post(paths.ITEM_IMPORT, { ...customer(), Items: [{ itemID: 'IT-FAC' }] }, w.customer));
    await fanOut(ctx().database.db, ctx().clock.now());

    // What each event was, from the events search of the whole company's admin.
    const facilityOf = new Map<string, string>();
    for (const index of [0, 1]) {
      const events = await expectOk(ctx().post(paths.EVENT_SEARCH, customer(index), w.admin));
      for (const event of events.json().results.data as { EventID: string; Type: string; Data: { FacilityID?: string } }[]) {
        facilityOf.set(event.EventID, `${event.Type} ${customer(index).CustomerID} ${event.Data.FacilityID ?? 'no facility'}`);
      }
    }
    const deliveries = async (key: string, body: Json) => {
      const found = await expectOk(ctx().post(`${DELIVERY}/search-by-paging`, body, key));
      return (found.json().results.data as { DeliveryID: string; EndpointID: string; EventID: string }[]).map((d) => ({
        ...d,
        what: facilityOf.get(d.EventID),
      }));
    };
    const [c1, c2] = w.tenant.customerIds as [string, string];
    const sentTo = async (key: string, body: Json, endpointId: string) =>
      (await deliveries(key, { ...body, EndpointID: endpointId })).map((d) => d.what);
    expect(await sentTo(w.customer, customer(), every.EndpointID)).toEqual([
      `receipt.imported ${c1} ${F1}`,
      `receipt.imported ${c1} ${F2}`,
      `item.created ${c1} no facility`,
    ]);
    expect(await sentTo(w.customer, customer(), own.EndpointID)).toEqual([
      `receipt.imported ${c1} ${F1}`,
      `item.created ${c1} no facility`,
    ]);
    expect(await sentTo(w.admin, { CompanyID: w.tenant.companyId }, companyF2.EndpointID)).toEqual([
      `receipt.imported ${c1} ${F2}`,
      `receipt.imported ${c2} ${F2}`,
      `item.created ${c1} no facility`,
    ]);

    // The F1 key's log: only its endpoint's deliveries; another endpoint's, named, is nothing.
    const mine = await deliveries(f1Key, customer());
    expect(mine.map((d) => [d.EndpointID, d.what])).toEqual([
      [own.EndpointID, `receipt.imported ${c1} ${F1}`],
      [own.EndpointID, `item.created ${c1} no facility`],
    ]);
    const named = await call(`${DELIVERY}/search-by-paging`, { ...customer(), EndpointID: every.EndpointID }, f1Key);
    expect(named).toEqual({
      status: 200,
      body: { results: { data: [] }, paging: { totalCount: 0, pageNo: 1, totalPage: 0, startIndex: 0, endIndex: 0, limit: 100 } },
    });
    const [toEvery] = await deliveries(w.customer, { ...customer(), EndpointID: every.EndpointID });
    expect(await call(`${DELIVERY}/replay`, { ...customer(), DeliveryID: toEvery!.DeliveryID }, f1Key)).toEqual({
      status: 404,
      body: { error: `Not found delivery ${toEvery!.DeliveryID}` },
    });
    expect(await call(`${DELIVERY}/replay`, { ...customer(), DeliveryID: mine[0]!.DeliveryID }, f1Key)).toEqual({
      status: 200,
      body: { Replayed: 1 },
    });
  });
});
