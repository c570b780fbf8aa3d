import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { buildOrder, buildReceipt, createWorld, expectOk, idsOf, stock, uniqueId, type World } from '../helpers/factories.js';
import {
  EVENT_SEARCH,
  INVENTORY_SEARCH,
  ITEM_IMPORT,
  ITEM_SEARCH,
  LEDGER_SEARCH,
  ORDER_ACK_SEARCH,
  ORDER_DC_SEARCH,
  ORDER_LEVEL_SEARCH,
  RECEIPT_ACK_SEARCH,
  RECEIPT_LEVEL_SEARCH,
  RECEIPT_RC_SEARCH,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from '../helpers/paths.js';

/**
 * The searches' cursors (docs/paging.md): a page's `paging.next` (or X-Page-Next), sent back as
 * `Paging.After`, answers the next page; reading a search through its cursors gives the same rows
 * in the same order as reading it by PageNo, with the same paging, including rows that share a
 * time; a page after a cursor is placed where the cursor's row is now.
 */

type Json = Record<string, any>;

/** Seven of each document, posting and item, the times of some of them equal to the millisecond. */
const TIMES = [
  '2026-03-05T18:00:00.000Z',
  '2026-03-05T18:00:00.000Z',
  '2026-03-05T17:00:00.000Z',
  '2026-03-06T19:00:00.000Z',
  '2026-03-05T18:00:00.000Z',
  '2026-03-07T08:00:00.000Z',
  '2026-03-07T08:00:00.000Z',
];

interface Page {
  records: unknown[];
  paging: Json;
}

describeEachDialect('cursor paging of the document searches', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
    const { tenant } = world;
    const opts = { tenant, key: world.customer, operatorKey: world.operator };
    const sku = uniqueId('SKU');
    await stock(ctx(), { tenant, items: [{ ItemNumber: sku, Qty: '1000' }], key: world.admin });
    for (const [n, at] of TIMES.entries()) {
      ctx().clock.time = Date.parse(at);
      await buildOrder(ctx(), { ...opts, status: 'Partial Shipped', content: { Items: [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }] } });
      await buildReceipt(ctx(), { ...opts, status: 'In Progress' });
      // The second customer's postings: its ledger holds these alone.
      await stock(ctx(), { tenant, customer: 1, items: [{ ItemNumber: sku, Qty: '1' }] });
      // Items whose itemIDs do not sort as their times do: the item master pages in itemID order.
      const item = { itemID: `ITEM-${'GCAFDBE'[n]}`, status: 'Active' };
      await expectOk(
        ctx().post(ITEM_IMPORT, { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0], Items: [item] }, world.customer),
      );
    }
  });

  /** One page of a search, its records and paging (from the body, or the headers of an array). */
  async function read(path: string, body: Json, key: string, paging: Json): Promise<Page> {
    const response: LightMyRequestResponse = await ctx().post(path, { ...body, Paging: paging }, key);
    expect(response.statusCode, response.body).toBe(200);
    const json = response.json();
    if (Array.isArray(json)) {
      const headers = response.headers;
      return {
        records: json,
        paging: {
          totalCount: Number(headers['x-total-count']),
          pageNo: Number(headers['x-page-no']),
          ...(headers['x-page-next'] === undefined ? {} : { next: headers['x-page-next'] }),
        },
      };
    }
    return { records: json.results.data, paging: json.paging };
  }

  const searches = () => {
    const { tenant } = world;
    const customer = { ...idsOf(tenant) };
    const facility = { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0] };
    return [
      ['DN header', ORDER_LEVEL_SEARCH, customer, world.customer],
      ['RN header', RECEIPT_LEVEL_SEARCH, customer, world.customer],
      ['DC', ORDER_DC_SEARCH, customer, world.customer],
      ['RC', RECEIPT_RC_SEARCH, customer, world.customer],
      ['DN ACK', ORDER_ACK_SEARCH, customer, world.customer],
      ['RN ACK', RECEIPT_ACK_SEARCH, customer, world.customer],
      ['3PL order list', `${THREEPL_ORDER}/list`, facility, world.operator],
      ['3PL receipt list', `${THREEPL_RECEIPT}/list`, facility, world.operator],
      ['ledger', LEDGER_SEARCH, { ...facility, CustomerID: tenant.customerIds[1] }, world.operator],
      ['ledger of a source type', LEDGER_SEARCH, { ...customer, Source: { Type: 'shipment' } }, world.operator],
      ['item master', ITEM_SEARCH, { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] }, world.customer],
    ] as const;
  };

  it('reads every search through its cursors exactly as by PageNo, ties included', async () => {
    for (const [name, path, body, key] of searches()) {
      const byNumber: Page[] = [];
      for (let pageNo = 1; pageNo <= 4; pageNo++) byNumber.push(await read(path, body, key, { PageNo: pageNo, PageSize: 2 }));
      const byCursor: Page[] = [byNumber[0]!];
      while (byCursor.at(-1)!.paging.next !== undefined)
        byCursor.push(await read(path, body, key, { After: byCursor.at(-1)!.paging.next, PageSize: 2 }));
      expect(byCursor.length, name).toBe(4);
      expect(
        byCursor.map((page) => page.records),
        name,
      ).toEqual(byNumber.map((page) => page.records));
      // Past the first page the cursor's pages carry the same paging as the numbered ones.
      expect(
        byCursor.map(({ paging: { next, ...rest } }) => ({ ...rest, hasNext: next !== undefined })),
        name,
      ).toEqual(byNumber.map(({ paging: { next, ...rest } }) => ({ ...rest, hasNext: next !== undefined })));
      expect(byNumber[3]!.records.length, name).toBe(1);
    }
  });

  it('places a page after a cursor where the cursor’s row is now: MarkOpen moves the rows before it away', async () => {
    const { tenant } = world;
    const facility = { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[1]! };
    const operator = world.otherOperator;
    for (const at of TIMES.slice(0, 5)) {
      ctx().clock.time = Date.parse(at);
      await buildOrder(ctx(), { tenant, facility: 1, key: world.customer });
    }
    ctx().clock.time = Date.parse('2026-03-08T10:00:00.000Z');
    const list = (paging: Json) => read(`${THREEPL_ORDER}/list`, { ...facility, Status: 'Imported', MarkOpen: true }, operator, paging);
    const first = await list({ PageSize: 2 });
    expect(first.paging).toMatchObject({ totalCount: 5, pageNo: 1, startIndex: 1, endIndex: 2 });
    // The two orders opened are no longer Imported: the next page is the first of the three left.
    const second = await list({ After: first.paging.next, PageSize: 2 });
    expect(second.paging).toEqual({
      totalCount: 3,
      pageNo: 1,
      totalPage: 2,
      startIndex: 1,
      endIndex: 2,
      limit: 2,
      next: expect.any(String),
    });
    const third = await list({ After: second.paging.next, PageSize: 2 });
    expect(third.paging).toEqual({ totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 2 });
    expect(new Set([...first.records, ...second.records, ...third.records].map((row) => JSON.stringify(row))).size).toBe(5);
    const left = await read(`${THREEPL_ORDER}/list`, { ...facility, Status: 'Imported' }, operator, { PageSize: 2 });
    expect(left.paging.totalCount).toBe(0);
  });

  it('places a page of the item master after a cursor where the cursor’s item is now: items imported before it move it', async () => {
    const { tenant } = world;
    const body = { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[1] };
    const importItems = (itemIds: string[]) =>
      expectOk(ctx().post(ITEM_IMPORT, { ...body, Items: itemIds.map((itemID) => ({ itemID })) }, world.otherCustomer));
    const itemIds = (page: Page) => page.records.map((record) => (record as Json).itemID);
    await importItems(['B', 'D', 'F', 'H']);
    const first = await read(ITEM_SEARCH, body, world.otherCustomer, { PageSize: 2 });
    expect(itemIds(first)).toEqual(['B', 'D']);
    // Two items before the cursor's D, one after it.
    await importItems(['A', 'C', 'E']);
    const second = await read(ITEM_SEARCH, body, world.otherCustomer, { After: first.paging.next, PageSize: 2 });
    expect(itemIds(second)).toEqual(['E', 'F']);
    expect(second.paging).toEqual({
      totalCount: 7,
      pageNo: 3,
      totalPage: 4,
      startIndex: 5,
      endIndex: 6,
      limit: 2,
      next: expect.any(String),
    });
    const third = await read(ITEM_SEARCH, body, world.otherCustomer, { After: second.paging.next, PageSize: 2 });
    expect(itemIds(third)).toEqual(['H']);
    expect(third.paging).toEqual({ totalCount: 7, pageNo: 4, totalPage: 4, startIndex: 7, endIndex: 7, limit: 2 });
  });

  it('refuses the cursor of a search in another order: an id’s, a SVCPOID’s or an itemID’s where its search breaks ties otherwise', async () => {
    // What breaks ties in each search's order (the item master's order is its itemID alone).
    const tieOf: Record<string, string> = {
      'DN header': 'svcpoid',
      'RN header': 'svcpoid',
      '3PL order list': 'svcpoid',
      '3PL receipt list': 'svcpoid',
      DC: 'id',
      RC: 'id',
      'DN ACK': 'id',
      'RN ACK': 'id',
      ledger: 'id',
      'ledger of a source type': 'id',
      'item master': 'itemID',
    };
    const cursors = new Map<string, string>();
    for (const [name, path, body, key] of searches()) cursors.set(name, (await read(path, body, key, { PageSize: 2 })).paging.next);
    const message = 'Paging.After must be the paging.next of an earlier page of this search';
    for (const [name, path, body, key] of searches()) {
      for (const [from, after] of cursors) {
        if (tieOf[from] === tieOf[name]) continue;
        const response = await ctx().post(path, { ...body, Paging: { After: after } }, key);
        expect(response.statusCode, `${from}'s cursor to the ${name} search`).toBe(400);
        expect(response.json(), `${from}'s cursor to the ${name} search`).toEqual([{ code: `EDI-ERROR-${message}`, error: message }]);
      }
    }
  });

  it('refuses a cursor sent to a search that hands out none, rather than answer its first page again', async () => {
    const { tenant } = world;
    const cursor = (await read(ORDER_LEVEL_SEARCH, { ...idsOf(tenant) }, world.customer, { PageSize: 1 })).paging.next;
    const message = 'Paging.After is not taken by this search: page it by PageNo';
    for (const [path, body] of [
      [INVENTORY_SEARCH, { ...idsOf(tenant) }],
      [EVENT_SEARCH, { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] }],
    ] as const) {
      const response = await ctx().post(path, { ...body, Paging: { After: cursor } }, world.customer);
      expect(response.statusCode, path).toBe(400);
      expect(response.json(), path).toEqual([{ code: `EDI-ERROR-${message}`, error: message }]);
      await expectOk(ctx().post(path, { ...body, Paging: { PageNo: 1 } }, world.customer));
    }
  });

  it('refuses a cursor it did not hand out, changing nothing', async () => {
    const { tenant } = world;
    const body = { ...idsOf(tenant) };
    for (const after of [
      Buffer.from('[1,2,3]').toString('base64url'),
      Buffer.from('{"at":1}').toString('base64url'),
      'bm90IGpzb24',
      Buffer.from('[-1,"DN-1"]').toString('base64url'),
    ]) {
      const response = await ctx().post(ORDER_LEVEL_SEARCH, { ...body, Paging: { After: after } }, world.customer);
      expect(response.statusCode, after).toBe(400);
      expect(response.json(), after).toEqual([
        {
          code: 'EDI-ERROR-Paging.After must be the paging.next of an earlier page of this search',
          error: 'Paging.After must be the paging.next of an earlier page of this search',
        },
      ]);
    }
    // One that is not even base64url gets the same answer; one longer than any cursor, its length's.
    for (const [after, message] of [
      ['not a cursor!', 'Paging.After must be the paging.next of an earlier page of this search'],
      ['A'.repeat(201), 'Paging.After must be at most 200 characters'],
    ]) {
      const malformed = await ctx().post(ORDER_LEVEL_SEARCH, { ...body, Paging: { After: after } }, world.customer);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual([{ code: `EDI-ERROR-${message}`, error: message }]);
    }
    await expectOk(ctx().post(ORDER_LEVEL_SEARCH, body, world.customer));
  });
});
