import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import { formatFacilityLocal } from '../../src/http/time.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { SHIP_TO } from '../helpers/orders.js';
import { useTestApp } from '../helpers/app.js';
import {
  createWorld,
  facilityOf,
  idsOf,
  orderBody,
  problems,
  stock as openingStock,
  uniqueId,
  type StockLine,
  type World,
} from '../helpers/factories.js';
import { INVENTORY_SEARCH, ORDER_ACK_SEARCH, ORDER_CANCEL, ORDER_IMPORT, THREEPL_ORDER } from '../helpers/paths.js';

/**
 * Outbound orders (DN) from the customer's side (docs/orders.md, docs/compatibility.md, docs/decisions.md; spec 2.7, 2.9, 7): the
 * import's answer and its ACK, allocation (FEFO, then FIFO; lots; Hold stock; release and
 * re-allocation), every row of the customer's part of the order state machine, validation with
 * every problem at once and its failure ACK, and Idempotency-Key replays.
 *
 * Every test stocks items of its own (unique ItemIDs), so the tests do not share stock.
 */

const ZONE = 'America/Los_Angeles';

/** The failure form of an ACK for these messages. */
const failureAck = (...messages: string[]) => ({ code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') });

type Json = Record<string, unknown>;
interface OrderAnswer {
  CustomerID: string;
  PONo: string | never[];
  ReferenceNo: string | number;
  SVCPOID: string;
  Status: 'Success' | 'Warning';
  Error: string | never[];
}
interface AckRecord {
  FacilityID: string;
  CustomerID: string;
  ReferenceNo: string | number | null;
  PONo: string | null;
  ACK: Json;
  CreatedWhen: string;
}
interface InventoryRow {
  ItemNumber: string;
  LotNo: string | null;
  GoodsType: string | null;
  TitleID: string | null;
  InventoryStatus: string;
  ExpirationDate: string | null;
  UOM: string;
  OnHand: string;
  Allocated: string;
  Available: string;
}

describeEachDialect('DN import, cancel, ACKs and allocation', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
  });

  const ids = (facility = 0) => idsOf(world.tenant, { facility });
  const facility = () => facilityOf(world.tenant);
  const line = (itemId: string, orderedQty: string | number, extra: Json = {}) => ({
    ItemID: itemId,
    OrderedQty: orderedQty,
    UOM: 'EA',
    ...extra,
  });
  const body = (referenceNo: unknown, content: Json = {}, root: Json = {}) =>
    orderBody({ tenant: world.tenant, root, content: { ReferenceNo: referenceNo, Items: [line('NOTHING', '1')], ...content } });
  const importOrder = (
    referenceNo: unknown,
    content: Json = {},
    root: Json = {},
    key = world.customer,
    headers: Record<string, string> = {},
  ) => ctx().post(ORDER_IMPORT, body(referenceNo, content, root), key, headers);
  /** An import that must succeed; its `Order`. */
  const imported = async (referenceNo: unknown, content: Json = {}, root: Json = {}) => {
    const response = await importOrder(referenceNo, content, root);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Order as OrderAnswer;
  };
  const cancelBy = (referenceNo: unknown, root: Json = {}, key = world.customer) =>
    ctx().post(
      ORDER_IMPORT,
      { ...ids(), ...root, POContent: { ReferenceNo: referenceNo, ActionCode: 'Cancelled', Status: 'Imported' } },
      key,
    );
  const put = (payload: unknown, key = world.customer, headers: Record<string, string> = {}) =>
    ctx().put(ORDER_CANCEL, payload, key, headers);
  const acksOf = async (filter: Json, facilityIndex = 0): Promise<AckRecord[]> => {
    const response = await ctx().post(ORDER_ACK_SEARCH, { ...ids(facilityIndex), ...filter, Paging: { PageSize: 1000 } }, world.customer);
    if (response.statusCode === 404) {
      expect(response.json()).toEqual({ error: 'Not found order' });
      return [];
    }
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  /** Puts stock on hand with an adjustment of its own, then moves the clock so that receipts are ordered. */
  const stock = async (items: StockLine[]) => {
    await openingStock(ctx(), { tenant: world.tenant, items, key: world.operator });
    ctx().clock.advance(1000);
  };
  const inventoryOf = async (itemId: string): Promise<InventoryRow[]> => {
    const response = await ctx().post(INVENTORY_SEARCH, { ...ids(), ItemNumber: itemId, Paging: { PageSize: 1000 } }, world.customer);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().results.data;
  };
  /** Per balance of an item: `lot/status` → [OnHand, Allocated, Available]. */
  const balancesOf = async (itemId: string) =>
    Object.fromEntries(
      (await inventoryOf(itemId)).map((row) => [`${row.LotNo ?? ''}/${row.InventoryStatus}`, [row.OnHand, row.Allocated, row.Available]]),
    );
  const getOrder = async (svcpoid: string) => {
    const response = await ctx().post(`${THREEPL_ORDER}/get`, { ...facility(), SVCPOID: svcpoid }, world.operator);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Order as Json & { Status: string; Items: Json[] };
  };
  const statusOf = async (svcpoid: string) => (await getOrder(svcpoid)).Status;
  /** Per line of the order: [LineNo, ItemID, OrderedQty, AllocatedQty]. */
  const linesOf = async (svcpoid: string) => (await getOrder(svcpoid)).Items.map((l) => [l.LineNo, l.ItemID, l.OrderedQty, l.AllocatedQty]);
  const openOrder = async (svcpoid: string) => {
    const response = await ctx().post(`${THREEPL_ORDER}/open`, { ...facility(), SVCPOID: svcpoid, Note: 'picking' }, world.operator);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ Order: { SVCPOID: svcpoid, Status: 'Open' } });
  };
  /** The live and cancelled orders with this ReferenceNo, as the 3PL list shows them. */
  const ordersWith = async (referenceNo: string | number) => {
    const response = await ctx().post(
      `${THREEPL_ORDER}/list`,
      { ...facility(), ReferenceNo: referenceNo, Paging: { PageSize: 1000 } },
      world.operator,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json().results.data.map((row: { SVCPOID: string; Status: string }) => [row.SVCPOID, row.Status]);
  };
  const count = async (table: string) => {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(table)} where company_id = ${world.tenant.companyId}`.execute(ctx().database.db);
    return Number(rows[0]!.n);
  };
  const now = () => formatFacilityLocal(ctx().clock.now(), ZONE);
  const successAck = (order: OrderAnswer, fields: Json = {}) => ({
    CustomerId: world.tenant.customerIds[0],
    PONo: Array.isArray(order.PONo) ? null : order.PONo,
    ReferenceNo: order.ReferenceNo,
    SVCPOID: order.SVCPOID,
    Status: order.Status,
    Error: Array.isArray(order.Error) ? null : order.Error,
    ...fields,
  });

  // ---- the import's answer and its ACK -------------------------------------------------------

  it('creates an order: the published answer shape, ReferenceNo 123 echoed as a number, one Success ACK', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const response = await importOrder(123, { Items: [line(sku, '4')] });
    expect(response.statusCode).toBe(200);
    const order = response.json().Order as OrderAnswer;
    expect(response.json()).toEqual({
      Order: {
        CustomerID: world.tenant.customerIds[0],
        PONo: [],
        ReferenceNo: 123,
        SVCPOID: expect.stringMatching(/^DN-\d+$/),
        Status: 'Success',
        Error: [],
      },
    });
    expect(response.body).toContain('"ReferenceNo":123');
    expect(response.body).toContain('"Error":[]');
    expect(response.body).toContain('"PONo":[]');

    expect(await acksOf({ ReferenceNo: 123 })).toEqual([
      {
        FacilityID: world.tenant.facilityIds[0],
        CustomerID: world.tenant.customerIds[0],
        ReferenceNo: 123,
        PONo: null,
        ACK: {
          CustomerId: world.tenant.customerIds[0],
          PONo: null,
          ReferenceNo: 123,
          SVCPOID: order.SVCPOID,
          Status: 'Success',
          Error: null,
        },
        CreatedWhen: now(),
      },
    ]);
    const raw = await ctx().post(ORDER_ACK_SEARCH, { ...ids(), ReferenceNo: '123' }, world.customer);
    expect(raw.body).toContain('"ReferenceNo":123');
    expect(raw.body).toContain('"Error":null');
    expect(await statusOf(order.SVCPOID)).toBe('Imported');
  });

  it('answers the PONo and a text ReferenceNo as sent, and gives every order its own DN-<n>', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const poNo = uniqueId('PO');
    const response = await importOrder(referenceNo, { PONo: poNo, Items: [line(sku, 1)] });
    expect(response.statusCode).toBe(200);
    const order = response.json().Order as OrderAnswer;
    expect(order).toEqual({
      CustomerID: world.tenant.customerIds[0],
      PONo: poNo,
      ReferenceNo: referenceNo,
      SVCPOID: expect.stringMatching(/^DN-\d+$/),
      Status: 'Success',
      Error: [],
    });
    expect(response.body).toContain(`"ReferenceNo":"${referenceNo}"`);
    const other = await imported(uniqueId('SO'), { PONo: poNo, Items: [line(sku, 1)] });
    expect(other.SVCPOID).toMatch(/^DN-\d+$/);
    expect(other.SVCPOID).not.toBe(order.SVCPOID);
    // One ACK per call, each with its own numbers; the PONo they share finds both.
    expect((await acksOf({ PONo: poNo })).map((a) => a.ACK)).toEqual([successAck(order), successAck(other)]);
    expect((await acksOf({ ReferenceNo: referenceNo })).map((a) => a.ACK)).toEqual([successAck(order)]);
  });

  // ---- allocation ----------------------------------------------------------------------------

  it('allocates a whole order: Success, Allocated = ordered, Available what is left; exact decimals', async () => {
    const sku = uniqueId('SKU');
    const cases = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '10.5' },
      { ItemNumber: cases, UOM: 'CS', Qty: '3' },
    ]);
    const order = await imported(uniqueId('SO'), { Items: [line(sku, '2.5', { LineNo: 10 }), line(cases, 3, { UOM: 'CS', LineNo: 20 })] });
    expect(order).toMatchObject({ Status: 'Success', Error: [] });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10.5', '2.5', '8'] });
    expect(await balancesOf(cases)).toEqual({ '/Available': ['3', '3', '0'] });
    expect(await linesOf(order.SVCPOID)).toEqual([
      [10, sku, '2.5', '2.5'],
      [20, cases, '3', '3'],
    ]);
  });

  it('allocates what there is when stock is short: Warning with the shortfall per line, the order saved, Available 0', async () => {
    const sku = uniqueId('SKU');
    const plenty = uniqueId('SKU');
    const none = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '6' },
      // Cases do not fill a line ordered in eaches.
      { ItemNumber: sku, UOM: 'CS', Qty: '50' },
      { ItemNumber: plenty, UOM: 'EA', Qty: '100' },
    ]);
    const referenceNo = uniqueId('SO');
    const response = await importOrder(referenceNo, { Items: [line(sku, '20'), line(plenty, '5'), line(none, '0.25')] });
    expect(response.statusCode).toBe(200);
    const warning = `${sku}: ordered 20, allocated 6, short 14; ${none}: ordered 0.25, allocated 0, short 0.25`;
    const order = response.json().Order as OrderAnswer;
    expect(response.json()).toEqual({
      Order: {
        CustomerID: world.tenant.customerIds[0],
        PONo: [],
        ReferenceNo: referenceNo,
        SVCPOID: expect.stringMatching(/^DN-\d+$/),
        Status: 'Warning',
        Error: warning,
      },
    });
    expect(await acksOf({ ReferenceNo: referenceNo })).toEqual([
      {
        FacilityID: world.tenant.facilityIds[0],
        CustomerID: world.tenant.customerIds[0],
        ReferenceNo: referenceNo,
        PONo: null,
        ACK: {
          CustomerId: world.tenant.customerIds[0],
          PONo: null,
          ReferenceNo: referenceNo,
          SVCPOID: order.SVCPOID,
          Status: 'Warning',
          Error: warning,
        },
        CreatedWhen: now(),
      },
    ]);
    expect(await statusOf(order.SVCPOID)).toBe('Imported');
    expect(await linesOf(order.SVCPOID)).toEqual([
      [1, sku, '20', '6'],
      [2, plenty, '5', '5'],
      [3, none, '0.25', '0'],
    ]);
    const rows = await inventoryOf(sku);
    expect(rows.map((r) => [r.UOM, r.OnHand, r.Allocated, r.Available])).toEqual([
      ['CS', '50', '0', '50'],
      ['EA', '6', '6', '0'],
    ]);
  });

  it('allocates the earliest expiration first, undated stock last, and among equals the earliest received first', async () => {
    const sku = uniqueId('SKU');
    // Received in this order; lot names sort against the receipt order, so only the rule can get it right.
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'Z-UNDATED' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'Y-LATE', ExpirationDate: '2027-06-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'X-EARLY-FIRST', ExpirationDate: '2027-01-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'A-EARLY-SECOND', ExpirationDate: '2027-01-01' }]);
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '5', LotNo: 'B-UNDATED-LATER' }]);

    const first = await imported(uniqueId('SO'), { Items: [line(sku, '7')] });
    expect(first.Status).toBe('Success');
    expect(await balancesOf(sku)).toEqual({
      'A-EARLY-SECOND/Available': ['5', '2', '3'],
      'B-UNDATED-LATER/Available': ['5', '0', '5'],
      'X-EARLY-FIRST/Available': ['5', '5', '0'],
      'Y-LATE/Available': ['5', '0', '5'],
      'Z-UNDATED/Available': ['5', '0', '5'],
    });
    // The next order goes on: the rest of the second early lot, the late lot, then the undated
    // lots, the one received first before the other.
    const second = await imported(uniqueId('SO'), { Items: [line(sku, '12')] });
    expect(second.Status).toBe('Success');
    expect(await balancesOf(sku)).toEqual({
      'A-EARLY-SECOND/Available': ['5', '5', '0'],
      'B-UNDATED-LATER/Available': ['5', '0', '5'],
      'X-EARLY-FIRST/Available': ['5', '5', '0'],
      'Y-LATE/Available': ['5', '5', '0'],
      'Z-UNDATED/Available': ['5', '4', '1'],
    });
    const third = await importOrder(uniqueId('SO'), { Items: [line(sku, '10')] });
    expect(third.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 10, allocated 6, short 4` });
    expect(await balancesOf(sku)).toEqual({
      'A-EARLY-SECOND/Available': ['5', '5', '0'],
      'B-UNDATED-LATER/Available': ['5', '5', '0'],
      'X-EARLY-FIRST/Available': ['5', '5', '0'],
      'Y-LATE/Available': ['5', '5', '0'],
      'Z-UNDATED/Available': ['5', '5', '0'],
    });
  });

  it('a line naming a lot takes only that lot, however the others expire', async () => {
    const sku = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '10', LotNo: 'EARLY', ExpirationDate: '2026-12-01' },
      { ItemNumber: sku, UOM: 'EA', Qty: '4', LotNo: 'CHOSEN', ExpirationDate: '2028-01-01' },
    ]);
    const order = await importOrder(uniqueId('SO'), { Items: [line(sku, '6', { LotNo: 'CHOSEN' })] });
    expect(order.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 6, allocated 4, short 2` });
    expect(await balancesOf(sku)).toEqual({
      'CHOSEN/Available': ['4', '4', '0'],
      'EARLY/Available': ['10', '0', '10'],
    });
    const missingLot = await importOrder(uniqueId('SO'), { Items: [line(sku, '1', { LotNo: 'NO-SUCH-LOT' })] });
    expect(missingLot.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 1, allocated 0, short 1` });
    expect((await balancesOf(sku))['EARLY/Available']).toEqual(['10', '0', '10']);
  });

  it('never allocates Hold stock', async () => {
    const sku = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '50', LotNo: 'HELD', InventoryStatus: 'Hold', ExpirationDate: '2026-04-01' },
      { ItemNumber: sku, UOM: 'EA', Qty: '2', LotNo: 'FREE', ExpirationDate: '2030-01-01' },
    ]);
    const response = await importOrder(uniqueId('SO'), { Items: [line(sku, '5')] });
    expect(response.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 5, allocated 2, short 3` });
    // Not even when the line names the held lot.
    const named = await importOrder(uniqueId('SO'), { Items: [line(sku, '1', { LotNo: 'HELD' })] });
    expect(named.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 1, allocated 0, short 1` });
    expect(await balancesOf(sku)).toEqual({
      'FREE/Available': ['2', '2', '0'],
      'HELD/Hold': ['50', '0', '0'],
    });
  });

  it('two lines of one item allocate in line order from one pool', async () => {
    const sku = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '3', LotNo: 'L1', ExpirationDate: '2027-01-01' },
      { ItemNumber: sku, UOM: 'EA', Qty: '3', LotNo: 'L2', ExpirationDate: '2027-02-01' },
    ]);
    const response = await importOrder(uniqueId('SO'), { Items: [line(sku, '4', { LineNo: 1 }), line(sku, '4', { LineNo: 2 })] });
    expect(response.statusCode).toBe(200);
    expect(response.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 4, allocated 2, short 2` });
    const svcpoid = response.json().Order.SVCPOID;
    expect(await linesOf(svcpoid)).toEqual([
      [1, sku, '4', '4'],
      [2, sku, '4', '2'],
    ]);
    expect(await balancesOf(sku)).toEqual({ 'L1/Available': ['3', '3', '0'], 'L2/Available': ['3', '3', '0'] });
  });

  it('releases the allocation on a cancel by ActionCode and by PUT', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const byAction = await imported(uniqueId('SO'), { Items: [line(sku, '4')] });
    const byPut = await imported(uniqueId('SO'), { PONo: uniqueId('PO'), Items: [line(sku, '5')] });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '9', '1'] });

    const cancelled = await cancelBy(byAction.ReferenceNo);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '5', '5'] });
    expect(await linesOf(byAction.SVCPOID)).toEqual([[1, sku, '4', '0']]);

    const putCancelled = await put({ ...ids(), PONo: byPut.PONo, CancelNote: 'customer changed their mind' });
    expect(putCancelled.statusCode, putCancelled.body).toBe(200);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '0', '10'] });
    expect(await linesOf(byPut.SVCPOID)).toEqual([[1, sku, '5', '0']]);
    // What the cancels gave back is there for the next order.
    expect((await imported(uniqueId('SO'), { Items: [line(sku, '10')] })).Status).toBe('Success');
  });

  it('an update allocates again: a lower quantity frees stock for the order waiting for it, a higher one takes more', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const first = await imported(referenceNo, { Items: [line(sku, '10')] });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '10', '0'] });
    const short = await importOrder(uniqueId('SO'), { Items: [line(sku, '6')] });
    expect(short.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 6, allocated 0, short 6` });

    const lowered = await imported(referenceNo, { Items: [line(sku, '4')] });
    expect(lowered).toMatchObject({ SVCPOID: first.SVCPOID, Status: 'Success', Error: [] });
    expect(await linesOf(first.SVCPOID)).toEqual([[1, sku, '4', '4']]);
    // The 6 it gave back went to the order short of them, in the same transaction (a backorder).
    expect(await linesOf(short.json().Order.SVCPOID)).toEqual([[1, sku, '6', '6']]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '10', '0'] });

    // Its own allocation counts for the update: 4 held + nothing free covers 4 but not 5.
    const raised = await importOrder(referenceNo, { Items: [line(sku, '5')] });
    expect(raised.json().Order).toMatchObject({
      SVCPOID: first.SVCPOID,
      Status: 'Warning',
      Error: `${sku}: ordered 5, allocated 4, short 1`,
    });
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '10', '0'] });
  });

  // ---- the state machine ---------------------------------------------------------------------

  it('Imported --import (update)--> Imported: same SVCPOID, lines replaced, one ACK per call', async () => {
    const [a, b] = [uniqueId('SKU'), uniqueId('SKU')];
    await stock([
      { ItemNumber: a, UOM: 'EA', Qty: '10' },
      { ItemNumber: b, UOM: 'EA', Qty: '10' },
    ]);
    const referenceNo = uniqueId('SO');
    const first = await imported(referenceNo, { PONo: 'PO-OLD', Items: [line(a, '3')] });
    const update = await imported(referenceNo, { PONo: 'PO-NEW', OrderType: 'Rush', Items: [line(b, '2'), line(a, '1')] });
    expect(update).toEqual({ ...first, PONo: 'PO-NEW', Status: 'Success', Error: [] });
    const order = await getOrder(first.SVCPOID);
    expect(order).toMatchObject({ Status: 'Imported', PONo: 'PO-NEW', OrderType: 'Rush' });
    expect(await linesOf(first.SVCPOID)).toEqual([
      [1, b, '2', '2'],
      [2, a, '1', '1'],
    ]);
    expect(await balancesOf(a)).toEqual({ '/Available': ['10', '1', '9'] });
    expect(await ordersWith(referenceNo)).toEqual([[first.SVCPOID, 'Imported']]);
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK)).toEqual([successAck(first), successAck(update)]);
  });

  it('Open --import (update)--> Imported, allocation redone', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const first = await imported(referenceNo, { Items: [line(sku, '8')] });
    await openOrder(first.SVCPOID);
    expect(await statusOf(first.SVCPOID)).toBe('Open');
    const update = await imported(referenceNo, { Items: [line(sku, '3')] });
    expect(update).toMatchObject({ SVCPOID: first.SVCPOID, Status: 'Success' });
    expect(await statusOf(first.SVCPOID)).toBe('Imported');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '3', '7'] });
  });

  it('Imported --import ActionCode Cancelled--> Cancelled, answered like the import and acknowledged', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const poNo = uniqueId('PO');
    const order = await imported(referenceNo, { PONo: poNo, Items: [line(sku, '2')] });
    // A cancel needs no Items or Address.
    const response = await cancelBy(referenceNo);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      Order: {
        CustomerID: world.tenant.customerIds[0],
        PONo: poNo,
        ReferenceNo: referenceNo,
        SVCPOID: order.SVCPOID,
        Status: 'Success',
        Error: [],
      },
    });
    expect(await statusOf(order.SVCPOID)).toBe('Cancelled');
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK)).toEqual([successAck(order), successAck(order)]);
    // Nothing live is left to cancel.
    const again = await cancelBy(referenceNo);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: `Not found order with ReferenceNo ${referenceNo}` });
  });

  it('Imported --PUT cancel--> Cancelled, by ReferenceNo (text or number) or by PONo', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const poNo = uniqueId('PO');
    const byReference = await imported(referenceNo, { PONo: poNo, Items: [line(sku, '1')] });
    const response = await put({ ...ids(), ReferenceNo: referenceNo, CancelNote: 'duplicate order' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      Order: {
        CustomerID: world.tenant.customerIds[0],
        PONo: poNo,
        ReferenceNo: referenceNo,
        SVCPOID: byReference.SVCPOID,
        Status: 'Success',
        Error: [],
      },
    });
    expect(await statusOf(byReference.SVCPOID)).toBe('Cancelled');
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK)).toEqual([successAck(byReference), successAck(byReference)]);

    const numeric = 700_000 + Math.floor(Math.random() * 100_000);
    const byNumber = await imported(numeric, { Items: [line(sku, '1')] });
    const cancelled = await put({ ...ids(), ReferenceNo: String(numeric) });
    expect(cancelled.statusCode).toBe(200);
    // The answer gives the ReferenceNo as the order was imported: a number.
    expect(cancelled.json().Order).toEqual({ ...byNumber, Status: 'Success', Error: [] });
    expect(cancelled.body).toContain(`"ReferenceNo":${numeric}`);

    const otherPoNo = uniqueId('PO');
    const byPoNo = await imported(uniqueId('SO'), { PONo: otherPoNo, Items: [line(sku, '1')] });
    const byPo = await put({ ...ids(), PONo: otherPoNo });
    expect(byPo.statusCode).toBe(200);
    expect(byPo.json().Order).toEqual({ ...byPoNo, Status: 'Success', Error: [] });
    expect(await statusOf(byPoNo.SVCPOID)).toBe('Cancelled');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '0', '10'] });
  });

  it('a customer cancel of an Open order is 409 naming its status, with a failure ACK; the order and its stock stay', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const poNo = uniqueId('PO');
    const order = await imported(referenceNo, { PONo: poNo, Items: [line(sku, '3')] });
    await openOrder(order.SVCPOID);
    const message = `Order ${order.SVCPOID} is Open; only an Imported order can be cancelled by the customer`;

    const byAction = await cancelBy(referenceNo);
    expect(byAction.statusCode).toBe(409);
    expect(byAction.json()).toEqual(problems(message));
    const byPut = await put({ ...ids(), ReferenceNo: referenceNo });
    expect(byPut.statusCode).toBe(409);
    expect(byPut.json()).toEqual(problems(message));

    expect(await statusOf(order.SVCPOID)).toBe('Open');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '3', '7'] });
    const acks = await acksOf({ ReferenceNo: referenceNo });
    expect(acks.map((r) => r.ACK)).toEqual([successAck(order), failureAck(message), failureAck(message)]);
    // The failure ACKs carry the numbers the calls sent: the PUT named no PONo.
    expect(acks.map((r) => [r.ReferenceNo, r.PONo])).toEqual([
      [referenceNo, poNo],
      [referenceNo, null],
      [referenceNo, null],
    ]);
  });

  it('once shipping started, the customer can neither update nor cancel (409 naming the status)', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const order = await imported(referenceNo, { Items: [line(sku, '4')] });
    const shipped = await ctx().post(
      `${THREEPL_ORDER}/post-confirmation`,
      { ...facility(), SVCPOID: order.SVCPOID, ConfirmationNo: uniqueId('CN'), Items: [{ ItemNumber: sku, ShippedQty: '1', UOM: 'EA' }] },
      world.operator,
    );
    expect(shipped.statusCode, shipped.body).toBe(200);
    expect(await statusOf(order.SVCPOID)).toBe('Partial Shipped');

    const update = await importOrder(referenceNo, { Items: [line(sku, '2')] });
    expect(update.statusCode).toBe(409);
    expect(update.json()).toEqual(problems(`Order ${order.SVCPOID} is Partial Shipped; it can no longer be updated`));
    const cancel = await cancelBy(referenceNo);
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json()).toEqual(
      problems(`Order ${order.SVCPOID} is Partial Shipped; only an Imported order can be cancelled by the customer`),
    );
    expect(await linesOf(order.SVCPOID)).toEqual([[1, sku, '4', '3']]);
  });

  it('ActionCode Cancelled for an unknown ReferenceNo is 404 with a failure ACK', async () => {
    const referenceNo = uniqueId('NOSUCH');
    const response = await cancelBy(referenceNo);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: `Not found order with ReferenceNo ${referenceNo}` });
    expect(await acksOf({ ReferenceNo: referenceNo })).toEqual([
      {
        FacilityID: world.tenant.facilityIds[0],
        CustomerID: world.tenant.customerIds[0],
        ReferenceNo: referenceNo,
        PONo: null,
        ACK: failureAck(`Not found order with ReferenceNo ${referenceNo}`),
        CreatedWhen: now(),
      },
    ]);
    // A numeric one, too, keeps its type in the ACK.
    const numeric = 800_000 + Math.floor(Math.random() * 100_000);
    const byNumber = await cancelBy(numeric);
    expect(byNumber.statusCode).toBe(404);
    expect(byNumber.json()).toEqual({ error: `Not found order with ReferenceNo ${numeric}` });
    expect((await acksOf({ ReferenceNo: numeric })).map((r) => [r.ReferenceNo, r.ACK])).toEqual([
      [numeric, failureAck(`Not found order with ReferenceNo ${numeric}`)],
    ]);
  });

  it('after a cancel the same ReferenceNo imports a new order with a new SVCPOID', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const first = await imported(referenceNo, { Items: [line(sku, '6')] });
    expect((await cancelBy(referenceNo)).statusCode).toBe(200);
    const again = await imported(referenceNo, { Items: [line(sku, '7')] });
    expect(again.SVCPOID).toMatch(/^DN-\d+$/);
    expect(again.SVCPOID).not.toBe(first.SVCPOID);
    expect(again.Status).toBe('Success');
    expect(await ordersWith(referenceNo)).toEqual(
      expect.arrayContaining([
        [first.SVCPOID, 'Cancelled'],
        [again.SVCPOID, 'Imported'],
      ]),
    );
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '7', '3'] });
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK.SVCPOID)).toEqual([first.SVCPOID, first.SVCPOID, again.SVCPOID]);
  });

  it('ReferenceNo 123 and "123" are the same order, each echoed as it was sent', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const numeric = 500_000 + Math.floor(Math.random() * 100_000);
    const first = await imported(numeric, { Items: [line(sku, '2')] });
    expect(first.ReferenceNo).toBe(numeric);
    const update = await importOrder(String(numeric), { Items: [line(sku, '3')] });
    expect(update.statusCode).toBe(200);
    expect(update.json().Order).toEqual({ ...first, ReferenceNo: String(numeric) });
    expect(update.body).toContain(`"ReferenceNo":"${numeric}"`);
    expect(await ordersWith(numeric)).toEqual([[first.SVCPOID, 'Imported']]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '3', '7'] });
    const acks = await acksOf({ ReferenceNo: numeric });
    expect(acks.map((r) => [r.ReferenceNo, r.ACK.ReferenceNo, r.ACK.SVCPOID])).toEqual([
      [numeric, numeric, first.SVCPOID],
      [String(numeric), String(numeric), first.SVCPOID],
    ]);
    // A cancel naming it either way finds it too.
    const cancelled = await cancelBy(numeric);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().Order.SVCPOID).toBe(first.SVCPOID);
  });

  it('two imports of one new ReferenceNo at once make one order: the second updates it', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const answers = await Promise.all([1, 2, 3].map(() => importOrder(referenceNo, { Items: [line(sku, '3')] })));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const svcpoids = new Set(answers.map((answer) => answer.json().Order.SVCPOID));
    expect(svcpoids.size).toBe(1);
    expect(await ordersWith(referenceNo)).toEqual([[[...svcpoids][0], 'Imported']]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '3', '7'] });
    expect(await acksOf({ ReferenceNo: referenceNo })).toHaveLength(3);
  });

  it('an update naming another facility is 409 (naming no document there), with a failure ACK there; the order stays', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const order = await imported(referenceNo, { Items: [line(sku, '2')] });
    const message = `ReferenceNo ${referenceNo} is already used by an order in another facility`;
    const response = await importOrder(referenceNo, { Items: [line(sku, '5')] }, { FacilityID: world.tenant.facilityIds[1] });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual(problems(message));
    expect((await acksOf({ ReferenceNo: referenceNo }, 1)).map((r) => [r.FacilityID, r.ACK])).toEqual([
      [world.tenant.facilityIds[1], failureAck(message)],
    ]);
    expect(await linesOf(order.SVCPOID)).toEqual([[1, sku, '2', '2']]);
    expect(await statusOf(order.SVCPOID)).toBe('Imported');
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '2', '8'] });
  });

  it('PUT cancel: a PONo that two live orders share is 400 naming both; PONo with ReferenceNo picks one', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const poNo = uniqueId('PO');
    const first = await imported(uniqueId('SO'), { PONo: poNo, Items: [line(sku, '1')] });
    const second = await imported(uniqueId('SO'), { PONo: poNo, Items: [line(sku, '1')] });
    const [low, high] = [first.SVCPOID, second.SVCPOID].sort();
    const message = `PONo ${poNo} matches 2 live orders (${low}, ${high}); send the ReferenceNo`;
    const response = await put({ ...ids(), PONo: poNo });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(problems(message));
    expect(await statusOf(first.SVCPOID)).toBe('Imported');
    expect(await statusOf(second.SVCPOID)).toBe('Imported');
    expect((await acksOf({ PONo: poNo })).map((r) => r.ACK)).toEqual([successAck(first), successAck(second), failureAck(message)]);

    const one = await put({ ...ids(), PONo: poNo, ReferenceNo: second.ReferenceNo });
    expect(one.statusCode).toBe(200);
    expect(one.json().Order.SVCPOID).toBe(second.SVCPOID);
    expect(await statusOf(first.SVCPOID)).toBe('Imported');
    // Now one live order has the PONo: the PONo alone is enough.
    const last = await put({ ...ids(), PONo: poNo });
    expect(last.statusCode).toBe(200);
    expect(last.json().Order.SVCPOID).toBe(first.SVCPOID);
  });

  it('PUT cancel: neither number is 400, nothing matching is 404, each with a failure ACK', async () => {
    const acksBefore = await count('acks');
    const neither = await put({ ...ids(), CancelNote: 'which one?' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json()).toEqual(problems('PONo or ReferenceNo is required'));
    const blank = await put({ ...ids(), PONo: '', ReferenceNo: null });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toEqual(problems('PONo or ReferenceNo is required'));
    // Each is acknowledged, with no numbers: the newest ACKs of the customer are these two failures.
    expect(await count('acks')).toBe(acksBefore + 2);
    const latest = (await acksOf({})).slice(-2);
    expect(latest.map((r) => [r.ReferenceNo, r.PONo, r.ACK])).toEqual([
      [null, null, failureAck('PONo or ReferenceNo is required')],
      [null, null, failureAck('PONo or ReferenceNo is required')],
    ]);

    const poNo = uniqueId('NOPO');
    const missing = await put({ ...ids(), PONo: poNo });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: `Not found order with PONo ${poNo}` });
    expect((await acksOf({ PONo: poNo })).map((r) => r.ACK)).toEqual([failureAck(`Not found order with PONo ${poNo}`)]);
    const referenceNo = uniqueId('NOREF');
    const missingReference = await put({ ...ids(), ReferenceNo: referenceNo });
    expect(missingReference.statusCode).toBe(404);
    expect(missingReference.json()).toEqual({ error: `Not found order with ReferenceNo ${referenceNo}` });
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK)).toEqual([
      failureAck(`Not found order with ReferenceNo ${referenceNo}`),
    ]);
  });

  it('ShipNoLater and ShipNotLater: either spelling is accepted; the two disagreeing is 400 with a failure ACK', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    for (const dates of [
      { ShipNoLater: '20260310170000' },
      { ShipNotLater: '3/10/2026 5:00:00 PM' },
      { ShipNoLater: '2026-03-10T17:00:00', ShipNotLater: '2026-03-10T17:00:00' },
    ]) {
      const order = await imported(uniqueId('SO'), { ...dates, Items: [line(sku, '1')] });
      expect((await getOrder(order.SVCPOID)).ShipNoLater, JSON.stringify(dates)).toBe('2026-03-10T17:00:00.000');
    }
    const referenceNo = uniqueId('SO');
    const response = await importOrder(referenceNo, {
      ShipNoLater: '20260310170000',
      ShipNotLater: '20260311170000',
      Items: [line(sku, '1')],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(problems('POContent.ShipNoLater and ShipNotLater disagree'));
    expect((await acksOf({ ReferenceNo: referenceNo })).map((r) => r.ACK)).toEqual([
      failureAck('POContent.ShipNoLater and ShipNotLater disagree'),
    ]);
    expect(await ordersWith(referenceNo)).toEqual([]);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '3', '7'] });
  });

  it('ShipNoLater and ShipNotLater naming the same time in two accepted forms do not disagree', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const response = await importOrder(uniqueId('SO'), {
      ShipNoLater: '20260310170000',
      ShipNotLater: '3/10/2026 5:00:00 PM',
      Items: [line(sku, '1')],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((await getOrder(response.json().Order.SVCPOID)).ShipNoLater).toBe('2026-03-10T17:00:00.000');
  });

  it('a line naming a goods type or a title takes only that stock; the root TitleID is the default of lines naming none', async () => {
    const sku = uniqueId('SKU');
    await stock([
      { ItemNumber: sku, UOM: 'EA', Qty: '5', GoodsType: 'RETAIL', ExpirationDate: '2027-06-01' },
      { ItemNumber: sku, UOM: 'EA', Qty: '10', ExpirationDate: '2026-06-01' },
      { ItemNumber: sku, UOM: 'EA', Qty: '3', TitleID: 'T-OWNER', ExpirationDate: '2028-01-01' },
    ]);
    const goods = await importOrder(uniqueId('SO'), { Items: [line(sku, '6', { GoodsType: 'RETAIL' })] });
    expect(goods.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 6, allocated 5, short 1` });
    const titled = await importOrder(uniqueId('SO'), { Items: [line(sku, '4')] }, { TitleID: 'T-OWNER' });
    expect(titled.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 4, allocated 3, short 1` });
    const rows = await inventoryOf(sku);
    expect(rows.map((r) => [r.GoodsType, r.TitleID, r.OnHand, r.Allocated, r.Available])).toEqual([
      [null, null, '10', '0', '10'],
      [null, 'T-OWNER', '3', '3', '0'],
      ['RETAIL', null, '5', '5', '0'],
    ]);
    // A line's own TitleID wins over the root's.
    const own = await importOrder(uniqueId('SO'), { Items: [line(sku, '2', { TitleID: 'T-NONE' })] }, { TitleID: 'T-OWNER' });
    expect(own.json().Order).toMatchObject({ Status: 'Warning', Error: `${sku}: ordered 2, allocated 0, short 2` });
  });

  it('keeps unknown keys with the order, and refuses a key named like a field Wharf sets (names Wharf owns)', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const refused = await importOrder(
      referenceNo,
      { SVCPOID: 'DN-999999999', Items: [line(sku, '1', { Status: 'Shipped' })] },
      { SVCPOID: 'DN-9' },
    );
    const messages = ['SVCPOID', 'POContent.SVCPOID', 'POContent.Items[0].Status'].map(
      (name) => `${name} is not allowed here: Wharf's own answers use this name`,
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual(problems(...messages));
    expect((await acksOf({ ReferenceNo: referenceNo })).map((record) => record.ACK)).toEqual([
      { code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') },
    ]);

    const response = await importOrder(
      referenceNo,
      { Kitting: 'Y', ActionCode: 'Imported', Items: [line(sku, '1', { Source: 'shop' })] },
      { Source: 'EDI' },
    );
    expect(response.statusCode, response.body).toBe(200);
    const order = response.json().Order as OrderAnswer;
    const stored = await getOrder(order.SVCPOID);
    expect(stored).toMatchObject({ SVCPOID: order.SVCPOID, Status: 'Imported', Kitting: 'Y' });
    expect(stored.Items[0]).toMatchObject({ ItemID: sku, Source: 'shop', AllocatedQty: '1' });
  });

  // ---- validation ----------------------------------------------------------------------------

  it('refuses an invalid import with every problem at once, saves and allocates nothing, and writes one failure ACK', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const poNo = uniqueId('PO');
    const ordersBefore = await count('orders');
    const response = await ctx().post(
      ORDER_IMPORT,
      {
        ...ids(),
        POContent: {
          PONo: poNo,
          ShipNotBefore: '2026-13-45',
          ScheduledDate: '20260305140709',
          AppointmentTime: '3/5/2026 2:07:09 PM',
          DeliveryRequestDate: '2026-03-05T14:07:09',
          ShipNoLater: 'next tuesday',
          Address: { ...SHIP_TO, ShipToName: '', ShipToCity: undefined, ShipToState: 'S'.repeat(51) },
          ShippingInfo: { FreightTerm: 'TP', ShipMethod: 'X' },
          Items: [
            line(sku, '0', { UOM: 'PK' }),
            line(sku, '-1'),
            line(sku, '1e3'),
            line('I'.repeat(31), 1e21, { LotNo: 'L'.repeat(51) }),
            line(sku, '1.23456'),
          ],
        },
      },
      world.customer,
    );
    expect(response.statusCode).toBe(400);
    const quantity = 'must be a positive decimal with at most 11 integer and 4 fractional digits';
    const date = 'must be a date-time such as 20240305140709, 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09';
    const messages = [
      'POContent.ReferenceNo is required',
      `POContent.ShipNotBefore ${date}`,
      `POContent.ShipNoLater ${date}`,
      'POContent.Address.ShipToCity is required',
      'POContent.Address.ShipToName must not be empty',
      'POContent.Address.ShipToState must be at most 50 characters',
      'POContent.ShippingInfo.ShippingAccountNo is required when FreightTerm is TP',
      'POContent.ShippingInfo.ShipMethod must be one of: M, L, U, W, NA',
      `POContent.Items[0].OrderedQty ${quantity}`,
      'POContent.Items[0].UOM must be one of: EA, CS',
      `POContent.Items[1].OrderedQty ${quantity}`,
      `POContent.Items[2].OrderedQty ${quantity}`,
      'POContent.Items[3].ItemID must be at most 30 characters',
      'POContent.Items[3].LotNo must be at most 50 characters',
      `POContent.Items[3].OrderedQty ${quantity}`,
      `POContent.Items[4].OrderedQty ${quantity}`,
      'POContent.Items[3].OrderedQty must be between -9007199254740991 and 9007199254740991 (2^53 - 1)',
    ];
    expect(response.json()).toEqual(problems(...messages));
    // The ACK carries the PONo, which passed its checks, and no ReferenceNo (there was none).
    expect(await acksOf({ PONo: poNo })).toEqual([
      {
        FacilityID: world.tenant.facilityIds[0],
        CustomerID: world.tenant.customerIds[0],
        ReferenceNo: null,
        PONo: poNo,
        ACK: failureAck(...messages),
        CreatedWhen: now(),
      },
    ]);
    expect(await count('orders')).toBe(ordersBefore);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '0', '10'] });
  });

  it('checks each field: ReferenceNo, lengths, FreightTerm, TP with its account, Items, Status and ActionCode', async () => {
    const sku = uniqueId('SKU');
    const cases: [string, Json, string[]][] = [
      [
        'a ReferenceNo of 51 characters',
        { ReferenceNo: 'R'.repeat(51) },
        ['POContent.ReferenceNo must be a text of 1 to 50 characters or a whole number'],
      ],
      ['an empty ReferenceNo', { ReferenceNo: '' }, ['POContent.ReferenceNo must be a text of 1 to 50 characters or a whole number']],
      ['a negative ReferenceNo', { ReferenceNo: -3 }, ['POContent.ReferenceNo must be a text of 1 to 50 characters or a whole number']],
      ['a fractional ReferenceNo', { ReferenceNo: 1.5 }, ['POContent.ReferenceNo must be a text of 1 to 50 characters or a whole number']],
      ['a PONo of 51 characters', { PONo: 'P'.repeat(51) }, ['POContent.PONo must be at most 50 characters']],
      [
        'an unknown FreightTerm',
        { ShippingInfo: { FreightTerm: 'XX' } },
        ['POContent.ShippingInfo.FreightTerm must be one of: CC, PP, TP'],
      ],
      [
        'FreightTerm TP with an empty account',
        { ShippingInfo: { FreightTerm: 'TP', ShippingAccountNo: '' } },
        ['POContent.ShippingInfo.ShippingAccountNo is required when FreightTerm is TP'],
      ],
      [
        'FreightTerm TP with a null account',
        { ShippingInfo: { FreightTerm: 'TP', ShippingAccountNo: null } },
        ['POContent.ShippingInfo.ShippingAccountNo is required when FreightTerm is TP'],
      ],
      ['no Items or Address', { Items: undefined, Address: undefined }, ['POContent.Items is required', 'POContent.Address is required']],
      ['no lines', { Items: [] }, ['POContent.Items must have at least 1 item']],
      [
        'a zero quantity as a number',
        { Items: [line(sku, 0)] },
        ['POContent.Items[0].OrderedQty must be a positive decimal with at most 11 integer and 4 fractional digits'],
      ],
      [
        'an exponent',
        { Items: [line(sku, '1E2')] },
        ['POContent.Items[0].OrderedQty must be a positive decimal with at most 11 integer and 4 fractional digits'],
      ],
      [
        '12 integer digits',
        { Items: [line(sku, '123456789012')] },
        ['POContent.Items[0].OrderedQty must be a positive decimal with at most 11 integer and 4 fractional digits'],
      ],
      ['a Status other than Imported', { Status: 'Open' }, ['POContent.Status must be "Imported"']],
      ['an unknown ActionCode', { ActionCode: 'Shipped' }, ['POContent.ActionCode must be one of: Imported, Cancelled']],
      [
        'a dated string for a date',
        { ScheduledDate: '2026/03/05' },
        ['POContent.ScheduledDate must be a date-time such as 20240305140709, 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09'],
      ],
      [
        'a ShipToZipCode of 21 characters',
        { Address: { ...SHIP_TO, ShipToZipCode: '9'.repeat(21) } },
        ['POContent.Address.ShipToZipCode must be at most 20 characters'],
      ],
      [
        'a LineNo given twice',
        { Items: [line(sku, '1', { LineNo: 7 }), line(sku, '1', { LineNo: 7 })] },
        ['POContent.Items[1].LineNo 7 repeats Items[0]'],
      ],
    ];
    for (const [what, content, messages] of cases) {
      const referenceNo = (content.ReferenceNo as unknown) ?? uniqueId('SO');
      const response = await importOrder(referenceNo, { Items: [line(sku, '1')], ...content });
      expect(response.statusCode, what).toBe(400);
      expect(response.json(), what).toEqual(problems(...messages));
    }
    // Accepted: the three date forms, a number quantity, a whole-number ReferenceNo 0, TP with its account.
    const accepted = await importOrder(0, {
      ScheduledDate: '20260305140709',
      AppointmentTime: '3/5/2026 2:07:09 PM',
      DeliveryRequestDate: '2026-03-05T14:07:09',
      ShippingInfo: { FreightTerm: 'TP', ShippingAccountNo: 'ACCT-1', ShipMethod: 'NA' },
      Items: [line(sku, 1.5)],
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.body).toContain('"ReferenceNo":0');
  });

  it('a rejected body’s failure ACK carries the numbers that passed their own checks, and only those', async () => {
    const okPoNo = uniqueId('PO');
    const badReference = await importOrder('R'.repeat(51), { PONo: okPoNo, Items: [line('X', '1', { UOM: 'XX' })] });
    expect(badReference.statusCode).toBe(400);
    const messages = [
      'POContent.ReferenceNo must be a text of 1 to 50 characters or a whole number',
      'POContent.Items[0].UOM must be one of: EA, CS',
    ];
    expect(badReference.json()).toEqual(problems(...messages));
    expect((await acksOf({ PONo: okPoNo })).map((r) => [r.ReferenceNo, r.PONo, r.ACK])).toEqual([[null, okPoNo, failureAck(...messages)]]);

    const okReference = 900_000 + Math.floor(Math.random() * 100_000);
    const badPoNo = await importOrder(okReference, { PONo: 'P'.repeat(51) });
    expect(badPoNo.statusCode).toBe(400);
    expect((await acksOf({ ReferenceNo: okReference })).map((r) => [r.ReferenceNo, r.PONo, r.ACK])).toEqual([
      [okReference, null, failureAck('POContent.PONo must be at most 50 characters')],
    ]);
    expect(await ordersWith(okReference)).toEqual([]);

    // A PUT cancel with a bad number is acknowledged the same way.
    const cancelReference = uniqueId('SO');
    const badCancel = await put({ ...ids(), ReferenceNo: cancelReference, PONo: 'P'.repeat(51) });
    expect(badCancel.statusCode).toBe(400);
    expect(badCancel.json()).toEqual(problems('PONo must be at most 50 characters'));
    expect((await acksOf({ ReferenceNo: cancelReference })).map((r) => [r.ReferenceNo, r.PONo, r.ACK])).toEqual([
      [cancelReference, null, failureAck('PONo must be at most 50 characters')],
    ]);
  });

  it('a body that is not JSON, not sent as JSON, or whose identifiers are missing, writes no ACK', async () => {
    const acksBefore = await count('acks');
    const malformed = await ctx().post(ORDER_IMPORT, `{"CompanyID":"${world.tenant.companyId}","POContent":`, world.customer);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual(problems('Malformed JSON body'));
    const noFacility = await ctx().post(
      ORDER_IMPORT,
      { CompanyID: world.tenant.companyId, CustomerID: world.tenant.customerIds[0], POContent: { ReferenceNo: uniqueId('SO') } },
      world.customer,
    );
    expect(noFacility.statusCode).toBe(400);
    expect(noFacility.json()).toEqual(problems('FacilityID is required', 'POContent.Items is required', 'POContent.Address is required'));
    const unauthenticated = await ctx().post(ORDER_IMPORT, body(uniqueId('SO')));
    expect(unauthenticated.statusCode).toBe(401);
    const text = await ctx().app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${ORDER_IMPORT}`,
      headers: { 'content-type': 'text/plain', authorization: `APIKey ${world.customer}` },
      payload: JSON.stringify(body(uniqueId('SO'))),
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual(problems('Content-Type must be application/json'));
    expect(await count('acks')).toBe(acksBefore);
  });

  // ---- Idempotency-Key -----------------------------------------------------------------------

  it('replays an Idempotency-Key: same body, same answer, no second ACK or allocation; another body is 422', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '10' }]);
    const referenceNo = uniqueId('SO');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const first = await importOrder(referenceNo, { Items: [line(sku, '4')] }, {}, world.customer, headers);
    expect(first.statusCode).toBe(200);
    ctx().clock.advance(1000);
    const replay = await importOrder(referenceNo, { Items: [line(sku, '4')] }, {}, world.customer, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.body).toBe(first.body);
    expect(await acksOf({ ReferenceNo: referenceNo })).toHaveLength(1);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '4', '6'] });

    const other = await importOrder(referenceNo, { Items: [line(sku, '5')] }, {}, world.customer, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual(problems('Idempotency-Key was already used with a different request'));
    expect(await acksOf({ ReferenceNo: referenceNo })).toHaveLength(1);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '4', '6'] });

    // A refusal replays too: one failure ACK for two sends.
    const badHeaders = { 'idempotency-key': uniqueId('IK') };
    const badReference = uniqueId('SO');
    const refused = await importOrder(badReference, { Items: [line(sku, '0')] }, {}, world.customer, badHeaders);
    const refusedAgain = await importOrder(badReference, { Items: [line(sku, '0')] }, {}, world.customer, badHeaders);
    expect(refused.statusCode).toBe(400);
    expect(refusedAgain.statusCode).toBe(400);
    expect(refusedAgain.body).toBe(refused.body);
    expect(await acksOf({ ReferenceNo: badReference })).toHaveLength(1);

    // And the PUT cancel: cancelled once, replayed once.
    const cancelHeaders = { 'idempotency-key': uniqueId('IK') };
    const cancelled = await put({ ...ids(), ReferenceNo: referenceNo }, world.customer, cancelHeaders);
    const cancelReplay = await put({ ...ids(), ReferenceNo: referenceNo }, world.customer, cancelHeaders);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelReplay.statusCode).toBe(200);
    expect(cancelReplay.body).toBe(cancelled.body);
    expect(await acksOf({ ReferenceNo: referenceNo })).toHaveLength(2);
    const otherCancel = await put({ ...ids(), ReferenceNo: referenceNo, CancelNote: 'changed' }, world.customer, cancelHeaders);
    expect(otherCancel.statusCode).toBe(422);
    expect(await acksOf({ ReferenceNo: referenceNo })).toHaveLength(2);
    expect(await balancesOf(sku)).toEqual({ '/Available': ['10', '0', '10'] });
  });

  // ---- the DN ACK search ---------------------------------------------------------------------

  it('searches DN ACKs in pages, oldest first, in the facility time zone; nothing matching is 404', async () => {
    const sku = uniqueId('SKU');
    await stock([{ ItemNumber: sku, UOM: 'EA', Qty: '100' }]);
    const poNo = uniqueId('PO');
    // 2026-03-06T07:30:00Z is 23:30 on the 5th in Los Angeles.
    ctx().clock.time = Date.parse('2026-03-06T07:30:00.000Z');
    const svcpoids: string[] = [];
    for (let i = 0; i < 5; i++) svcpoids.push((await imported(uniqueId('SO'), { PONo: poNo, Items: [line(sku, '1')] })).SVCPOID);
    ctx().clock.time = Date.parse('2026-03-06T09:00:00.000Z');
    await imported(uniqueId('SO'), { PONo: poNo, Items: [line(sku, '1')] });

    const day = { PONo: poNo, CreatedWhenFrom: '2026-03-05T00:00:00.000', CreatedWhenTo: '2026-03-05T23:59:59.999' };
    const page1 = await ctx().post(ORDER_ACK_SEARCH, { ...ids(), ...day, Paging: { PageNo: 1, PageSize: 3 } }, world.customer);
    const page2 = await ctx().post(ORDER_ACK_SEARCH, { ...ids(), ...day, Paging: { PagingNo: 2, PageSize: 3 } }, world.customer);
    expect(page1.statusCode).toBe(200);
    expect(page1.headers['x-total-count']).toBe('5');
    expect([...page1.json(), ...page2.json()].map((r: AckRecord) => r.ACK.SVCPOID)).toEqual(svcpoids);
    expect(page1.json()[0].CreatedWhen).toBe('2026-03-05T23:30:00.000');
    const past = await ctx().post(ORDER_ACK_SEARCH, { ...ids(), ...day, Paging: { PageNo: 3, PageSize: 3 } }, world.customer);
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);

    const none = await ctx().post(ORDER_ACK_SEARCH, { ...ids(), PONo: uniqueId('NONE') }, world.customer);
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ error: 'Not found order' });
    // The other facility has none of these.
    const elsewhere = await ctx().post(ORDER_ACK_SEARCH, { ...ids(1), PONo: poNo }, world.customer);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toEqual({ error: 'Not found order' });
  });
});
