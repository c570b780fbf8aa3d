import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/events.schemas.js';
import { sequenceEvents } from '../../src/modules/events/events.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createWorld, expectOk, problems, stock, uniqueId, type World } from '../helpers/factories.js';
import { SHIP_TO } from '../helpers/orders.js';
import * as paths from '../helpers/paths.js';

/**
 * Events (docs/webhooks.md): every change tells its events, exactly, and the events search reads them back
 * by Sequence — the pull fallback of webhooks. Each test reads the raw answers of the search: what
 * a customer's system would see after each of its calls and the warehouse's.
 */

type Json = Record<string, unknown>;

/** When the test clock says every change happened. */
const NOW = '2026-03-05T14:07:09.123Z';
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

/** An event as the search shows it; its ids and Sequence are checked apart (see `newEvents`). */
const event = (Type: string, Data: Json, CreatedWhen = NOW) => ({
  EventID: expect.stringMatching(EVENT_ID),
  Type,
  Sequence: expect.any(Number),
  CreatedWhen,
  Data: { ...Data, Sequence: expect.any(Number) },
});

/** An inventory row as the inventory search and inventory.changed show it. */
const balance = (ItemNumber: string, OnHand: string, Allocated = '0', more: Json = {}) => ({
  ItemNumber,
  LotNo: null,
  GoodsType: null,
  TitleID: null,
  InventoryStatus: 'Available',
  ExpirationDate: null,
  UOM: 'EA',
  OnHand,
  Allocated,
  Available: String(Number(OnHand) - Number(Allocated)),
  ...more,
});

describeEachDialect('events', (dialect) => {
  const ctx = useTestApp(dialect);
  let w: World;
  /** The last Sequence this test has read for the first customer. */
  let seen = 0;

  beforeEach(async () => {
    w = await createWorld(ctx().database.db, ctx().clock);
    seen = 0;
  });

  const ids = (customer = 0, facility = 0) => ({
    CompanyID: w.tenant.companyId,
    CustomerID: w.tenant.customerIds[customer]!,
    FacilityID: w.tenant.facilityIds[facility]!,
  });
  const at = (facility = 0) => ({ CompanyID: w.tenant.companyId, FacilityID: w.tenant.facilityIds[facility]! });
  const ok = async (pending: Promise<{ statusCode: number; body: string; json(): any }>) => (await expectOk(pending as never)).json();

  const search = (body: Json = {}, key = w.customer) =>
    ctx().post(paths.EVENT_SEARCH, { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], ...body }, key);

  /**
   * The first customer's events since the last call: exactly what the calls in between made. Each
   * has its own EventID, Sequences grow, and the data's Sequence is the event's.
   */
  const newEvents = async () => {
    const answer = await ok(search({ AfterSequence: seen, Paging: { PageSize: 1000 } }));
    const data = answer.results.data as { EventID: string; Sequence: number; Data: { Sequence: number } }[];
    let last = seen;
    for (const found of data) {
      expect(found.Sequence).toBeGreaterThan(last);
      expect(found.Data.Sequence).toBe(found.Sequence);
      last = found.Sequence;
    }
    expect(new Set(data.map((found) => found.EventID)).size).toBe(data.length);
    seen = last;
    return data;
  };

  const receiptOf = (answer: { Receipt: Json }, poNo: string, referenceNo: string | null, Status: string, more: Json = {}) => ({
    ...ids(),
    SVCPOID: answer.Receipt.SVCPOID,
    PONo: poNo,
    ReferenceNo: referenceNo,
    Status,
    ...more,
  });

  it('tells a receipt’s life: imported, updated, opened, received, closed, each with its stock', async () => {
    const poNo = uniqueId('PO');
    const body = (qty: string) => ({
      ...ids(),
      ASNContent: {
        Status: 'Imported',
        CarrierName: 'UPS',
        PONo: poNo,
        ReferenceNo: 'REF-1',
        Items: [{ ItemNumber: 'SKU-A', ExpectedQty: qty, UOM: 'EA' }],
      },
    });
    const imported = await ok(ctx().post(paths.RECEIPT_IMPORT, body('10'), w.customer));
    const receipt = (Status: string, more: Json = {}) => receiptOf(imported, poNo, 'REF-1', Status, more);
    expect(await newEvents()).toEqual([event('receipt.imported', receipt('Imported'))]);

    await ok(ctx().post(paths.RECEIPT_IMPORT, body('12'), w.customer));
    expect(await newEvents()).toEqual([event('receipt.updated', receipt('Imported'))]);

    const svcpoid = imported.Receipt.SVCPOID;
    await ok(ctx().post(`${paths.THREEPL_RECEIPT}/open`, { ...at(), SVCPOID: svcpoid }, w.operator));
    expect(await newEvents()).toEqual([event('receipt.opened', receipt('Open'))]);

    const confirm = (confirmationNo: string, qty: string, close: boolean) => ({
      ...at(),
      SVCPOID: svcpoid,
      ConfirmationNo: confirmationNo,
      Items: [{ ItemNumber: 'SKU-A', ReceivedQuantity: qty, UOM: 'EA' }],
      ...(close ? { Close: true } : {}),
    });
    await ok(ctx().post(paths.RECEIPT_CONFIRM, confirm('CN-1', '4', false), w.operator));
    expect(await newEvents()).toEqual([
      event('receipt.received', receipt('In Progress', { ConfirmationNo: 'CN-1' })),
      event('inventory.changed', { ...ids(), Balances: [balance('SKU-A', '4')] }),
    ]);

    await ok(ctx().post(paths.RECEIPT_CONFIRM, confirm('CN-2', '8', true), w.operator));
    expect(await newEvents()).toEqual([
      event('receipt.received', receipt('Closed', { ConfirmationNo: 'CN-2' })),
      event('receipt.closed', receipt('Closed')),
      event('inventory.changed', { ...ids(), Balances: [balance('SKU-A', '12')] }),
    ]);

    // A confirmation applied again replays its answer and tells nothing new.
    await ok(ctx().post(paths.RECEIPT_CONFIRM, confirm('CN-2', '8', true), w.operator));
    expect(await newEvents()).toEqual([]);
  });

  it('tells a receipt cancelled by the customer, by the warehouse, force-closed, and opened by the 3PL list', async () => {
    const importOne = async () => {
      const poNo = uniqueId('PO');
      const content = { PONo: poNo, Items: [{ ItemNumber: 'SKU-A', ExpectedQty: '1', UOM: 'EA' }] };
      return {
        poNo,
        answer: await ok(
          ctx().post(paths.RECEIPT_IMPORT, { ...ids(), ASNContent: { Status: 'Imported', CarrierName: 'UPS', ...content } }, w.customer),
        ),
      };
    };
    const [a, b, c, d] = [await importOne(), await importOne(), await importOne(), await importOne()];
    await newEvents();

    await ok(ctx().put(paths.RECEIPT_CANCEL, { ...ids(), PONo: a.poNo }, w.customer));
    await ok(ctx().post(`${paths.THREEPL_RECEIPT}/cancel`, { ...at(), SVCPOID: b.answer.Receipt.SVCPOID }, w.operator));
    await ok(ctx().post(`${paths.THREEPL_RECEIPT}/force-close`, { ...at(), SVCPOID: c.answer.Receipt.SVCPOID }, w.operator));
    const listed = await ok(ctx().post(`${paths.THREEPL_RECEIPT}/list`, { ...at(), Status: 'Imported', MarkOpen: true }, w.operator));
    expect(listed.results.data.map((r: Json) => r.SVCPOID)).toEqual([d.answer.Receipt.SVCPOID]);
    expect(await newEvents()).toEqual([
      event('receipt.cancelled', receiptOf(a.answer, a.poNo, null, 'Cancelled')),
      event('receipt.cancelled', receiptOf(b.answer, b.poNo, null, 'Cancelled')),
      event('receipt.closed', receiptOf(c.answer, c.poNo, null, 'Force Closed')),
      event('receipt.opened', receiptOf(d.answer, d.poNo, null, 'Open')),
    ]);
  });

  it('tells an order’s life with what it allocates, ships and gives back; a ReferenceNo keeps its JSON type', async () => {
    const sku = uniqueId('SKU');
    await stock(ctx(), { tenant: w.tenant, items: [{ ItemNumber: sku, Qty: '10' }] });
    const body = (qty: string) => ({
      ...ids(),
      POContent: { ReferenceNo: 7001, PONo: 'PO-7', Address: SHIP_TO, Items: [{ ItemID: sku, OrderedQty: qty, UOM: 'EA' }] },
    });
    const imported = await ok(ctx().post(paths.ORDER_IMPORT, body('6'), w.customer));
    const svcpoid = imported.Order.SVCPOID;
    const order = (Status: string, more: Json = {}) => ({ ...ids(), SVCPOID: svcpoid, PONo: 'PO-7', ReferenceNo: 7001, Status, ...more });
    expect(await newEvents()).toEqual([
      event('order.imported', order('Imported')),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '10', '6')] }),
    ]);

    // The update gives back the old allocation and takes the new one: the balance is told once, as it ends.
    await ok(ctx().post(paths.ORDER_IMPORT, body('8'), w.customer));
    expect(await newEvents()).toEqual([
      event('order.updated', order('Imported')),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '10', '8')] }),
    ]);

    await ok(ctx().post(`${paths.THREEPL_ORDER}/open`, { ...at(), SVCPOID: svcpoid }, w.operator));
    expect(await newEvents()).toEqual([event('order.opened', order('Open'))]);

    const ship = {
      ...at(),
      SVCPOID: svcpoid,
      ConfirmationNo: 'SHIP-1',
      Close: true,
      Items: [{ ItemNumber: sku, ShippedQty: '5', UOM: 'EA' }],
    };
    await ok(ctx().post(paths.ORDER_SHIP, ship, w.operator));
    expect(await newEvents()).toEqual([
      event('order.shipped', order('Short Shipped', { ConfirmationNo: 'SHIP-1' })),
      event('order.closed', order('Short Shipped')),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '5')] }),
    ]);
  });

  it('tells cancelled orders with the stock they give back, and an order that allocates nothing without stock events', async () => {
    const sku = uniqueId('SKU');
    await stock(ctx(), { tenant: w.tenant, items: [{ ItemNumber: sku, Qty: '10' }] });
    const importOrder = async (qty: string, item = sku) => {
      const referenceNo = uniqueId('SO');
      const content = { ReferenceNo: referenceNo, Address: SHIP_TO, Items: [{ ItemID: item, OrderedQty: qty, UOM: 'EA' }] };
      const answer = await ok(ctx().post(paths.ORDER_IMPORT, { ...ids(), POContent: content }, w.customer));
      return { referenceNo, svcpoid: answer.Order.SVCPOID as string };
    };
    const order = (o: { referenceNo: string; svcpoid: string }, Status: string) => ({
      ...ids(),
      SVCPOID: o.svcpoid,
      PONo: null,
      ReferenceNo: o.referenceNo,
      Status,
    });
    const [a, b] = [await importOrder('3'), await importOrder('4')];
    const short = await importOrder('2', uniqueId('NOSTOCK'));
    expect((await newEvents()).slice(-1)).toEqual([event('order.imported', order(short, 'Imported'))]);

    await ok(ctx().put(paths.ORDER_CANCEL, { ...ids(), ReferenceNo: a.referenceNo }, w.customer));
    await ok(ctx().post(`${paths.THREEPL_ORDER}/cancel`, { ...at(), SVCPOID: b.svcpoid }, w.operator));
    expect(await newEvents()).toEqual([
      event('order.cancelled', order(a, 'Cancelled')),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '10', '4')] }),
      event('order.cancelled', order(b, 'Cancelled')),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '10', '0')] }),
    ]);
  });

  it('tells a backorder filled by a receipt as the balance ends: received, then allocated to the waiting order', async () => {
    const sku = uniqueId('SKU');
    const content = { ReferenceNo: uniqueId('SO'), Address: SHIP_TO, Items: [{ ItemID: sku, OrderedQty: '6', UOM: 'EA' }] };
    await ok(ctx().post(paths.ORDER_IMPORT, { ...ids(), POContent: content }, w.customer));
    const poNo = uniqueId('PO');
    const receipt = await ok(
      ctx().post(
        paths.RECEIPT_IMPORT,
        {
          ...ids(),
          ASNContent: { Status: 'Imported', CarrierName: 'UPS', PONo: poNo, Items: [{ ItemNumber: sku, ExpectedQty: '10', UOM: 'EA' }] },
        },
        w.customer,
      ),
    );
    await newEvents();
    const confirm = {
      ...at(),
      SVCPOID: receipt.Receipt.SVCPOID,
      ConfirmationNo: 'CN-1',
      Items: [{ ItemNumber: sku, ReceivedQuantity: '10', UOM: 'EA' }],
    };
    await ok(ctx().post(paths.RECEIPT_CONFIRM, confirm, w.operator));
    expect(await newEvents()).toEqual([
      event('receipt.received', receiptOf(receipt, poNo, null, 'In Progress', { ConfirmationNo: 'CN-1' })),
      event('inventory.changed', { ...ids(), Balances: [balance(sku, '10', '6')] }),
    ]);
  });

  it('tells adjustments and property moves with every balance they changed, in key order', async () => {
    const [skuA, skuB] = ['ADJ-A', 'ADJ-B'];
    const adjust = {
      ...ids(),
      AdjustmentNo: 'ADJ-1',
      ReasonCode: 'CYCLE',
      Items: [
        { ItemNumber: skuB, UOM: 'EA', Qty: '5' },
        { ItemNumber: skuA, UOM: 'EA', Qty: '7', LotNo: 'L1' },
      ],
    };
    await ok(ctx().post(paths.ADJUST_QTY, adjust, w.operator));
    const adjusted = (AdjustmentNo: string, AdjustmentType: string, ReasonCode: string | null, Lines: number) =>
      event('inventory.adjusted', { ...ids(), AdjustmentNo, AdjustmentType, ReasonCode, Status: 'Warning', Lines });
    expect(await newEvents()).toEqual([
      adjusted('ADJ-1', 'Quantity', 'CYCLE', 2),
      event('inventory.changed', { ...ids(), Balances: [balance(skuA, '7', '0', { LotNo: 'L1' }), balance(skuB, '5')] }),
    ]);

    const move = {
      ...ids(),
      AdjustmentNo: 'MOVE-1',
      Items: [{ ItemNumber: skuB, UOM: 'EA', Qty: '2', From: {}, To: { InventoryStatus: 'Hold' } }],
    };
    await ok(ctx().post(paths.ADJUST_PROPERTY, move, w.operator));
    expect(await newEvents()).toEqual([
      adjusted('MOVE-1', 'Property', null, 1),
      event('inventory.changed', {
        ...ids(),
        Balances: [balance(skuB, '3'), { ...balance(skuB, '2', '0', { InventoryStatus: 'Hold' }), Available: '0' }],
      }),
    ]);
  });

  it('splits the balances of one change into events of at most 100 balances and 20 KB', async () => {
    // 250 balances with every key at its longest: 100 would take about 30 KB, so the split is by size.
    const long = (prefix: string, length: number) => prefix.padEnd(length, 'X');
    const items = Array.from({ length: 250 }, (_, index) => ({
      ItemNumber: long(`I${index}-`, 30),
      LotNo: long('LOT', 50),
      GoodsType: long('GT', 10),
      TitleID: long('T', 50),
      ExpirationDate: '2027-01-31',
      UOM: 'EA',
      Qty: '99999999999.9999',
    }));
    await ok(ctx().post(paths.ADJUST_QTY, { ...ids(), AdjustmentNo: 'BIG', Items: items }, w.operator));
    const told = (await newEvents()).slice(1) as unknown as { Type: string; Data: { Balances: { ItemNumber: string }[] } }[];
    expect(told.every((one) => one.Type === 'inventory.changed')).toBe(true);
    const sizes = told.map((one) => Buffer.byteLength(JSON.stringify({ type: one.Type, timestamp: NOW, data: one.Data })));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(20 * 1024);
    expect(told.every((one) => one.Data.Balances.length <= 100)).toBe(true);
    expect(told.flatMap((one) => one.Data.Balances.map((row) => row.ItemNumber))).toEqual(items.map((item) => item.ItemNumber).sort());

    // Fewer than 100 balances can be too many bytes for one event too: 80 at their longest make two.
    const taken = items.slice(0, 80).map((item) => ({ ...item, Qty: '-0.0001' }));
    await ok(ctx().post(paths.ADJUST_QTY, { ...ids(), AdjustmentNo: 'BIG-80', Items: taken }, w.operator));
    const eighty = (await newEvents()).slice(1) as unknown as { Data: { Balances: unknown[] } }[];
    expect(eighty.length).toBe(2);
    expect(eighty.map((one) => one.Data.Balances.length).reduce((sum, count) => sum + count)).toBe(80);

    // Short keys fill an event with 100 balances.
    const small = Array.from({ length: 150 }, (_, index) => ({ ItemNumber: `S${String(index).padStart(3, '0')}`, UOM: 'EA', Qty: '1' }));
    await ok(ctx().post(paths.ADJUST_QTY, { ...ids(), AdjustmentNo: 'SMALL', Items: small }, w.operator));
    const counts = (await newEvents()).slice(1).map((one) => (one as unknown as { Data: { Balances: unknown[] } }).Data.Balances.length);
    expect(counts).toEqual([100, 50]);
  });

  it('tells items created and updated, not those imported unchanged; item events have no facility', async () => {
    const itemImport = (items: Json[]) =>
      ok(ctx().post(paths.ITEM_IMPORT, { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], Items: items }, w.customer));
    await itemImport([{ itemID: 'IT-1' }, { itemID: 'IT-2', itemDescription: 'Mug' }]);
    const item = (ItemID: string, Status = 'Active') => ({
      CompanyID: w.tenant.companyId,
      CustomerID: w.tenant.customerIds[0],
      ItemID,
      Status,
    });
    expect(await newEvents()).toEqual([event('item.created', item('IT-1')), event('item.created', item('IT-2'))]);

    await itemImport([{ itemID: 'IT-1' }, { itemID: 'IT-2', itemDescription: 'Mug', status: 'Inactive' }]);
    expect(await newEvents()).toEqual([event('item.updated', item('IT-2', 'Inactive'))]);
  });

  it('tells a failure ACK: a refused cancel, and a body its schema refused', async () => {
    const cancel = await ctx().put(paths.RECEIPT_CANCEL, { ...ids(), PONo: 'NOPE' }, w.customer);
    expect({ status: cancel.statusCode, body: cancel.json() }).toEqual({
      status: 404,
      body: { error: 'Not found receipt with PONo NOPE' },
    });
    const bad = {
      ...ids(),
      POContent: { ReferenceNo: 'SO-BAD', Address: SHIP_TO, Items: [{ ItemID: 'X', OrderedQty: 'many', UOM: 'EA' }] },
    };
    const rejected = await ctx().post(paths.ORDER_IMPORT, bad, w.customer);
    expect(rejected.statusCode).toBe(400);
    const message = (rejected.json() as { error: string }[]).map((one) => one.error).join('; ');
    expect(await newEvents()).toEqual([
      event('ack.failed', { ...ids(), DocumentType: 'RN', PONo: 'NOPE', ReferenceNo: null, Error: 'Not found receipt with PONo NOPE' }),
      event('ack.failed', { ...ids(), DocumentType: 'DN', PONo: null, ReferenceNo: 'SO-BAD', Error: message }),
    ]);
  });

  it('replays no events: an Idempotency-Key sent again writes nothing', async () => {
    const body = {
      ...ids(),
      ASNContent: {
        Status: 'Imported',
        CarrierName: 'UPS',
        PONo: uniqueId('PO'),
        Items: [{ ItemNumber: 'SKU-A', ExpectedQty: '1', UOM: 'EA' }],
      },
    };
    const headers = { 'idempotency-key': uniqueId('IK') };
    await ok(ctx().post(paths.RECEIPT_IMPORT, body, w.customer, headers));
    expect(await newEvents()).toHaveLength(1);
    const again = await ctx().post(paths.RECEIPT_IMPORT, body, w.customer, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await newEvents()).toEqual([]);
  });

  // ---- the search ---------------------------------------------------------------------------------

  it('filters by type, facility, time and Sequence, and pages; a key limited to a facility reads its own and the item events', async () => {
    const receiptIn = (facility: number) =>
      ok(
        ctx().post(
          paths.RECEIPT_IMPORT,
          {
            ...ids(0, facility),
            ASNContent: {
              Status: 'Imported',
              CarrierName: 'UPS',
              PONo: uniqueId('PO'),
              Items: [{ ItemNumber: 'SKU-A', ExpectedQty: '1', UOM: 'EA' }],
            },
          },
          w.customer,
        ),
      );
    const first = await receiptIn(0);
    ctx().clock.advance(60_000);
    const second = await receiptIn(1);
    ctx().clock.advance(60_000);
    await ok(
      ctx().post(
        paths.ITEM_IMPORT,
        { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], Items: [{ itemID: 'IT-9' }] },
        w.customer,
      ),
    );
    const all = await ok(search());
    expect(all.results.data.map((e: Json) => e.Type)).toEqual(['receipt.imported', 'receipt.imported', 'item.created']);
    expect(all.paging).toEqual({ totalCount: 3, pageNo: 1, totalPage: 1, startIndex: 1, endIndex: 3, limit: 100 });
    const [one, two, three] = all.results.data as { Sequence: number; EventID: string; Data: { SVCPOID?: string } }[];
    expect([one!.Data.SVCPOID, two!.Data.SVCPOID]).toEqual([first.Receipt.SVCPOID, second.Receipt.SVCPOID]);

    const sequencesOf = async (body: Json, key?: string) => {
      const answer = await ok(search(body, key));
      return (answer.results.data as { Sequence: number }[]).map((e) => e.Sequence);
    };
    expect(await sequencesOf({ Types: ['item.created'] })).toEqual([three!.Sequence]);
    expect(await sequencesOf({ Types: [] })).toEqual([one!.Sequence, two!.Sequence, three!.Sequence]);
    expect(await sequencesOf({ FacilityID: w.tenant.facilityIds[1] })).toEqual([two!.Sequence, three!.Sequence]);
    expect(await sequencesOf({ AfterSequence: one!.Sequence })).toEqual([two!.Sequence, three!.Sequence]);
    expect(await sequencesOf({ CreatedWhenFrom: '2026-03-05T14:08:09.123Z', CreatedWhenTo: '2026-03-05T06:08:09.123-08:00' })).toEqual([
      two!.Sequence,
    ]);
    const page = await ok(search({ Paging: { PageNo: 2, PageSize: 2 } }));
    expect(page.results.data.map((e: Json) => e.EventID)).toEqual([three!.EventID]);
    expect(page.paging).toEqual({ totalCount: 3, pageNo: 2, totalPage: 2, startIndex: 3, endIndex: 3, limit: 2 });

    const limited = await createKey(ctx().database.db, ctx().clock, w.tenant, 'customer', {
      customerIds: [w.tenant.customerIds[0]!],
      facilityIds: [w.tenant.facilityIds[1]!],
    });
    expect(await sequencesOf({}, limited)).toEqual([two!.Sequence, three!.Sequence]);
    // The warehouse reads the customer's events of its facility, and the item events.
    expect(await sequencesOf({}, w.operator)).toEqual([one!.Sequence, three!.Sequence]);
    expect(await sequencesOf({}, w.admin)).toEqual([one!.Sequence, two!.Sequence, three!.Sequence]);
    // Another customer has none of them.
    expect(await sequencesOf({ CustomerID: w.tenant.customerIds[1] }, w.otherCustomer)).toEqual([]);
  });

  it('refuses what it cannot read: another customer’s events, another facility, and bad filters, in the spec’s shape', async () => {
    const refused = async (body: Json, key: string) => {
      const answer = await search(body, key);
      return { status: answer.statusCode, body: answer.json() };
    };
    const c2 = w.tenant.customerIds[1]!;
    expect(await refused({ CustomerID: c2 }, w.customer)).toEqual({
      status: 403,
      body: problems(`CustomerID ${c2} is outside this API key's scope`),
    });
    const f2 = w.tenant.facilityIds[1]!;
    expect(await refused({ FacilityID: f2 }, w.operator)).toEqual({
      status: 403,
      body: problems(`FacilityID ${f2} is outside this API key's scope`),
    });
    expect(await refused({ FacilityID: 'NOPE' }, w.customer)).toEqual({ status: 400, body: { error: 'Not found facility' } });
    const bad = await refused({ AfterSequence: -1, Types: ['receipt.lost'], CreatedWhenFrom: '2026-03-05T14:08:09' }, w.customer);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      problems(
        `Types[0] must be one of: ${EVENT_TYPES.join(', ')}`,
        'AfterSequence must be at least 0',
        'CreatedWhenFrom must be an ISO 8601 date-time with a UTC offset such as 2024-03-05T14:07:09.123Z',
      ),
    );
  });

  // ---- numbering ------------------------------------------------------------------------------------

  it.skipIf(dialect !== 'postgres')(
    'numbers events as they commit: an event that commits late gets a higher Sequence than one seen before',
    async () => {
      const db = ctx().database.db;
      const row = (type: string) => ({
        company_id: w.tenant.companyId,
        event_id: `evt_${uniqueId('T')}`,
        type,
        customer_id: w.tenant.customerIds[0]!,
        facility_id: null,
        data: JSON.stringify({ CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], Name: type }),
        key_id: null,
        created_at: Date.parse(NOW),
      });
      let commitLate!: () => void;
      const lateCanCommit = new Promise<void>((resolve) => (commitLate = resolve));
      let inserted!: () => void;
      const lateInserted = new Promise<void>((resolve) => (inserted = resolve));
      // The late event takes the lower id, and commits after the early one was numbered and read.
      const late = db.transaction().execute(async (trx) => {
        await trx.insertInto('events').values(row('late')).execute();
        inserted();
        await lateCanCommit;
      });
      await lateInserted;
      await db.insertInto('events').values(row('early')).execute();
      await sequenceEvents(db);
      const { rows: before } = await sql<{ sequence: number | null; type: string }>`
      select sequence, type from events where company_id = ${w.tenant.companyId} order by id`.execute(db);
      expect(before.map((r) => [r.type, r.sequence === null])).toEqual([['early', false]]);
      commitLate();
      await late;
      await sequenceEvents(db);
      const { rows } = await sql<{ sequence: number; type: string }>`
      select sequence, type from events where company_id = ${w.tenant.companyId} order by id`.execute(db);
      expect(rows.map((r) => r.type)).toEqual(['late', 'early']);
      expect(Number(rows[0]!.sequence)).toBeGreaterThan(Number(rows[1]!.sequence));
    },
  );
});
