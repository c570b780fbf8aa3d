import { Ajv } from 'ajv';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { ajvOptions } from '../../src/lib/validate.js';
import { DcSearchResultSchema, OrderLevelSearchResultSchema } from '../../src/modules/orders/order-searches.schemas.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { SHIP_TO } from '../helpers/orders.js';
import {
  buildOrder,
  createKey,
  createWorld,
  problems,
  stock as openingStock,
  uniqueId,
  type StockLine,
  type World,
} from '../helpers/factories.js';
import { ORDER_DC_SEARCH, ORDER_LEVEL_SEARCH, ORDER_SHIP } from '../helpers/paths.js';

/**
 * The customer's read side of outbound orders: the DN header level query (spec 2.10) and the DC
 * search (docs/compatibility.md). Orders are imported, stocked and shipped through the real API; the test
 * facilities are in America/Los_Angeles.
 */

const HEAD = [
  'Facility',
  'Customer',
  'Order #',
  'Status',
  'Order Type',
  'Load #',
  'PO #',
  'Customer BOL',
  'Shipping Account No',
  'Source',
  'Ship Not Before',
  'Ship Not Later',
  'Hold At Location',
  'Hold At Carrier',
  'Consolidation No',
  'Ref.#',
  'Equipment Type',
  'Appointment Time',
  'Desired Schedule Date',
  'Delivery Request Date',
  'Shipped Time',
  'Carrier',
  'SCAC Code',
  'Delivery Service',
  'Pro #',
  'Freight Term',
  'Retailer Name',
  'Ship To Name',
  'Ship To Address',
  'Sold To Name',
  'Sold To Address',
  'Freight Bill To Name',
  'Label Notes',
  'InvoiceNo',
  'Order Created By',
  'Order Dynamic Property',
  'Shipped Date',
  'Created Date',
  'Create Time',
  'Update Time',
];

type Json = Record<string, unknown>;

/** The documenting response schemas must describe what the routes send. */
const ajv = new Ajv(ajvOptions);
const levelResultValid = ajv.compile(OrderLevelSearchResultSchema);
const dcResultValid = ajv.compile(DcSearchResultSchema);

/** A ReferenceNo that comes as a JSON number, unique enough for one test database. */
const numericReference = () => 100_000 + Math.floor(Math.random() * 900_000_000);

/** The requests the tests make: import, stock, ship (through the real API) and the two searches. */
function actions(ctx: ReturnType<typeof useTestApp>) {
  const setClock = (iso: string) => {
    ctx().clock.time = Date.parse(iso);
  };

  /** Imports an order with the key of its customer; one line of a fresh SKU unless Items are given. */
  const importOrder = async (world: World, content: Json = {}, { customer = 0, facility = 0, root = {} as Json } = {}) => {
    const key = customer === 0 ? world.customer : world.otherCustomer;
    const items = [{ ItemID: uniqueId('SKU'), OrderedQty: '1', UOM: 'EA' }];
    const order = await buildOrder(ctx(), { tenant: world.tenant, customer, facility, root, key, content: { Items: items, ...content } });
    return order.answer;
  };

  /** Puts stock on hand (admin key) for the first customer unless another is named. */
  const stock = (world: World, items: StockLine[], { customer = 0, facility = 0 } = {}) =>
    openingStock(ctx(), { tenant: world.tenant, customer, facility, items, key: world.admin });

  /** Posts a shipment confirmation with the operator key of the first facility (admin elsewhere). */
  const ship = async (world: World, svcpoid: string, body: Json, facility = 0) => {
    const response = await ctx().post(
      ORDER_SHIP,
      {
        CompanyID: world.tenant.companyId,
        FacilityID: world.tenant.facilityIds[facility],
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        ...body,
      },
      facility === 0 ? world.operator : world.admin,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Order as { Status: string };
  };

  /** An order of one fresh SKU, stocked, imported (so allocated) and shipped once with these fields. */
  const shippedOrder = async (world: World, content: Json = {}, shipment: Json = {}, { customer = 0, facility = 0 } = {}) => {
    const sku = uniqueId('SKU');
    await stock(world, [{ ItemNumber: sku, UOM: 'EA', Qty: '10' }], { customer, facility });
    const order = await importOrder(world, { Items: [{ ItemID: sku, OrderedQty: '2', UOM: 'EA' }], ...content }, { customer, facility });
    await ship(world, order.SVCPOID, { Items: [{ ItemNumber: sku, ShippedQty: '1', UOM: 'EA' }], ...shipment }, facility);
    return order;
  };

  const searchWith =
    (path: string) =>
    (world: World, body: Json = {}, key = world.customer): Promise<LightMyRequestResponse> =>
      ctx().post(
        path,
        { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0], CustomerID: world.tenant.customerIds[0], ...body },
        key,
      );

  return {
    setClock,
    importOrder,
    stock,
    ship,
    shippedOrder,
    searchLevel: searchWith(ORDER_LEVEL_SEARCH),
    searchDc: searchWith(ORDER_DC_SEARCH),
  };
}

describeEachDialect('DN header level query', (dialect) => {
  const ctx = useTestApp(dialect);
  const { setClock, importOrder, stock, ship, searchLevel: search } = actions(ctx);
  const makeWorld = () => createWorld(ctx().database.db, ctx().clock);
  const keyIdOf = async (key: string) => (await tenants.authenticateApiKey(ctx().database.db, ctx().clock, key))!.keyId;
  const orderNos = (response: LightMyRequestResponse) => {
    expect(response.statusCode, response.body).toBe(200);
    return response.json().results.data.map((row: Json) => row['Order #']);
  };

  it('answers the spec’s 40 head names in order, and a fully filled order gives every column its value', async () => {
    const world = await makeWorld();
    const { customerIds, facilityIds } = world.tenant;
    const sku = uniqueId('SKU');
    await stock(world, [{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    setClock('2026-03-05T18:00:00.000Z'); // 10:00 in Los Angeles
    const referenceNo = numericReference();
    const poNo = uniqueId('PO');
    const order = await importOrder(world, {
      ReferenceNo: referenceNo,
      PONo: poNo,
      OrderType: 'Regular Order',
      LoadNo: 'LOAD-7',
      BOLNo: 'BOL-9',
      ConsolidationNo: 'CONS-1',
      ShipNotBefore: '20240305140709',
      ShipNoLater: '3/7/2024 5:00:00 PM',
      ScheduledDate: '2024-03-10T09:30:00',
      AppointmentTime: '2024-03-09T18:00:00Z', // an explicit offset is kept: 10:00 in Los Angeles
      DeliveryRequestDate: '2024-03-12T08:15:30.250',
      Address: {
        ...SHIP_TO,
        ShipToAddress2: 'Suite 5',
        SoldToName: 'Acme Retail',
        SoldToAddress1: '9 Elm St',
        SoldToCity: 'Reno',
        SoldToState: 'NV',
        SoldToCountry: 'US',
        BillToName: 'Acme Accounts',
      },
      ShippingInfo: {
        FreightTerm: 'TP',
        ShippingAccountNo: 'ACC-1',
        ShipMethod: 'U',
        DeliveryService: 'Ground',
        SCACCode: 'UPSN',
        CarrierName: 'UPS',
        HoldAtLocation: 'Depot 4',
        HoldAtCarrier: 'UPS Store',
        EquipmentType: '53FT',
      },
      OrderNotes: { Note: 'ring twice', LabelNote: 'Fragile' },
      RetailerName: 'Big Box',
      InvoiceNo: 'INV-3',
      DynTxtPropertyValue12: 'blue',
      DynTxtPropertyValue01: 'red',
      DynTxtPropertyValue03: '',
      DynTxtPropertyValue04: null,
      Items: [{ LineNo: 1, ItemID: sku, OrderedQty: '5', UOM: 'EA' }],
    });
    expect(order.Status).toBe('Success');

    const expected = {
      Facility: facilityIds[0],
      Customer: customerIds[0],
      'Order #': order.SVCPOID,
      Status: 'Imported',
      'Order Type': 'Regular Order',
      'Load #': 'LOAD-7',
      'PO #': poNo,
      'Customer BOL': 'BOL-9',
      'Shipping Account No': 'ACC-1',
      Source: 'EDI',
      'Ship Not Before': '2024-03-05T14:07:09.000',
      'Ship Not Later': '2024-03-07T17:00:00.000',
      'Hold At Location': 'Depot 4',
      'Hold At Carrier': 'UPS Store',
      'Consolidation No': 'CONS-1',
      'Ref.#': referenceNo,
      'Equipment Type': '53FT',
      'Appointment Time': '2024-03-09T10:00:00.000',
      'Desired Schedule Date': '2024-03-10T09:30:00.000',
      'Delivery Request Date': '2024-03-12T08:15:30.250',
      'Shipped Time': null,
      Carrier: 'UPS',
      'SCAC Code': 'UPSN',
      'Delivery Service': 'Ground',
      'Pro #': null,
      'Freight Term': 'TP',
      'Retailer Name': 'Big Box',
      'Ship To Name': 'Jane Doe',
      'Ship To Address': '1 Market St, Suite 5, San Francisco, CA 94105, US',
      'Sold To Name': 'Acme Retail',
      'Sold To Address': '9 Elm St, Reno, NV, US',
      'Freight Bill To Name': 'Acme Accounts',
      'Label Notes': 'Fragile',
      InvoiceNo: 'INV-3',
      'Order Created By': `API key ${await keyIdOf(world.customer)}`,
      'Order Dynamic Property': { DynTxtPropertyValue01: 'red', DynTxtPropertyValue12: 'blue' },
      'Shipped Date': null,
      'Created Date': '2026-03-05',
      'Create Time': '2026-03-05T10:00:00.000',
      'Update Time': '2026-03-05T10:00:00.000-08:00',
    };

    // Before any shipment: no shipment columns; Carrier and SCAC Code are what the import asked for.
    const before = await search(world);
    expect(before.statusCode, before.body).toBe(200);
    const body = before.json();
    expect(levelResultValid(body), JSON.stringify(levelResultValid.errors)).toBe(true);
    expect(body.results.head).toEqual(HEAD);
    expect(body.results.data).toEqual([expected]);
    expect(Object.keys(body.results.data[0])).toEqual(HEAD);
    expect(Object.keys(body.results.data[0]['Order Dynamic Property'])).toEqual(['DynTxtPropertyValue01', 'DynTxtPropertyValue12']);
    expect(body.paging).toEqual({ totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1, limit: 100 });
    // The quirks, read from the raw body: a numeric ReferenceNo stays a number, nulls stay null.
    expect(before.body).toContain(`"Ref.#":${referenceNo},"Equipment Type"`);
    expect(before.body).toContain('"Shipped Time":null,"Carrier":"UPS"');
    expect(before.body).toContain('"Order Dynamic Property":{"DynTxtPropertyValue01":"red","DynTxtPropertyValue12":"blue"}');

    // Two shipments; the latest posted wins even though it names an earlier time (23:30 on the
    // 5th in Los Angeles is already the 6th in UTC).
    setClock('2026-03-06T18:00:00.000Z');
    await ship(world, order.SVCPOID, {
      ShippedTime: '2026-03-06T09:00:00.000',
      CarrierName: 'FedEx Freight',
      SCACCode: 'FXFE',
      ProNo: 'PRO-1',
      Items: [{ ItemNumber: sku, ShippedQty: '2', UOM: 'EA' }],
    });
    setClock('2026-03-07T20:00:00.000Z'); // 12:00 in Los Angeles
    await ship(world, order.SVCPOID, {
      ShippedTime: '2026-03-05T23:30:00.000',
      CarrierName: 'XPO Logistics',
      SCACCode: 'XPOL',
      ProNo: 'PRO-2',
      Items: [{ ItemNumber: sku, ShippedQty: '1', UOM: 'EA' }],
    });
    const after = await search(world);
    expect(levelResultValid(after.json()), JSON.stringify(levelResultValid.errors)).toBe(true);
    expect(after.json().results.data).toEqual([
      {
        ...expected,
        Status: 'Partial Shipped',
        'Shipped Time': '2026-03-05T23:30:00.000',
        Carrier: 'XPO Logistics',
        'SCAC Code': 'XPOL',
        'Pro #': 'PRO-2',
        'Shipped Date': '2026-03-05',
        'Update Time': '2026-03-07T12:00:00.000-08:00',
      },
    ]);
  });

  it('gives null in every optional column of an order sent with only the required fields', async () => {
    const world = await makeWorld();
    setClock('2026-03-06T07:30:00.000Z'); // 23:30 on the 5th in Los Angeles
    const referenceNo = uniqueId('SO');
    const order = await importOrder(world, { ReferenceNo: referenceNo });
    expect(order.Status).toBe('Warning'); // nothing in stock: a shortfall, not an error

    const response = await search(world);
    const body = response.json();
    expect(levelResultValid(body), JSON.stringify(levelResultValid.errors)).toBe(true);
    const given = {
      Facility: world.tenant.facilityIds[0],
      Customer: world.tenant.customerIds[0],
      'Order #': order.SVCPOID,
      Status: 'Imported',
      Source: 'EDI',
      'Ref.#': referenceNo,
      'Ship To Name': 'Jane Doe',
      'Ship To Address': '1 Market St, San Francisco, CA 94105, US',
      'Order Created By': `API key ${await keyIdOf(world.customer)}`,
      'Created Date': '2026-03-05',
      'Create Time': '2026-03-05T23:30:00.000',
      'Update Time': '2026-03-05T23:30:00.000-08:00',
    };
    expect(body.results.data).toEqual([
      Object.fromEntries(HEAD.map((name) => [name, name in given ? given[name as keyof typeof given] : null])),
    ]);
    expect(Object.keys(body.results.data[0])).toEqual(HEAD);
    // Nulls reach the wire as null, not "" or 0.
    expect(response.body).toContain('"PO #":null,"Customer BOL":null');
    expect(response.body).toContain(`"Ref.#":"${referenceNo}"`);
    expect(response.body).toContain('"Order Dynamic Property":null');
  });

  it('filters by PONo, ReferenceNo (a number or text, compared as text) and UpdatedWhenFrom/To, oldest update first', async () => {
    const world = await makeWorld();
    const [poA, poB] = [uniqueId('PO'), uniqueId('PO')];
    const textReference = uniqueId('SO');
    const numberReference = numericReference();
    setClock('2026-03-05T18:00:00.000Z');
    const a = await importOrder(world, { ReferenceNo: textReference, PONo: poA });
    setClock('2026-03-05T19:00:00.000Z');
    const b = await importOrder(world, { ReferenceNo: numberReference, PONo: poA });
    setClock('2026-03-05T20:00:00.000Z');
    const c = await importOrder(world, { PONo: poB });
    // Importing a live order again updates it, which moves it to the end.
    setClock('2026-03-05T21:00:00.000Z');
    await importOrder(world, { ReferenceNo: textReference, PONo: poA, OrderType: 'Rush' });

    expect(orderNos(await search(world))).toEqual([b.SVCPOID, c.SVCPOID, a.SVCPOID]);
    expect(orderNos(await search(world, { PONo: poA }))).toEqual([b.SVCPOID, a.SVCPOID]);
    expect(orderNos(await search(world, { ReferenceNo: numberReference }))).toEqual([b.SVCPOID]);
    expect(orderNos(await search(world, { ReferenceNo: String(numberReference) }))).toEqual([b.SVCPOID]);
    expect(orderNos(await search(world, { ReferenceNo: textReference }))).toEqual([a.SVCPOID]);
    expect(orderNos(await search(world, { PONo: poB, ReferenceNo: textReference }))).toEqual([]);
    expect(orderNos(await search(world, { PONo: '', ReferenceNo: null }))).toEqual([b.SVCPOID, c.SVCPOID, a.SVCPOID]);
    expect(orderNos(await search(world, { PONo: 'NO-SUCH-PO' }))).toEqual([]);

    expect(orderNos(await search(world, { UpdatedWhenFrom: '2026-03-05T12:00:00.000-08:00' }))).toEqual([c.SVCPOID, a.SVCPOID]);
    expect(orderNos(await search(world, { UpdatedWhenTo: '2026-03-05T20:00:00.000Z' }))).toEqual([b.SVCPOID, c.SVCPOID]);
    expect(orderNos(await search(world, { UpdatedWhenTo: '2026-03-05T19:59:59.999Z' }))).toEqual([b.SVCPOID]);
    expect(
      orderNos(await search(world, { UpdatedWhenFrom: '2026-03-05T20:00:00+01:00', UpdatedWhenTo: '2026-03-05T20:00:00.000+00:00' })),
    ).toEqual([b.SVCPOID, c.SVCPOID]);
    expect(orderNos(await search(world, { UpdatedWhenFrom: '', UpdatedWhenTo: null }))).toHaveLength(3);
    const rushed = (await search(world, { ReferenceNo: textReference })).json().results.data[0];
    expect(rushed).toMatchObject({ 'Order Type': 'Rush', 'Update Time': '2026-03-05T13:00:00.000-08:00' });
    expect(rushed['Create Time']).toBe('2026-03-05T10:00:00.000');
  });

  it('pages oldest update first, ties by SVCPOID: 100 by default, PageSize, PagingNo, and a page past the end', async () => {
    const world = await makeWorld();
    const made: string[] = [];
    for (const at of [
      '2026-03-05T18:00:00.000Z',
      '2026-03-05T18:00:00.000Z',
      '2026-03-05T17:00:00.000Z',
      '2026-03-05T19:00:00.000Z',
      '2026-03-05T18:00:00.000Z',
    ]) {
      setClock(at);
      made.push((await importOrder(world)).SVCPOID);
    }
    const byUpdate = [made[2]!, ...[made[0]!, made[1]!, made[4]!].sort(), made[3]!];
    const all = await search(world);
    expect(orderNos(all)).toEqual(byUpdate);
    expect(all.json().paging).toEqual({ totalCount: 5, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 5, limit: 100 });

    for (const pageKey of ['PageNo', 'PagingNo']) {
      const pages: string[][] = [];
      for (const pageNo of [1, 2, 3]) {
        const page = await search(world, { Paging: { [pageKey]: pageNo, PageSize: 2 } });
        const rows = orderNos(page);
        pages.push(rows);
        expect(page.json().paging).toEqual({
          totalCount: 5,
          pageNo,
          totalPage: 3,
          startIndex: (pageNo - 1) * 2 + 1,
          endIndex: (pageNo - 1) * 2 + rows.length,
          limit: 2,
          // The cursor of the page after (docs/paging.md); none on the last page.
          ...(pageNo < 3 ? { next: expect.any(String) } : {}),
        });
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(byUpdate);
      const past = await search(world, { Paging: { [pageKey]: 4, PageSize: 2 } });
      expect(past.statusCode).toBe(200);
      expect(past.json()).toEqual({
        results: { head: HEAD, data: [] },
        paging: { totalCount: 5, pageNo: 4, totalPage: 3, startIndex: 0, endIndex: 0, limit: 2 },
      });
    }
  });

  it('keeps tenants apart: foreign keys are 403, an unknown facility is 400, and another customer’s orders never appear', async () => {
    const world = await makeWorld();
    const stranger = await makeWorld();
    const mine = await importOrder(world);
    const theirs = await importOrder(world, { PONo: uniqueId('PO') }, { customer: 1 });
    const elsewhere = await importOrder(world, {}, { facility: 1 });

    for (const [who, key] of [
      ['another customer’s key', world.otherCustomer],
      ['another company’s admin key', stranger.admin],
      ['another company’s customer key', stranger.customer],
      ['an operator of another facility', world.otherOperator],
      ['a rater key', await createKey(ctx().database.db, ctx().clock, world.tenant, 'rater')],
    ] as const) {
      const response = await search(world, {}, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.body, who).not.toContain(mine.SVCPOID);
    }
    for (const key of [world.customer, world.operator, world.admin]) {
      expect(orderNos(await search(world, {}, key))).toEqual([mine.SVCPOID]);
    }
    const unknownFacility = await search(world, { FacilityID: 'NO-SUCH' });
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });
    const strangersFacility = await search(world, { FacilityID: stranger.tenant.facilityIds[0] }, world.admin);
    expect(strangersFacility.statusCode).toBe(400);
    expect(strangersFacility.json()).toEqual({ error: 'Not found facility' });

    // The other customer sees its own order only; filters cannot reach across.
    expect(orderNos(await search(world, { CustomerID: world.tenant.customerIds[1] }, world.otherCustomer))).toEqual([theirs.SVCPOID]);
    expect(orderNos(await search(world, { ReferenceNo: theirs.ReferenceNo }))).toEqual([]);
    expect(orderNos(await search(world, { FacilityID: world.tenant.facilityIds[1] }))).toEqual([elsewhere.SVCPOID]);
    expect((await search(world, { FacilityID: world.tenant.facilityIds[1] }, world.operator)).statusCode).toBe(403);
  });

  it('refuses a bad body with 400 in the spec’s error array, every problem at once', async () => {
    const world = await makeWorld();
    const bad = await search(world, {
      CustomerID: undefined,
      PONo: 'P'.repeat(51),
      ReferenceNo: 1.5,
      UpdatedWhenFrom: '2026-03-05T11:00:00.000',
      UpdatedWhenTo: 'soon',
      Paging: { PageSize: 1001 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(
      problems(
        'CustomerID is required',
        'PONo must be at most 50 characters',
        'ReferenceNo must be a string or a whole number or null',
        'UpdatedWhenFrom must be an ISO 8601 date-time with a UTC offset such as 2024-03-05T14:07:09.123-08:00',
        'UpdatedWhenTo must be an ISO 8601 date-time with a UTC offset such as 2024-03-05T14:07:09.123-08:00',
        'Paging.PageSize must be at most 1000',
      ),
    );
    const notJson = await ctx().post(ORDER_LEVEL_SEARCH, '{"CompanyID":', world.customer);
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toEqual([{ code: expect.stringMatching(/^EDI-ERROR-/), error: expect.any(String) }]);
  });
});

describeEachDialect('DC search', (dialect) => {
  const ctx = useTestApp(dialect);
  const { setClock, importOrder, stock, ship, shippedOrder, searchDc: search } = actions(ctx);
  const makeWorld = () => createWorld(ctx().database.db, ctx().clock);
  const proNos = (response: LightMyRequestResponse) => {
    expect(response.statusCode, response.body).toBe(200);
    return response.json().map((record: { DC: { ProNo: string } }) => record.DC.ProNo);
  };

  let world: World;
  beforeAll(async () => {
    world = await makeWorld();
  });

  it('answers one record per shipment confirmation in the DC shape, oldest first', async () => {
    const [skuA, skuB] = [uniqueId('SKU'), uniqueId('SKU')];
    await stock(world, [
      { ItemNumber: skuA, UOM: 'EA', Qty: '10', LotNo: 'L1' },
      { ItemNumber: skuB, UOM: 'CS', Qty: '10' },
    ]);
    setClock('2026-03-05T18:00:00.000Z');
    const referenceNo = numericReference();
    const poNo = uniqueId('PO');
    const order = await importOrder(world, {
      ReferenceNo: referenceNo,
      PONo: poNo,
      BOLNo: 'BOL-9',
      LoadNo: 'LOAD-7',
      ShippingInfo: { CarrierName: 'UPS', SCACCode: 'UPSN' },
      Items: [
        { LineNo: 10, ItemID: skuA, OrderedQty: '5', UOM: 'EA' },
        { LineNo: 20, ItemID: skuB, OrderedQty: 3, UOM: 'CS' },
      ],
    });
    setClock('2026-03-06T17:00:00.000Z'); // 09:00 in Los Angeles
    await ship(world, order.SVCPOID, {
      ShippedTime: '2026-03-06T08:15:00.000',
      CarrierName: 'FedEx',
      SCACCode: 'FDEG',
      ProNo: 'PRO-1',
      TrackingNo: 'TRK-1',
      Items: [
        { LineNo: 10, ItemNumber: skuA, ShippedQty: '2', UOM: 'EA', SerialNumber: ['S1', 'S2'] },
        { ItemNumber: skuB, ShippedQty: 1.5, UOM: 'CS' },
      ],
    });
    setClock('2026-03-07T08:30:00.000Z'); // 00:30 on the 7th in Los Angeles
    expect(
      await ship(world, order.SVCPOID, {
        BOLNo: 'BOL-10',
        Close: true,
        Items: [{ ItemNumber: skuA, ShippedQty: '3', UOM: 'EA' }],
      }),
    ).toMatchObject({ Status: 'Short Shipped' });

    const response = await search(world, { PONo: poNo });
    expect(response.statusCode, response.body).toBe(200);
    const records = response.json();
    expect(dcResultValid(records), JSON.stringify(dcResultValid.errors)).toBe(true);
    const { companyId, customerIds, facilityIds } = world.tenant;
    const record = (dc: Json, createdWhen: string) => ({
      FacilityID: facilityIds[0],
      CustomerID: customerIds[0],
      ReferenceNo: referenceNo,
      PONo: poNo,
      DC: { CompanyID: companyId, OrderNo: order.SVCPOID, ...dc },
      CreatedWhen: createdWhen,
    });
    expect(records).toEqual([
      record(
        {
          ShippedDate: '2026-03-06T08:15:00.000',
          BOLNo: 'BOL-9',
          LoadNo: 'LOAD-7',
          SCACCode: 'FDEG',
          CarrierName: 'FedEx',
          TrackingNo: 'TRK-1',
          ProNo: 'PRO-1',
          Items: [
            {
              LineNo: 10,
              ItemNumber: skuA,
              LotNo: 'L1',
              OrderedQty: 5,
              ShippedQty: 2,
              DifferenceQty: 3,
              UOM: 'EA',
              SerialNumber: ['S1', 'S2'],
            },
            { LineNo: 20, ItemNumber: skuB, LotNo: null, OrderedQty: 3, ShippedQty: 1.5, DifferenceQty: 1.5, UOM: 'CS', SerialNumber: [] },
          ],
        },
        '2026-03-06T09:00:00.000',
      ),
      record(
        {
          // No ShippedTime: shipped when posted. No carrier: the order's.
          ShippedDate: '2026-03-07T00:30:00.000',
          BOLNo: 'BOL-10',
          LoadNo: 'LOAD-7',
          SCACCode: 'UPSN',
          CarrierName: 'UPS',
          TrackingNo: null,
          ProNo: null,
          Items: [
            { LineNo: 10, ItemNumber: skuA, LotNo: 'L1', OrderedQty: 5, ShippedQty: 3, DifferenceQty: 0, UOM: 'EA', SerialNumber: [] },
          ],
        },
        '2026-03-07T00:30:00.000',
      ),
    ]);
    expect(Object.keys(records[0])).toEqual(['FacilityID', 'CustomerID', 'ReferenceNo', 'PONo', 'DC', 'CreatedWhen']);
    expect(Object.keys(records[0].DC)).toEqual([
      'CompanyID',
      'OrderNo',
      'ShippedDate',
      'BOLNo',
      'LoadNo',
      'SCACCode',
      'CarrierName',
      'TrackingNo',
      'ProNo',
      'Items',
    ]);
    // From the raw body: the numeric ReferenceNo and the quantities are JSON numbers.
    expect(response.body).toContain(`"ReferenceNo":${referenceNo},"PONo":"${poNo}"`);
    expect(response.body).toContain(`"OrderNo":"${order.SVCPOID}","ShippedDate":"2026-03-06T08:15:00.000","BOLNo":"BOL-9"`);
    expect(response.body).toContain('"OrderedQty":3,"ShippedQty":1.5,"DifferenceQty":1.5');
    expect(response.headers).toMatchObject({ 'x-total-count': '2', 'x-page-no': '1', 'x-page-size': '100' });
  });

  it('pages oldest first (creation time, then id), stable, with the paging headers; a page past the end is []', async () => {
    const paged = await makeWorld();
    const sku = uniqueId('SKU');
    await stock(paged, [{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const order = await importOrder(paged, { Items: [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }] });
    const stamps: [string, string][] = [
      ['P1', '2026-03-05T18:00:00.000Z'],
      ['P2', '2026-03-05T18:00:00.000Z'],
      ['P3', '2026-03-05T18:00:01.000Z'],
      ['P4', '2026-03-05T17:59:55.000Z'],
      ['P5', '2026-03-05T18:00:02.000Z'],
    ];
    for (const [proNo, at] of stamps) {
      setClock(at);
      await ship(paged, order.SVCPOID, { ProNo: proNo, Items: [{ ItemNumber: sku, ShippedQty: '1', UOM: 'EA' }] });
    }
    const expected = ['P4', 'P1', 'P2', 'P3', 'P5'];
    const all = await search(paged);
    expect(proNos(all)).toEqual(expected);
    expect(all.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': '1', 'x-page-size': '100' });

    for (const pageKey of ['PageNo', 'PagingNo']) {
      const pages: string[][] = [];
      for (const pageNo of [1, 2, 3]) {
        const page = await search(paged, { Paging: { [pageKey]: pageNo, PageSize: 2 } });
        expect(page.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': String(pageNo), 'x-page-size': '2' });
        pages.push(proNos(page));
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(expected);
      const past = await search(paged, { Paging: { [pageKey]: 4, PageSize: 2 } });
      expect(past.statusCode).toBe(200);
      expect(past.json()).toEqual([]);
      expect(past.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': '4', 'x-page-size': '2' });
    }
  });

  it('filters by PONo, ReferenceNo (a number or text) and CreatedWhenFrom/To in the facility’s zone; nothing matching is []', async () => {
    const filtered = await makeWorld();
    const poNo = uniqueId('PO');
    const numberReference = numericReference();
    const textReference = uniqueId('SO');
    setClock('2026-03-05T18:00:00.000Z'); // 10:00 on the 5th in Los Angeles
    await shippedOrder(filtered, { ReferenceNo: numberReference, PONo: poNo }, { ProNo: 'A' });
    setClock('2026-03-06T07:30:00.000Z'); // 23:30 on the 5th in Los Angeles, the 6th in UTC
    await shippedOrder(filtered, { ReferenceNo: textReference, PONo: poNo }, { ProNo: 'B' });
    setClock('2026-03-06T18:00:00.000Z'); // 10:00 on the 6th
    await shippedOrder(filtered, {}, { ProNo: 'C' });
    // An order never shipped has no DC.
    const unshipped = await importOrder(filtered, { PONo: uniqueId('PO') });

    expect(proNos(await search(filtered))).toEqual(['A', 'B', 'C']);
    expect(proNos(await search(filtered, { PONo: poNo }))).toEqual(['A', 'B']);
    expect(proNos(await search(filtered, { ReferenceNo: numberReference }))).toEqual(['A']);
    expect(proNos(await search(filtered, { ReferenceNo: String(numberReference) }))).toEqual(['A']);
    expect(proNos(await search(filtered, { ReferenceNo: textReference, PONo: poNo }))).toEqual(['B']);
    expect(proNos(await search(filtered, { PONo: '', ReferenceNo: null }))).toEqual(['A', 'B', 'C']);

    const fifth = await search(filtered, { CreatedWhenFrom: '2026-03-05T00:00:00.000', CreatedWhenTo: '2026-03-05T23:59:59.999' });
    expect(proNos(fifth)).toEqual(['A', 'B']);
    expect(fifth.json()[1].CreatedWhen).toBe('2026-03-05T23:30:00.000');
    expect(proNos(await search(filtered, { CreatedWhenFrom: '2026-03-05T23:30:00.000' }))).toEqual(['B', 'C']);
    expect(proNos(await search(filtered, { CreatedWhenFrom: '2026-03-05T23:30:00.001' }))).toEqual(['C']);
    expect(proNos(await search(filtered, { CreatedWhenTo: '2026-03-05T23:29:59.999' }))).toEqual(['A']);
    expect(proNos(await search(filtered, { CreatedWhenFrom: '', CreatedWhenTo: null }))).toEqual(['A', 'B', 'C']);

    for (const filter of [
      { PONo: 'NO-SUCH-PO' },
      { ReferenceNo: 'NO-SUCH-REF' },
      { ReferenceNo: numberReference, PONo: 'NO-SUCH-PO' },
      { ReferenceNo: unshipped.ReferenceNo },
      { CreatedWhenFrom: '2026-03-07T00:00:00.000' },
    ]) {
      const none = await search(filtered, filter);
      expect(none.statusCode, JSON.stringify(filter)).toBe(200);
      expect(none.json()).toEqual([]);
      expect(none.headers).toMatchObject({ 'x-total-count': '0', 'x-page-no': '1', 'x-page-size': '100' });
    }
  });

  it('keeps tenants apart: foreign keys are 403, an unknown facility is 400, and another customer’s DCs never appear', async () => {
    const isolated = await makeWorld();
    const stranger = await makeWorld();
    setClock('2026-03-05T18:00:00.000Z');
    await shippedOrder(isolated, {}, { ProNo: 'MINE' });
    const theirs = await shippedOrder(isolated, { PONo: uniqueId('PO') }, { ProNo: 'THEIRS' }, { customer: 1 });
    await shippedOrder(isolated, {}, { ProNo: 'ELSEWHERE' }, { facility: 1 });

    for (const [who, key] of [
      ['another customer’s key', isolated.otherCustomer],
      ['another company’s admin key', stranger.admin],
      ['another company’s customer key', stranger.customer],
      ['an operator of another facility', isolated.otherOperator],
      ['a rater key', await createKey(ctx().database.db, ctx().clock, isolated.tenant, 'rater')],
    ] as const) {
      const response = await search(isolated, {}, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.body, who).not.toContain('MINE');
    }
    for (const key of [isolated.customer, isolated.operator, isolated.admin]) {
      expect(proNos(await search(isolated, {}, key))).toEqual(['MINE']);
    }
    const unknownFacility = await search(isolated, { FacilityID: 'NO-SUCH' });
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });

    expect(proNos(await search(isolated, { CustomerID: isolated.tenant.customerIds[1] }, isolated.otherCustomer))).toEqual(['THEIRS']);
    expect(proNos(await search(isolated, { ReferenceNo: theirs.ReferenceNo }))).toEqual([]);
    expect(proNos(await search(isolated, { FacilityID: isolated.tenant.facilityIds[1] }))).toEqual(['ELSEWHERE']);
    expect((await search(isolated, { FacilityID: isolated.tenant.facilityIds[1] }, isolated.operator)).statusCode).toBe(403);
  });

  it('refuses a bad body with 400 in the spec’s error array, every problem at once', async () => {
    const bad = await search(world, {
      FacilityID: undefined,
      ReferenceNo: { no: 1 },
      CreatedWhenFrom: 'yesterday',
      CreatedWhenTo: '2026-03-05T11:00:00.000-08:00x',
      Paging: { PageNo: 0 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(
      problems(
        'FacilityID is required',
        'ReferenceNo must be a string or a whole number or null',
        'CreatedWhenFrom must be an ISO 8601 local date-time such as 2024-03-05T14:07:09.123',
        'CreatedWhenTo must be an ISO 8601 local date-time such as 2024-03-05T14:07:09.123',
        'Paging.PageNo must be at least 1',
      ),
    );
  });
});
