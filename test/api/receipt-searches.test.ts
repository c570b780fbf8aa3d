import { Ajv } from 'ajv';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { ajvOptions } from '../../src/lib/validate.js';
import { RcSearchResultSchema, ReceiptLevelSearchResultSchema } from '../../src/modules/receipts/receipt-searches.schemas.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { buildReceipt, createKey, createWorld, importItems, problems, uniqueId, type World } from '../helpers/factories.js';
import { RECEIPT_CONFIRM, RECEIPT_LEVEL_SEARCH, RECEIPT_RC_SEARCH } from '../helpers/paths.js';

const pad = (n: number) => String(n).padStart(2, '0');
const range20 = Array.from({ length: 20 }, (_, i) => i + 1);
/** DynTxtPropertyValue01…20, each null unless given. */
const dynamics = (values: Record<number, string> = {}, key = (n: number) => `DynTxtPropertyValue${pad(n)}`) =>
  Object.fromEntries(range20.map((n) => [key(n), values[n] ?? null]));
/** The RC Items spelling: dynTxtPropertyValue from 11 on. */
const itemDynamics = (values: Record<number, string> = {}) => dynamics(values, (n) => `${n > 10 ? 'dyn' : 'Dyn'}TxtPropertyValue${pad(n)}`);

/** The documenting response schemas must describe what the routes send. */
const ajv = new Ajv(ajvOptions);
const rcResultValid = ajv.compile(RcSearchResultSchema);
const levelResultValid = ajv.compile(ReceiptLevelSearchResultSchema);

interface Ctx {
  ctx: ReturnType<typeof useTestApp>;
}

function worldMaker({ ctx }: Ctx) {
  return async function makeWorld(): Promise<World> {
    const world = await createWorld(ctx().database.db, ctx().clock);
    const { tenant } = world;
    for (const customer of tenant.customerIds.keys()) {
      const items = [{ itemID: 'MUG', itemDescription: 'Stoneware mug', shortDescription: 'mug' }];
      await importItems(ctx(), { tenant, customer, key: world.admin, items });
    }
    return world;
  };
}

function receiptMaker({ ctx }: Ctx) {
  /** Imports a receipt (admin key) and answers its SVCPOID and PONo. */
  const importReceipt = async (
    world: World,
    content: Record<string, unknown> = {},
    { customer = 0, facility = 0, root = {} as Record<string, unknown> } = {},
  ) => {
    const poNo = (content.PONo as string | undefined) ?? uniqueId('PO');
    // SCACCode instead of the default CarrierName, which a test may still give.
    const defaults = {
      CarrierName: undefined,
      SCACCode: 'UPSN',
      Items: [{ POLineNo: 1, ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA' }],
    };
    const { svcpoid } = await buildReceipt(ctx(), {
      tenant: world.tenant,
      customer,
      facility,
      root,
      key: world.admin,
      content: { ...defaults, ...content, PONo: poNo },
    });
    return { svcpoid, poNo };
  };
  /** Posts a confirmation (admin key); one MUG unless Items are given. */
  const confirm = async (world: World, svcpoid: string, confirmationNo: string, extra: Record<string, unknown> = {}, facility = 0) => {
    const response = await ctx().post(
      RECEIPT_CONFIRM,
      {
        CompanyID: world.tenant.companyId,
        FacilityID: world.tenant.facilityIds[facility],
        SVCPOID: svcpoid,
        ConfirmationNo: confirmationNo,
        Items: [{ ItemNumber: 'MUG', ReceivedQuantity: '1', UOM: 'EA' }],
        ...extra,
      },
      world.admin,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  return { importReceipt, confirm };
}

describeEachDialect('RC search', (dialect) => {
  const ctx = useTestApp(dialect);
  const makeWorld = worldMaker({ ctx });
  const { importReceipt, confirm } = receiptMaker({ ctx });
  const setClock = (iso: string) => {
    ctx().clock.time = Date.parse(iso);
  };
  const search = (world: World, body: Record<string, unknown> = {}, key = world.customer): Promise<LightMyRequestResponse> =>
    ctx().post(
      RECEIPT_RC_SEARCH,
      { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0], CustomerID: world.tenant.customerIds[0], ...body },
      key,
    );
  const notes = (response: LightMyRequestResponse) => response.json().map((record: { RC: { Note: string } }) => record.RC.Note);

  it('answers one record per confirmation in the published shape, quirks included', async () => {
    const world = await makeWorld();
    setClock('2026-03-05T18:00:00.000Z'); // 10:00 in Los Angeles
    const referenceNo = uniqueId('REF');
    const { svcpoid, poNo } = await importReceipt(
      world,
      {
        ReferenceNo: referenceNo,
        SupplierID: 'SUP1',
        ContainerNo: 'CONT1',
        BOLNo: 'BOL1',
        CarrierName: 'UPS',
        DynTxtPropertyValue01: 'h1',
        DynTxtPropertyValue20: 'h20',
      },
      { root: { TitleID: 'T1' } },
    );
    await confirm(world, svcpoid, 'C-1', {
      ReceivedDate: '2026-03-05T09:30:00.000',
      Note: 'dock 4',
      PalletQty: 2,
      Items: [
        {
          ItemNumber: 'MUG',
          ReceivedQuantity: '4.5',
          UOM: 'EA',
          LotNo: 'L1',
          SerialNumber: ['S1', 'S2'],
          ExpirationDate: '2027-01-31',
          ItemNote: 'dented',
          DynTxtPropertyValue01: 'v1',
          DynTxtPropertyValue11: 'v11',
        },
        { ItemNumber: 'SURPRISE', ReceivedQuantity: 2, UOM: 'CS' },
      ],
      Cartons: [
        {
          CartonNo: 'CT1',
          PoundPerCarton: '12.5',
          ItemLines: [{ ItemID: 'MUG', QtyInCarton: '4.5', UOM: 'EA', DynTxtPropertyValue01: 'c1' }],
        },
        { CartonNo: 'CT2' },
      ],
    });

    const response = await search(world, { PONo: poNo });
    expect(response.statusCode).toBe(200);
    const records = response.json();
    expect(rcResultValid(records), JSON.stringify(rcResultValid.errors)).toBe(true);
    const { companyId, customerIds, facilityIds } = world.tenant;
    expect(records).toEqual([
      {
        FacilityID: facilityIds[0],
        CustomerID: customerIds[0],
        ReferenceNo: referenceNo,
        PONo: poNo,
        RC: {
          SVCCompanyID: companyId,
          CustomerID: customerIds[0],
          SupplierID: 'SUP1',
          PONo: poNo,
          ReferenceNo: referenceNo,
          SVCPOID: svcpoid,
          ReceivedDate: '2026-03-05T09:30:00.000',
          ContainerNumber: 'CONT1',
          BOLNo: 'BOL1',
          CarrierName: 'UPS',
          SCACCode: 'UPSN',
          ...dynamics({ 1: 'h1', 20: 'h20' }),
          Items: [
            {
              POLineNo: 1,
              ItemNumber: 'MUG',
              ItemShortDescription: 'mug',
              ItemDescription: 'Stoneware mug',
              ReceivedQuantity: 4.5,
              CustomerMaterial: null,
              Diverse: null,
              ItemNote: 'dented',
              SerialNumber: ['S1', 'S2'],
              LotNo: 'L1',
              UOM: 'EA',
              ExpectedQty: '10',
              ExpirationDate: '2027-01-31',
              SHIPMENTLINEID: '1',
              SupplierID: 'SUP1',
              SupplierName: null,
              ...itemDynamics({ 1: 'v1', 11: 'v11' }),
            },
            {
              POLineNo: null,
              ItemNumber: 'SURPRISE',
              ItemShortDescription: null,
              ItemDescription: null,
              ReceivedQuantity: 2,
              CustomerMaterial: null,
              Diverse: null,
              ItemNote: null,
              SerialNumber: [],
              LotNo: null,
              UOM: 'CS',
              ExpectedQty: null,
              ExpirationDate: null,
              SHIPMENTLINEID: null,
              SupplierID: 'SUP1',
              SupplierName: null,
              ...itemDynamics(),
            },
          ],
          Cartons: [
            {
              CartonNo: 'CT1',
              PoundPerCarton: '12.5',
              ItemLines: [{ ItemID: 'MUG', LotNo: null, QtyInCarton: '4.5', UOM: 'EA', ...dynamics({ 1: 'c1' }) }],
            },
            { CartonNo: 'CT2', PoundPerCarton: null, ItemLines: [] },
          ],
          Note: 'dock 4',
          PalletQty: 2,
          TitleID: 'T1',
          RECEIPTSOURCECODE: null,
          ORGANIZATIONCODE: null,
          TOSUBINVENTORY: null,
        },
        CreatedWhen: '2026-03-05T10:00:00.000',
      },
    ]);

    // Key order as the spec lists it: ReceivedDate right after SVCPOID.
    expect(Object.keys(records[0])).toEqual(['FacilityID', 'CustomerID', 'ReferenceNo', 'PONo', 'RC', 'CreatedWhen']);
    expect(Object.keys(records[0].RC).slice(0, 11)).toEqual([
      'SVCCompanyID',
      'CustomerID',
      'SupplierID',
      'PONo',
      'ReferenceNo',
      'SVCPOID',
      'ReceivedDate',
      'ContainerNumber',
      'BOLNo',
      'CarrierName',
      'SCACCode',
    ]);

    // The quirks, read from the raw body.
    const raw = response.body;
    expect(raw).toContain(`"RC":{"SVCCompanyID":"${companyId}"`);
    expect(raw).not.toMatch(/"CompanyID"/);
    const items = raw.slice(raw.indexOf('"Items":'), raw.indexOf('"Cartons":'));
    expect(items).toContain('"DynTxtPropertyValue10":null,"dynTxtPropertyValue11":"v11","dynTxtPropertyValue12":null');
    expect(items).not.toContain('"DynTxtPropertyValue11"');
    expect(items).toContain('"SerialNumber":["S1","S2"]');
    expect(items).toContain('"SerialNumber":[]');
    expect(items).toContain('"ReceivedQuantity":4.5,');
    expect(items).toContain('"ReceivedQuantity":2,');
    expect(items).toContain('"ExpectedQty":"10"');
    expect(items).toContain('"ExpectedQty":null');
    expect(raw).toContain('"SVCPOID":"' + svcpoid + '","ReceivedDate":"2026-03-05T09:30:00.000","ContainerNumber"');
    expect(raw).toContain('"DynTxtPropertyValue20":"h20","Items"');
    expect(response.headers['x-total-count']).toBe('1');
  });

  it('pages oldest first (creation time, then id), stable, by PageNo and by its alias PagingNo', async () => {
    const world = await makeWorld();
    const { svcpoid } = await importReceipt(world, { Items: [{ ItemNumber: 'MUG', ExpectedQty: '100', UOM: 'EA' }] });
    // Posted in this order; the fourth is stamped earliest, the first two share a time (id breaks the tie).
    const stamps: [string, string][] = [
      ['n1', '2026-03-05T18:00:00.000Z'],
      ['n2', '2026-03-05T18:00:00.000Z'],
      ['n3', '2026-03-05T18:00:01.000Z'],
      ['n4', '2026-03-05T17:59:55.000Z'],
      ['n5', '2026-03-05T18:00:02.000Z'],
    ];
    for (const [note, at] of stamps) {
      setClock(at);
      await confirm(world, svcpoid, note.toUpperCase(), { Note: note });
    }
    const expected = ['n4', 'n1', 'n2', 'n3', 'n5'];

    const all = await search(world, { Paging: { PageSize: 1000 } });
    expect(notes(all)).toEqual(expected);
    expect(all.json().map((r: { CreatedWhen: string }) => r.CreatedWhen)).toEqual([
      '2026-03-05T09:59:55.000',
      '2026-03-05T10:00:00.000',
      '2026-03-05T10:00:00.000',
      '2026-03-05T10:00:01.000',
      '2026-03-05T10:00:02.000',
    ]);

    for (const pageKey of ['PageNo', 'PagingNo']) {
      const pages: string[][] = [];
      for (const pageNo of [1, 2, 3]) {
        const page = await search(world, { Paging: { [pageKey]: pageNo, PageSize: 2 } });
        expect(page.statusCode).toBe(200);
        expect(page.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': String(pageNo), 'x-page-size': '2' });
        pages.push(notes(page));
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(expected); // no overlap, no gap, same order
      const past = await search(world, { Paging: { [pageKey]: 4, PageSize: 2 } });
      expect(past.statusCode).toBe(200);
      expect(past.json()).toEqual([]);
      expect(past.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': '4', 'x-page-size': '2' });
    }
    // PageNo wins over its alias; the same request again answers the same page.
    expect(notes(await search(world, { Paging: { PageNo: 2, PagingNo: 3, PageSize: 2 } }))).toEqual(['n2', 'n3']);
    expect(notes(await search(world, { Paging: { PageNo: 2, PageSize: 2 } }))).toEqual(['n2', 'n3']);
    // Default paging: page 1 of 100.
    const defaults = await search(world);
    expect(defaults.headers).toMatchObject({ 'x-total-count': '5', 'x-page-no': '1', 'x-page-size': '100' });
  });

  it('reads CreatedWhenFrom/To in the facility’s time zone, bounds inclusive', async () => {
    const world = await makeWorld();
    const { svcpoid } = await importReceipt(world);
    setClock('2026-03-06T07:30:00.000Z'); // 23:30 on the 5th in Los Angeles, already the 6th in UTC
    await confirm(world, svcpoid, 'LATE', { Note: 'late' });

    const fifth = await search(world, { CreatedWhenFrom: '2026-03-05T00:00:00.000', CreatedWhenTo: '2026-03-05T23:59:59.999' });
    expect(fifth.statusCode).toBe(200);
    expect(notes(fifth)).toEqual(['late']);
    expect(fifth.json()[0].CreatedWhen).toBe('2026-03-05T23:30:00.000');

    const sixth = await search(world, { CreatedWhenFrom: '2026-03-06T00:00:00.000', CreatedWhenTo: '2026-03-06T23:59:59.999' });
    expect(sixth.statusCode).toBe(200);
    expect(sixth.json()).toEqual([]);

    expect(notes(await search(world, { CreatedWhenFrom: '2026-03-05T23:30:00.000' }))).toEqual(['late']);
    expect(notes(await search(world, { CreatedWhenTo: '2026-03-05T23:30:00.000' }))).toEqual(['late']);
    expect(notes(await search(world, { CreatedWhenFrom: '2026-03-05T23:30:00.001' }))).toEqual([]);
    expect(notes(await search(world, { CreatedWhenTo: '2026-03-05T23:29:59.999' }))).toEqual([]);
    // Empty and null bounds are no bounds.
    expect(notes(await search(world, { CreatedWhenFrom: '', CreatedWhenTo: null }))).toEqual(['late']);
  });

  it('filters by PONo and ReferenceNo; nothing matching is [] with 200 and X-Total-Count 0', async () => {
    const world = await makeWorld();
    const first = await importReceipt(world, { ReferenceNo: uniqueId('REF') });
    const referenceNo = uniqueId('REF');
    const second = await importReceipt(world, { ReferenceNo: referenceNo });
    await confirm(world, first.svcpoid, 'A', { Note: 'first' });
    await confirm(world, second.svcpoid, 'B', { Note: 'second' });

    expect(notes(await search(world, { PONo: first.poNo }))).toEqual(['first']);
    expect(notes(await search(world, { ReferenceNo: referenceNo }))).toEqual(['second']);
    expect(notes(await search(world, { PONo: second.poNo, ReferenceNo: referenceNo }))).toEqual(['second']);
    expect(notes(await search(world, { PONo: '', ReferenceNo: null }))).toEqual(['first', 'second']);

    for (const filter of [{ PONo: first.poNo, ReferenceNo: referenceNo }, { PONo: 'NO-SUCH-PO' }, { ReferenceNo: 'NO-SUCH-REF' }]) {
      const none = await search(world, filter);
      expect(none.statusCode).toBe(200);
      expect(none.body).toBe('[]');
      expect(none.headers).toMatchObject({ 'x-total-count': '0', 'x-page-no': '1', 'x-page-size': '100' });
    }
    // A receipt without confirmations has no RC.
    const unconfirmed = await importReceipt(world);
    expect((await search(world, { PONo: unconfirmed.poNo })).json()).toEqual([]);
  });

  it('refuses unreadable times and bad bodies with 400, naming the fields', async () => {
    const world = await makeWorld();
    const badTimes = await search(world, { CreatedWhenFrom: 'yesterday', CreatedWhenTo: '2026-13-01T00:00:00.000' });
    expect(badTimes.statusCode).toBe(400);
    expect(badTimes.json()).toEqual(
      problems(
        'CreatedWhenFrom must be an ISO 8601 local date-time such as 2024-03-05T14:07:09.123',
        'CreatedWhenTo must be an ISO 8601 local date-time such as 2024-03-05T14:07:09.123',
      ),
    );
    const badPaging = await search(world, { Paging: { PageSize: 1001 } });
    expect(badPaging.statusCode).toBe(400);
    expect(badPaging.json()[0].error).toMatch(/PageSize/);
    const noCustomer = await ctx().post(
      RECEIPT_RC_SEARCH,
      { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0] },
      world.admin,
    );
    expect(noCustomer.statusCode).toBe(400);
    expect(noCustomer.json()[0].error).toMatch(/CustomerID/);
    const unknownFacility = await search(world, { FacilityID: 'NO-SUCH' }, world.admin);
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });
  });

  it('keeps tenants apart: foreign keys are 403, and a key in scope sees only its customer’s RCs in that facility', async () => {
    const world = await makeWorld();
    const stranger = await makeWorld();
    const mine = await importReceipt(world, {}, { customer: 0, facility: 0 });
    const theirs = await importReceipt(world, {}, { customer: 1, facility: 0 });
    const elsewhere = await importReceipt(world, {}, { customer: 0, facility: 1 });
    await confirm(world, mine.svcpoid, 'M', { Note: 'mine' });
    await confirm(world, theirs.svcpoid, 'T', { Note: 'theirs' });
    await confirm(world, elsewhere.svcpoid, 'E', { Note: 'elsewhere' }, 1);

    const forbidden = [
      ['another customer’s key', world.otherCustomer],
      ['another company’s admin key', stranger.admin],
      ['another company’s customer key', stranger.customer],
      ['an operator of another facility', world.otherOperator],
    ] as const;
    for (const [who, key] of forbidden) {
      const response = await search(world, {}, key);
      expect(response.statusCode, who).toBe(403);
      expect(response.body, who).not.toContain(mine.svcpoid);
    }
    const rater = await createKey(ctx().database.db, ctx().clock, world.tenant, 'rater');
    expect((await search(world, {}, rater)).statusCode).toBe(403);

    for (const key of [world.customer, world.operator, world.admin]) {
      const response = await search(world, {}, key);
      expect(response.statusCode).toBe(200);
      expect(notes(response)).toEqual(['mine']);
    }
    // The other customer's own key sees its own RC and never the first customer's.
    const own = await search(world, { CustomerID: world.tenant.customerIds[1] }, world.otherCustomer);
    expect(notes(own)).toEqual(['theirs']);
    expect(own.json()[0].CustomerID).toBe(world.tenant.customerIds[1]);
    // Filters cannot reach across: the other customer's PONo through my CustomerID finds nothing.
    expect((await search(world, { PONo: theirs.poNo })).json()).toEqual([]);
    // The other facility, through a key that may read it.
    expect(notes(await search(world, { FacilityID: world.tenant.facilityIds[1] }))).toEqual(['elsewhere']);
    expect((await search(world, { FacilityID: world.tenant.facilityIds[1] }, world.operator)).statusCode).toBe(403);
  });
});

describeEachDialect('Receipt-level search', (dialect) => {
  const ctx = useTestApp(dialect);
  const makeWorld = worldMaker({ ctx });
  const { importReceipt, confirm } = receiptMaker({ ctx });
  const setClock = (iso: string) => {
    ctx().clock.time = Date.parse(iso);
  };
  const search = (world: World, body: Record<string, unknown> = {}, key = world.customer): Promise<LightMyRequestResponse> =>
    ctx().post(
      RECEIPT_LEVEL_SEARCH,
      { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0], CustomerID: world.tenant.customerIds[0], ...body },
      key,
    );
  const receiptNos = (response: LightMyRequestResponse) =>
    response.json().results.data.map((row: Record<string, string>) => row['Receipt #']);

  let world: World;
  let confirmed: { svcpoid: string; poNo: string; referenceNo: string };
  let imported: { svcpoid: string; poNo: string };

  beforeAll(async () => {
    world = await makeWorld();
    setClock('2026-03-05T18:00:00.000Z'); // 10:00 in Los Angeles
    const referenceNo = uniqueId('REF');
    confirmed = {
      ...(await importReceipt(world, {
        ReferenceNo: referenceNo,
        CarrierName: 'UPS',
        ContainerNo: 'CONT1',
        BOLNo: 'BOL1',
        ScheduledDate: '3/10/2026 9:00:00 AM',
      })),
      referenceNo,
    };
    setClock('2026-03-05T18:30:00.000Z');
    imported = await importReceipt(world, { SCACCode: 'FDEG' });
    setClock('2026-03-05T19:00:00.000Z');
    await confirm(world, confirmed.svcpoid, 'R-1', { ReceivedDate: '2026-03-05T10:30:00.000' });
    // The latest confirmation names an earlier arrival: Received Date is the latest confirmation's.
    setClock('2026-03-05T20:00:00.000Z'); // 12:00 in Los Angeles
    await confirm(world, confirmed.svcpoid, 'R-2', { ReceivedDate: '2026-03-05T10:15:00.000' });
  });

  it('answers the head in order and one row per receipt keyed by it', async () => {
    const response = await search(world);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(levelResultValid(body), JSON.stringify(levelResultValid.errors)).toBe(true);
    expect(body.results.head).toEqual([
      'Facility',
      'Customer',
      'Receipt #',
      'Status',
      'PO #',
      'Ref.#',
      'Carrier',
      'Container No',
      'BOL',
      'SCAC Code',
      'Schedule Date',
      'Received Date',
      'Create Time',
      'Update Time',
    ]);
    const { customerIds, facilityIds } = world.tenant;
    expect(body.results.data).toEqual([
      {
        Facility: facilityIds[0],
        Customer: customerIds[0],
        'Receipt #': imported.svcpoid,
        Status: 'Imported',
        'PO #': imported.poNo,
        'Ref.#': null,
        Carrier: null,
        'Container No': null,
        BOL: null,
        'SCAC Code': 'FDEG',
        'Schedule Date': null,
        'Received Date': null,
        'Create Time': '2026-03-05T10:30:00.000',
        'Update Time': '2026-03-05T10:30:00.000-08:00',
      },
      {
        Facility: facilityIds[0],
        Customer: customerIds[0],
        'Receipt #': confirmed.svcpoid,
        Status: 'In Progress',
        'PO #': confirmed.poNo,
        'Ref.#': confirmed.referenceNo,
        Carrier: 'UPS',
        'Container No': 'CONT1',
        BOL: 'BOL1',
        'SCAC Code': 'UPSN',
        'Schedule Date': '2026-03-10T09:00:00.000',
        'Received Date': '2026-03-05T10:15:00.000',
        'Create Time': '2026-03-05T10:00:00.000',
        'Update Time': '2026-03-05T12:00:00.000-08:00',
      },
    ]);
    expect(Object.keys(body.results.data[0])).toEqual(body.results.head);
    expect(response.body).toContain('"Received Date":null');
    expect(body.paging).toEqual({ totalCount: 2, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 2, limit: 100 });
  });

  it('filters by Status, PONo and ReferenceNo', async () => {
    expect(receiptNos(await search(world, { Status: 'Imported' }))).toEqual([imported.svcpoid]);
    expect(receiptNos(await search(world, { Status: 'In Progress' }))).toEqual([confirmed.svcpoid]);
    const none = await search(world, { Status: 'Closed' });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({
      results: { head: expect.any(Array), data: [] },
      paging: { totalCount: 0, pageNo: 1, totalPage: 0, startIndex: 0, endIndex: 0, limit: 100 },
    });
    const bogus = await search(world, { Status: 'Shipped' });
    expect(bogus.statusCode).toBe(400);
    expect(bogus.json()[0].error).toMatch(/^Status /);

    expect(receiptNos(await search(world, { PONo: imported.poNo }))).toEqual([imported.svcpoid]);
    expect(receiptNos(await search(world, { ReferenceNo: confirmed.referenceNo }))).toEqual([confirmed.svcpoid]);
    expect(receiptNos(await search(world, { PONo: imported.poNo, ReferenceNo: confirmed.referenceNo }))).toEqual([]);
    expect(receiptNos(await search(world, { PONo: '', ReferenceNo: null }))).toEqual([imported.svcpoid, confirmed.svcpoid]);
  });

  it('reads UpdatedWhenFrom/To with their UTC offsets, bounds inclusive, and refuses a time without one', async () => {
    // imported was last updated at 18:30Z, confirmed at 20:00Z.
    expect(receiptNos(await search(world, { UpdatedWhenFrom: '2026-03-05T11:00:00.000-08:00' }))).toEqual([confirmed.svcpoid]);
    expect(receiptNos(await search(world, { UpdatedWhenTo: '2026-03-05T11:00:00.000-08:00' }))).toEqual([imported.svcpoid]);
    expect(receiptNos(await search(world, { UpdatedWhenFrom: '2026-03-05T20:00:00.000Z' }))).toEqual([confirmed.svcpoid]);
    expect(receiptNos(await search(world, { UpdatedWhenTo: '2026-03-05T18:30:00.000Z' }))).toEqual([imported.svcpoid]);
    expect(receiptNos(await search(world, { UpdatedWhenTo: '2026-03-05T18:29:59.999Z' }))).toEqual([]);
    expect(
      receiptNos(await search(world, { UpdatedWhenFrom: '2026-03-05T19:30:00+01:00', UpdatedWhenTo: '2026-03-05T19:30:00.000+00:00' })),
    ).toEqual([imported.svcpoid]);

    const local = await search(world, { UpdatedWhenFrom: '2026-03-05T11:00:00.000' });
    expect(local.statusCode).toBe(400);
    expect(local.json()).toEqual(
      problems('UpdatedWhenFrom must be an ISO 8601 date-time with a UTC offset such as 2024-03-05T14:07:09.123-08:00'),
    );
    const both = await search(world, { UpdatedWhenFrom: 'soon', UpdatedWhenTo: '2026-03-05' });
    expect(both.statusCode).toBe(400);
    expect(both.json().map((p: { error: string }) => p.error.split(' ')[0])).toEqual(['UpdatedWhenFrom', 'UpdatedWhenTo']);
  });

  it('pages oldest update first, ties by SVCPOID, by PageNo and PagingNo', async () => {
    const paged = await makeWorld();
    const made: string[] = [];
    for (const at of [
      '2026-03-05T18:00:00.000Z',
      '2026-03-05T18:00:00.000Z',
      '2026-03-05T17:00:00.000Z',
      '2026-03-05T19:00:00.000Z',
      '2026-03-05T18:00:00.000Z',
    ]) {
      setClock(at);
      made.push((await importReceipt(paged)).svcpoid);
    }
    const byUpdate = [made[2]!, ...[made[0]!, made[1]!, made[4]!].sort(), made[3]!];
    const all = await search(paged, { Paging: { PageSize: 1000 } });
    expect(receiptNos(all)).toEqual(byUpdate);

    for (const pageKey of ['PageNo', 'PagingNo']) {
      const pages: string[][] = [];
      for (const pageNo of [1, 2, 3]) {
        const page = await search(paged, { Paging: { [pageKey]: pageNo, PageSize: 2 } });
        const rows = receiptNos(page);
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
      expect(pages.flat()).toEqual(byUpdate);
      const past = await search(paged, { Paging: { [pageKey]: 4, PageSize: 2 } });
      expect(past.json()).toMatchObject({ results: { data: [] }, paging: { totalCount: 5, pageNo: 4, startIndex: 0, endIndex: 0 } });
    }
  });

  it('keeps tenants apart: foreign keys are 403, and a key in scope sees only its customer’s receipts', async () => {
    const stranger = await makeWorld();
    const theirs = await importReceipt(world, {}, { customer: 1 });
    for (const [who, key] of [
      ['another customer’s key', world.otherCustomer],
      ['another company’s admin key', stranger.admin],
      ['an operator of another facility', world.otherOperator],
    ] as const) {
      const response = await search(world, {}, key);
      expect(response.statusCode, who).toBe(403);
    }
    for (const key of [world.customer, world.operator, world.admin]) {
      const response = await search(world, {}, key);
      expect(response.statusCode).toBe(200);
      expect(receiptNos(response)).toEqual([imported.svcpoid, confirmed.svcpoid]);
    }
    const own = await search(world, { CustomerID: world.tenant.customerIds[1] }, world.otherCustomer);
    expect(receiptNos(own)).toEqual([theirs.svcpoid]);
    expect((await search(world, { PONo: theirs.poNo })).json().results.data).toEqual([]);
  });
});
