import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import { buildReceipt, createRivals, problems, receiptBody, uniqueId, type RivalKey, type Tenant } from '../helpers/factories.js';
import { RECEIPT_ACK_SEARCH, RECEIPT_CANCEL, RECEIPT_IMPORT, THREEPL_RECEIPT } from '../helpers/paths.js';

/**
 * Tenant isolation on every receipt endpoint (docs/access.md: object-level authorization everywhere):
 * another customer's key, another company's key and an operator of another facility are refused
 * (403); a receipt of another facility named with an in-scope FacilityID is 404; and no answer
 * carries anything of the other tenant.
 */

const DOCUMENT_OPERATIONS = ['get', 'open', 'cancel', 'force-close', 'post-confirmation'] as const;
type DocumentOperation = (typeof DOCUMENT_OPERATIONS)[number];

describeEachDialect('receipt tenant isolation', (dialect) => {
  const ctx = useTestApp(dialect);
  // Company A: customers C1, C2; facilities F1, F2. Company B: its own customer and facility.
  let a: Tenant;
  let b: Tenant;
  const keys = {} as Record<RivalKey, string>;
  // C1's receipt in F1, and B's receipt: what the others must never see or touch.
  const secret = { svcpoid: '', poNo: uniqueId('SECRETPO'), referenceNo: uniqueId('SECRETREF') };
  const secretB = { svcpoid: '', poNo: uniqueId('BPO') };

  beforeAll(async () => {
    const { database, clock } = ctx();
    const rivals = await createRivals(database.db, clock);
    ({ a, b } = rivals);
    Object.assign(keys, rivals.keys);

    secret.svcpoid = await importAs(keys.c1, a, 0, 0, secret.poNo, secret.referenceNo);
    secretB.svcpoid = await importAs(keys.customerB, b, 0, 0, secretB.poNo);
  });

  const numbers = (poNo: string, referenceNo?: string) => ({ PONo: poNo, ...(referenceNo ? { ReferenceNo: referenceNo } : {}) });
  const importBody = (tenant: Tenant, customer: number, facility: number, poNo: string, referenceNo?: string) =>
    receiptBody({ tenant, customer, facility, content: numbers(poNo, referenceNo) });
  async function importAs(key: string, tenant: Tenant, customer: number, facility: number, poNo: string, referenceNo?: string) {
    return (await buildReceipt(ctx(), { tenant, customer, facility, key, content: numbers(poNo, referenceNo) })).svcpoid;
  }
  const put = (payload: unknown, key: string, headers: Record<string, string> = {}) => ctx().put(RECEIPT_CANCEL, payload, key, headers);
  const documentBody = (operation: DocumentOperation, companyId: string, facilityId: string, svcpoid: string) => ({
    CompanyID: companyId,
    FacilityID: facilityId,
    SVCPOID: svcpoid,
    ...(operation === 'get' ? {} : { Note: 'isolation test' }),
    ...(operation === 'post-confirmation'
      ? { ConfirmationNo: uniqueId('CN'), Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: '1', UOM: 'EA' }] }
      : {}),
  });
  const onDocument = (operation: DocumentOperation, key: string, companyId: string, facilityId: string, svcpoid = secret.svcpoid) =>
    ctx().post(`${THREEPL_RECEIPT}/${operation}`, documentBody(operation, companyId, facilityId, svcpoid), key);

  /** Nothing of the other tenant's receipts in the answer. */
  const expectNoLeak = (response: LightMyRequestResponse, ...hidden: string[]) => {
    for (const value of hidden.length > 0 ? hidden : [secret.svcpoid, secret.poNo, secret.referenceNo]) {
      // Whole tokens only: RN-1 must not match RN-12.
      const token = new RegExp(`(^|[^A-Za-z0-9-])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`);
      expect(token.test(response.body), `the answer leaks ${value}: ${response.body}`).toBe(false);
    }
  };
  const stored = async (svcpoid: string) => {
    const { rows } = await sql<{ status: string; document: string; updated_at: number | string }>`
      select status, document, updated_at from receipts where svcpoid = ${svcpoid}`.execute(ctx().database.db);
    return rows[0];
  };
  const stockOf = async (svcpoid: string) => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from inventory_ledger where source_id = ${svcpoid}`.execute(
      ctx().database.db,
    );
    return Number(rows[0]!.n);
  };

  // ---- RN import ---------------------------------------------------------------------------

  it('RN import: another customer’s, another company’s key, a key outside the facility or of the operator role → 403', async () => {
    const before = await stored(secret.svcpoid);
    const update = importBody(a, 0, 0, secret.poNo, secret.referenceNo);
    const cases: [string, string, unknown, string][] = [
      ['another customer of the company', keys.c2, update, `CustomerID ${a.customerIds[0]} is outside this API key's scope`],
      ['a customer key of another company', keys.customerB, update, `CompanyID ${a.companyId} is outside this API key's scope`],
      ['an admin key of another company', keys.adminB, update, `CompanyID ${a.companyId} is outside this API key's scope`],
      [
        'the customer’s key limited to another facility',
        keys.c1OnlyF2,
        update,
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      ['an operator of another facility', keys.opF2, update, 'An API key with role operator may not call this operation'],
      ['an operator of the facility', keys.opF1, update, 'An API key with role operator may not call this operation'],
    ];
    for (const [who, key, body, message] of cases) {
      const response = await ctx().post(RECEIPT_IMPORT, body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response, secret.svcpoid);
    }
    // Another company naming its own company and A's facility: that facility does not exist for it.
    const foreignFacility = await ctx().post(
      RECEIPT_IMPORT,
      { ...importBody(b, 0, 0, secret.poNo), FacilityID: a.facilityIds[0] },
      keys.customerB,
    );
    expect(foreignFacility.statusCode).toBe(400);
    expect(foreignFacility.json()).toEqual({ error: 'Not found facility' });
    expect(await stored(secret.svcpoid)).toEqual(before);
  });

  it('RN import: another customer’s same PONo and ReferenceNo are its own receipt — no clash, no update, no leak', async () => {
    const before = await stored(secret.svcpoid);
    const response = await ctx().post(RECEIPT_IMPORT, importBody(a, 1, 0, secret.poNo, secret.referenceNo), keys.c2);
    expect(response.statusCode).toBe(200);
    expect(response.json().Receipt.SVCPOID).not.toBe(secret.svcpoid);
    expect(response.json().Receipt.CustomerID).toBe(a.customerIds[1]);
    expectNoLeak(response, secret.svcpoid);
    // Another company's customer may use the same numbers too.
    const other = await ctx().post(RECEIPT_IMPORT, importBody(b, 0, 0, secret.poNo, secret.referenceNo), keys.customerB);
    expect(other.statusCode).toBe(200);
    expectNoLeak(other, secret.svcpoid);
    // A cancel of C2's own receipt leaves C1's alone.
    const cancel = await ctx().post(
      RECEIPT_IMPORT,
      { ...importBody(a, 1, 0, secret.poNo), ASNContent: { ...importBody(a, 1, 0, secret.poNo).ASNContent, ActionCode: 'Cancelled' } },
      keys.c2,
    );
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().Receipt.SVCPOID).toBe(response.json().Receipt.SVCPOID);
    expect(await stored(secret.svcpoid)).toEqual(before);
  });

  it('RN import: an Idempotency-Key is the key’s own — another key’s same Idempotency-Key replays nothing of it', async () => {
    const headers = { 'idempotency-key': uniqueId('SHAREDIK') };
    const mine = await ctx().post(RECEIPT_IMPORT, importBody(a, 0, 0, uniqueId('PO')), keys.c1, headers);
    expect(mine.statusCode).toBe(200);
    const theirs = await ctx().post(RECEIPT_IMPORT, importBody(a, 1, 0, uniqueId('PO')), keys.c2, headers);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().Receipt.CustomerID).toBe(a.customerIds[1]);
    expectNoLeak(theirs, mine.json().Receipt.SVCPOID, mine.json().Receipt.PONo);
    const otherCompany = await ctx().post(RECEIPT_IMPORT, importBody(b, 0, 0, uniqueId('PO')), keys.customerB, headers);
    expect(otherCompany.statusCode).toBe(200);
    expectNoLeak(otherCompany, mine.json().Receipt.SVCPOID, mine.json().Receipt.PONo);
  });

  // ---- PUT cancel ----------------------------------------------------------------------------

  it('PUT cancel: 403 for the keys outside the scope; another customer or facility naming the PONo → 404; nothing moves', async () => {
    const cancel = (customer: number, facility: number, numbers: Record<string, string>) => ({
      CompanyID: a.companyId,
      CustomerID: a.customerIds[customer],
      FacilityID: a.facilityIds[facility],
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
        cancel(0, 0, { PONo: secret.poNo }),
        `CompanyID ${a.companyId} is outside this API key's scope`,
      ],
      [
        'a key limited to another facility',
        keys.c1OnlyF2,
        cancel(0, 0, { PONo: secret.poNo }),
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      [
        'an operator of another facility',
        keys.opF2,
        cancel(0, 0, { PONo: secret.poNo }),
        'An API key with role operator may not call this operation',
      ],
    ];
    for (const [who, key, body, message] of forbidden) {
      const response = await put(body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response, secret.svcpoid);
    }
    // C2 naming C1's ReferenceNo under its own CustomerID; C1 naming its PONo in the other facility.
    const notFound: [string, string, unknown, string][] = [
      [
        'another customer’s ReferenceNo',
        keys.c2,
        cancel(1, 0, { ReferenceNo: secret.referenceNo }),
        `Not found receipt with ReferenceNo ${secret.referenceNo}`,
      ],
      ['a receipt of another facility', keys.c1, cancel(0, 1, { PONo: secret.poNo }), `Not found receipt with PONo ${secret.poNo}`],
      [
        'a receipt of another facility by ReferenceNo',
        keys.c1OnlyF2,
        cancel(0, 1, { ReferenceNo: secret.referenceNo }),
        `Not found receipt with ReferenceNo ${secret.referenceNo}`,
      ],
    ];
    for (const [who, key, body, message] of notFound) {
      const response = await put(body, key);
      expect(response.statusCode, who).toBe(404);
      expect(response.json(), who).toEqual({ error: message });
      expectNoLeak(response, secret.svcpoid);
    }
    expect((await stored(secret.svcpoid))!.status).toBe('Imported');
  });

  // ---- RN ACK search -------------------------------------------------------------------------

  it('RN ACK search: 403 outside the scope, 404 elsewhere, and only the caller’s own records', async () => {
    const search = (customer: number, facility: number, extra: Record<string, unknown> = {}) => ({
      CompanyID: a.companyId,
      CustomerID: a.customerIds[customer],
      FacilityID: a.facilityIds[facility],
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
    ];
    for (const [who, key, body, message] of forbidden) {
      const response = await ctx().post(RECEIPT_ACK_SEARCH, body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response);
    }
    // In scope, but the receipt is another facility's: the search there shows none of its ACKs (only
    // the failure ACKs of C1's own calls made in F2, if any), and a number never used there is 404.
    for (const [who, key, body] of [
      ['C1 in the other facility', keys.c1, search(0, 1, { PONo: secret.poNo, Paging: { PageSize: 1000 } })],
      ['an operator of the other facility', keys.opF2, search(0, 1, { Paging: { PageSize: 1000 } })],
    ] as const) {
      const response = await ctx().post(RECEIPT_ACK_SEARCH, body, key);
      if (response.statusCode === 404) expect(response.json(), who).toEqual({ error: 'Not found receipt' });
      else for (const record of response.json()) expect(record.FacilityID, who).toBe(a.facilityIds[1]);
      expectNoLeak(response, secret.svcpoid);
    }
    const never = await ctx().post(RECEIPT_ACK_SEARCH, search(0, 1, { PONo: uniqueId('NEVER') }), keys.c1);
    expect(never.statusCode).toBe(404);
    expect(never.json()).toEqual({ error: 'Not found receipt' });
    // C2 imported the same PONo: each customer sees only its own ACKs of it.
    const own = await ctx().post(RECEIPT_ACK_SEARCH, search(1, 0, { PONo: secret.poNo, Paging: { PageSize: 1000 } }), keys.c2);
    expect(own.statusCode).toBe(200);
    expect(own.json().length).toBeGreaterThan(0);
    for (const record of own.json()) expect(record.CustomerID).toBe(a.customerIds[1]);
    expectNoLeak(own, secret.svcpoid);
    // The operator of the facility reads C1's records there (a positive control).
    const operator = await ctx().post(RECEIPT_ACK_SEARCH, search(0, 0, { PONo: secret.poNo }), keys.opF1);
    expect(operator.statusCode).toBe(200);
    expect(operator.json().map((r: { ACK: { SVCPOID?: string } }) => r.ACK.SVCPOID)).toContain(secret.svcpoid);
  });

  // ---- 3PL list ------------------------------------------------------------------------------

  it('3PL list: 403 outside the scope; a facility’s list holds only its own receipts; MarkOpen touches nothing of others', async () => {
    const list = (companyId: string, facilityId: string, extra: Record<string, unknown> = {}) => ({
      CompanyID: companyId,
      FacilityID: facilityId,
      Paging: { PageSize: 1000 },
      ...extra,
    });
    const forbidden: [string, string, unknown, string][] = [
      [
        'an operator of another facility',
        keys.opF2,
        list(a.companyId, a.facilityIds[0]!),
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      [
        'an operator of another company',
        keys.operatorB,
        list(a.companyId, a.facilityIds[0]!),
        `CompanyID ${a.companyId} is outside this API key's scope`,
      ],
      [
        'an admin of another company',
        keys.adminB,
        list(a.companyId, a.facilityIds[0]!),
        `CompanyID ${a.companyId} is outside this API key's scope`,
      ],
      ['a customer key', keys.c1, list(a.companyId, a.facilityIds[0]!), 'An API key with role customer may not call this operation'],
      [
        'MarkOpen by an operator of another facility',
        keys.opF2,
        list(a.companyId, a.facilityIds[0]!, { MarkOpen: true }),
        `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
      ],
      [
        'a CustomerID of another company',
        keys.opF1,
        list(a.companyId, a.facilityIds[0]!, { CustomerID: b.customerIds[0] }),
        `CustomerID ${b.customerIds[0]} is outside this API key's scope`,
      ],
    ];
    for (const [who, key, body, message] of forbidden) {
      const response = await ctx().post(`${THREEPL_RECEIPT}/list`, body, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.json(), who).toEqual(problems(message));
      expectNoLeak(response);
    }
    expect((await stored(secret.svcpoid))!.status).toBe('Imported');

    // The other facility's list (and with MarkOpen) has none of F1's receipts.
    const elsewhere = await ctx().post(`${THREEPL_RECEIPT}/list`, list(a.companyId, a.facilityIds[1]!, { MarkOpen: true }), keys.opF2);
    expect(elsewhere.statusCode).toBe(200);
    for (const row of elsewhere.json().results.data) expect(row.FacilityID).toBe(a.facilityIds[1]);
    expectNoLeak(elsewhere);
    const companyB = await ctx().post(`${THREEPL_RECEIPT}/list`, list(b.companyId, b.facilityIds[0]!, { MarkOpen: true }), keys.operatorB);
    expect(companyB.statusCode).toBe(200);
    expect(companyB.json().results.data.map((r: { SVCPOID: string }) => r.SVCPOID)).toContain(secretB.svcpoid);
    // (Company B used the same PONo and ReferenceNo for a receipt of its own; the SVCPOID tells them apart.)
    expectNoLeak(companyB, secret.svcpoid, a.customerIds[0]!, a.facilityIds[0]!);
    expect((await stored(secret.svcpoid))!.status).toBe('Imported');
    // And F1's own list does show it, and nothing of company B (a positive control, without MarkOpen).
    const own = await ctx().post(`${THREEPL_RECEIPT}/list`, list(a.companyId, a.facilityIds[0]!), keys.opF1);
    expect(own.json().results.data.map((r: { SVCPOID: string }) => r.SVCPOID)).toContain(secret.svcpoid);
    expectNoLeak(own, secretB.svcpoid, secretB.poNo);
  });

  // ---- 3PL get, open, cancel, force-close, post-confirmation -------------------------------

  for (const operation of DOCUMENT_OPERATIONS) {
    it(`3PL ${operation}: 403 for keys outside the scope, 404 for a receipt of another facility or company; nothing changes`, async () => {
      const before = await stored(secret.svcpoid);
      const beforeB = await stored(secretB.svcpoid);
      const stock = await stockOf(secret.svcpoid);
      const forbidden: [string, string, string, string, string][] = [
        [
          'an operator of another facility',
          keys.opF2,
          a.companyId,
          a.facilityIds[0]!,
          `FacilityID ${a.facilityIds[0]} is outside this API key's scope`,
        ],
        [
          'an operator of another company',
          keys.operatorB,
          a.companyId,
          a.facilityIds[0]!,
          `CompanyID ${a.companyId} is outside this API key's scope`,
        ],
        [
          'an admin of another company',
          keys.adminB,
          a.companyId,
          a.facilityIds[0]!,
          `CompanyID ${a.companyId} is outside this API key's scope`,
        ],
        [
          'the receipt’s own customer',
          keys.c1,
          a.companyId,
          a.facilityIds[0]!,
          'An API key with role customer may not call this operation',
        ],
        ['another customer', keys.c2, a.companyId, a.facilityIds[0]!, 'An API key with role customer may not call this operation'],
      ];
      for (const [who, key, companyId, facilityId, message] of forbidden) {
        const response = await onDocument(operation, key, companyId, facilityId);
        expect(response.statusCode, who).toBe(403);
        expect(response.json(), who).toEqual(problems(message));
        expectNoLeak(response, secret.poNo, secret.referenceNo);
      }

      // In-scope FacilityIDs naming a receipt that is not there: 404, the same answer as an unknown SVCPOID.
      const notHere: [string, string, string, string][] = [
        ['an operator of F2 naming F2', keys.opF2, a.companyId, a.facilityIds[1]!],
        ['the company admin naming F2', keys.adminA, a.companyId, a.facilityIds[1]!],
        ['an operator of company B naming its own facility', keys.operatorB, b.companyId, b.facilityIds[0]!],
        ['an admin of company B naming its own facility', keys.adminB, b.companyId, b.facilityIds[0]!],
      ];
      for (const [who, key, companyId, facilityId] of notHere) {
        const response = await onDocument(operation, key, companyId, facilityId);
        expect(response.statusCode, who).toBe(404);
        expect(response.json(), who).toEqual({ error: `Not found receipt ${secret.svcpoid}` });
        expectNoLeak(response, secret.poNo, secret.referenceNo, a.customerIds[0]!);
        const unknown = await onDocument(operation, key, companyId, facilityId, 'RN-999999999');
        expect(unknown.statusCode, who).toBe(404);
        expect(unknown.json(), who).toEqual({ error: 'Not found receipt RN-999999999' });
      }
      // And company A's operator cannot reach company B's receipt from its own facility.
      const reverse = await onDocument(operation, keys.opF1, a.companyId, a.facilityIds[0]!, secretB.svcpoid);
      expect(reverse.statusCode).toBe(404);
      expectNoLeak(reverse, secretB.poNo, b.customerIds[0]!);

      expect(await stored(secret.svcpoid)).toEqual(before);
      expect(await stockOf(secret.svcpoid)).toBe(stock);
      expect(await stored(secretB.svcpoid)).toEqual(beforeB);
    });
  }

  it('3PL operations: the facility’s own operator reaches the receipt (a positive control)', async () => {
    const got = await onDocument('get', keys.opF1, a.companyId, a.facilityIds[0]!);
    expect(got.statusCode).toBe(200);
    expect(got.json().Receipt).toMatchObject({ SVCPOID: secret.svcpoid, PONo: secret.poNo, CustomerID: a.customerIds[0] });
  });
});
