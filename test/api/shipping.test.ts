import { beforeAll, expect, it } from 'vitest';
import { formatFacilityLocal, formatWithOffset } from '../../src/http/time.js';
import { formatDecimal } from '../../src/lib/decimal.js';
import * as inventory from '../../src/modules/inventory/inventory.service.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { SHIP_TO } from '../helpers/orders.js';
import {
  buildOrder,
  createKey,
  createTenant,
  createWorld,
  facilityOf,
  idsOf,
  problems,
  stock as openingStock,
  uniqueId,
  type OrderStatus as Status,
  type StockLine,
  type Tenant,
  type World,
} from '../helpers/factories.js';
import { INVENTORY_SEARCH, LEDGER_SEARCH, ORDER_SHIP, THREEPL_ORDER } from '../helpers/paths.js';

/**
 * The warehouse's side of outbound orders (docs/orders.md, docs/compatibility.md, docs/decisions.md): the 3PL list (MarkOpen), get,
 * open and cancel, and the shipment confirmation. Every row of the order state machine that the
 * 3PL moves (the allowed ones and the refused ones with their 409 bodies); stock that follows each
 * step exactly (OnHand, Allocated, Available, the ledger's 'shipment' postings, the DC written);
 * shipping beyond the allocation out of Available stock and never beyond it; LineNo and LotNo
 * matching; Close releasing what is left; ConfirmationNo and Idempotency-Key replays, also ten at
 * once; isolation between facilities, roles and companies; validation in the array shape.
 *
 * Every test that reads balances stocks items of its own (unique ItemIDs), so tests share no stock.
 */

const ZONE = 'America/Los_Angeles';

type Json = Record<string, unknown>;
const STATUSES: Status[] = ['Imported', 'Open', 'Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'];
const SHIP_REFUSAL = 'only Imported, Open, Partial Shipped orders can be shipped';

interface InventoryRow {
  ItemNumber: string;
  LotNo: string | null;
  InventoryStatus: string;
  UOM: string;
  OnHand: string;
  Allocated: string;
  Available: string;
}
interface OrderDocument extends Json {
  Status: Status;
  Items: (Json & { LineNo: number; OrderedQty: string; AllocatedQty: string; ShippedQty: string })[];
}

describeEachDialect('3PL outbound: list, get, open, cancel and shipment confirmations', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;
  let other: Tenant;
  let otherAdmin: string;
  /** An item with plenty of stock for the state-machine tables, whose balances no test reads. */
  let tableSku: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    world = await createWorld(database.db, clock);
    other = await createTenant(database.db, clock, { customers: 1, facilities: 1, timeZone: ZONE });
    otherAdmin = await createKey(database.db, clock, other, 'admin');
    tableSku = uniqueId('TBL');
    await stock([{ ItemNumber: tableSku, UOM: 'EA', Qty: '100000' }]);
  });

  const ids = () => idsOf(world.tenant);
  const facility = (index = 0) => facilityOf(world.tenant, index);

  /** Puts stock on hand with an adjustment of its own, then moves the clock so that receipts are ordered. */
  async function stock(items: StockLine[], facilityIndex = 0) {
    await openingStock(ctx(), { tenant: world.tenant, facility: facilityIndex, items, key: world.admin });
    ctx().clock.advance(1000);
  }

  const line = (itemId: string, orderedQty: string | number, extra: Json = {}) => ({
    ItemID: itemId,
    OrderedQty: orderedQty,
    UOM: 'EA',
    ...extra,
  });
  /** A DN import by the customer that must succeed; its SVCPOID, ReferenceNo and answer. */
  const importOrder = async (items: Json[], content: Json = {}, facilityIndex = 0) => {
    const order = await buildOrder(ctx(), {
      tenant: world.tenant,
      facility: facilityIndex,
      key: world.customer,
      content: { Items: items, ...content },
    });
    return { svcpoid: order.svcpoid, referenceNo: order.referenceNo, answer: order.answer as Json };
  };

  const shipLine = (itemNumber: string, shippedQty: string | number, extra: Json = {}) => ({
    ItemNumber: itemNumber,
    ShippedQty: shippedQty,
    UOM: 'EA',
    ...extra,
  });
  const ship = (
    svcpoid: string,
    confirmationNo: string,
    items: Json[],
    extra: Json = {},
    key = world.operator,
    headers: Record<string, string> = {},
  ) => ctx().post(ORDER_SHIP, { ...facility(), SVCPOID: svcpoid, ConfirmationNo: confirmationNo, Items: items, ...extra }, key, headers);
  /** A shipment that must succeed; its `Order`. */
  const shipped = async (svcpoid: string, confirmationNo: string, items: Json[], extra: Json = {}) => {
    const response = await ship(svcpoid, confirmationNo, items, extra);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Order as { SVCPOID: string; Status: Status; ConfirmationNo: string };
  };
  const act = (move: 'open' | 'cancel', svcpoid: string, key = world.operator, headers: Record<string, string> = {}) =>
    ctx().post(`${THREEPL_ORDER}/${move}`, { ...facility(), SVCPOID: svcpoid, Note: 'shipping test' }, key, headers);
  const list = async (filter: Json, key = world.operator) => {
    const response = await ctx().post(`${THREEPL_ORDER}/list`, { ...facility(), Paging: { PageSize: 1000 }, ...filter }, key);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { results: { head: string[]; data: (Json & { SVCPOID: string; Status: Status })[] }; paging: Json };
  };

  const getOrder = async (svcpoid: string) => {
    const response = await ctx().post(`${THREEPL_ORDER}/get`, { ...facility(), SVCPOID: svcpoid }, world.operator);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Order as OrderDocument;
  };
  const statusOf = async (svcpoid: string) => (await getOrder(svcpoid)).Status;
  const movesOf = async (svcpoid: string) => {
    const { Moves, Timeline } = (await ctx().post(`${THREEPL_ORDER}/get`, { ...facility(), SVCPOID: svcpoid }, world.operator)).json();
    return { Moves: Moves as string[], Timeline: Timeline as Json[] };
  };
  /** Per line: [LineNo, OrderedQty, AllocatedQty, ShippedQty]. */
  const linesOf = async (svcpoid: string) =>
    (await getOrder(svcpoid)).Items.map((l) => [l.LineNo, l.OrderedQty, l.AllocatedQty, l.ShippedQty]);

  /** Per balance of an item with stock on hand: `lot/status` → [OnHand, Allocated, Available]. */
  const balancesOf = async (itemId: string) => {
    const response = await ctx().post(INVENTORY_SEARCH, { ...ids(), ItemNumber: itemId, Paging: { PageSize: 1000 } }, world.customer);
    expect(response.statusCode, response.body).toBe(200);
    return Object.fromEntries(
      (response.json().results.data as InventoryRow[]).map((row) => [
        `${row.LotNo ?? ''}/${row.InventoryStatus}`,
        [row.OnHand, row.Allocated, row.Available],
      ]),
    );
  };
  /** The order's 'shipment' postings, oldest first: [item, lot, quantity, on hand after, ConfirmationNo]. */
  const postingsOf = async (svcpoid: string) =>
    (await inventory.findLedger(ctx().database.db, { companyId: world.tenant.companyId, sourceType: 'shipment', sourceId: svcpoid })).map(
      (e) => [e.itemId, e.lotNo, formatDecimal(e.quantity), formatDecimal(e.onHandAfter), e.sourceLine],
    );
  /** The DC records written for the order, oldest first. */
  const dcsOf = async (svcpoid: string) => {
    const rows = await ctx()
      .database.db.selectFrom('order_confirmations')
      .select(['confirmation_no', 'dc', 'shipped_at'])
      .where('company_id', '=', world.tenant.companyId)
      .where('svcpoid', '=', svcpoid)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ confirmationNo: row.confirmation_no, shippedAt: Number(row.shipped_at), dc: JSON.parse(row.dc) as Json }));
  };
  /** Everything a refused request must leave as it was. */
  const stateOf = async (svcpoid: string, ...skus: string[]) => ({
    order: await getOrder(svcpoid),
    postings: await postingsOf(svcpoid),
    dcs: await dcsOf(svcpoid),
    balances: await Promise.all(skus.map((sku) => balancesOf(sku))),
  });
  const dcItem = (
    lineNo: number,
    itemNumber: string,
    lotNo: string | null,
    ordered: number,
    shippedQty: number,
    difference: number,
    extra: Json = {},
  ) => ({
    LineNo: lineNo,
    ItemNumber: itemNumber,
    LotNo: lotNo,
    OrderedQty: ordered,
    ShippedQty: shippedQty,
    DifferenceQty: difference,
    UOM: 'EA',
    SerialNumber: [],
    ...extra,
  });

  /** A fresh order of 10 EA of the table item (all allocated) brought to `status` through the API. */
  const orderIn = async (status: Status) => {
    const { svcpoid, referenceNo } = await buildOrder(ctx(), {
      tenant: world.tenant,
      key: world.customer,
      operatorKey: world.operator,
      content: { Items: [line(tableSku, '10')] },
      status,
    });
    expect(await statusOf(svcpoid)).toBe(status);
    return { svcpoid, referenceNo };
  };

  // ---- the 3PL list and get ------------------------------------------------------------------

  it('lists a facility’s orders with the exact head and header row; get answers the whole document with line quantities', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '7' }]);
    const poNo = uniqueId('PO');
    const content = {
      PONo: poNo,
      OrderType: 'Regular',
      BOLNo: 'BOL-7',
      LoadNo: 'LOAD-7',
      ShipNotBefore: '2026-03-10T08:00:00',
      ShipNoLater: '20260312170000',
      ShippingInfo: { CarrierName: 'UPS', SCACCode: 'UPSN', FreightTerm: 'PP' },
      RetailerName: 'Shop',
      Kitting: 'N',
    };
    const created = ctx().clock.now();
    const { svcpoid, referenceNo } = await importOrder([line(sku, 5, { LineNo: 3, ItemNote: 'fragile' }), line(sku, '4.5')], content);

    const listed = await list({ ReferenceNo: referenceNo });
    expect(listed.results.head).toEqual([
      'SVCPOID',
      'CustomerID',
      'FacilityID',
      'ReferenceNo',
      'PONo',
      'Status',
      'OrderType',
      'ShipToName',
      'CarrierName',
      'SCACCode',
      'ShipNotBefore',
      'ShipNoLater',
      'CreatedWhen',
      'UpdatedWhen',
    ]);
    const header = {
      SVCPOID: svcpoid,
      CustomerID: world.tenant.customerIds[0],
      FacilityID: world.tenant.facilityIds[0],
      ReferenceNo: referenceNo,
      PONo: poNo,
      Status: 'Imported',
      OrderType: 'Regular',
      ShipToName: 'Jane Doe',
      CarrierName: 'UPS',
      SCACCode: 'UPSN',
      ShipNotBefore: '2026-03-10T08:00:00.000',
      ShipNoLater: '2026-03-12T17:00:00.000',
      CreatedWhen: formatFacilityLocal(created, ZONE),
      UpdatedWhen: formatWithOffset(created, ZONE),
    };
    expect(listed.results.data).toEqual([header]);
    expect(listed.paging).toMatchObject({ totalCount: 1, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 1 });
    // By status (a string or an array) and customer; the other customer has none here.
    expect((await list({ PONo: poNo, Status: 'Imported' })).results.data.map((r) => r.SVCPOID)).toEqual([svcpoid]);
    expect((await list({ PONo: poNo, Status: ['Open', 'Shipped'] })).results.data).toEqual([]);
    expect((await list({ PONo: poNo, CustomerID: world.tenant.customerIds[1] })).results.data).toEqual([]);

    const order = await getOrder(svcpoid);
    // Every POContent key as imported (the header fields show the dates in the facility's form).
    expect(order).toEqual({
      Address: SHIP_TO,
      ...content,
      TitleID: null,
      ...header,
      Items: [
        { ItemID: sku, OrderedQty: '5', UOM: 'EA', LineNo: 3, ItemNote: 'fragile', AllocatedQty: '5', ShippedQty: '0' },
        { ItemID: sku, OrderedQty: '4.5', UOM: 'EA', LineNo: 2, AllocatedQty: '2', ShippedQty: '0' },
      ],
    });
  });

  // ---- the allowed moves -------------------------------------------------------------------

  it('Imported --operator open--> Open; the allocation stays', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '6')]);
    expect((await movesOf(svcpoid)).Moves).toEqual(['open', 'cancel', 'ship']);
    const response = await act('open', svcpoid);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ Order: { SVCPOID: svcpoid, Status: 'Open' } });
    expect(await statusOf(svcpoid)).toBe('Open');
    // The get tells what the operator may do next, and what happened, with the note and the key.
    const operatorId = (await tenants.authenticateApiKey(ctx().database.db, ctx().clock, world.operator))!.keyId;
    const at = formatWithOffset(ctx().clock.now(), ZONE);
    expect(await movesOf(svcpoid)).toEqual({
      Moves: ['cancel', 'ship'],
      Timeline: [
        { When: at, Action: 'import', FromStatus: null, ToStatus: 'Imported', Note: null, KeyID: null },
        { When: at, Action: 'open', FromStatus: 'Imported', ToStatus: 'Open', Note: 'shipping test', KeyID: operatorId },
      ],
    });
    expect(await linesOf(svcpoid)).toEqual([[1, '6', '6', '0']]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '6', '4'] });
  });

  it('Imported --3PL list with MarkOpen--> Open, shown as Open on that page; other statuses stay; no MarkOpen changes nothing', async () => {
    const fresh = await orderIn('Imported');
    const open = await orderIn('Open');
    const busy = await orderIn('Partial Shipped');
    const done = await orderIn('Shipped');
    for (const [{ svcpoid, referenceNo }, shown] of [
      [fresh, 'Open'],
      [open, 'Open'],
      [busy, 'Partial Shipped'],
      [done, 'Shipped'],
    ] as const) {
      const page = await list({ ReferenceNo: referenceNo, MarkOpen: true });
      expect(page.results.data.map((r) => [r.SVCPOID, r.Status])).toEqual([[svcpoid, shown]]);
      expect(await statusOf(svcpoid)).toBe(shown);
    }
    // Without MarkOpen the list changes nothing.
    const untouched = await orderIn('Imported');
    expect((await list({ ReferenceNo: untouched.referenceNo })).results.data.map((r) => r.Status)).toEqual(['Imported']);
    expect(await statusOf(untouched.svcpoid)).toBe('Imported');
    // MarkOpen opens only the page it returns: here the older of two Imported orders.
    const poNo = uniqueId('PO');
    const older = await importOrder([line(tableSku, '1')], { PONo: poNo });
    ctx().clock.advance(1000);
    const newer = await importOrder([line(tableSku, '1')], { PONo: poNo });
    const page = await list({ PONo: poNo, MarkOpen: true, Paging: { PageNo: 1, PageSize: 1 } });
    expect(page.results.data.map((r) => [r.SVCPOID, r.Status])).toEqual([[older.svcpoid, 'Open']]);
    expect(page.paging).toMatchObject({ totalCount: 2, pageNo: 1, totalPage: 2, startIndex: 1, endIndex: 1 });
    expect(await statusOf(older.svcpoid)).toBe('Open');
    expect(await statusOf(newer.svcpoid)).toBe('Imported');
  });

  for (const from of ['Imported', 'Open'] as const) {
    it(`${from} --operator cancel--> Cancelled, the allocation released`, async () => {
      const sku = uniqueId('SKU');
      await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
      const { svcpoid } = await importOrder([line(sku, '6')]);
      if (from === 'Open') expect((await act('open', svcpoid)).statusCode).toBe(200);
      expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '6', '4'] });
      const response = await act('cancel', svcpoid);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ Order: { SVCPOID: svcpoid, Status: 'Cancelled' } });
      expect(await statusOf(svcpoid)).toBe('Cancelled');
      expect(await linesOf(svcpoid)).toEqual([[1, '6', '0', '0']]);
      expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '0', '10'] });
      expect(await postingsOf(svcpoid)).toEqual([]);
      expect(await dcsOf(svcpoid)).toEqual([]);
    });
  }

  for (const from of ['Imported', 'Open', 'Partial Shipped'] as const) {
    it(`${from} --3PL post-confirmation--> Partial Shipped; with Close, Shipped when all is shipped, else Short Shipped`, async () => {
      const before = from === 'Partial Shipped' ? 4 : 0;
      const partial = await orderIn(from);
      const answer = await shipped(partial.svcpoid, 'P-1', [shipLine(tableSku, '1')]);
      expect(answer).toEqual({ SVCPOID: partial.svcpoid, Status: 'Partial Shipped', ConfirmationNo: 'P-1' });
      expect(await linesOf(partial.svcpoid)).toEqual([[1, '10', String(9 - before), String(before + 1)]]);
      expect(await statusOf(partial.svcpoid)).toBe('Partial Shipped');

      const whole = await orderIn(from);
      const complete = await shipped(whole.svcpoid, 'W-1', [shipLine(tableSku, String(10 - before))], { Close: true });
      expect(complete).toEqual({ SVCPOID: whole.svcpoid, Status: 'Shipped', ConfirmationNo: 'W-1' });
      expect(await linesOf(whole.svcpoid)).toEqual([[1, '10', '0', '10']]);
      expect(await statusOf(whole.svcpoid)).toBe('Shipped');

      const short = await orderIn(from);
      const closed = await shipped(short.svcpoid, 'S-1', [shipLine(tableSku, '1')], { Close: true });
      expect(closed).toEqual({ SVCPOID: short.svcpoid, Status: 'Short Shipped', ConfirmationNo: 'S-1' });
      expect(await linesOf(short.svcpoid)).toEqual([[1, '10', '0', String(before + 1)]]);
      expect(await statusOf(short.svcpoid)).toBe('Short Shipped');
    });
  }

  // ---- the refused moves: 409 naming the current status, nothing changed -------------------

  const refused: { move: 'open' | 'cancel' | 'ship'; from: Status[]; message: (svcpoid: string, status: Status) => string }[] = [
    {
      move: 'open',
      from: ['Open', 'Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'],
      message: (svcpoid, status) => `Order ${svcpoid} is ${status}; open needs Imported`,
    },
    {
      move: 'cancel',
      from: ['Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'],
      message: (svcpoid, status) => `Order ${svcpoid} is ${status}; cancel needs Imported or Open`,
    },
    {
      move: 'ship',
      from: ['Shipped', 'Short Shipped', 'Cancelled'],
      message: (svcpoid, status) => `Order ${svcpoid} is ${status}; ${SHIP_REFUSAL}`,
    },
  ];
  for (const { move, from, message } of refused) {
    for (const status of from) {
      it(`${status} --${move === 'ship' ? '3PL post-confirmation' : `operator ${move}`}--> 409 naming ${status}; nothing changes`, async () => {
        const { svcpoid } = await orderIn(status);
        const before = await stateOf(svcpoid);
        const response =
          move === 'ship' ? await ship(svcpoid, uniqueId('CN'), [shipLine(tableSku, '1')], { Close: true }) : await act(move, svcpoid);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toEqual(problems(message(svcpoid, status)));
        expect(await stateOf(svcpoid)).toEqual(before);
      });
    }
  }

  it('every status answers each 3PL move as the state machine says (the whole table)', async () => {
    type Move = 'open' | 'cancel' | 'ship' | 'close' | 'closeShort';
    const table: Record<Status, Record<Move, Status | 409>> = {
      Imported: { open: 'Open', cancel: 'Cancelled', ship: 'Partial Shipped', close: 'Shipped', closeShort: 'Short Shipped' },
      Open: { open: 409, cancel: 'Cancelled', ship: 'Partial Shipped', close: 'Shipped', closeShort: 'Short Shipped' },
      'Partial Shipped': { open: 409, cancel: 409, ship: 'Partial Shipped', close: 'Shipped', closeShort: 'Short Shipped' },
      Shipped: { open: 409, cancel: 409, ship: 409, close: 409, closeShort: 409 },
      'Short Shipped': { open: 409, cancel: 409, ship: 409, close: 409, closeShort: 409 },
      Cancelled: { open: 409, cancel: 409, ship: 409, close: 409, closeShort: 409 },
    };
    const seen: string[] = [];
    for (const from of STATUSES) {
      for (const [move, expected] of Object.entries(table[from]) as [Move, Status | 409][]) {
        const { svcpoid } = await orderIn(from);
        const shippedBefore = Number((await getOrder(svcpoid)).Items[0]!.ShippedQty);
        const response =
          move === 'open' || move === 'cancel'
            ? await act(move, svcpoid)
            : await ship(
                svcpoid,
                uniqueId('CN'),
                [shipLine(tableSku, move === 'close' ? String(Math.max(10 - shippedBefore, 1)) : '1')],
                move === 'ship' ? {} : { Close: true },
              );
        const after = await statusOf(svcpoid);
        seen.push(`${from} ${move}: ${response.statusCode} ${after}`);
        if (expected === 409) {
          expect(response.statusCode, `${from} ${move}`).toBe(409);
          expect(response.json()[0].error, `${from} ${move}`).toContain(`is ${from};`);
          expect(after, `${from} ${move}`).toBe(from);
        } else {
          expect(response.statusCode, `${from} ${move}: ${response.body}`).toBe(200);
          expect(response.json().Order.Status, `${from} ${move}`).toBe(expected);
          expect(after, `${from} ${move}`).toBe(expected);
        }
      }
    }
    expect(seen).toHaveLength(30);
  });

  // ---- stock follows each step ---------------------------------------------------------------

  it('stock follows exactly: allocation first (FEFO), one posting per balance taken, the DC as written; Close completes', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '6', LotNo: 'B-LATE', ExpirationDate: '2027-06-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10', LotNo: 'A-LATER', ExpirationDate: '2027-09-01' }]);
    const { svcpoid, referenceNo } = await importOrder([line(sku, '12', { LineNo: 1 })], {
      PONo: 'PO-77',
      BOLNo: 'BOL-1',
      LoadNo: 'LOAD-1',
      ShippingInfo: { CarrierName: 'UPS', SCACCode: 'UPSN' },
    });
    expect(await balancesOf(sku)).toEqual({ 'A-LATER/Available': ['10', '6', '4'], 'B-LATE/Available': ['6', '6', '0'] });
    expect(await linesOf(svcpoid)).toEqual([[1, '12', '12', '0']]);

    // MarkOpen takes it on; then a first confirmation ships 8 of the 12.
    expect((await list({ ReferenceNo: referenceNo, MarkOpen: true })).results.data.map((r) => r.Status)).toEqual(['Open']);
    const first = await shipped(svcpoid, 'C-1', [shipLine(sku, '8', { LineNo: 1, SerialNumber: ['S1', 'S2'] })], { TrackingNo: 'TRK-1' });
    expect(first).toEqual({ SVCPOID: svcpoid, Status: 'Partial Shipped', ConfirmationNo: 'C-1' });
    // B-LATE expires first: all of it, then 2 of A-LATER. B-LATE has nothing on hand any more.
    expect(await balancesOf(sku)).toEqual({ 'A-LATER/Available': ['8', '4', '4'] });
    expect(await linesOf(svcpoid)).toEqual([[1, '12', '4', '8']]);
    expect(await postingsOf(svcpoid)).toEqual([
      [sku, 'B-LATE', '-6', '0', 'C-1'],
      [sku, 'A-LATER', '-2', '8', 'C-1'],
    ]);
    const firstAt = ctx().clock.now();

    ctx().clock.advance(60_000);
    const second = await shipped(svcpoid, 'C-2', [shipLine(sku, 4)], {
      Close: true,
      ShippedTime: '2026-03-05T06:00:00.000',
      CarrierName: 'FedEx',
      SCACCode: 'FDEG',
      ProNo: 'PRO-9',
      BOLNo: 'BOL-2',
      LoadNo: 'LOAD-2',
    });
    expect(second).toEqual({ SVCPOID: svcpoid, Status: 'Shipped', ConfirmationNo: 'C-2' });
    expect(await statusOf(svcpoid)).toBe('Shipped');
    expect(await balancesOf(sku)).toEqual({ 'A-LATER/Available': ['4', '0', '4'] });
    expect(await linesOf(svcpoid)).toEqual([[1, '12', '0', '12']]);
    const postings = await postingsOf(svcpoid);
    expect(postings).toEqual([
      [sku, 'B-LATE', '-6', '0', 'C-1'],
      [sku, 'A-LATER', '-2', '8', 'C-1'],
      [sku, 'A-LATER', '-4', '4', 'C-2'],
    ]);
    expect(postings.reduce((sum, p) => sum + Number(p[2]), 0)).toBe(-12);

    expect(await dcsOf(svcpoid)).toEqual([
      {
        confirmationNo: 'C-1',
        shippedAt: firstAt,
        dc: {
          CompanyID: world.tenant.companyId,
          OrderNo: svcpoid,
          BOLNo: 'BOL-1',
          LoadNo: 'LOAD-1',
          SCACCode: 'UPSN',
          CarrierName: 'UPS',
          TrackingNo: 'TRK-1',
          ProNo: null,
          // Two lots were taken: the DC line names none.
          Items: [dcItem(1, sku, null, 12, 8, 4, { SerialNumber: ['S1', 'S2'] })],
        },
      },
      {
        confirmationNo: 'C-2',
        // 06:00 in Los Angeles (PST) on 5 March 2026.
        shippedAt: Date.parse('2026-03-05T14:00:00.000Z'),
        dc: {
          CompanyID: world.tenant.companyId,
          OrderNo: svcpoid,
          BOLNo: 'BOL-2',
          LoadNo: 'LOAD-2',
          SCACCode: 'FDEG',
          CarrierName: 'FedEx',
          TrackingNo: null,
          ProNo: 'PRO-9',
          Items: [dcItem(1, sku, 'A-LATER', 12, 4, 0)],
        },
      },
    ]);

    // The ledger search shows the same postings, by the operator's key.
    const keyId = (await tenants.authenticateApiKey(ctx().database.db, ctx().clock, world.operator))!.keyId;
    const ledger = await ctx().post(
      LEDGER_SEARCH,
      { ...ids(), Source: { Type: 'shipment', ID: svcpoid }, Paging: { PageSize: 1000 } },
      world.operator,
    );
    expect(ledger.statusCode, ledger.body).toBe(200);
    expect(
      (ledger.json().results.data as Json[]).map((r) => [
        r.ItemNumber,
        r.LotNo,
        r.Qty,
        r.OnHandAfter,
        r.SourceType,
        r.SourceID,
        r.SourceLine,
        r.KeyID,
      ]),
    ).toEqual([
      [sku, 'B-LATE', '-6', '0', 'shipment', svcpoid, 'C-1', keyId],
      [sku, 'A-LATER', '-2', '8', 'shipment', svcpoid, 'C-1', keyId],
      [sku, 'A-LATER', '-4', '4', 'shipment', svcpoid, 'C-2', keyId],
    ]);
  });

  it('shipping more than the allocation takes Available stock, never another order’s allocation nor Hold stock', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5' }]);
    // Short on import: 5 of 10 allocated. Once Partial Shipped, it no longer takes new stock as a
    // backorder (only Imported and Open orders do), so stock that comes later stays Available.
    const short = await importOrder([line(sku, '10')]);
    expect(short.answer).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 10, allocated 5, short 5` });
    expect((await shipped(short.svcpoid, 'OVER-0', [shipLine(sku, '1', { LineNo: 1 })])).Status).toBe('Partial Shipped');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '3' },
      { ItemNumber: sku, UOM: 'EA', Qty: '4', InventoryStatus: 'Hold' },
    ]);
    const rival = await importOrder([line(sku, '2')]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['7', '6', '1'], '/Hold': ['4', '0', '0'] });

    // 4 allocated + 1 Available: this much and no more.
    const answer = await shipped(short.svcpoid, 'OVER-1', [shipLine(sku, '5', { LineNo: 1 })]);
    expect(answer.Status).toBe('Partial Shipped');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['2', '2', '0'], '/Hold': ['4', '0', '0'] });
    expect(await linesOf(short.svcpoid)).toEqual([[1, '10', '0', '6']]);
    expect(await linesOf(rival.svcpoid)).toEqual([[1, '2', '2', '0']]);
    // One posting per balance taken, summing to what was shipped.
    expect(await postingsOf(short.svcpoid)).toEqual([
      [sku, '', '-1', '4', 'OVER-0'],
      [sku, '', '-5', '2', 'OVER-1'],
    ]);

    const before = await stateOf(short.svcpoid, sku);
    const more = await ship(short.svcpoid, 'OVER-2', [shipLine(sku, '1')]);
    expect(more.statusCode).toBe(409);
    expect(more.json()).toEqual(problems(`Items[0] item ${sku}: 1 to ship, 0 allocated to this order and 0 more available`));
    expect(await stateOf(short.svcpoid, sku)).toEqual(before);
    expect(await linesOf(rival.svcpoid)).toEqual([[1, '2', '2', '0']]);
  });

  it('two shipped lines taking one balance, from their allocations and from Available, post once for it', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '8' }]);
    const { svcpoid } = await importOrder([line(sku, '6', { LineNo: 1 }), line(sku, '6', { LineNo: 2 })]);
    // Partial Shipped: stock that comes now stays Available rather than filling line 2.
    await shipped(svcpoid, 'TWO-0', [shipLine(sku, '1', { LineNo: 1 })]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '4' }]);
    expect(await linesOf(svcpoid)).toEqual([
      [1, '6', '5', '1'],
      [2, '6', '2', '0'],
    ]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['11', '7', '4'] });

    // Line 2: its 2 allocated and 3 Available; line 1: 2 of its allocation. One balance, one posting.
    await shipped(svcpoid, 'TWO-1', [shipLine(sku, '5', { LineNo: 2 }), shipLine(sku, '2', { LineNo: 1 })]);
    expect(await postingsOf(svcpoid)).toEqual([
      [sku, '', '-1', '7', 'TWO-0'],
      [sku, '', '-7', '4', 'TWO-1'],
    ]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['4', '3', '1'] });
    expect(await linesOf(svcpoid)).toEqual([
      [1, '6', '3', '3'],
      [2, '6', '0', '5'],
    ]);
  });

  it('more than allocation + Available, more than ordered, lines not on the order: 409 with every problem, and nothing moves', async () => {
    const sku = uniqueId('SKU');
    const cases = uniqueId('SKU');
    const stranger = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '6' },
      { ItemNumber: cases, UOM: 'EA', Qty: '10' },
      { ItemNumber: stranger, UOM: 'EA', Qty: '10' },
    ]);
    const { svcpoid } = await importOrder([line(sku, '10', { LineNo: 1 }), line(cases, '5', { LineNo: 2 })]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['6', '6', '0'] });
    expect(await balancesOf(cases)).toEqual({ '/Available': ['10', '5', '5'] });
    const before = await stateOf(svcpoid, sku, cases, stranger);

    const response = await ship(svcpoid, 'BAD-1', [
      shipLine(sku, '8', { LineNo: 1 }),
      shipLine(cases, '6', { LineNo: 2 }),
      shipLine(stranger, '1'),
      shipLine(sku, '1', { LineNo: 9 }),
      shipLine(cases, '1', { LineNo: 2, UOM: 'CS' }),
      // A good line: it does not ship either.
      shipLine(cases, '2', { LineNo: 2 }),
    ]);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual(
      problems(
        `Items[0] item ${sku}: 8 to ship, 6 allocated to this order and 0 more available`,
        `Items[1] item ${cases}: 6 more would ship 6 of line 2, which ordered 5`,
        `Items[2] item ${stranger} EA is not on order ${svcpoid}`,
        `Items[3] item ${sku} EA LineNo 9 is not on order ${svcpoid}`,
        `Items[4] item ${cases} CS LineNo 2 is not on order ${svcpoid}`,
      ),
    );
    // Balances, lines, status, ledger and DC as they were.
    expect(await stateOf(svcpoid, sku, cases, stranger)).toEqual(before);

    // Each alone is refused too.
    const alone: [Json, string][] = [
      [shipLine(sku, '7', { LineNo: 1 }), `Items[0] item ${sku}: 7 to ship, 6 allocated to this order and 0 more available`],
      [shipLine(sku, '10.0001', { LineNo: 1 }), `Items[0] item ${sku}: 10.0001 more would ship 10.0001 of line 1, which ordered 10`],
      [shipLine(stranger, '1'), `Items[0] item ${stranger} EA is not on order ${svcpoid}`],
    ];
    for (const [item, message] of alone) {
      const refusedAlone = await ship(svcpoid, uniqueId('CN'), [item]);
      expect(refusedAlone.statusCode).toBe(409);
      expect(refusedAlone.json()).toEqual(problems(message));
    }
    expect(await stateOf(svcpoid, sku, cases, stranger)).toEqual(before);

    // Two lines of one confirmation share what is Available: the second gets what the first left.
    const pool = uniqueId('SKU');
    await stock([{ ItemNumber: pool, UOM: 'EA', Qty: '4' }]);
    const first = await importOrder([line(pool, '4', { LineNo: 1 }), line(pool, '4', { LineNo: 2 })]);
    // Partial Shipped, so the 3 that come next stay Available instead of filling line 2.
    await shipped(first.svcpoid, 'POOL-0', [shipLine(pool, '1', { LineNo: 1 })]);
    await stock([{ ItemNumber: pool, UOM: 'EA', Qty: '3' }]);
    expect(await linesOf(first.svcpoid)).toEqual([
      [1, '4', '3', '1'],
      [2, '4', '0', '0'],
    ]);
    const shared = await ship(first.svcpoid, 'POOL-1', [shipLine(pool, '2', { LineNo: 2 }), shipLine(pool, '2', { LineNo: 2 })]);
    expect(shared.statusCode).toBe(409);
    expect(shared.json()).toEqual(problems(`Items[1] item ${pool}: 2 to ship, 0 allocated to this order and 1 more available`));
    expect(await balancesOf(pool)).toEqual({ '/Available': ['6', '3', '3'] });
  });

  it('matches lines by LineNo, and without one fills the first line of the item not yet fully shipped', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '5', { LineNo: 10 }), line(sku, '5', { LineNo: 20 })]);

    await shipped(svcpoid, 'L-1', [shipLine(sku, '2', { LineNo: 20 })]);
    expect(await linesOf(svcpoid)).toEqual([
      [10, '5', '5', '0'],
      [20, '5', '3', '2'],
    ]);
    await shipped(svcpoid, 'L-2', [shipLine(sku, '5'), shipLine(sku, '3')]);
    expect(await linesOf(svcpoid)).toEqual([
      [10, '5', '0', '5'],
      [20, '5', '0', '5'],
    ]);
    expect((await dcsOf(svcpoid)).map((d) => (d.dc.Items as Json[]).map((i) => [i.LineNo, i.ShippedQty, i.DifferenceQty]))).toEqual([
      [[20, 2, 3]],
      [
        [10, 5, 0],
        [20, 3, 0],
      ],
    ]);
    // Everything shipped, but not closed: still Partial Shipped.
    expect(await statusOf(svcpoid)).toBe('Partial Shipped');
    const more = await ship(svcpoid, 'L-3', [shipLine(sku, '1')]);
    expect(more.statusCode).toBe(409);
    expect(more.json()).toEqual(problems(`Items[0] item ${sku}: 1 more would ship 6 of line 10, which ordered 5`));
    // An order without LineNos numbers its lines from 1.
    const { svcpoid: plain } = await importOrder([line(tableSku, '1'), line(tableSku, '2')]);
    await shipped(plain, 'N-1', [shipLine(tableSku, '2', { LineNo: 2 })]);
    expect(await linesOf(plain)).toEqual([
      [1, '1', '1', '0'],
      [2, '2', '0', '2'],
    ]);
  });

  it('a LotNo restricts what a line takes, from the allocation and from Available stock', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'A', ExpirationDate: '2027-01-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'B', ExpirationDate: '2027-06-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'C' }]);
    const { svcpoid } = await importOrder([line(sku, '10')]);
    expect(await balancesOf(sku)).toEqual({
      'A/Available': ['5', '5', '0'],
      'B/Available': ['5', '5', '0'],
      'C/Available': ['5', '0', '5'],
    });

    await shipped(svcpoid, 'LOT-1', [shipLine(sku, '3', { LotNo: 'B' })]);
    expect(await balancesOf(sku)).toEqual({
      'A/Available': ['5', '5', '0'],
      'B/Available': ['2', '2', '0'],
      'C/Available': ['5', '0', '5'],
    });
    expect(await linesOf(svcpoid)).toEqual([[1, '10', '7', '3']]);
    expect(await postingsOf(svcpoid)).toEqual([[sku, 'B', '-3', '2', 'LOT-1']]);
    expect((await dcsOf(svcpoid))[0]!.dc.Items).toEqual([dcItem(1, sku, 'B', 10, 3, 7)]);

    // Lot A has 5 allocated here and nothing free; lot C's free stock does not count.
    const before = await stateOf(svcpoid, sku);
    const refusedLot = await ship(svcpoid, 'LOT-2', [shipLine(sku, '6', { LotNo: 'A' })]);
    expect(refusedLot.statusCode).toBe(409);
    expect(refusedLot.json()).toEqual(problems(`Items[0] item ${sku}: 6 to ship, 5 allocated to this order and 0 more available`));
    const unknownLot = await ship(svcpoid, 'LOT-3', [shipLine(sku, '1', { LotNo: 'NOPE' })]);
    expect(unknownLot.statusCode).toBe(409);
    expect(unknownLot.json()).toEqual(problems(`Items[0] item ${sku}: 1 to ship, 0 allocated to this order and 0 more available`));
    expect(await stateOf(svcpoid, sku)).toEqual(before);

    const closed = await shipped(svcpoid, 'LOT-4', [shipLine(sku, '5', { LotNo: 'A' }), shipLine(sku, '2', { LotNo: 'B' })], {
      Close: true,
    });
    expect(closed.Status).toBe('Shipped');
    expect(await balancesOf(sku)).toEqual({ 'C/Available': ['5', '0', '5'] });
    expect(await postingsOf(svcpoid)).toEqual([
      [sku, 'B', '-3', '2', 'LOT-1'],
      [sku, 'A', '-5', '0', 'LOT-4'],
      [sku, 'B', '-2', '0', 'LOT-4'],
    ]);
    expect((await dcsOf(svcpoid))[1]!.dc.Items).toEqual([dcItem(1, sku, 'A', 10, 5, 2), dcItem(1, sku, 'B', 10, 2, 0)]);

    // An order line naming a lot: another lot is not on the order; no lot ships the line's lot.
    const { svcpoid: lotted } = await importOrder([line(sku, '1', { LotNo: 'C' })]);
    const wrongLot = await ship(lotted, 'LOT-5', [shipLine(sku, '1', { LotNo: 'B' })]);
    expect(wrongLot.statusCode).toBe(409);
    expect(wrongLot.json()).toEqual(problems(`Items[0] item ${sku} EA lot B is not on order ${lotted}`));
    await shipped(lotted, 'LOT-6', [shipLine(sku, '1')]);
    expect(await postingsOf(lotted)).toEqual([[sku, 'C', '-1', '4', 'LOT-6']]);
    expect((await dcsOf(lotted))[0]!.dc.Items).toEqual([dcItem(1, sku, 'C', 1, 1, 0)]);
  });

  it('a line never holds more allocated than it still has to ship: shipping another lot gives back what is no longer needed', async () => {
    // AllocatedQty is "held for the line now: allocated and not yet shipped"; a line can never ship
    // more than ordered, so an allocation beyond ordered − shipped would hold stock from every
    // other order for nothing until the order closes.
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10', LotNo: 'A', ExpirationDate: '2027-01-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10', LotNo: 'C' }]);
    const { svcpoid } = await importOrder([line(sku, '10')]);
    expect(await balancesOf(sku)).toEqual({ 'A/Available': ['10', '10', '0'], 'C/Available': ['10', '0', '10'] });
    await shipped(svcpoid, 'ALT-1', [shipLine(sku, '4', { LotNo: 'C' })]);
    expect(await linesOf(svcpoid)).toEqual([[1, '10', '6', '4']]);
    expect(await balancesOf(sku)).toEqual({ 'A/Available': ['10', '6', '4'], 'C/Available': ['6', '0', '6'] });
    // So another order of lot A gets the 4 this order no longer needs.
    const rival = await importOrder([line(sku, '4', { LotNo: 'A' })]);
    expect(rival.answer).toMatchObject({ Status: 'Success', Error: [] });
    // And closing the first order after shipping the rest of lot A leaves the books as they should be.
    expect((await shipped(svcpoid, 'ALT-2', [shipLine(sku, '6', { LotNo: 'A' })], { Close: true })).Status).toBe('Shipped');
    expect(await balancesOf(sku)).toEqual({ 'A/Available': ['4', '4', '0'], 'C/Available': ['6', '0', '6'] });
  });

  it('Close releases what is still allocated: Available returns; Close with no lines ends the order', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const short = await importOrder([line(sku, '10')]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '10', '0'] });
    const answer = await shipped(short.svcpoid, 'SH-1', [shipLine(sku, '3')], { Close: true });
    expect(answer).toEqual({ SVCPOID: short.svcpoid, Status: 'Short Shipped', ConfirmationNo: 'SH-1' });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['7', '0', '7'] });
    expect(await linesOf(short.svcpoid)).toEqual([[1, '10', '0', '3']]);
    expect((await dcsOf(short.svcpoid))[0]!.dc.Items).toEqual([dcItem(1, sku, null, 10, 3, 7)]);

    // An Open order closed without shipping anything: Short Shipped, all of it released, no posting.
    const nothing = await importOrder([line(sku, '5')]);
    expect((await act('open', nothing.svcpoid)).statusCode).toBe(200);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['7', '5', '2'] });
    const empty = await shipped(nothing.svcpoid, 'SH-2', [], { Close: true });
    expect(empty).toEqual({ SVCPOID: nothing.svcpoid, Status: 'Short Shipped', ConfirmationNo: 'SH-2' });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['7', '0', '7'] });
    expect(await postingsOf(nothing.svcpoid)).toEqual([]);
    expect((await dcsOf(nothing.svcpoid)).map((d) => d.dc.Items)).toEqual([[]]);

    // Everything shipped without Close stays Partial Shipped; an empty closing confirmation makes it Shipped.
    const whole = await importOrder([line(sku, '2')]);
    expect((await shipped(whole.svcpoid, 'SH-3', [shipLine(sku, '2')])).Status).toBe('Partial Shipped');
    expect((await shipped(whole.svcpoid, 'SH-4', [], { Close: true })).Status).toBe('Shipped');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['5', '0', '5'] });
    expect(await postingsOf(whole.svcpoid)).toEqual([[sku, '', '-2', '5', 'SH-3']]);
  });

  // ---- replays -------------------------------------------------------------------------------

  it('a ConfirmationNo applies once: the same body replays the first answer, another body is 409; nothing moves twice', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '10')]);
    const items = [shipLine(sku, '4')];
    const first = await ship(svcpoid, 'R-1', items);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ Order: { SVCPOID: svcpoid, Status: 'Partial Shipped', ConfirmationNo: 'R-1' } });

    const again = await ship(svcpoid, 'R-1', items);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    // Another key of the operator's company sending the same confirmation gets the same answer.
    const byAdmin = await ship(svcpoid, 'R-1', items, {}, world.admin);
    expect(byAdmin.statusCode).toBe(200);
    expect(byAdmin.body).toBe(first.body);
    expect([first, again, byAdmin].map((answer) => answer.headers['idempotent-replayed'])).toEqual([undefined, 'true', 'true']);

    const different = await ship(svcpoid, 'R-1', [shipLine(sku, '5')]);
    expect(different.statusCode).toBe(409);
    expect(different.json()).toEqual(problems(`ConfirmationNo R-1 was already applied to ${svcpoid} with a different body`));
    const closing = await ship(svcpoid, 'R-1', items, { Close: true });
    expect(closing.statusCode).toBe(409);
    expect(closing.json()).toEqual(problems(`ConfirmationNo R-1 was already applied to ${svcpoid} with a different body`));

    expect(await balancesOf(sku)).toEqual({ '/Available': ['6', '6', '0'] });
    expect(await linesOf(svcpoid)).toEqual([[1, '10', '6', '4']]);
    expect((await dcsOf(svcpoid)).map((d) => d.confirmationNo)).toEqual(['R-1']);
    expect(await postingsOf(svcpoid)).toEqual([[sku, '', '-4', '6', 'R-1']]);

    // After the order is closed, the first confirmation still replays its own answer.
    expect((await shipped(svcpoid, 'R-2', [shipLine(sku, '6')], { Close: true })).Status).toBe('Shipped');
    const late = await ship(svcpoid, 'R-1', items);
    expect(late.statusCode).toBe(200);
    expect(late.body).toBe(first.body);
    expect((await dcsOf(svcpoid)).map((d) => d.confirmationNo)).toEqual(['R-1', 'R-2']);
    expect(await balancesOf(sku)).toEqual({});

    // A ConfirmationNo belongs to its order: another order may use the same one.
    const { svcpoid: next } = await importOrder([line(tableSku, '1')]);
    expect((await shipped(next, 'R-1', [shipLine(tableSku, '1')])).Status).toBe('Partial Shipped');
  });

  it('ten concurrent posts of one ConfirmationNo ship once: one DC, stock taken once, ten identical 200 answers', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '8')]);
    const responses = await Promise.all(Array.from({ length: 10 }, () => ship(svcpoid, 'X-1', [shipLine(sku, '3')])));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.body))).toEqual(
      new Set([JSON.stringify({ Order: { SVCPOID: svcpoid, Status: 'Partial Shipped', ConfirmationNo: 'X-1' } })]),
    );
    expect((await dcsOf(svcpoid)).map((d) => d.confirmationNo)).toEqual(['X-1']);
    expect(await postingsOf(svcpoid)).toEqual([[sku, '', '-3', '7', 'X-1']]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['7', '5', '2'] });
    expect(await linesOf(svcpoid)).toEqual([[1, '8', '5', '3']]);
  });

  it('ten concurrent confirmations of one unit each on an order of five: five ship, five are refused, no oversell', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5' }]);
    const { svcpoid } = await importOrder([line(sku, '5')]);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => ship(svcpoid, `U-${i}`, [shipLine(sku, '1')])));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(5);
    const refusals = responses.filter((r) => r.statusCode !== 200);
    expect(refusals.map((r) => r.statusCode)).toEqual(Array(5).fill(409));
    for (const r of refusals) expect(r.json()).toEqual(problems(`Items[0] item ${sku}: 1 more would ship 6 of line 1, which ordered 5`));
    expect(await balancesOf(sku)).toEqual({});
    expect(await linesOf(svcpoid)).toEqual([[1, '5', '0', '5']]);
    expect(await dcsOf(svcpoid)).toHaveLength(5);
    expect(await postingsOf(svcpoid)).toHaveLength(5);
  });

  it('replays an Idempotency-Key: same body, same answer, nothing twice; another body under it is 422', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '10')]);
    const headers = { 'idempotency-key': uniqueId('IK') };
    const first = await ship(svcpoid, 'IK-1', [shipLine(sku, '2')], {}, world.operator, headers);
    expect(first.statusCode).toBe(200);
    ctx().clock.advance(1000);
    const replay = await ship(svcpoid, 'IK-1', [shipLine(sku, '2')], {}, world.operator, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.body).toBe(first.body);
    const otherBody = await ship(svcpoid, 'IK-2', [shipLine(sku, '2')], {}, world.operator, headers);
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json()).toEqual(problems('Idempotency-Key was already used with a different request'));
    expect(await balancesOf(sku)).toEqual({ '/Available': ['8', '8', '0'] });
    expect((await dcsOf(svcpoid)).map((d) => d.confirmationNo)).toEqual(['IK-1']);
    expect(await postingsOf(svcpoid)).toEqual([[sku, '', '-2', '8', 'IK-1']]);

    // The operator's moves replay too: a second open under the key answers Open, not 409.
    const { svcpoid: fresh } = await importOrder([line(sku, '1')]);
    const openHeaders = { 'idempotency-key': uniqueId('IK') };
    const opened = await act('open', fresh, world.operator, openHeaders);
    const reopened = await act('open', fresh, world.operator, openHeaders);
    expect(opened.statusCode).toBe(200);
    expect(reopened.statusCode).toBe(200);
    expect(reopened.body).toBe(opened.body);
    const cancelHeaders = { 'idempotency-key': uniqueId('IK') };
    const cancelled = await act('cancel', fresh, world.operator, cancelHeaders);
    const recancelled = await act('cancel', fresh, world.operator, cancelHeaders);
    expect(recancelled.statusCode).toBe(200);
    expect(recancelled.body).toBe(cancelled.body);
    expect(cancelled.json()).toEqual({ Order: { SVCPOID: fresh, Status: 'Cancelled' } });
    // Without the key, the same cancel again is the state machine's 409.
    const plain = await act('cancel', fresh);
    expect(plain.statusCode).toBe(409);
    expect(plain.json()).toEqual(problems(`Order ${fresh} is Cancelled; cancel needs Imported or Open`));
  });

  // ---- isolation -----------------------------------------------------------------------------

  const OPERATIONS = ['list', 'get', 'open', 'cancel', 'post-confirmation'] as const;
  const requestFor = (operation: (typeof OPERATIONS)[number], svcpoid: string, scope: Json) => {
    const base = { ...scope, SVCPOID: svcpoid };
    if (operation === 'list') return { ...scope, MarkOpen: true };
    if (operation === 'post-confirmation')
      return { ...base, ConfirmationNo: uniqueId('CN'), Close: true, Items: [shipLine(tableSku, '1')] };
    return base;
  };

  it('an operator of the other facility and a customer key get 403 on every 3PL endpoint; nothing moves', async () => {
    const { svcpoid } = await orderIn('Imported');
    const before = await stateOf(svcpoid);
    for (const operation of OPERATIONS) {
      const body = requestFor(operation, svcpoid, facility());
      const foreign = await ctx().post(`${THREEPL_ORDER}/${operation}`, body, world.otherOperator);
      expect(foreign.statusCode, operation).toBe(403);
      expect(foreign.json(), operation).toEqual(problems(`FacilityID ${world.tenant.facilityIds[0]} is outside this API key's scope`));
      const customer = await ctx().post(`${THREEPL_ORDER}/${operation}`, body, world.customer);
      expect(customer.statusCode, operation).toBe(403);
      expect(customer.json(), operation).toEqual(problems('An API key with role customer may not call this operation'));
      const anotherCompany = await ctx().post(`${THREEPL_ORDER}/${operation}`, body, otherAdmin);
      expect(anotherCompany.statusCode, operation).toBe(403);
      expect(anotherCompany.json(), operation).toEqual(problems(`CompanyID ${world.tenant.companyId} is outside this API key's scope`));
    }
    expect(await stateOf(svcpoid)).toEqual(before);
    // The other facility's operator sees none of this facility's orders in its own list.
    const theirs = await list({ ...facility(1) }, world.otherOperator);
    expect(theirs.results.data.map((r) => r.SVCPOID)).not.toContain(svcpoid);
  });

  it('an SVCPOID of another facility, another company, or unknown is 404; a FacilityID the company lacks is 400', async () => {
    const { svcpoid: elsewhere } = await importOrder([line(tableSku, '1')], {}, 1);
    const { svcpoid: ours } = await orderIn('Imported');
    const theirs = await ctx().post(`${THREEPL_ORDER}/get`, { ...facility(1), SVCPOID: elsewhere }, world.otherOperator);
    expect(theirs.statusCode, theirs.body).toBe(200);
    const before = await stateOf(ours);

    for (const operation of OPERATIONS.filter((o) => o !== 'list')) {
      for (const key of [world.operator, world.admin]) {
        const wrongFacility = await ctx().post(`${THREEPL_ORDER}/${operation}`, requestFor(operation, elsewhere, facility()), key);
        expect(wrongFacility.statusCode, operation).toBe(404);
        expect(wrongFacility.json(), operation).toEqual({ error: `Not found order ${elsewhere}` });
        const unknown = await ctx().post(`${THREEPL_ORDER}/${operation}`, requestFor(operation, 'DN-999999999', facility()), key);
        expect(unknown.statusCode, operation).toBe(404);
        expect(unknown.json(), operation).toEqual({ error: 'Not found order DN-999999999' });
      }
      const otherCompany = await ctx().post(
        `${THREEPL_ORDER}/${operation}`,
        requestFor(operation, ours, { CompanyID: other.companyId, FacilityID: other.facilityIds[0] }),
        otherAdmin,
      );
      expect(otherCompany.statusCode, operation).toBe(404);
      expect(otherCompany.json(), operation).toEqual({ error: `Not found order ${ours}` });
    }
    for (const operation of OPERATIONS) {
      const noFacility = await ctx().post(
        `${THREEPL_ORDER}/${operation}`,
        requestFor(operation, ours, { CompanyID: world.tenant.companyId, FacilityID: 'NOPE' }),
        world.admin,
      );
      expect(noFacility.statusCode, operation).toBe(400);
      expect(noFacility.json(), operation).toEqual({ error: 'Not found facility' });
      // Another company's facility is not in this company either.
      const theirFacility = await ctx().post(
        `${THREEPL_ORDER}/${operation}`,
        requestFor(operation, ours, { CompanyID: world.tenant.companyId, FacilityID: other.facilityIds[0] }),
        world.admin,
      );
      expect(theirFacility.statusCode, operation).toBe(400);
      expect(theirFacility.json(), operation).toEqual({ error: 'Not found facility' });
    }
    expect(await stateOf(ours)).toEqual(before);
    expect(await statusOf(ours)).toBe('Imported');
    const stillThere = await ctx().post(`${THREEPL_ORDER}/get`, { ...facility(1), SVCPOID: elsewhere }, world.otherOperator);
    expect(stillThere.json().Order.Status).toBe('Imported');
  });

  // ---- validation ----------------------------------------------------------------------------

  it('refuses an invalid confirmation with 400 in the array shape, every problem at once, and moves nothing', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const { svcpoid } = await importOrder([line(sku, '10')]);
    const before = await stateOf(svcpoid, sku);
    const post = (body: Json) => ctx().post(ORDER_SHIP, body, world.operator);
    const valid = { ...facility(), SVCPOID: svcpoid, ConfirmationNo: 'V-1', Items: [shipLine(sku, '1')] };
    const qtyMessage = 'Items[0].ShippedQty must be a positive decimal with at most 11 integer and 4 fractional digits';
    const cases: [string, Json, string[]][] = [
      ['ShippedQty "0"', { ...valid, Items: [shipLine(sku, '0')] }, [qtyMessage]],
      ['ShippedQty 0', { ...valid, Items: [shipLine(sku, 0)] }, [qtyMessage]],
      ['ShippedQty "-1"', { ...valid, Items: [shipLine(sku, '-1')] }, [qtyMessage]],
      ['ShippedQty "1e3"', { ...valid, Items: [shipLine(sku, '1e3')] }, [qtyMessage]],
      ['ShippedQty "1.23456"', { ...valid, Items: [shipLine(sku, '1.23456')] }, [qtyMessage]],
      ['ConfirmationNo missing', { ...valid, ConfirmationNo: undefined }, ['ConfirmationNo is required']],
      ['ConfirmationNo empty', { ...valid, ConfirmationNo: '' }, ['ConfirmationNo must not be empty']],
      ['ConfirmationNo of 51 characters', { ...valid, ConfirmationNo: 'x'.repeat(51) }, ['ConfirmationNo must be at most 50 characters']],
      ['SVCPOID missing', { ...valid, SVCPOID: undefined }, ['SVCPOID is required']],
      ['Items empty without Close', { ...valid, Items: [] }, ['Items must have at least 1 item']],
      ['Items empty with Close false', { ...valid, Items: [], Close: false }, ['Items must have at least 1 item']],
      ['Items missing', { ...valid, Items: undefined, Close: true }, ['Items is required']],
      ['UOM PK', { ...valid, Items: [shipLine(sku, '1', { UOM: 'PK' })] }, ['Items[0].UOM must be one of: EA, CS']],
      ['ItemNumber missing', { ...valid, Items: [shipLine(sku, '1', { ItemNumber: undefined })] }, ['Items[0].ItemNumber is required']],
      [
        'LotNo of 51 characters',
        { ...valid, Items: [shipLine(sku, '1', { LotNo: 'L'.repeat(51) })] },
        ['Items[0].LotNo must be at most 50 characters'],
      ],
      [
        'every problem at once',
        { ...valid, ConfirmationNo: undefined, Items: [shipLine(sku, '0'), shipLine(sku, '1', { UOM: 'PK' })] },
        ['ConfirmationNo is required', qtyMessage, 'Items[1].UOM must be one of: EA, CS'],
      ],
    ];
    for (const [what, body, messages] of cases) {
      const response = await post(body);
      expect(response.statusCode, what).toBe(400);
      expect(response.json(), what).toEqual(problems(...messages));
    }
    expect(await stateOf(svcpoid, sku)).toEqual(before);
    // The valid body then ships.
    expect((await post(valid)).statusCode).toBe(200);
  });
});
