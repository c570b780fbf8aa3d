import { readFileSync } from 'node:fs';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { createWharfClient, WharfError } from 'wharf-client';
import { EXAMPLE_RATE_CARD } from '../src/demo.js';
import { loadRateCard } from '../src/modules/rating/rating.service.js';
import { addPartner } from '../src/modules/x12/partners.service.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { buildOrder, createKey, createWorld, problems, uniqueId, type World } from './helpers/factories.js';
import { SHIP_TO } from './helpers/orders.js';

/**
 * wharf-client (docs/admin.md) against a real listening Wharf on both databases: typed calls of the
 * customer's, the warehouse's, the admin's and the rate engine's operations, an Idempotency-Key on
 * every change, WharfError for refusals, bounded retries after Retry-After, and paging.
 */

const EDI = '/shared/bam/v1/public';

describeEachDialect('wharf-client', (dialect) => {
  const ctx = useTestApp(dialect);
  let baseUrl: string;
  let w: World;
  let rater: string;
  /** Every request the client sent, as the server got it: method, path and Idempotency-Key. */
  let sent: { method: string; path: string; idempotencyKey: string | null }[];

  beforeAll(async () => {
    baseUrl = await ctx().app.listen({ host: '127.0.0.1', port: 0 });
  });
  beforeEach(async () => {
    w = await createWorld(ctx().database.db, ctx().clock);
    rater = await createKey(ctx().database.db, ctx().clock, w.tenant, 'rater', { userIds: [1] });
    sent = [];
  });

  /** A client whose requests are noted in `sent` on their way. */
  const clientOf = (apiKey: string, send: (request: Request) => Promise<Response> = (request) => fetch(request)) =>
    createWharfClient({
      baseUrl,
      apiKey,
      maxRetryWaitMs: 5_000,
      fetch: (request) => {
        sent.push({ method: request.method, path: new URL(request.url).pathname, idempotencyKey: request.headers.get('idempotency-key') });
        return send(request);
      },
    });
  const ids = () => ({ CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, FacilityID: w.tenant.facilityIds[0]! });

  it('makes its Idempotency-Key without crypto.randomUUID, as on a page served over plain HTTP', async () => {
    // Browsers hide randomUUID outside secure contexts: shadow it on this process's crypto for the call.
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const { response } = await clientOf(w.customer).POST(`${EDI}/edi/item-master/import`, {
        body: { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Items: [{ itemID: 'PLAIN-HTTP' }] },
      });
      expect(response.status).toBe(200);
    } finally {
      delete (crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(sent.map((request) => request.idempotencyKey)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    expect(typeof crypto.randomUUID).toBe('function');
  });

  it("calls the customer's operations with typed bodies and answers, an Idempotency-Key on each change", async () => {
    const client = clientOf(w.customer);
    const { data: imported } = await client.POST(`${EDI}/edi/item-master/import`, {
      body: { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Items: [{ itemID: 'CUP-1' }, { itemID: 'CUP-2' }] },
    });
    expect(imported).toEqual({
      Items: [
        { itemID: 'CUP-1', Status: 'Created' },
        { itemID: 'CUP-2', Status: 'Created' },
      ],
    });
    const { data: order } = await client.POST(`${EDI}/edi/outbound/order`, {
      body: {
        ...ids(),
        POContent: {
          ReferenceNo: 'SO-1',
          PONo: 'PO-1',
          Address: SHIP_TO,
          Items: [{ ItemID: 'CUP-1', OrderedQty: '2', UOM: 'EA' }],
        },
      },
    });
    expect(order?.Order).toMatchObject({ ReferenceNo: 'SO-1', Status: 'Warning', Error: 'CUP-1: ordered 2, allocated 0, short 2' });
    const { data: found } = await client.POST(`${EDI}/edi/item-master/search-by-paging`, {
      body: { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Paging: { PageNo: 1, PageSize: 10 } },
    });
    expect(found?.results.data.map((item) => item.itemID)).toEqual(['CUP-1', 'CUP-2']);

    expect(sent.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `POST ${EDI}/edi/item-master/import`,
      `POST ${EDI}/edi/outbound/order`,
      `POST ${EDI}/edi/item-master/search-by-paging`,
    ]);
    // Each change carries a key of its own; the search, which changes nothing, none (docs/decisions.md).
    const [importKey, orderKey, searchKey] = sent.map((request) => request.idempotencyKey);
    expect([importKey, orderKey]).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(importKey).not.toBe(orderKey);
    expect(searchKey).toBeNull();
  });

  it('keeps an Idempotency-Key the caller gives, so that sending again replays the first answer', async () => {
    const client = clientOf(w.customer);
    const body = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Items: [{ itemID: 'MUG-1' }] };
    const first = await client.POST(`${EDI}/edi/item-master/import`, { body, headers: { 'Idempotency-Key': 'import-mug-1' } });
    const again = await client.POST(`${EDI}/edi/item-master/import`, { body, headers: { 'Idempotency-Key': 'import-mug-1' } });
    expect(again.data).toEqual(first.data);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent.map((request) => request.idempotencyKey)).toEqual(['import-mug-1', 'import-mug-1']);
  });

  it('throws a WharfError with the status, the spec’s problems and the request id', async () => {
    const client = clientOf(w.customer);
    const refused = await client
      .POST(`${EDI}/edi/item-master/search-by-paging`, { body: { CompanyID: w.tenant.companyId, CustomerID: '', Paging: { PageNo: 0 } } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WharfError);
    const error = refused as WharfError;
    expect(error.status).toBe(400);
    expect(error.problems).toEqual(problems('CustomerID must not be empty', 'Paging.PageNo must be at least 1'));
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.message).toBe('Wharf answered 400: CustomerID must not be empty; Paging.PageNo must be at least 1');

    const unknown = (await clientOf(w.operator)
      .POST(`${EDI}/edi/3pl/outbound/order/get`, {
        body: { CompanyID: w.tenant.companyId, FacilityID: w.tenant.facilityIds[0]!, SVCPOID: 'DN-999999' },
      })
      .catch((caught: unknown) => caught)) as WharfError;
    expect({ status: unknown.status, problems: unknown.problems }).toEqual({
      status: 404,
      problems: [{ error: 'Not found order DN-999999' }],
    });

    const keyless = (await createWharfClient({ baseUrl, apiKey: 'wk_not-a-key' })
      .GET('/admin/v1/customers')
      .catch((caught: unknown) => caught)) as WharfError;
    expect({ status: keyless.status, problems: keyless.problems }).toEqual({
      status: 401,
      problems: problems('Unknown or revoked API key'),
    });
  });

  it('retries a 429 or 503 after its Retry-After with the same Idempotency-Key, a bounded number of times', async () => {
    let refusals = 2;
    const busy = (status: number) => async (request: Request) => {
      if (refusals-- > 0) return new Response(JSON.stringify(problems('busy')), { status, headers: { 'retry-after': '0' } });
      return fetch(request);
    };
    const body = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Items: [{ itemID: 'TEE-1' }] };
    const { data } = await clientOf(w.customer, busy(429)).POST(`${EDI}/edi/item-master/import`, { body });
    expect(data).toEqual({ Items: [{ itemID: 'TEE-1', Status: 'Created' }] });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.idempotencyKey)).size).toBe(1);

    sent = [];
    refusals = 5;
    const given = (await clientOf(w.customer, busy(503))
      .POST(`${EDI}/edi/item-master/import`, { body })
      .catch((caught: unknown) => caught)) as WharfError;
    expect({ status: given.status, problems: given.problems }).toEqual({ status: 503, problems: problems('busy') });
    expect(sent).toHaveLength(3);
  });

  it('throws a 429 at once when its Retry-After is longer than the client may wait', async () => {
    const late = async () => new Response(JSON.stringify(problems('too many')), { status: 429, headers: { 'retry-after': '120' } });
    const refused = (await clientOf(w.customer, late)
      .POST(`${EDI}/edi/item-master/search-by-paging`, { body: { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! } })
      .catch((caught: unknown) => caught)) as WharfError;
    expect({ status: refused.status, problems: refused.problems }).toEqual({ status: 429, problems: problems('too many') });
    expect(sent).toHaveLength(1);
  });

  it('pages through a search: every record once, page by page', async () => {
    const client = clientOf(w.customer);
    const itemIds = Array.from({ length: 5 }, (_, i) => `PAGE-${i}`);
    await client.POST(`${EDI}/edi/item-master/import`, {
      body: { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, Items: itemIds.map((itemID) => ({ itemID })) },
    });
    const pages: string[][] = [];
    for await (const page of client.pages(
      `${EDI}/edi/item-master/search-by-paging`,
      { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! },
      2,
    )) {
      pages.push(page.map((item) => String(item.itemID)));
    }
    expect(pages).toEqual([itemIds.slice(0, 2), itemIds.slice(2, 4), itemIds.slice(4)]);
  });

  it('pages through a search by its cursors where it hands them out (X-Page-Next of an array answer)', async () => {
    const pagings: unknown[] = [];
    const client = clientOf(w.customer, async (request) => {
      pagings.push(((await request.clone().json()) as { Paging?: unknown }).Paging);
      return fetch(request);
    });
    const svcpoids: string[] = [];
    for (let i = 0; i < 5; i++) svcpoids.push((await buildOrder(ctx(), { tenant: w.tenant, key: w.customer })).svcpoid);
    const pages: string[][] = [];
    for await (const page of client.pages(`${EDI}/edi/outbound/order/ack/search-by-paging`, ids(), 2)) {
      pages.push(page.map((ack) => String((ack.ACK as { SVCPOID?: string }).SVCPOID)));
    }
    expect(pages).toEqual([svcpoids.slice(0, 2), svcpoids.slice(2, 4), svcpoids.slice(4)]);
    expect(pagings).toEqual([
      { PageNo: 1, PageSize: 2 },
      { After: expect.any(String), PageSize: 2 },
      { After: expect.any(String), PageSize: 2 },
    ]);
  });

  it('calls the admin API and the rate engine', async () => {
    const { data: customers } = await clientOf(w.admin).GET('/admin/v1/customers');
    expect(customers?.Customers.map((customer) => customer.CustomerID)).toEqual([...w.tenant.customerIds].sort());

    await loadRateCard(ctx().database.db, ctx().clock, { companyId: w.tenant.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
    const { data: quote } = await clientOf(rater).POST('/api/RateEngine/SVC/lastmile', {
      body: { UserID: 1, Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' } },
    });
    expect(quote).toEqual({
      Result: [
        // The test clock's day (2026-03-05) has its own fuel surcharge.
        { name: 'Economy', Price: '27.4200' },
        { name: 'Ground', Price: '38.1400' },
      ],
      Page: null,
      ErrorMsg: '',
      ErrorSeverity: 0,
      ErrorSource: '',
      Status: true,
    });
    // A read and a quote change nothing: neither carries an Idempotency-Key.
    expect(sent.map(({ method, idempotencyKey }) => [method, idempotencyKey])).toEqual([
      ['GET', null],
      ['POST', null],
    ]);
  });

  it('sends an X12 interchange as text and answers its 997; a TA1 is a WharfError whose body is the TA1', async () => {
    await addPartner(ctx().database.db, ctx().clock, {
      companyId: w.tenant.companyId,
      customerId: w.tenant.customerIds[0]!,
      id: 'CLIENTX12',
      qualifier: 'ZZ',
    });
    const { companyId } = w.tenant;
    const interchange = (isa13: string, iea13 = isa13) =>
      [
        `ISA*00*          *00*          *ZZ*CLIENTX12      *ZZ*${companyId.padEnd(15)}*261127*1200*U*00401*${isa13}*0*P*>~`,
        `GS*OW*CLIENTX12*${companyId}*20261127*1200*1*X*004010~`,
        'ST*940*0001~',
        `W05*N*${uniqueId('SO')}~`,
        `N1*WH*Warehouse*9*${w.tenant.facilityIds[0]}~`,
        'N1*ST*Jane Doe~',
        'N3*1 Market St~',
        'N4*San Francisco*CA*94105~',
        'LX*1~',
        'W01*1*EA**VN*CLIENT-SKU~',
        'SE*9*0001~',
        'GE*1*1~',
        `IEA*1*${iea13}~`,
      ].join('\n');
    const client = clientOf(w.customer);
    const answer = await client.sendInterchange(interchange('000000001'));
    expect(answer.split('\n').slice(3, 7)).toEqual(['AK1*OW*1~', 'AK2*940*0001~', 'AK5*E~', 'AK9*E*1*1*1~']);

    const refused = await client.sendInterchange(interchange('000000002', '000000009')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WharfError);
    expect([(refused as WharfError).status, ((refused as WharfError).body as string).split('\n')[1]]).toEqual([
      400,
      'TA1*000000002*261127*1200*R*001~',
    ]);
    expect(sent.map((request) => [request.method, request.path])).toEqual([
      ['POST', `${EDI}/edi/x12`],
      ['POST', `${EDI}/edi/x12`],
    ]);
  });
});
