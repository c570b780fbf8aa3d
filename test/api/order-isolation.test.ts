import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import {
  createRivals,
  idsOf,
  orderBody,
  problems,
  stock as openingStock,
  uniqueId,
  type RivalKey,
  type Tenant,
} from '../helpers/factories.js';
import { INVENTORY_SEARCH, ORDER_ACK_SEARCH, ORDER_CANCEL, ORDER_IMPORT } from '../helpers/paths.js';

/**
 * Tenant isolation on the customer's order endpoints — DN import, PUT cancel, DN ACK search
 * (docs/access.md: object-level authorization everywhere): another customer's key, another company's
 * key, a key limited to another facility and the operator and rater roles are refused (403) and
 * write no ACK; a FacilityID the company does not have is 400 Not found facility; the same numbers
 * used by another customer or company are their own orders; allocation never takes another
 * customer's or facility's stock; and no answer carries anything of the other tenant.
 */

const SKU = 'SKU-ISO';

describeEachDialect('order tenant isolation', (dialect) => {
  const ctx = useTestApp(dialect);
  // Company A: customers C1, C2; facilities F1, F2. Company B: its own customer and facility.
  let a: Tenant;
  let b: Tenant;
  const keys = {} as Record<RivalKey, string>;
  // C1's order in F1: what the others must never see or touch.
  const secret = { svcpoid: '', poNo: uniqueId('SECRETPO'), referenceNo: uniqueId('SECRETREF') };

  beforeAll(async () => {
    const { database, clock } = ctx();
    const rivals = await createRivals(database.db, clock);
    ({ a, b } = rivals);
    Object.assign(keys, rivals.keys);

    // Stock of one SKU for C1 in F1 (10) and in F2 (100), for C2 in F1 (100), and for B (100).
    await stock(a, 0, 0, '10');
    await stock(a, 0, 1, '100');
    await stock(a, 1, 0, '100');
    await stock(b, 0, 0, '100');

    const response = await ctx().post(ORDER_IMPORT, orderFor(a, 0, 0, secret.referenceNo, { PONo: secret.poNo }, '4'), keys.c1);
    expect(response.statusCode, response.body).toBe(200);
    secret.svcpoid = response.json().Order.SVCPOID;
  });

  async function stock(tenant: Tenant, customer: number, facility: number, qty: string) {
    const key = tenant === a ? keys.adminA : keys.adminB;
    await openingStock(ctx(), { tenant, customer, facility, items: [{ ItemNumber: SKU, UOM: 'EA', Qty: qty }], key });
  }
  const scopeOf = (tenant: Tenant, customer: number, facility: number) => idsOf(tenant, { customer, facility });
  const orderFor = (
    tenant: Tenant,
    customer: number,
    facility: number,
    referenceNo: unknown,
    content: Record<string, unknown> = {},
    qty = '1',
  ) =>
    orderBody({
      tenant,
      customer,
      facility,
      content: { ReferenceNo: referenceNo, Items: [{ ItemID: SKU, OrderedQty: qty, UOM: 'EA' }], ...content },
    });
  const put = (payload: unknown, key: string, headers: Record<string, string> = {}) => ctx().put(ORDER_CANCEL, payload, key, headers);

  /** Nothing of C1's order in the answer. */
  const expectNoLeak = (response: LightMyRequestResponse, ...hidden: string[]) => {
    for (const value of hidden.length > 0 ? hidden : [secret.svcpoid, secret.poNo, secret.referenceNo]) {
      // Whole tokens only: DN-1 must not match DN-12.
      const token = new RegExp(`(^|[^A-Za-z0-9-])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`);
      expect(token.test(response.body), `the answer leaks ${value}: ${response.body}`).toBe(false);
    }
  };
  /** The secret order's row, its lines and its allocations, to compare before and after. */
  const stored = async (svcpoid = secret.svcpoid) => {
    const db = ctx().database.db;
    const order = await sql`select * from orders where svcpoid = ${svcpoid}`.execute(db);
    const lines = await sql`select * from order_lines where svcpoid = ${svcpoid} order by line_no`.execute(db);
    const allocations = await sql`select * from order_allocations where svcpoid = ${svcpoid} order by line_no, lot_no`.execute(db);
    return JSON.stringify({ order: order.rows, lines: lines.rows, allocations: allocations.rows });
  };
  const statusOf = async (svcpoid: string) => {
    const { rows } = await sql<{ status: string }>`select status from orders where svcpoid = ${svcpoid}`.execute(ctx().database.db);
    return rows[0]!.status;
  };
  const ackCount = async () => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from acks`.execute(ctx().database.db);
    return Number(rows[0]!.n);
  };
  /** A customer's balance of the SKU in a facility: [OnHand, Allocated, Available]. */
  const balanceOf = async (tenant: Tenant, customer: number, facility: number) => {
    const key = tenant === a ? keys.adminA : keys.adminB;
    const response = await ctx().post(INVENTORY_SEARCH, { ...scopeOf(tenant, customer, facility), ItemNumber: SKU }, key);
    expect(response.statusCode, response.body).toBe(200);
    return response
      .json()
      .results.data.map((r: { OnHand: string; Allocated: string; Available: string }) => [r.OnHand, r.Allocated, r.Available]);
  };

  // ---- DN import -----------------------------------------------------------------------------

  it('DN import: another customer’s or company’s key, a key outside the facility, an operator or rater key → 403, no ACK', async () => {
    const before = await stored();
    const acksBefore = await ackCount();
    const update = orderFor(a, 0, 0, secret.referenceNo, { PONo: secret.poNo }, '9');
    const cancel = orderFor(a, 0, 0, secret.referenceNo, { ActionCode: 'Cancelled', Items: undefined, Address: undefined });
    const cases: [string, string, unknown, string][] = [
      ['another customer of the company', keys.c2, update, `CustomerID ${a.customerIds[0]} is outside this API key's scope`],
      ['another customer cancelling', keys.c2, cancel, `CustomerID ${a.customerIds[0]} is outside this API key's scope`],
      ['a customer key of another company', keys.customerB, update, `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an admin key of another company', keys.adminB, update, `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an admin key of another company cancelling', keys.adminB, cancel, `CompanyID ${a.companyId} is outside this API key's scope`],
      [
        'the customer’s key limited to another facility',
        keys.c1OnlyF2,
        update,
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      ['an operator of the facility', keys.opF1, update, 'An API key with role operator may not call this operation'],
      ['an operator of another facility', keys.opF2, update, 'An API key with role operator may not call this operation'],
      ['an operator of another company', keys.operatorB, update, 'An API key with role operator may not call this operation'],
      ['a rater key of the company', keys.raterA, update, 'An API key with role rater may not call this operation'],
      ['a rater key cancelling', keys.raterA, cancel, 'An API key with role rater may not call this operation'],
    ];
    for (const [who, key, body, message] of cases) {
      const response = await ctx().post(ORDER_IMPORT, body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response, secret.svcpoid);
    }
    expect(await stored()).toBe(before);
    expect(await ackCount()).toBe(acksBefore);
  });

  it('DN import: a FacilityID the company does not have is 400 Not found facility, and writes nothing', async () => {
    const before = await stored();
    const acksBefore = await ackCount();
    const cases: [string, string, unknown][] = [
      ['A’s customer naming B’s facility', keys.c1, { ...orderFor(a, 0, 0, secret.referenceNo), FacilityID: b.facilityIds[0] }],
      ['A’s admin naming B’s facility', keys.adminA, { ...orderFor(a, 0, 0, secret.referenceNo), FacilityID: b.facilityIds[0] }],
      ['B’s customer naming A’s facility', keys.customerB, { ...orderFor(b, 0, 0, secret.referenceNo), FacilityID: a.facilityIds[0] }],
      ['B’s admin naming A’s facility', keys.adminB, { ...orderFor(b, 0, 0, secret.referenceNo), FacilityID: a.facilityIds[0] }],
      ['a facility nobody has', keys.c1, { ...orderFor(a, 0, 0, secret.referenceNo), FacilityID: 'NOWHERE' }],
    ];
    for (const [who, key, body] of cases) {
      const response = await ctx().post(ORDER_IMPORT, body, key);
      expect(response.statusCode, who).toBe(400);
      expect(response.json(), who).toEqual({ error: 'Not found facility' });
      expectNoLeak(response, secret.svcpoid);
      const cancel = await put({ ...(body as { POContent: unknown }), POContent: undefined, ReferenceNo: secret.referenceNo }, key);
      expect(cancel.statusCode, `${who} (PUT cancel)`).toBe(400);
      expect(cancel.json(), `${who} (PUT cancel)`).toEqual({ error: 'Not found facility' });
      const acks = await ctx().post(ORDER_ACK_SEARCH, { ...(body as { POContent: unknown }), POContent: undefined }, key);
      expect(acks.statusCode, `${who} (ACK search)`).toBe(400);
      expect(acks.json(), `${who} (ACK search)`).toEqual({ error: 'Not found facility' });
    }
    expect(await stored()).toBe(before);
    expect(await ackCount()).toBe(acksBefore);
  });

  it('DN import: an invalid body naming another customer is a 400 that acknowledges nothing', async () => {
    const acksBefore = await ackCount();
    const response = await ctx().post(ORDER_IMPORT, orderFor(a, 0, 0, secret.referenceNo, { PONo: 'P'.repeat(51) }), keys.c2);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(problems('POContent.PONo must be at most 50 characters'));
    const otherCompany = await ctx().post(ORDER_IMPORT, orderFor(a, 0, 0, secret.referenceNo, { PONo: 'P'.repeat(51) }), keys.customerB);
    expect(otherCompany.statusCode).toBe(400);
    expect(await ackCount()).toBe(acksBefore);
  });

  it('DN import: another customer’s or company’s same ReferenceNo is its own order, allocated from its own stock', async () => {
    const before = await stored();
    const c1Stock = await balanceOf(a, 0, 0);
    const response = await ctx().post(ORDER_IMPORT, orderFor(a, 1, 0, secret.referenceNo, { PONo: uniqueId('PO') }, '30'), keys.c2);
    expect(response.statusCode).toBe(200);
    const theirs = response.json().Order;
    expect(theirs).toMatchObject({ CustomerID: a.customerIds[1], ReferenceNo: secret.referenceNo, Status: 'Success', Error: [] });
    expect(theirs.SVCPOID).not.toBe(secret.svcpoid);
    expectNoLeak(response, secret.svcpoid, secret.poNo);
    expect(await balanceOf(a, 1, 0)).toEqual([['100', '30', '70']]);
    expect(await balanceOf(a, 0, 0)).toEqual(c1Stock);

    const other = await ctx().post(ORDER_IMPORT, orderFor(b, 0, 0, secret.referenceNo, {}, '5'), keys.customerB);
    expect(other.statusCode).toBe(200);
    expect(other.json().Order.SVCPOID).not.toBe(secret.svcpoid);
    expect(other.json().Order.SVCPOID).not.toBe(theirs.SVCPOID);
    expectNoLeak(other, secret.svcpoid, secret.poNo);
    expect(await balanceOf(b, 0, 0)).toEqual([['100', '5', '95']]);

    // C2's cancel of the ReferenceNo cancels C2's order, and B's B's; C1's stays.
    const cancel = await ctx().post(
      ORDER_IMPORT,
      { ...scopeOf(a, 1, 0), POContent: { ReferenceNo: secret.referenceNo, ActionCode: 'Cancelled' } },
      keys.c2,
    );
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().Order.SVCPOID).toBe(theirs.SVCPOID);
    const cancelB = await put({ ...scopeOf(b, 0, 0), ReferenceNo: secret.referenceNo }, keys.customerB);
    expect(cancelB.statusCode).toBe(200);
    expect(cancelB.json().Order.SVCPOID).toBe(other.json().Order.SVCPOID);
    expect(await statusOf(secret.svcpoid)).toBe('Imported');
    expect(await stored()).toBe(before);
    expect(await balanceOf(a, 1, 0)).toEqual([['100', '0', '100']]);
    expect(await balanceOf(b, 0, 0)).toEqual([['100', '0', '100']]);
  });

  it('allocation takes only the ordering customer’s stock in the order’s facility', async () => {
    const c2Before = await balanceOf(a, 1, 0);
    const c1F2Before = await balanceOf(a, 0, 1);
    const [[, allocated]] = (await balanceOf(a, 0, 0)) as [[string, string, string]];
    const free = 10 - Number(allocated);
    const response = await ctx().post(ORDER_IMPORT, orderFor(a, 0, 0, uniqueId('SO'), {}, '50'), keys.c1);
    expect(response.statusCode).toBe(200);
    expect(response.json().Order).toMatchObject({
      Status: 'Warning',
      Error: `${SKU}: ordered 50, allocated ${free}, short ${50 - free}`,
    });
    expect(await balanceOf(a, 0, 0)).toEqual([['10', '10', '0']]);
    expect(await balanceOf(a, 1, 0)).toEqual(c2Before);
    expect(await balanceOf(a, 0, 1)).toEqual(c1F2Before);
    // Cancelled, it gives back only what it took.
    const cancelled = await put({ ...scopeOf(a, 0, 0), ReferenceNo: response.json().Order.ReferenceNo }, keys.c1);
    expect(cancelled.statusCode).toBe(200);
    expect(await balanceOf(a, 0, 0)).toEqual([['10', allocated, String(free)]]);
    expect(await balanceOf(a, 1, 0)).toEqual(c2Before);
  });

  it('DN import: an Idempotency-Key is the key’s own — another key’s same Idempotency-Key replays nothing of it', async () => {
    const headers = { 'idempotency-key': uniqueId('SHAREDIK') };
    const mine = await ctx().post(ORDER_IMPORT, orderFor(a, 0, 0, uniqueId('SO'), { PONo: uniqueId('PO') }), keys.c1, headers);
    expect(mine.statusCode).toBe(200);
    const theirs = await ctx().post(ORDER_IMPORT, orderFor(a, 1, 0, uniqueId('SO')), keys.c2, headers);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().Order.CustomerID).toBe(a.customerIds[1]);
    expectNoLeak(theirs, mine.json().Order.SVCPOID, mine.json().Order.PONo, mine.json().Order.ReferenceNo);
    const otherCompany = await ctx().post(ORDER_IMPORT, orderFor(b, 0, 0, uniqueId('SO')), keys.customerB, headers);
    expect(otherCompany.statusCode).toBe(200);
    expectNoLeak(otherCompany, mine.json().Order.SVCPOID, mine.json().Order.PONo, mine.json().Order.ReferenceNo);
  });

  // ---- PUT cancel ----------------------------------------------------------------------------

  it('PUT cancel: 403 for the keys outside the scope; another customer, facility or company naming the order → 404; nothing moves', async () => {
    const before = await stored();
    const acksBefore = await ackCount();
    const cancel = (customer: number, facility: number, numbers: Record<string, string>) => ({
      ...scopeOf(a, customer, facility),
      ...numbers,
    });
    const forbidden: [string, string, unknown, string][] = [
      [
        'another customer of the company',
        keys.c2,
        cancel(0, 0, { PONo: secret.poNo }),
        `CustomerID ${a.customerIds[0]} is outside this API key's scope`,
      ],
      [
        'a key of another company',
        keys.customerB,
        cancel(0, 0, { PONo: secret.poNo }),
        `CompanyID ${a.companyId} is outside this API key's scope`,
      ],
      [
        'an admin of another company',
        keys.adminB,
        cancel(0, 0, { ReferenceNo: secret.referenceNo }),
        `CompanyID ${a.companyId} is outside this API key's scope`,
      ],
      [
        'a key limited to another facility',
        keys.c1OnlyF2,
        cancel(0, 0, { PONo: secret.poNo }),
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      [
        'an operator of the facility',
        keys.opF1,
        cancel(0, 0, { PONo: secret.poNo }),
        'An API key with role operator may not call this operation',
      ],
      ['a rater key', keys.raterA, cancel(0, 0, { PONo: secret.poNo }), 'An API key with role rater may not call this operation'],
    ];
    for (const [who, key, body, message] of forbidden) {
      const response = await put(body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response, secret.svcpoid);
    }
    expect(await ackCount()).toBe(acksBefore);

    const notFound: [string, string, unknown, string][] = [
      ['another customer’s PONo', keys.c2, cancel(1, 0, { PONo: secret.poNo }), `Not found order with PONo ${secret.poNo}`],
      [
        'the order named in another facility',
        keys.c1,
        cancel(0, 1, { ReferenceNo: secret.referenceNo }),
        `Not found order with ReferenceNo ${secret.referenceNo}`,
      ],
      [
        'the order named in another facility by PONo',
        keys.c1OnlyF2,
        cancel(0, 1, { PONo: secret.poNo }),
        `Not found order with PONo ${secret.poNo}`,
      ],
      [
        'another company naming the PONo',
        keys.customerB,
        { ...scopeOf(b, 0, 0), PONo: secret.poNo },
        `Not found order with PONo ${secret.poNo}`,
      ],
    ];
    for (const [who, key, body, message] of notFound) {
      const response = await put(body, key);
      expect(response.statusCode, who).toBe(404);
      expect(response.json(), who).toEqual({ error: message });
      expectNoLeak(response, secret.svcpoid);
    }
    // The ActionCode form, too: another facility of the same customer does not find it.
    const elsewhere = await ctx().post(
      ORDER_IMPORT,
      { ...scopeOf(a, 0, 1), POContent: { ReferenceNo: secret.referenceNo, ActionCode: 'Cancelled' } },
      keys.c1,
    );
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toEqual({ error: `Not found order with ReferenceNo ${secret.referenceNo}` });
    expectNoLeak(elsewhere, secret.svcpoid);
    expect(await stored()).toBe(before);
    expect(await statusOf(secret.svcpoid)).toBe('Imported');
  });

  // ---- DN ACK search -------------------------------------------------------------------------

  it('DN ACK search: 403 outside the scope, and a customer key never sees another customer’s ACKs', async () => {
    const search = (customer: number, facility: number, extra: Record<string, unknown> = {}) => ({
      ...scopeOf(a, customer, facility),
      ...extra,
    });
    const forbidden: [string, string, unknown, string][] = [
      ['another customer of the company', keys.c2, search(0, 0), `CustomerID ${a.customerIds[0]} is outside this API key's scope`],
      ['a key of another company', keys.customerB, search(0, 0), `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an operator of another company', keys.operatorB, search(0, 0), `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an admin of another company', keys.adminB, search(0, 0), `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an operator of another facility', keys.opF2, search(0, 0), `FacilityID ${a.facilityIds[0]} is outside this API key's scope`],
      [
        'a customer key limited to another facility',
        keys.c1OnlyF2,
        search(0, 0),
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      ['a rater key', keys.raterA, search(0, 0), 'An API key with role rater may not call this operation'],
    ];
    for (const [who, key, body, message] of forbidden) {
      const response = await ctx().post(ORDER_ACK_SEARCH, body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response);
    }

    // C2 used the same ReferenceNo: its search shows only its own records, never C1's.
    const own = await ctx().post(ORDER_ACK_SEARCH, search(1, 0, { ReferenceNo: secret.referenceNo, Paging: { PageSize: 1000 } }), keys.c2);
    expect(own.statusCode).toBe(200);
    expect(own.json().length).toBeGreaterThan(0);
    for (const record of own.json()) {
      expect(record.CustomerID).toBe(a.customerIds[1]);
      if ('CustomerId' in record.ACK) expect(record.ACK.CustomerId).toBe(a.customerIds[1]);
    }
    expectNoLeak(own, secret.svcpoid, secret.poNo);
    // All of C2's ACKs in either facility: none is C1's.
    for (const facility of [0, 1]) {
      const all = await ctx().post(ORDER_ACK_SEARCH, search(1, facility, { Paging: { PageSize: 1000 } }), keys.c2);
      if (all.statusCode === 404) expect(all.json()).toEqual({ error: 'Not found order' });
      else for (const record of all.json()) expect(record.CustomerID).toBe(a.customerIds[1]);
      // (C2's own failed cancel that named C1's PONo is C2's record, and may show it.)
      expectNoLeak(all, secret.svcpoid);
    }
    // C2 naming C1's PONo under its own CustomerID finds at most its own failed calls that named it.
    const byPoNo = await ctx().post(ORDER_ACK_SEARCH, search(1, 0, { PONo: secret.poNo, Paging: { PageSize: 1000 } }), keys.c2);
    if (byPoNo.statusCode === 404) expect(byPoNo.json()).toEqual({ error: 'Not found order' });
    else {
      expect(byPoNo.statusCode).toBe(200);
      for (const record of byPoNo.json()) {
        expect(record.CustomerID).toBe(a.customerIds[1]);
        expect(record.ACK).toEqual({ code: expect.any(String), error: expect.any(String) });
      }
    }
    expectNoLeak(byPoNo, secret.svcpoid);
    const never = await ctx().post(ORDER_ACK_SEARCH, search(1, 0, { PONo: uniqueId('NEVER') }), keys.c2);
    expect(never.statusCode).toBe(404);
    expect(never.json()).toEqual({ error: 'Not found order' });
    // Company B's customer used the same ReferenceNo: its search shows its own only.
    const companyB = await ctx().post(
      ORDER_ACK_SEARCH,
      { ...scopeOf(b, 0, 0), ReferenceNo: secret.referenceNo, Paging: { PageSize: 1000 } },
      keys.customerB,
    );
    expect(companyB.statusCode).toBe(200);
    for (const record of companyB.json()) expect(record.CustomerID).toBe(b.customerIds[0]);
    expectNoLeak(companyB, secret.svcpoid, secret.poNo, a.customerIds[0]!);
    // C1 in the other facility sees none of the F1 records (only its own failed calls made there).
    const otherFacility = await ctx().post(ORDER_ACK_SEARCH, search(0, 1, { PONo: secret.poNo, Paging: { PageSize: 1000 } }), keys.c1);
    expect(otherFacility.statusCode).toBe(200);
    for (const record of otherFacility.json()) {
      expect(record.FacilityID).toBe(a.facilityIds[1]);
      expect(record.ACK).toEqual({ code: expect.any(String), error: expect.any(String) });
    }
    expectNoLeak(otherFacility, secret.svcpoid);

    // Positive controls: C1 and the facility's operator read C1's records there.
    for (const key of [keys.c1, keys.opF1, keys.adminA]) {
      const response = await ctx().post(ORDER_ACK_SEARCH, search(0, 0, { PONo: secret.poNo }), key);
      expect(response.statusCode).toBe(200);
      expect(response.json().map((r: { ACK: { SVCPOID?: string } }) => r.ACK.SVCPOID)).toContain(secret.svcpoid);
      for (const record of response.json()) expect(record.CustomerID).toBe(a.customerIds[0]);
    }
  });
});
