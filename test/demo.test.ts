import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO, seedDemo } from '../src/demo.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { listRateCards } from '../src/modules/rating/rating.service.js';
import { listEndpoints } from '../src/modules/webhooks/endpoints.service.js';

const KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43,}$/;
const ROLES = ['customer', 'operator', 'admin', 'rater'] as const;

describeEachDialect('demo seed', (dialect) => {
  let database: TestDatabase;
  let dir: string;
  let keyFile: string;
  const clock = new TestClock();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    dir = mkdtempSync(join(tmpdir(), 'wharf-demo-'));
    keyFile = join(dir, 'data', 'demo-keys.json');
  });
  afterAll(async () => {
    await database?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const counts = async () => {
    const db = database.db;
    const count = async (table: 'companies' | 'customers' | 'facilities' | 'api_keys' | 'items' | 'inventory_ledger') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      companies: await count('companies'),
      customers: await count('customers'),
      facilities: await count('facilities'),
      keys: await count('api_keys'),
      items: await count('items'),
      postings: await count('inventory_ledger'),
    };
  };
  const savedKeys = () => JSON.parse(readFileSync(keyFile, 'utf8')) as Record<string, string>;

  let firstKeys: Record<(typeof ROLES)[number], string>;

  it('seeds the DEMO tenant, one key per role, five items and their opening stock', async () => {
    firstKeys = await seedDemo(database.db, clock, keyFile);
    expect(Object.keys(firstKeys).sort()).toEqual([...ROLES].sort());
    for (const role of ROLES) expect(firstKeys[role]).toMatch(KEY_PATTERN);
    expect(new Set(Object.values(firstKeys)).size).toBe(4);
    expect(await counts()).toEqual({ companies: 1, customers: 1, facilities: 1, keys: 6, items: 5, postings: 7 });

    expect(await tenants.findFacilityRef(database.db, DEMO.company, DEMO.facility)).toEqual({
      facilityId: DEMO.facility,
      timeZone: DEMO.timeZone,
    });
    expect(await tenants.customerExists(database.db, DEMO.company, DEMO.customer)).toBe(true);

    // The four it prints; the two spare keys are for the API document's rotate and revoke examples.
    const views = (await tenants.listApiKeys(database.db, DEMO.company)).filter((v) => !v.label?.startsWith('demo spare'));
    expect(views.map((v) => v.role).sort()).toEqual([...ROLES].sort());
    expect(views.find((v) => v.role === 'customer')).toMatchObject({ customers: [DEMO.customer], facilities: [DEMO.facility] });
    expect(views.find((v) => v.role === 'operator')).toMatchObject({ customers: [], facilities: [DEMO.facility] });
    expect(views.find((v) => v.role === 'rater')).toMatchObject({ userIds: [DEMO.raterUserId] });
    for (const role of ROLES) {
      expect(await tenants.authenticateApiKey(database.db, clock, firstKeys[role])).toMatchObject({ role, companyId: DEMO.company });
    }

    const items = await database.db.selectFrom('items').select(['item_id', 'status']).orderBy('item_id').execute();
    expect(items).toEqual([
      { item_id: 'LAMP-DESK', status: 'Active' },
      { item_id: 'MUG-BLUE-12', status: 'Active' },
      { item_id: 'MUG-RED-12', status: 'Active' },
      { item_id: 'OLD-SKU-1', status: 'Inactive' },
      { item_id: 'TEE-BLK-M', status: 'Active' },
    ]);
    const stock = await database.db
      .selectFrom('inventory_balances')
      .select(['facility_id', 'item_id', 'lot_no', 'expiration_date', 'on_hand', 'allocated'])
      .orderBy('item_id')
      .orderBy('lot_no')
      .execute();
    expect(stock.map((row) => ({ ...row, on_hand: Number(row.on_hand), allocated: Number(row.allocated) }))).toEqual([
      { facility_id: 'LAX1', item_id: 'LAMP-DESK', lot_no: '', expiration_date: '', on_hand: 120_000, allocated: 0 },
      // DN-1 shipped 6 and DN-2…DN-5 hold 6 each, from the lot that expires first.
      {
        facility_id: 'LAX1',
        item_id: 'MUG-BLUE-12',
        lot_no: 'L2403',
        expiration_date: '2027-03-31',
        on_hand: 1_140_000,
        allocated: 240_000,
      },
      { facility_id: 'LAX1', item_id: 'MUG-BLUE-12', lot_no: 'L2409', expiration_date: '2027-09-30', on_hand: 2_400_000, allocated: 0 },
      // RN-1 received 48.
      { facility_id: 'LAX1', item_id: 'MUG-RED-12', lot_no: '', expiration_date: '', on_hand: 1_440_000, allocated: 0 },
      { facility_id: 'LAX1', item_id: 'TEE-BLK-M', lot_no: '', expiration_date: '', on_hand: 500_000, allocated: 0 },
    ]);
    expect(savedKeys()).toEqual(firstKeys);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('seeds a receipt, an order, a webhook endpoint and a key in each state an example of the API document moves from', async () => {
    const db = database.db;
    const documents = async (table: 'receipts' | 'orders') =>
      (await db.selectFrom(table).select(['svcpoid', 'po_no', 'status']).where('company_id', '=', DEMO.company).execute())
        .map((row) => `${row.svcpoid} ${row.po_no} ${row.status}`)
        .sort();
    expect(await documents('receipts')).toEqual([
      'RN-1 PO-DEMO-1000 Closed',
      'RN-2 PO-DEMO-1001 Imported',
      'RN-3 PO-DEMO-1002 Imported',
      'RN-4 PO-DEMO-1003 Open',
      'RN-5 PO-DEMO-1004 Open',
      'RN-6 PO-DEMO-1005 Open',
    ]);
    expect(await documents('orders')).toEqual([
      'DN-1 SO-DEMO-2000 Shipped',
      'DN-2 SO-DEMO-2001 Imported',
      'DN-3 SO-DEMO-2002 Imported',
      'DN-4 SO-DEMO-2003 Open',
      'DN-5 SO-DEMO-2004 Open',
    ]);
    const endpoints = await db
      .selectFrom('webhook_endpoints')
      .select(['endpoint_id', 'customer_id', 'enabled'])
      .orderBy('endpoint_id')
      .execute();
    expect(endpoints.map((e) => ({ ...e, enabled: Number(e.enabled) }))).toEqual([
      { endpoint_id: 'ep_demo_acme', customer_id: 'ACME', enabled: 0 },
      { endpoint_id: 'ep_demo_acme_old', customer_id: 'ACME', enabled: 0 },
    ]);
    // Made by the customer key, limited to LAX1 as that key is: the key manages them in the examples.
    const customerKey = (await tenants.authenticateApiKey(db, clock, firstKeys.customer))!;
    const listed = await listEndpoints(db, customerKey, { CompanyID: DEMO.company, CustomerID: DEMO.customer });
    expect(listed.Endpoints.map((e) => [e.EndpointID, e.FacilityIDs])).toEqual([
      ['ep_demo_acme', [DEMO.facility]],
      ['ep_demo_acme_old', [DEMO.facility]],
    ]);
    expect(
      (await db.selectFrom('webhook_endpoints').select('key_id').where('company_id', '=', DEMO.company).execute()).map((e) =>
        Number(e.key_id),
      ),
    ).toEqual([customerKey.keyId, customerKey.keyId]);
    const spares = (await tenants.listApiKeys(db, DEMO.company)).filter((key) => key.label?.startsWith('demo spare'));
    expect(spares.map((key) => [key.id, key.role, key.label])).toEqual([
      [5, 'customer', 'demo spare: rotate me'],
      [6, 'customer', 'demo spare: revoke me'],
    ]);
  });

  it('is idempotent: a second run returns the same keys and creates nothing new', async () => {
    const itemsBefore = await database.db.selectFrom('items').select(['item_id', 'updated_at', 'attributes']).orderBy('item_id').execute();
    clock.advance(3_600_000);
    const again = await seedDemo(database.db, clock, keyFile);
    expect(again).toEqual(firstKeys);
    expect(await counts()).toEqual({ companies: 1, customers: 1, facilities: 1, keys: 6, items: 5, postings: 7 });
    const itemsAfter = await database.db.selectFrom('items').select(['item_id', 'updated_at', 'attributes']).orderBy('item_id').execute();
    expect(itemsAfter).toEqual(itemsBefore);
    expect(savedKeys()).toEqual(firstKeys);
  });

  it('limits to LAX1 the demo endpoints of a database seeded when endpoints took every facility', async () => {
    // As an earlier demo left them: no facility rows.
    await database.db.deleteFrom('webhook_endpoint_facilities').where('company_id', '=', DEMO.company).execute();
    const customerKey = (await tenants.authenticateApiKey(database.db, clock, firstKeys.customer))!;
    const listed = async () =>
      (await listEndpoints(database.db, customerKey, { CompanyID: DEMO.company, CustomerID: DEMO.customer })).Endpoints.map((e) => [
        e.EndpointID,
        e.FacilityIDs,
      ]);
    expect(await listed()).toEqual([]);
    await seedDemo(database.db, clock, keyFile);
    expect(await listed()).toEqual([
      ['ep_demo_acme', [DEMO.facility]],
      ['ep_demo_acme_old', [DEMO.facility]],
    ]);
  });

  it('replaces only a revoked demo key on the next run', async () => {
    const operator = (await tenants.listApiKeys(database.db, DEMO.company)).find((v) => v.role === 'operator')!;
    await tenants.revokeApiKey(database.db, clock, operator.id);
    expect(await tenants.authenticateApiKey(database.db, clock, firstKeys.operator)).toBeUndefined();

    const third = await seedDemo(database.db, clock, keyFile);
    expect(third.operator).toMatch(KEY_PATTERN);
    expect(third.operator).not.toBe(firstKeys.operator);
    expect({ ...third, operator: undefined }).toEqual({ ...firstKeys, operator: undefined });
    expect(await counts()).toEqual({ companies: 1, customers: 1, facilities: 1, keys: 7, items: 5, postings: 7 });
    expect(await tenants.authenticateApiKey(database.db, clock, third.operator)).toMatchObject({
      role: 'operator',
      companyId: DEMO.company,
      facilityIds: [DEMO.facility],
    });
    expect(savedKeys()).toEqual(third);

    // and the run after that keeps the replacement
    expect(await seedDemo(database.db, clock, keyFile)).toEqual(third);
    expect((await counts()).keys).toBe(7);
  });

  it('seeds the example rate card once: one version, in force, and the rater key quotes with it', async () => {
    // Five runs so far, and one more.
    await seedDemo(database.db, clock, keyFile);
    const cards = await listRateCards(database.db, clock, DEMO.company);
    expect(cards).toEqual([
      {
        id: expect.any(Number),
        company: DEMO.company,
        userId: null,
        version: 1,
        name: 'Demo Parcel Rates 2026',
        effectiveFrom: '2026-01-01',
        effectiveTo: null,
        timeZone: 'America/New_York',
        // loaded on the first run, before the clock moved on
        loadedAt: '2026-03-05T14:07:09.123Z',
        inForce: true,
      },
    ]);

    const app = await buildApp({ config: loadConfig({ databaseUrl: database.url }, {}), db: database.db, clock, logger: false });
    try {
      // The body the demo prints in its curl line.
      const res = await app.inject({
        method: 'POST',
        url: '/api/RateEngine/SVC/lastmile',
        headers: { 'content-type': 'application/json', authorization: `APIKey ${savedKeys().rater}` },
        payload: JSON.stringify({
          UserID: DEMO.raterUserId,
          Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' },
        }),
      });
      expect(res.statusCode).toBe(200);
      // The example card's quote (worked out in test/api/rating.test.ts): zone 8, off-peak.
      expect(res.json()).toEqual({
        Result: [
          { name: 'Economy', Price: '27.4200' },
          { name: 'Ground', Price: '38.1400' },
        ],
        Page: null,
        ErrorMsg: '',
        ErrorSeverity: 0,
        ErrorSource: '',
        Status: true,
      });
    } finally {
      await app.close();
    }
  });
});
