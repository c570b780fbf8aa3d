import { beforeAll, describe, expect, it } from 'vitest';
import { purgeIdempotencyRecordsBefore } from '../../src/modules/commands/commands.service.js';
import { ITEM_HEAD } from '../../src/modules/items/items.fields.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import { createKey, createTenant, type Tenant } from '../helpers/factories.js';
import { ITEM_IMPORT as IMPORT, ITEM_SEARCH as SEARCH } from '../helpers/paths.js';

describeEachDialect('item master', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let adminKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 2, facilities: 2 });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    adminKey = await createKey(database.db, clock, tenant, 'admin');
  });

  const ids = () => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] });

  it('imports items and reports each as Created, then Unchanged, then Updated', async () => {
    const items = [
      { itemID: 'A-1', itemDescription: 'Blue mug', BaseLength: 4.5, hasSerialNumber: 'N' },
      { itemID: 'A-2', itemDescription: 'Red mug', status: 'Inactive' },
    ];
    const first = await ctx().post(IMPORT, { ...ids(), Items: items }, customerKey);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      Items: [
        { itemID: 'A-1', Status: 'Created' },
        { itemID: 'A-2', Status: 'Created' },
      ],
    });

    const again = await ctx().post(IMPORT, { ...ids(), Items: items }, customerKey);
    expect(again.json()).toEqual({
      Items: [
        { itemID: 'A-1', Status: 'Unchanged' },
        { itemID: 'A-2', Status: 'Unchanged' },
      ],
    });

    const changed = await ctx().post(IMPORT, { ...ids(), Items: [{ ...items[0], BaseLength: 5 }, items[1]] }, customerKey);
    expect(changed.json()).toEqual({
      Items: [
        { itemID: 'A-1', Status: 'Updated' },
        { itemID: 'A-2', Status: 'Unchanged' },
      ],
    });
  });

  it('answers a search with every head key in spec order, null where unset, numbers as numbers', async () => {
    await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'B-1', BaseWeight: 1.25, 'AKA01 Tag': 'x', Title: 'kept' }] }, customerKey);
    const response = await ctx().post(SEARCH, { ...ids(), Paging: { PageNo: 1, PageSize: 1000 } }, customerKey);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.results.head).toEqual([...ITEM_HEAD]);
    expect(body.results.head.slice(0, 6)).toEqual([
      'ActionCodeAU',
      'allowOverWriteItem',
      'companyId',
      'supplierId',
      'customerId',
      'itemID',
    ]);
    expect(body.results.head).toContain('DynTxtPropertyName01');
    expect(body.results.head.indexOf('DynTxtPropertyValue01')).toBe(body.results.head.indexOf('DynTxtPropertyName01') + 1);
    expect(body.results.head.slice(-4)).toEqual(['AKAValue10', 'AKAName10', 'AKA10 Tag', 'AKA10 Org']);
    const record = body.results.data.find((r: { itemID: string }) => r.itemID === 'B-1');
    for (const key of ITEM_HEAD) expect(record).toHaveProperty([key]);
    expect(record).toMatchObject({
      companyId: tenant.companyId,
      customerId: tenant.customerIds[0],
      itemID: 'B-1',
      status: 'Active',
      BaseWeight: 1.25,
      'AKA01 Tag': 'x',
      BaseLength: null,
      UPCCode: null,
      Title: 'kept',
    });
    expect(response.body).toContain('"BaseWeight":1.25');
  });

  it('filters by Status and pages without overlap or gaps, under every page-number spelling', async () => {
    const customerId = tenant.customerIds[1]!;
    const key = await createKey(ctx().database.db, ctx().clock, tenant, 'customer', { customerIds: [customerId] });
    const Items = Array.from({ length: 25 }, (_, i) => ({
      itemID: `P-${String(i).padStart(2, '0')}`,
      status: i % 5 === 0 ? 'Inactive' : 'Active',
    }));
    expect((await ctx().post(IMPORT, { CompanyID: tenant.companyId, CustomerID: customerId, Items }, key)).statusCode).toBe(200);
    const base = { CompanyID: tenant.companyId, CustomerID: customerId };

    const seen: string[] = [];
    for (const pageNo of [1, 2, 3]) {
      const r = await ctx().post(SEARCH, { ...base, Status: 'Active', Paging: { PageNo: pageNo, PageSize: 7 } }, key);
      const body = r.json();
      seen.push(...body.results.data.map((d: { itemID: string }) => d.itemID));
      expect(body.paging).toEqual({
        totalCount: 20,
        pageNo,
        totalPage: 3,
        startIndex: (pageNo - 1) * 7 + 1,
        endIndex: Math.min(pageNo * 7, 20),
        limit: 7,
        // The cursor of the page after (docs/paging.md); none on the last page.
        ...(pageNo < 3 ? { next: expect.any(String) } : {}),
      });
    }
    expect(seen).toEqual(Items.filter((i) => i.status === 'Active').map((i) => i.itemID));

    const byAlias = await ctx().post(SEARCH, { ...base, Paging: { PagingNo: 2, PageSize: 10 } }, key);
    const byTopLevel = await ctx().post(SEARCH, { ...base, PageNo: 2, Paging: { PageSize: 10 } }, key);
    expect(byAlias.json().results.data.map((d: { itemID: string }) => d.itemID)).toEqual(Items.slice(10, 20).map((i) => i.itemID));
    expect(byTopLevel.json()).toEqual(byAlias.json());

    // One item by its itemID (with Status too), or none; an empty itemID means any.
    const itemIds = async (filter: Record<string, unknown>) =>
      (await ctx().post(SEARCH, { ...base, ...filter }, key)).json().results.data.map((d: { itemID: string }) => d.itemID);
    expect(await itemIds({ itemID: 'P-07' })).toEqual(['P-07']);
    expect(await itemIds({ itemID: 'P-05', Status: 'Active' })).toEqual([]);
    expect(await itemIds({ itemID: 'P-99' })).toEqual([]);
    expect(await itemIds({ itemID: '', Paging: { PageSize: 1000 } })).toHaveLength(25);

    const past = await ctx().post(SEARCH, { ...base, Paging: { PageNo: 9 } }, key);
    expect(past.json()).toEqual({
      results: { head: [...ITEM_HEAD], data: [] },
      paging: { totalCount: 25, pageNo: 9, totalPage: 1, startIndex: 0, endIndex: 0, limit: 100 },
    });
  });

  it('refuses a whole import when any item is invalid, naming every problem, and stores nothing', async () => {
    const response = await ctx().post(
      IMPORT,
      {
        ...ids(),
        Items: [
          { itemID: 'C-1' },
          { itemDescription: 'no id' },
          { itemID: 'C-3', hasSerialNumber: 'yes', BaseLength: '4', status: 'Gone' },
          { itemID: 'C-1' },
          { itemID: 'X'.repeat(31) },
        ],
      },
      customerKey,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      [
        'Items[1].itemID is required',
        'Items[2].status must be one of: Active, Inactive',
        'Items[2].hasSerialNumber must be one of: Y, N',
        'Items[2].BaseLength must be a number or null',
        'Items[4].itemID must be at most 30 characters',
      ].map((error) => ({ code: `EDI-ERROR-${error}`, error })),
    );
    const repeated = await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'C-1' }, { itemID: 'C-1' }] }, customerKey);
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json()).toEqual([
      { code: 'EDI-ERROR-Items[1].itemID C-1 repeats Items[0]', error: 'Items[1].itemID C-1 repeats Items[0]' },
    ]);
    const search = await ctx().post(SEARCH, { ...ids(), Paging: { PageSize: 1000 } }, customerKey);
    expect(search.json().results.data.map((d: { itemID: string }) => d.itemID)).not.toContain('C-1');
  });

  it('replays an Idempotency-Key for 48 hours: the first answer again, another body 422', async () => {
    const headers = { 'idempotency-key': 'items-once' };
    const body = { ...ids(), Items: [{ itemID: 'IK-1' }] };
    const first = await ctx().post(IMPORT, body, customerKey, headers);
    expect(first.json()).toEqual({ Items: [{ itemID: 'IK-1', Status: 'Created' }] });
    // Without the key the same body is Unchanged; with it, the stored first answer comes back.
    expect((await ctx().post(IMPORT, body, customerKey)).json()).toEqual({ Items: [{ itemID: 'IK-1', Status: 'Unchanged' }] });
    expect((await ctx().post(IMPORT, body, customerKey, headers)).json()).toEqual(first.json());
    const other = await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'IK-2' }] }, customerKey, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual([
      {
        code: 'EDI-ERROR-Idempotency-Key was already used with a different request',
        error: 'Idempotency-Key was already used with a different request',
      },
    ]);
    const tooLong = await ctx().post(IMPORT, body, customerKey, { 'idempotency-key': 'k'.repeat(256) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toEqual([
      { code: 'EDI-ERROR-idempotency-key must be at most 255 characters', error: 'idempotency-key must be at most 255 characters' },
    ]);

    // Past the default retention of 48 hours.
    const retentionMs = 48 * 60 * 60 * 1000;
    ctx().clock.advance(retentionMs + 1);
    const purged = await purgeIdempotencyRecordsBefore(ctx().database.db, ctx().clock.now() - retentionMs, { size: 1000 });
    expect(purged.rows).toBeGreaterThanOrEqual(1);
    const afterExpiry = await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'IK-2' }] }, customerKey, headers);
    expect(afterExpiry.json()).toEqual({ Items: [{ itemID: 'IK-2', Status: 'Created' }] });
  });

  it('keeps tenants apart: another company or customer is 403, an operator reads every customer', async () => {
    const other = await createTenant(ctx().database.db, ctx().clock);
    const otherKey = await createKey(ctx().database.db, ctx().clock, other, 'customer');
    const foreign = await ctx().post(SEARCH, ids(), otherKey);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual([
      {
        code: `EDI-ERROR-CompanyID ${tenant.companyId} is outside this API key's scope`,
        error: `CompanyID ${tenant.companyId} is outside this API key's scope`,
      },
    ]);
    const otherCustomer = await ctx().post(SEARCH, { ...ids(), CustomerID: tenant.customerIds[1] }, customerKey);
    expect(otherCustomer.statusCode).toBe(403);

    const operatorKey = await createKey(ctx().database.db, ctx().clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[0]!] });
    expect((await ctx().post(SEARCH, { ...ids(), CustomerID: tenant.customerIds[1] }, operatorKey)).statusCode).toBe(200);
    const outsideFacility = await ctx().post(SEARCH, { ...ids(), FacilityID: tenant.facilityIds[1] }, operatorKey);
    expect(outsideFacility.statusCode).toBe(403);
    const unknownFacility = await ctx().post(SEARCH, { ...ids(), FacilityID: 'NOPE' }, operatorKey);
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });
    const operatorImport = await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'OP-1' }] }, operatorKey);
    expect(operatorImport.statusCode).toBe(403);
    expect((await ctx().post(IMPORT, { ...ids(), Items: [{ itemID: 'AD-1' }] }, adminKey)).statusCode).toBe(200);
  });
});

describe('item head', () => {
  it('lists 203 unique keys', () => {
    expect(new Set(ITEM_HEAD).size).toBe(ITEM_HEAD.length);
    expect(ITEM_HEAD.length).toBe(203);
  });
});
