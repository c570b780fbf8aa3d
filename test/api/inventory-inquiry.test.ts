import { Ajv } from 'ajv';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialect.js';
import { inTransaction } from '../../src/db/transaction.js';
import { ajvOptions } from '../../src/lib/validate.js';
import { parseDecimal } from '../../src/lib/decimal.js';
import * as repo from '../../src/modules/inventory/inquiry.repository.js';
import {
  INVENTORY_HEAD,
  InventorySearchResultSchema,
  LEDGER_HEAD,
  LEDGER_SOURCE_TYPES,
  LedgerSearchRequestSchema,
  LedgerSearchResultSchema,
} from '../../src/modules/inventory/inquiry.schemas.js';
import * as inventory from '../../src/modules/inventory/inventory.service.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { TestClock, useTestApp } from '../helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.js';
import { buildReceipt, createKey, createTenant, uniqueId, type Tenant, problems, type World, createWorld } from '../helpers/factories.js';
import { insertLedgerRows, ledgerRow } from '../helpers/ledger.js';
import { INVENTORY_SEARCH, LEDGER_SEARCH, RECEIPT_CONFIRM } from '../helpers/paths.js';

/** The documenting response schemas must describe what the routes send. */
const ajv = new Ajv(ajvOptions);
const inventoryResultValid = ajv.compile(InventorySearchResultSchema);
const ledgerResultValid = ajv.compile(LedgerSearchResultSchema);

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

/** A balance row as the search shows it; absent keys null, status Available, nothing allocated. */
const balanceRow = (fields: Row): Row => ({
  ItemNumber: 'MUG',
  LotNo: null,
  GoodsType: null,
  TitleID: null,
  InventoryStatus: 'Available',
  ExpirationDate: null,
  UOM: 'EA',
  Allocated: '0',
  ...fields,
});

function harness(dialect: DialectName) {
  const ctx = useTestApp(dialect);
  const db = () => ctx().database.db;

  const makeWorld = (): Promise<World> => createWorld(ctx().database.db, ctx().clock);

  /** Imports a receipt (admin key) announcing one line per item, and answers its SVCPOID. */
  const importReceipt = async (world: World, items: string[], { customer = 0, facility = 0 } = {}) => {
    const lines = items.map((ItemNumber, i) => ({ POLineNo: i + 1, ItemNumber, ExpectedQty: '1000', UOM: 'EA' }));
    const content = { CarrierName: undefined, SCACCode: 'UPSN', Items: lines };
    return (await buildReceipt(ctx(), { tenant: world.tenant, customer, facility, key: world.admin, content })).svcpoid;
  };

  /** Posts a receiving confirmation of the given lines with the operator key of the receipt's facility. */
  const confirm = async (world: World, svcpoid: string, confirmationNo: string, items: Json[], facility = 0) => {
    const response = await ctx().post(
      RECEIPT_CONFIRM,
      {
        CompanyID: world.tenant.companyId,
        FacilityID: world.tenant.facilityIds[facility],
        SVCPOID: svcpoid,
        ConfirmationNo: confirmationNo,
        Items: items.map((line) => ({ UOM: 'EA', ...line })),
      },
      facility === 0 ? world.operator : world.otherOperator,
    );
    expect(response.statusCode, response.body).toBe(200);
  };

  /** Receives the lines into stock through an RN import and one confirmation; answers the SVCPOID. */
  const receive = async (world: World, items: Json[], { customer = 0, facility = 0, confirmationNo = uniqueId('C-') } = {}) => {
    const svcpoid = await importReceipt(world, [...new Set(items.map((line) => line.ItemNumber as string))], { customer, facility });
    await confirm(world, svcpoid, confirmationNo, items, facility);
    return svcpoid;
  };

  /** A posting straight through the inventory service (Hold and Damaged stock, decreases). */
  const post = (world: World, lines: inventory.StockPostingLine[], source: { type?: inventory.StockSourceType; id?: string } = {}) =>
    inTransaction(db(), (trx) =>
      inventory.postStock(trx, {
        companyId: world.tenant.companyId,
        customerId: world.tenant.customerIds[0]!,
        facilityId: world.tenant.facilityIds[0]!,
        keyId: null,
        sourceType: source.type ?? 'adjustment',
        sourceId: source.id ?? uniqueId('ADJ-'),
        at: ctx().clock.now(),
        lines,
      }),
    );

  const searchInventory = (world: World, body: Json = {}, key = world.customer): Promise<LightMyRequestResponse> =>
    ctx().post(
      INVENTORY_SEARCH,
      { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0], CustomerID: world.tenant.customerIds[0], ...body },
      key,
    );
  const searchLedger = (world: World, body: Json = {}, key = world.operator): Promise<LightMyRequestResponse> =>
    ctx().post(LEDGER_SEARCH, { CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0], ...body }, key);

  /** The rows of a successful search, after checking the answer against its documenting schema. */
  const inventoryRows = (response: LightMyRequestResponse): Row[] => {
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(inventoryResultValid(body), JSON.stringify(inventoryResultValid.errors)).toBe(true);
    expect(body.results.head).toEqual([...INVENTORY_HEAD]);
    return body.results.data;
  };
  const ledgerRows = (response: LightMyRequestResponse): Row[] => {
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(ledgerResultValid(body), JSON.stringify(ledgerResultValid.errors)).toBe(true);
    expect(body.results.head).toEqual([...LEDGER_HEAD]);
    return body.results.data;
  };
  const setClock = (iso: string) => {
    ctx().clock.time = Date.parse(iso);
  };
  const keyIdOf = async (key: string) => (await tenants.authenticateApiKey(db(), ctx().clock, key))!.keyId;

  return {
    ctx,
    db,
    makeWorld,
    importReceipt,
    confirm,
    receive,
    post,
    searchInventory,
    searchLedger,
    inventoryRows,
    ledgerRows,
    setClock,
    keyIdOf,
  };
}

describeEachDialect('inventory search', (dialect) => {
  const h = harness(dialect);

  it('answers the exact head and rows in key order: decimals exact, absent keys null, Available = OnHand − Allocated', async () => {
    const world = await h.makeWorld();
    // 0.1 + 0.2 on one balance, in two confirmations, is exactly 0.3.
    const svcpoid = await h.importReceipt(world, ['MUG', 'LAMP']);
    await h.confirm(world, svcpoid, 'C-1', [{ ItemNumber: 'MUG', ReceivedQuantity: '0.1' }]);
    await h.confirm(world, svcpoid, 'C-2', [
      { ItemNumber: 'MUG', ReceivedQuantity: 0.2 },
      {
        ItemNumber: 'MUG',
        ReceivedQuantity: '12.5',
        LotNo: 'L1',
        GoodsType: 'NEW',
        TitleID: 'T1',
        ExpirationDate: '2027-01-31',
      },
      { ItemNumber: 'LAMP', ReceivedQuantity: '99999999999.9999', UOM: 'CS' },
    ]);
    // 3.25 of the lot is allocated (an order's allocation; orders are a later issue).
    await h
      .db()
      .updateTable('inventory_balances')
      .set({ allocated: parseDecimal('3.25') })
      .where('company_id', '=', world.tenant.companyId)
      .where('lot_no', '=', 'L1')
      .execute();

    const response = await h.searchInventory(world);
    expect(h.inventoryRows(response)).toEqual([
      balanceRow({ ItemNumber: 'LAMP', UOM: 'CS', OnHand: '99999999999.9999', Available: '99999999999.9999' }),
      balanceRow({ OnHand: '0.3', Available: '0.3' }),
      balanceRow({
        LotNo: 'L1',
        GoodsType: 'NEW',
        TitleID: 'T1',
        ExpirationDate: '2027-01-31',
        OnHand: '12.5',
        Allocated: '3.25',
        Available: '9.25',
      }),
    ]);
    expect(response.json().paging).toEqual({ totalCount: 3, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 3, limit: 100 });
    // null on the wire, not "" (the response serializer turns null into "" on a non-nullable type).
    expect(response.body).toContain('"ItemNumber":"MUG","LotNo":null,"GoodsType":null,"TitleID":null');
    expect(response.body).toContain('"ExpirationDate":null');
  });

  it('shows Available "0" for Hold and Damaged stock, allocated or not, and filters by inventory status', async () => {
    const world = await h.makeWorld();
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '5' }]);
    await h.post(world, [
      { itemId: 'MUG', uom: 'EA', inventoryStatus: 'Hold', quantity: parseDecimal('2.5') },
      { itemId: 'MUG', uom: 'EA', inventoryStatus: 'Damaged', quantity: parseDecimal('0.75') },
    ]);
    await h
      .db()
      .updateTable('inventory_balances')
      .set({ allocated: parseDecimal('1') })
      .where('company_id', '=', world.tenant.companyId)
      .where('inventory_status', '=', 'Hold')
      .execute();

    // Key order: the inventory status compares as text, so Available < Damaged < Hold.
    expect(h.inventoryRows(await h.searchInventory(world))).toEqual([
      balanceRow({ OnHand: '5', Available: '5' }),
      balanceRow({ InventoryStatus: 'Damaged', OnHand: '0.75', Available: '0' }),
      balanceRow({ InventoryStatus: 'Hold', OnHand: '2.5', Allocated: '1', Available: '0' }),
    ]);
    expect(h.inventoryRows(await h.searchInventory(world, { InventoryStatus: 'Hold' }))).toEqual([
      balanceRow({ InventoryStatus: 'Hold', OnHand: '2.5', Allocated: '1', Available: '0' }),
    ]);
    expect(h.inventoryRows(await h.searchInventory(world, { InventoryStatus: 'Available' }))).toHaveLength(1);
    expect(h.inventoryRows(await h.searchInventory(world, { InventoryStatus: null }))).toHaveLength(3);
  });

  it('leaves out balances with nothing on hand, in the rows and in the count', async () => {
    const world = await h.makeWorld();
    await h.receive(world, [
      { ItemNumber: 'MUG', ReceivedQuantity: '2', LotNo: 'GONE' },
      { ItemNumber: 'MUG', ReceivedQuantity: '1', LotNo: 'KEPT' },
    ]);
    await h.post(world, [{ itemId: 'MUG', uom: 'EA', lotNo: 'GONE', quantity: parseDecimal('-2') }]);
    const stored = await h
      .db()
      .selectFrom('inventory_balances')
      .select(['lot_no', 'on_hand', 'allocated'])
      .where('company_id', '=', world.tenant.companyId)
      .orderBy('lot_no')
      .execute();
    expect(stored).toEqual([
      { lot_no: 'GONE', on_hand: 0, allocated: 0 },
      { lot_no: 'KEPT', on_hand: 10_000, allocated: 0 },
    ]);

    const response = await h.searchInventory(world);
    expect(h.inventoryRows(response)).toEqual([balanceRow({ LotNo: 'KEPT', OnHand: '1', Available: '1' })]);
    expect(response.json().paging).toMatchObject({ totalCount: 1, totalPage: 1 });
    expect(h.inventoryRows(await h.searchInventory(world, { LotNo: 'GONE' }))).toEqual([]);
  });

  it('filters by item and lot, exactly; empty or null filters mean any', async () => {
    const world = await h.makeWorld();
    await h.receive(world, [
      { ItemNumber: 'MUG', ReceivedQuantity: '1', LotNo: 'A' },
      { ItemNumber: 'MUG', ReceivedQuantity: '2', LotNo: 'B' },
      { ItemNumber: 'MUG', ReceivedQuantity: '3' },
      { ItemNumber: 'MUG-XL', ReceivedQuantity: '4', LotNo: 'A' },
    ]);
    const lots = async (body: Json) =>
      (h.inventoryRows(await h.searchInventory(world, body)) as Row[]).map((r) => `${r.ItemNumber}/${r.LotNo}`);
    expect(await lots({})).toEqual(['MUG/null', 'MUG/A', 'MUG/B', 'MUG-XL/A']);
    expect(await lots({ ItemNumber: 'MUG' })).toEqual(['MUG/null', 'MUG/A', 'MUG/B']);
    expect(await lots({ LotNo: 'A' })).toEqual(['MUG/A', 'MUG-XL/A']);
    expect(await lots({ ItemNumber: 'MUG', LotNo: 'A' })).toEqual(['MUG/A']);
    expect(await lots({ ItemNumber: 'MUG-XL', LotNo: 'B' })).toEqual([]);
    expect(await lots({ ItemNumber: 'mug' })).toEqual([]);
    expect(await lots({ ItemNumber: '', LotNo: null })).toEqual(['MUG/null', 'MUG/A', 'MUG/B', 'MUG-XL/A']);
  });

  it('pages in key order with PageNo or PagingNo: no overlap, no gap, an empty page past the end', async () => {
    const world = await h.makeWorld();
    const lots = Array.from({ length: 7 }, (_, i) => `L${i + 1}`);
    await h.receive(
      world,
      [...lots].reverse().map((LotNo, i) => ({ ItemNumber: 'MUG', LotNo, ReceivedQuantity: String(i + 1) })),
    );
    const page = async (paging: Json) => {
      const response = await h.searchInventory(world, { Paging: { PageSize: 3, ...paging } });
      return { lots: h.inventoryRows(response).map((r) => r.LotNo), paging: response.json().paging };
    };
    const first = await page({});
    const second = await page({ PageNo: 2 });
    const third = await page({ PagingNo: 3 });
    expect([...first.lots, ...second.lots, ...third.lots]).toEqual(lots);
    expect(first.paging).toEqual({ totalCount: 7, pageNo: 1, totalPage: 3, startIndex: 1, endIndex: 3, limit: 3 });
    expect(second.paging).toEqual({ totalCount: 7, pageNo: 2, totalPage: 3, startIndex: 4, endIndex: 6, limit: 3 });
    expect(third.paging).toEqual({ totalCount: 7, pageNo: 3, totalPage: 3, startIndex: 7, endIndex: 7, limit: 3 });
    expect(await page({ PageNo: 4 })).toEqual({
      lots: [],
      paging: { totalCount: 7, pageNo: 4, totalPage: 3, startIndex: 0, endIndex: 0, limit: 3 },
    });
    // PageNo wins over its alias.
    expect((await page({ PageNo: 2, PagingNo: 3 })).lots).toEqual(second.lots);
  });

  it("keeps customers and facilities apart: a customer key sees its own stock only, another facility's operator gets 403", async () => {
    const world = await h.makeWorld();
    const { customerIds, facilityIds } = world.tenant;
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '1' }]);
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '20' }], { customer: 1 });
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '300' }], { facility: 1 });
    const stranger = await h.makeWorld();
    await h.receive(stranger, [{ ItemNumber: 'MUG', ReceivedQuantity: '4000' }]);

    const onHand = async (body: Json, key: string) => h.inventoryRows(await h.searchInventory(world, body, key)).map((r) => r.OnHand);
    expect(await onHand({}, world.customer)).toEqual(['1']);
    expect(await onHand({ CustomerID: customerIds[1] }, world.otherCustomer)).toEqual(['20']);
    expect(await onHand({ FacilityID: facilityIds[1] }, world.customer)).toEqual(['300']);
    expect(await onHand({ CustomerID: customerIds[1] }, world.operator)).toEqual(['20']);
    expect(await onHand({ CustomerID: customerIds[1] }, world.admin)).toEqual(['20']);
    expect(await onHand({ FacilityID: facilityIds[1] }, world.otherOperator)).toEqual(['300']);

    const refused = async (body: Json, key: string, message: string) => {
      const response = await h.searchInventory(world, body, key);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toEqual(problems(message));
    };
    await refused({ CustomerID: customerIds[1] }, world.customer, `CustomerID ${customerIds[1]} is outside this API key's scope`);
    await refused({}, world.otherCustomer, `CustomerID ${customerIds[0]} is outside this API key's scope`);
    await refused({}, world.otherOperator, `FacilityID ${facilityIds[0]} is outside this API key's scope`);
    await refused(
      { CompanyID: stranger.tenant.companyId },
      world.admin,
      `CompanyID ${stranger.tenant.companyId} is outside this API key's scope`,
    );
    await refused(
      { CustomerID: stranger.tenant.customerIds[0] },
      world.admin,
      `CustomerID ${stranger.tenant.customerIds[0]} is outside this API key's scope`,
    );

    const unknownFacility = await h.searchInventory(world, { FacilityID: 'NOPE' }, world.admin);
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });
    const rater = await createKey(h.db(), h.ctx().clock, world.tenant, 'rater');
    expect((await h.searchInventory(world, {}, rater)).statusCode).toBe(403);
  });

  it('reports every problem of a bad body at once', async () => {
    const world = await h.makeWorld();
    const response = await h.searchInventory(world, {
      CustomerID: '',
      InventoryStatus: 'Lost',
      ItemNumber: 'X'.repeat(31),
      Paging: { PageSize: 0 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problems(
        'CustomerID must not be empty',
        'ItemNumber must be at most 30 characters',
        'InventoryStatus must be one of: Available, Hold, Damaged',
        'Paging.PageSize must be at least 1',
      ),
    );
  });
});

describeEachDialect('inventory ledger search', (dialect) => {
  const h = harness(dialect);

  it('answers one row per posting with its source, signed quantity, the balance after it, its time and key', async () => {
    const world = await h.makeWorld();
    const { customerIds } = world.tenant;
    h.setClock('2026-03-05T18:00:00.000Z'); // 10:00 in Los Angeles
    const svcpoid = await h.importReceipt(world, ['MUG', 'LAMP']);
    await h.confirm(world, svcpoid, 'C-1', [
      { ItemNumber: 'MUG', ReceivedQuantity: '0.1', LotNo: 'L1', ExpirationDate: '2027-01-31' },
      { ItemNumber: 'LAMP', ReceivedQuantity: '2', UOM: 'CS', GoodsType: 'NEW', TitleID: 'T1' },
    ]);
    h.setClock('2026-03-05T18:30:00.250Z');
    await h.confirm(world, svcpoid, 'C-2', [{ ItemNumber: 'MUG', ReceivedQuantity: '0.2', LotNo: 'L1', ExpirationDate: '2027-01-31' }]);
    h.setClock('2026-03-05T19:00:00.000Z');
    await h.post(world, [{ itemId: 'MUG', uom: 'EA', lotNo: 'L1', expirationDate: '2027-01-31', quantity: parseDecimal('-0.25') }], {
      type: 'adjustment',
      id: 'ADJ-1',
    });
    const operatorKeyId = await h.keyIdOf(world.operator);

    const response = await h.searchLedger(world, { CustomerID: customerIds[0] });
    const rows = h.ledgerRows(response);
    const mug = { CustomerID: customerIds[0], ItemNumber: 'MUG', LotNo: 'L1', GoodsType: null, TitleID: null };
    expect(rows).toEqual([
      {
        ID: expect.any(Number),
        CreatedWhen: '2026-03-05T10:00:00.000',
        ...mug,
        InventoryStatus: 'Available',
        ExpirationDate: '2027-01-31',
        UOM: 'EA',
        Qty: '0.1',
        OnHandAfter: '0.1',
        SourceType: 'receipt',
        SourceID: svcpoid,
        SourceLine: 'C-1',
        KeyID: operatorKeyId,
      },
      {
        ID: expect.any(Number),
        CreatedWhen: '2026-03-05T10:00:00.000',
        CustomerID: customerIds[0],
        ItemNumber: 'LAMP',
        LotNo: null,
        GoodsType: 'NEW',
        TitleID: 'T1',
        InventoryStatus: 'Available',
        ExpirationDate: null,
        UOM: 'CS',
        Qty: '2',
        OnHandAfter: '2',
        SourceType: 'receipt',
        SourceID: svcpoid,
        SourceLine: 'C-1',
        KeyID: operatorKeyId,
      },
      {
        ID: expect.any(Number),
        CreatedWhen: '2026-03-05T10:30:00.250',
        ...mug,
        InventoryStatus: 'Available',
        ExpirationDate: '2027-01-31',
        UOM: 'EA',
        Qty: '0.2',
        OnHandAfter: '0.3',
        SourceType: 'receipt',
        SourceID: svcpoid,
        SourceLine: 'C-2',
        KeyID: operatorKeyId,
      },
      {
        ID: expect.any(Number),
        CreatedWhen: '2026-03-05T11:00:00.000',
        ...mug,
        InventoryStatus: 'Available',
        ExpirationDate: '2027-01-31',
        UOM: 'EA',
        Qty: '-0.25',
        OnHandAfter: '0.05',
        SourceType: 'adjustment',
        SourceID: 'ADJ-1',
        SourceLine: null,
        KeyID: null,
      },
    ]);
    const ids = rows.map((r) => r.ID as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(4);
    expect(response.json().paging).toEqual({ totalCount: 4, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 4, limit: 100 });
    expect(response.body).toContain('"SourceLine":null,"KeyID":null');

    // The receipt's postings by its SVCPOID, with or without the type; the adjustment by its number.
    const sources = async (Source: Json | null) =>
      h.ledgerRows(await h.searchLedger(world, { Source })).map((r) => `${r.SourceID}/${r.SourceLine}/${r.Qty}`);
    const receiptRows = [`${svcpoid}/C-1/0.1`, `${svcpoid}/C-1/2`, `${svcpoid}/C-2/0.2`];
    expect(await sources({ Type: 'receipt', ID: svcpoid })).toEqual(receiptRows);
    expect(await sources({ ID: svcpoid })).toEqual(receiptRows);
    expect(await sources({ Type: 'shipment', ID: svcpoid })).toEqual([]);
    expect(await sources({ ID: 'ADJ-1' })).toEqual(['ADJ-1/null/-0.25']);
    expect(await sources({ Type: 'adjustment' })).toEqual(['ADJ-1/null/-0.25']);
    expect(await sources({ Type: 'receipt' })).toEqual(receiptRows);
    expect(await sources({ Type: null, ID: '' })).toHaveLength(4);
    expect(await sources({})).toHaveLength(4);
    expect(await sources(null)).toHaveLength(4);
    // A source with a time window and the other filters.
    const windowed = await h.searchLedger(world, {
      Source: { ID: svcpoid },
      CreatedWhenFrom: '2026-03-05T10:30:00.000',
      CustomerID: customerIds[0],
      ItemNumber: 'MUG',
      LotNo: 'L1',
    });
    expect(h.ledgerRows(windowed).map((r) => r.SourceLine)).toEqual(['C-2']);
  });

  it('filters by customer, item, lot and a time window read in the facility’s zone, inclusive', async () => {
    const world = await h.makeWorld();
    const { customerIds } = world.tenant;
    // 23:30 on the 5th in Los Angeles is 07:30 on the 6th in UTC.
    h.setClock('2026-03-06T07:30:00.000Z');
    await h.receive(world, [
      { ItemNumber: 'MUG', ReceivedQuantity: '1', LotNo: 'A' },
      { ItemNumber: 'MUG', ReceivedQuantity: '2', LotNo: 'B' },
      { ItemNumber: 'LAMP', ReceivedQuantity: '3', LotNo: 'A' },
    ]);
    // 00:30 on the 6th in Los Angeles.
    h.setClock('2026-03-06T08:30:00.000Z');
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '4', LotNo: 'A' }]);
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '50', LotNo: 'A' }], { customer: 1 });
    // 00:00:00.000 on the 5th in Los Angeles, exactly.
    h.setClock('2026-03-05T08:00:00.000Z');
    await h.receive(world, [{ ItemNumber: 'CUP', ReceivedQuantity: '6' }]);
    // 23:59:59.999 on the 4th.
    h.setClock('2026-03-05T07:59:59.999Z');
    await h.receive(world, [{ ItemNumber: 'CUP', ReceivedQuantity: '7' }]);

    const qtys = async (body: Json) => h.ledgerRows(await h.searchLedger(world, body)).map((r) => r.Qty);
    expect(await qtys({})).toEqual(['7', '6', '1', '2', '3', '4', '50']);
    expect(await qtys({ CustomerID: customerIds[0] })).toEqual(['7', '6', '1', '2', '3', '4']);
    expect(await qtys({ CustomerID: customerIds[1] })).toEqual(['50']);
    expect(await qtys({ ItemNumber: 'MUG' })).toEqual(['1', '2', '4', '50']);
    expect(await qtys({ ItemNumber: 'MUG', CustomerID: customerIds[0] })).toEqual(['1', '2', '4']);
    expect(await qtys({ ItemNumber: 'MUG', LotNo: 'A' })).toEqual(['1', '4', '50']);
    expect(await qtys({ LotNo: 'A' })).toEqual(['1', '3', '4', '50']);
    expect(await qtys({ LotNo: 'A', CustomerID: customerIds[0] })).toEqual(['1', '3', '4']);

    const day5 = { CreatedWhenFrom: '2026-03-05T00:00:00.000', CreatedWhenTo: '2026-03-05T23:59:59.999' };
    const rows = h.ledgerRows(await h.searchLedger(world, day5));
    expect(rows.map((r) => [r.CreatedWhen, r.Qty])).toEqual([
      ['2026-03-05T00:00:00.000', '6'],
      ['2026-03-05T23:30:00.000', '1'],
      ['2026-03-05T23:30:00.000', '2'],
      ['2026-03-05T23:30:00.000', '3'],
    ]);
    expect(await qtys({ ...day5, ItemNumber: 'MUG' })).toEqual(['1', '2']);
    expect(await qtys({ ...day5, ItemNumber: 'MUG', CustomerID: customerIds[0], LotNo: 'A' })).toEqual(['1']);
    expect(await qtys({ CreatedWhenFrom: '2026-03-06T00:00:00.000' })).toEqual(['4', '50']);
    expect(await qtys({ CreatedWhenTo: '2026-03-04T23:59:59.999' })).toEqual(['7']);
    expect(await qtys({ CreatedWhenFrom: '2026-03-05T23:30:00.001', CreatedWhenTo: '2026-03-06T00:30:00.000' })).toEqual(['4', '50']);
    expect(await qtys({ CreatedWhenFrom: '', CreatedWhenTo: null })).toHaveLength(7);
    // An explicit offset is honoured: 07:30 UTC on the 6th is the 23:30 postings.
    expect(await qtys({ CreatedWhenFrom: '2026-03-06T07:30:00.000Z', CreatedWhenTo: '2026-03-06T07:30:00.000Z' })).toEqual(['1', '2', '3']);
  });

  it('pages oldest first, ties on the time broken by the ID: no overlap, no gap', async () => {
    const world = await h.makeWorld();
    h.setClock('2026-03-05T18:00:00.000Z');
    // Five postings at one instant, then two later and one earlier.
    await h.receive(
      world,
      Array.from({ length: 5 }, (_, i) => ({ ItemNumber: 'MUG', LotNo: `T${i}`, ReceivedQuantity: String(i + 1) })),
    );
    h.setClock('2026-03-05T19:00:00.000Z');
    await h.receive(world, [
      { ItemNumber: 'MUG', ReceivedQuantity: '10' },
      { ItemNumber: 'MUG', ReceivedQuantity: '11', LotNo: 'Z' },
    ]);
    h.setClock('2026-03-05T17:00:00.000Z');
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '20' }]);

    const all = h.ledgerRows(await h.searchLedger(world, {}));
    expect(all.map((r) => r.Qty)).toEqual(['20', '1', '2', '3', '4', '5', '10', '11']);
    const keys = all.map((r) => [r.CreatedWhen as string, r.ID as number] as const);
    expect(keys).toEqual([...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])));

    const pages: Row[][] = [];
    for (let pageNo = 1; pageNo <= 4; pageNo++) {
      const response = await h.searchLedger(world, { Paging: { PagingNo: pageNo, PageSize: 3 } });
      pages.push(h.ledgerRows(response));
      expect(response.json().paging).toMatchObject({ totalCount: 8, pageNo, totalPage: 3, limit: 3 });
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2, 0]);
    expect(pages.flat()).toEqual(all);
  });

  it('is for operator and admin keys in their facilities: customer keys and other facilities get 403', async () => {
    const world = await h.makeWorld();
    const { customerIds, facilityIds } = world.tenant;
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '1' }]);
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '2' }], { customer: 1 });
    await h.receive(world, [{ ItemNumber: 'MUG', ReceivedQuantity: '3' }], { facility: 1 });
    const stranger = await h.makeWorld();
    await h.receive(stranger, [{ ItemNumber: 'MUG', ReceivedQuantity: '4' }]);

    const qtys = async (body: Json, key: string) => h.ledgerRows(await h.searchLedger(world, body, key)).map((r) => r.Qty);
    // An operator reads every customer of its facility, and only that facility.
    expect(await qtys({}, world.operator)).toEqual(['1', '2']);
    expect(await qtys({}, world.admin)).toEqual(['1', '2']);
    expect(await qtys({ FacilityID: facilityIds[1] }, world.otherOperator)).toEqual(['3']);
    expect(await qtys({ FacilityID: facilityIds[1], CustomerID: customerIds[1] }, world.admin)).toEqual([]);

    const refused = async (body: Json, key: string, message: string) => {
      const response = await h.searchLedger(world, body, key);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toEqual(problems(message));
    };
    await refused({}, world.customer, 'An API key with role customer may not call this operation');
    await refused({ CustomerID: customerIds[0] }, world.customer, 'An API key with role customer may not call this operation');
    await refused({}, world.otherOperator, `FacilityID ${facilityIds[0]} is outside this API key's scope`);
    await refused(
      { CompanyID: stranger.tenant.companyId },
      world.admin,
      `CompanyID ${stranger.tenant.companyId} is outside this API key's scope`,
    );
    await refused(
      { CustomerID: stranger.tenant.customerIds[0] },
      world.operator,
      `CustomerID ${stranger.tenant.customerIds[0]} is outside this API key's scope`,
    );
    const unknownFacility = await h.searchLedger(world, { FacilityID: stranger.tenant.facilityIds[0] }, world.admin);
    expect(unknownFacility.statusCode).toBe(400);
    expect(unknownFacility.json()).toEqual({ error: 'Not found facility' });
  });

  it('reports a bad date with every other problem of the body, at once', async () => {
    const world = await h.makeWorld();
    // The shared date-time format's message (http/schemas.ts OptionalDateTime), e.g. "must be … such as 2024-03-05T14:07:09.123".
    const dateMessage = (LedgerSearchRequestSchema.properties.CreatedWhenFrom as unknown as { 'x-message': string })['x-message'];
    expect(dateMessage).toMatch(/2024-03-05T14:07:09\.123$/);
    const response = await h.searchLedger(world, {
      CreatedWhenFrom: 'yesterday',
      CreatedWhenTo: '2026-02-30T00:00:00.000',
      Source: { Type: 'gift' },
      CustomerID: null,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problems(
        'CustomerID must be a string',
        `CreatedWhenFrom ${dateMessage}`,
        `CreatedWhenTo ${dateMessage}`,
        'Source.Type must be one of: receipt, shipment, adjustment, property-move',
      ),
    );
  });
});

/**
 * Every filter combination of the ledger search seeks an index on its selective columns: on SQLite
 * without statistics (how Wharf runs it) and with them, and on PostgreSQL with statistics (sequential
 * scans disabled, since the test table is small enough to read whole).
 */
describeEachDialect('ledger search plans', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.db, new TestClock(), { customers: 8, facilities: 4 });
    const rows = Array.from({ length: 4000 }, (_, i) =>
      ledgerRow({
        company_id: tenant.companyId,
        customer_id: tenant.customerIds[i % 8]!,
        facility_id: tenant.facilityIds[i % 4]!,
        item_id: `I${i % 200}`,
        lot_no: `L${i % 30}`,
        source_type: LEDGER_SOURCE_TYPES[i % 4]!,
        source_id: `RN-${Math.floor(i / 4)}`,
        key_id: 1,
        created_at: 1_700_000_000_000 + i * 1000,
      }),
    );
    await insertLedgerRows(database.db, rows);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  const window = { createdFrom: 1_700_000_100_000, createdTo: 1_700_000_900_000 };
  /** Filters (besides company and facility) → the columns (after company_id) the plan must seek. */
  const combinations: [Partial<repo.LedgerSearchFilter>, string[]][] = [
    [{}, ['facility_id']],
    [window, ['facility_id', 'created_at']],
    [{ customerId: 'C' }, ['customer_id']],
    [{ customerId: 'C', ...window }, ['customer_id', 'created_at']],
    [{ customerId: 'C', itemId: 'I9' }, ['facility_id', 'item_id']],
    [{ customerId: 'C', itemId: 'I9', lotNo: 'L9', ...window }, ['facility_id', 'item_id', 'created_at']],
    [{ itemId: 'I9' }, ['facility_id', 'item_id']],
    [{ itemId: 'I9', lotNo: 'L9', ...window }, ['facility_id', 'item_id', 'created_at']],
    [{ lotNo: 'L9' }, ['facility_id']],
    [{ lotNo: 'L9', customerId: 'C' }, ['customer_id']],
    [{ sourceTypes: ['receipt'] }, ['facility_id']],
    [{ sourceTypes: ['receipt'], sourceId: 'RN-7' }, ['source_type', 'source_id']],
    [{ sourceTypes: LEDGER_SOURCE_TYPES, sourceId: 'RN-7' }, ['source_type', 'source_id']],
    [{ sourceTypes: ['receipt'], sourceId: 'RN-7', customerId: 'C', itemId: 'I9', lotNo: 'L9', ...window }, ['source_type', 'source_id']],
  ];

  type Query = { compile(): { sql: string; parameters: readonly unknown[]; query: unknown } };

  async function planRows(db: Db, query: Query): Promise<Record<string, string | number>[]> {
    const compiled = query.compile();
    const prefix = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    return (await db.executeQuery<Record<string, string | number>>({ ...compiled, sql: prefix + compiled.sql } as never)).rows;
  }

  async function plan(db: Db, query: Query): Promise<string> {
    return (await planRows(db, query)).map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
  }

  /**
   * On SQLite an item's postings come from the item table kept behind the writes, in its order,
   * each row's ledger row by its id, merged with the ledger's rows after the mark (a range of ids):
   * only those few are sorted.
   */
  async function expectItemsBehind(db: Db, query: Query, columns: string[], what: string) {
    const rows = await planRows(db, query);
    const text = rows.map((row) => row.detail).join('\n');
    const search = /SEARCH items USING PRIMARY KEY \((.*)\)/.exec(text);
    expect(search, `${what}\n${text}`).not.toBeNull();
    const seek = search![1]!;
    expect(seek.startsWith('company_id=?'), `${what}\n${text}`).toBe(true);
    for (const column of columns) expect(seek, `${what}\n${text}`).toMatch(new RegExp(`\\b${column}[=<>]`));
    expect(text, what).toMatch(/SEARCH ledger USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(text, what).toMatch(/SEARCH inventory_ledger USING INTEGER PRIMARY KEY \(rowid>\?\)/);
    expect(text, what).not.toMatch(/SCAN (inventory_ledger|items|ledger)\b/);
    const sorts = rows.filter((row) => String(row.detail).startsWith('USE TEMP B-TREE'));
    const afterMark = rows.find((row) => row.detail === 'RIGHT');
    for (const sort of sorts) expect(sort.parent, `${what}\n${text}`).toBe(afterMark?.id);
  }

  /** The condition the plan seeks the index with names each column (SQLite `col=?`/`col>?`, PostgreSQL `Index Cond`). */
  function expectSeek(text: string, columns: string[], what: string) {
    if (dialect === 'sqlite') {
      const search = /SEARCH inventory_ledger USING (?:COVERING )?INDEX \w+ \((.*)\)/.exec(text);
      expect(search, `${what}\n${text}`).not.toBeNull();
      expect(text, what).not.toMatch(/SCAN inventory_ledger/);
      const seek = search![1]!;
      expect(seek.startsWith('company_id=?'), `${what}\n${text}`).toBe(true);
      for (const column of columns) expect(seek, `${what}\n${text}`).toMatch(new RegExp(`\\b${column}[=<>]`));
    } else {
      expect(text, what).not.toMatch(/Seq Scan/);
      const seek = [...text.matchAll(/Index Cond: (.*)/g)].map((m) => m[1]).join(' ');
      expect(seek, `${what}\n${text}`).toMatch(/company_id\)?(::text)? = /);
      for (const column of columns) expect(seek, `${what}\n${text}`).toMatch(new RegExp(`\\b${column}\\)?(::text)? (=|>=|<=)`));
    }
  }

  async function checkEveryCombination(db: Db) {
    for (const [extra, columns] of combinations) {
      const filter: repo.LedgerSearchFilter = {
        companyId: tenant.companyId,
        facilityId: tenant.facilityIds[1]!,
        ...extra,
        ...(extra.customerId ? { customerId: tenant.customerIds[1]! } : {}),
      };
      const what = JSON.stringify(extra);
      // A page after a cursor (docs/paging.md), and the count of the rows at the cursor's time up
      // to its id, seek the same index, and its created_at where it holds one.
      const cursor = { at: 1_700_000_500_000, tie: 500 };
      const atCursor = { ...filter, createdFrom: cursor.at, createdTo: cursor.at, idThrough: cursor.tie };
      const timed = columns.includes('source_id') || columns.includes('created_at') ? columns : [...columns, 'created_at'];
      const queries: [string, Query, string[]][] = [
        ['page', repo.pageLedgerQuery(db, filter, { offset: 0, limit: 100 }), columns],
        ['count', repo.countLedgerQuery(db, filter), columns],
        ['page after a cursor', repo.pageLedgerQuery(db, filter, { offset: 0, limit: 100, after: cursor }), timed],
        ['count through a cursor', repo.countLedgerQuery(db, atCursor), timed],
      ];
      for (const [name, query, seek] of queries) {
        if (dialect === 'sqlite' && repo.ledgerAccessPath(filter) === 'item') await expectItemsBehind(db, query, seek, `${name} ${what}`);
        else expectSeek(await plan(db, query), seek, `${name} ${what}`);
      }
    }
  }

  if (dialect === 'sqlite') {
    it('seeks an index for every filter combination on SQLite without statistics', () => checkEveryCombination(database.db));
  }

  it('seeks an index for every filter combination with statistics', async () => {
    await sql`analyze`.execute(database.db);
    // PostgreSQL: on the one connection where sequential scans are off.
    await database.db.connection().execute(async (connection) => {
      if (dialect === 'postgres') await sql`set enable_seqscan = off`.execute(connection);
      try {
        await checkEveryCombination(connection);
      } finally {
        if (dialect === 'postgres') await sql`reset enable_seqscan`.execute(connection);
      }
    });
  });
});
