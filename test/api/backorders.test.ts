import { sql, type CompiledQuery } from 'kysely';
import { beforeAll, expect, it, vi } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { asScaled } from '../../src/lib/decimal.js';
import { postStock } from '../../src/modules/inventory/inventory.service.js';
import { takeStockMadeAvailable } from '../../src/modules/inventory/transaction-stock.js';
import { fillBackorders } from '../../src/modules/orders/allocation.service.js';
import { formatWithOffset } from '../../src/http/time.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, uniqueId, type World } from '../helpers/factories.js';
import { expectInternalError, failureInjection } from '../helpers/failures.js';
import { SHIP_TO } from '../helpers/orders.js';

/**
 * Backorders (issue: the write path): when stock becomes Available — a receiving confirmation, a
 * positive adjustment, a property move to Available, an order cancelled or updated — the short
 * lines of the customer's Imported and Open orders in that facility are allocated from it, the
 * oldest order first, in the same transaction, never beyond what a line still needs.
 */

const ZONE = 'America/Los_Angeles';

describeEachDialect('backorders', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;
  const failures = failureInjection(() => ctx().database.db, dialect);
  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
    await failures.install();
  });

  const ids = (facility = 0, customer = 0) => ({
    CompanyID: world.tenant.companyId,
    CustomerID: world.tenant.customerIds[customer]!,
    FacilityID: world.tenant.facilityIds[facility]!,
  });
  const where = (facility = 0) => ({ CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[facility]! });
  const ok = async (pending: ReturnType<TestContextPost>) => {
    const response = await pending;
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  type TestContextPost = ReturnType<typeof ctx>['post'];

  /** A new order of the given lines; answers its SVCPOID and the import's answer. */
  const order = async (items: Record<string, unknown>[], extra: { facility?: number; customer?: number } = {}) => {
    const referenceNo = uniqueId('SO');
    const body = { ...ids(extra.facility, extra.customer), POContent: { ReferenceNo: referenceNo, Address: SHIP_TO, Items: items } };
    const answer = await ok(ctx().post('/edi/outbound/order', body, extra.customer === 1 ? world.otherCustomer : world.customer));
    ctx().clock.advance(1000);
    return { svcpoid: answer.Order.SVCPOID as string, referenceNo, answer: answer.Order, body };
  };
  const adjust = (item: string, qty: string, extra: Record<string, unknown> = {}, facility = 0) =>
    ok(
      ctx().post(
        '/edi/3pl/adjust/inventory-adjust-qty-incremental',
        { ...ids(facility), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: item, UOM: 'EA', Qty: qty, ...extra }] },
        world.admin,
      ),
    );
  /** What each line of an order holds allocated, as the 3PL get shows it. */
  const allocated = async (svcpoid: string, facility = 0) => {
    const got = await ok(ctx().post('/edi/3pl/outbound/order/get', { ...where(facility), SVCPOID: svcpoid }, world.admin));
    return got.Order.Items.map((line: { AllocatedQty: string }) => line.AllocatedQty);
  };
  const balance = async (item: string) => {
    const found = await ok(ctx().post('/edi/inventory/search-by-paging', { ...ids(), ItemNumber: item }, world.customer));
    return found.results.data.map((row: Record<string, string>) => [row.InventoryStatus, row.OnHand, row.Allocated, row.Available]);
  };
  /** The lines that wait for `item` (order_line_shortages), in the order a fill takes them. */
  const waiting = async (item: string) => {
    const { rows } = await sql<{ svcpoid: string; line_no: number }>`select svcpoid, line_no from order_line_shortages
      where company_id = ${world.tenant.companyId} and item_id = ${item} order by order_created_at, svcpoid, line_no`.execute(
      ctx().database.db,
    );
    return rows.map((row) => [row.svcpoid, Number(row.line_no)]);
  };
  const status = async (svcpoid: string) =>
    (await ok(ctx().post('/edi/3pl/outbound/order/get', { ...where(), SVCPOID: svcpoid }, world.admin))).Order.Status;
  const receive = async (item: string, qty: string) => {
    const receipt = await ok(
      ctx().post(
        '/edi/inbound/receipt',
        {
          ...ids(),
          ASNContent: {
            PONo: uniqueId('PO'),
            CarrierName: 'UPS',
            Status: 'Imported',
            Items: [{ ItemNumber: item, ExpectedQty: qty, UOM: 'EA' }],
          },
        },
        world.customer,
      ),
    );
    return ok(
      ctx().post(
        '/edi/3pl/inbound/receipt/post-confirmation',
        {
          ...where(),
          SVCPOID: receipt.Receipt.SVCPOID,
          ConfirmationNo: uniqueId('CN'),
          Items: [{ ItemNumber: item, ReceivedQuantity: qty, UOM: 'EA' }],
        },
        world.operator,
      ),
    );
  };
  const ship = (svcpoid: string, item: string, qty: string, close: boolean) =>
    ok(
      ctx().post(
        '/edi/3pl/outbound/order/post-confirmation',
        {
          ...where(),
          SVCPOID: svcpoid,
          ConfirmationNo: uniqueId('CN'),
          Close: close,
          Items: [{ ItemNumber: item, ShippedQty: qty, UOM: 'EA' }],
        },
        world.admin,
      ),
    );

  it('a receiving confirmation fills the oldest short order first, then the next', async () => {
    const item = uniqueId('IT');
    const older = await order([{ ItemID: item, OrderedQty: '10', UOM: 'EA' }]);
    const newer = await order([{ ItemID: item, OrderedQty: '5', UOM: 'EA' }]);
    expect(older.answer).toMatchObject({ Status: 'Warning', Error: `${item}: ordered 10, allocated 0, short 10` });

    const poNo = uniqueId('PO');
    const receipt = await ok(
      ctx().post(
        '/edi/inbound/receipt',
        {
          ...ids(),
          ASNContent: { PONo: poNo, CarrierName: 'UPS', Status: 'Imported', Items: [{ ItemNumber: item, ExpectedQty: '12', UOM: 'EA' }] },
        },
        world.customer,
      ),
    );
    const receivedAt = ctx().clock.now();
    await ok(
      ctx().post(
        '/edi/3pl/inbound/receipt/post-confirmation',
        {
          ...where(),
          SVCPOID: receipt.Receipt.SVCPOID,
          ConfirmationNo: uniqueId('CN'),
          Items: [{ ItemNumber: item, ReceivedQuantity: '12', UOM: 'EA' }],
        },
        world.operator,
      ),
    );
    expect(await allocated(older.svcpoid)).toEqual(['10']);
    expect(await allocated(newer.svcpoid)).toEqual(['2']);
    expect(await balance(item)).toEqual([['Available', '12', '12', '0']]);

    // The header query shows both orders changed when the stock came.
    const headers = await ok(
      ctx().post('/edi/outbound/order-level/search-by-paging', { ...ids(), Paging: { PageSize: 1000 } }, world.customer),
    );
    const updateTimes = Object.fromEntries(
      headers.results.data
        .filter((row: Record<string, string>) => [older.svcpoid, newer.svcpoid].includes(row['Order #']!))
        .map((row: Record<string, string>) => [row['Order #'], row['Update Time']]),
    );
    expect(updateTimes).toEqual({
      [older.svcpoid]: formatWithOffset(receivedAt, ZONE),
      [newer.svcpoid]: formatWithOffset(receivedAt, ZONE),
    });
  });

  it('fills in the transaction of the change: a change whose last write fails leaves the order waiting', async () => {
    const item = uniqueId('IT');
    const waiting = await order([{ ItemID: item, OrderedQty: '3', UOM: 'EA' }]);
    const body = { ...ids(), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: item, UOM: 'EA', Qty: '5' }] };
    // The Idempotency-Key's record is the last thing a command writes, after the fill.
    const send = () =>
      ctx().post('/edi/3pl/adjust/inventory-adjust-qty-incremental', body, world.admin, { 'idempotency-key': uniqueId('IK') });
    expectInternalError(await failures.withFailingInserts('idempotency_records', send));
    expect(await allocated(waiting.svcpoid)).toEqual(['0']);
    expect(await balance(item)).toEqual([]);

    await ok(send());
    expect(await allocated(waiting.svcpoid)).toEqual(['3']);
    expect(await balance(item)).toEqual([['Available', '5', '3', '2']]);
  });

  it('a positive adjustment fills a short line up to what it still needs, and the rest stays Available', async () => {
    const item = uniqueId('IT');
    await adjust(item, '4');
    const waiting = await order([{ ItemID: item, OrderedQty: '10', UOM: 'EA' }]);
    expect(await allocated(waiting.svcpoid)).toEqual(['4']);
    await adjust(item, '100');
    expect(await allocated(waiting.svcpoid)).toEqual(['10']);
    expect(await balance(item)).toEqual([['Available', '104', '10', '94']]);
  });

  it('a posting sends the read of the waiting lines before its balance statement, and the fill uses that read', async () => {
    const item = uniqueId('IT');
    const other = uniqueId('IT');
    const waiting = await order([{ ItemID: item, OrderedQty: '3', UOM: 'EA' }]);
    const sent: string[] = [];
    await inTransaction(ctx().database.db, async (trx) => {
      const executeQuery = trx.executeQuery.bind(trx);
      vi.spyOn(trx, 'executeQuery').mockImplementation((query) => {
        sent.push((query as CompiledQuery).sql);
        return executeQuery(query);
      });
      const scope = {
        companyId: world.tenant.companyId,
        customerId: world.tenant.customerIds[0]!,
        facilityId: world.tenant.facilityIds[0]!,
      };
      const lines = [item, other].map((itemId) => ({ itemId, uom: 'EA', quantity: asScaled(50_000) }));
      await postStock(trx, { ...scope, keyId: null, sourceType: 'adjustment', sourceId: uniqueId('ADJ'), at: ctx().clock.now(), lines });
      await fillBackorders(trx, takeStockMadeAvailable(trx), { at: ctx().clock.now(), keyId: 0 });
    });
    const kinds = sent.map((text) =>
      text.includes('from "order_line_shortages" as "s" cross join "order_lines"')
        ? 'waiting lines'
        : text.startsWith('insert into "inventory_balances"')
          ? 'balances'
          : 'other',
    );
    expect(kinds.filter((kind) => kind !== 'other')).toEqual(['waiting lines', 'balances']);
    expect(await allocated(waiting.svcpoid)).toEqual(['3']);
  });

  it('a fill after two postings reads the waiting lines of both, not the second posting’s read ahead alone', async () => {
    const first = uniqueId('IT');
    const second = uniqueId('IT');
    const waitingForFirst = await order([{ ItemID: first, OrderedQty: '2', UOM: 'EA' }]);
    const waitingForSecond = await order([{ ItemID: second, OrderedQty: '2', UOM: 'EA' }]);
    await inTransaction(ctx().database.db, async (trx) => {
      const scope = {
        companyId: world.tenant.companyId,
        customerId: world.tenant.customerIds[0]!,
        facilityId: world.tenant.facilityIds[0]!,
      };
      for (const itemId of [first, second]) {
        const lines = [{ itemId, uom: 'EA', quantity: asScaled(20_000) }];
        await postStock(trx, { ...scope, keyId: null, sourceType: 'adjustment', sourceId: uniqueId('ADJ'), at: ctx().clock.now(), lines });
      }
      await fillBackorders(trx, takeStockMadeAvailable(trx), { at: ctx().clock.now(), keyId: 0 });
    });
    expect(await allocated(waitingForFirst.svcpoid)).toEqual(['2']);
    expect(await allocated(waitingForSecond.svcpoid)).toEqual(['2']);
  });

  it('an adjustment of 1000 lines, the most there may be, fills the orders waiting for any of its items', async () => {
    const prefix = uniqueId('BIG');
    const itemIds = Array.from({ length: 1000 }, (_, i) => `${prefix}-${i}`);
    const first = await order([{ ItemID: itemIds[0], OrderedQty: '2', UOM: 'EA' }]);
    const last = await order([{ ItemID: itemIds[999], OrderedQty: '1', UOM: 'EA' }]);
    await ok(
      ctx().post(
        '/edi/3pl/adjust/inventory-adjust-qty-incremental',
        { ...ids(), AdjustmentNo: uniqueId('ADJ'), Items: itemIds.map((ItemNumber) => ({ ItemNumber, UOM: 'EA', Qty: '1' })) },
        world.admin,
      ),
    );
    expect(await allocated(first.svcpoid)).toEqual(['1']);
    expect(await allocated(last.svcpoid)).toEqual(['1']);
  });

  it('a property move to Available fills; stock moved to Hold or still on Hold does not', async () => {
    const item = uniqueId('IT');
    await adjust(item, '6', { InventoryStatus: 'Hold' });
    const waiting = await order([{ ItemID: item, OrderedQty: '5', UOM: 'EA' }]);
    expect(await allocated(waiting.svcpoid)).toEqual(['0']);
    await ok(
      ctx().post(
        '/edi/3pl/adjust/inventory-adjust-property',
        {
          ...ids(),
          AdjustmentNo: uniqueId('MOVE'),
          Items: [{ ItemNumber: item, UOM: 'EA', Qty: '3', From: { InventoryStatus: 'Hold' }, To: { InventoryStatus: 'Available' } }],
        },
        world.admin,
      ),
    );
    expect(await allocated(waiting.svcpoid)).toEqual(['3']);
    expect(await balance(item)).toEqual([
      ['Available', '3', '3', '0'],
      ['Hold', '3', '0', '0'],
    ]);
  });

  it('stock an order releases — cancelled, or updated to need less — goes to the orders waiting behind it', async () => {
    const item = uniqueId('IT');
    await adjust(item, '10');
    const first = await order([{ ItemID: item, OrderedQty: '10', UOM: 'EA' }]);
    const second = await order([{ ItemID: item, OrderedQty: '6', UOM: 'EA' }]);
    const third = await order([{ ItemID: item, OrderedQty: '6', UOM: 'EA' }]);
    expect([await allocated(first.svcpoid), await allocated(second.svcpoid), await allocated(third.svcpoid)]).toEqual([
      ['10'],
      ['0'],
      ['0'],
    ]);

    // An update to 4 keeps 4 and gives 6 back: the second order takes them.
    await ok(
      ctx().post(
        '/edi/outbound/order',
        { ...first.body, POContent: { ...first.body.POContent, Items: [{ ItemID: item, OrderedQty: '4', UOM: 'EA' }] } },
        world.customer,
      ),
    );
    expect([await allocated(first.svcpoid), await allocated(second.svcpoid), await allocated(third.svcpoid)]).toEqual([
      ['4'],
      ['6'],
      ['0'],
    ]);

    // The operator cancels the second order: its 6 go to the third.
    await ok(ctx().post('/edi/3pl/outbound/order/cancel', { ...where(), SVCPOID: second.svcpoid }, world.admin));
    expect([await allocated(first.svcpoid), await allocated(third.svcpoid)]).toEqual([['4'], ['6']]);
    expect(await balance(item)).toEqual([['Available', '10', '10', '0']]);
  });

  it('fills only Imported and Open orders of that customer in that facility, and a line only from stock it may take', async () => {
    const item = uniqueId('IT');
    await adjust(item, '2');
    const shipping = await order([{ ItemID: item, OrderedQty: '5', UOM: 'EA' }]);
    await ok(
      ctx().post(
        '/edi/3pl/outbound/order/post-confirmation',
        {
          ...where(),
          SVCPOID: shipping.svcpoid,
          ConfirmationNo: uniqueId('CN'),
          Items: [{ ItemNumber: item, ShippedQty: '2', UOM: 'EA' }],
        },
        world.admin,
      ),
    );
    const open = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }]);
    await ok(ctx().post('/edi/3pl/outbound/order/open', { ...where(), SVCPOID: open.svcpoid }, world.admin));
    const elsewhere = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }], { facility: 1 });
    const otherCustomer = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }], { customer: 1 });
    const lotBound = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA', LotNo: 'L-OTHER' }]);
    const anyLot = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }]);

    await adjust(item, '5', { LotNo: 'L-NEW' });
    // The Partial Shipped order waits for its own shipments; the Open one, then the next that may
    // take lot L-NEW, are filled; the lot-bound line and the other facility are not.
    expect(await allocated(shipping.svcpoid)).toEqual(['0']);
    expect(await allocated(open.svcpoid)).toEqual(['1']);
    expect(await allocated(lotBound.svcpoid)).toEqual(['0']);
    expect(await allocated(anyLot.svcpoid)).toEqual(['1']);
    expect(await allocated(elsewhere.svcpoid, 1)).toEqual(['0']);
    expect(await allocated(otherCustomer.svcpoid)).toEqual(['0']);
    expect(await balance(item)).toEqual([['Available', '5', '2', '3']]);
  });

  it('a short line waits until stock fills it, partly then wholly, the oldest order first; a full line never waits', async () => {
    const item = uniqueId('IT');
    await adjust(item, '2');
    const older = await order([{ ItemID: item, OrderedQty: '5', UOM: 'EA' }]);
    const newer = await order([{ ItemID: item, OrderedQty: '4', UOM: 'EA' }]);
    expect(older.answer).toMatchObject({ Status: 'Warning', Error: `${item}: ordered 5, allocated 2, short 3` });
    expect(newer.answer).toMatchObject({ Status: 'Warning', Error: `${item}: ordered 4, allocated 0, short 4` });
    expect(await waiting(item)).toEqual([
      [older.svcpoid, 1],
      [newer.svcpoid, 1],
    ]);

    // Not enough for the older order: it takes all, and both still wait.
    await adjust(item, '2');
    expect([await allocated(older.svcpoid), await allocated(newer.svcpoid)]).toEqual([['4'], ['0']]);
    expect(await waiting(item)).toEqual([
      [older.svcpoid, 1],
      [newer.svcpoid, 1],
    ]);

    // The older order is filled and waits no more; the newer takes the rest.
    await adjust(item, '3');
    expect([await allocated(older.svcpoid), await allocated(newer.svcpoid)]).toEqual([['5'], ['2']]);
    expect(await waiting(item)).toEqual([[newer.svcpoid, 1]]);

    // A receiving confirmation fills the newer order; the rest stays Available.
    await receive(item, '3');
    expect([await allocated(older.svcpoid), await allocated(newer.svcpoid)]).toEqual([['5'], ['4']]);
    expect(await waiting(item)).toEqual([]);
    expect(await balance(item)).toEqual([['Available', '10', '9', '1']]);

    const full = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }]);
    expect(full.answer).toMatchObject({ Status: 'Success', Error: [] });
    expect(await waiting(item)).toEqual([]);
  });

  it('a short order that is cancelled, shipped or closed waits no more; an updated one waits in its old place', async () => {
    const item = uniqueId('IT');
    await adjust(item, '2');
    const shortShipped = await order([{ ItemID: item, OrderedQty: '3', UOM: 'EA' }]);
    expect(await ship(shortShipped.svcpoid, item, '2', true)).toEqual({
      Order: { SVCPOID: shortShipped.svcpoid, Status: 'Short Shipped', ConfirmationNo: expect.any(String) },
    });
    await adjust(item, '4');
    const partlyShipped = await order([{ ItemID: item, OrderedQty: '6', UOM: 'EA' }]);
    expect(partlyShipped.answer).toMatchObject({ Status: 'Warning', Error: `${item}: ordered 6, allocated 4, short 2` });
    expect(await ship(partlyShipped.svcpoid, item, '1', false)).toEqual({
      Order: { SVCPOID: partlyShipped.svcpoid, Status: 'Partial Shipped', ConfirmationNo: expect.any(String) },
    });
    const updated = await order([{ ItemID: item, OrderedQty: '5', UOM: 'EA' }]);
    const operatorCancelled = await order([{ ItemID: item, OrderedQty: '2', UOM: 'EA' }]);
    const customerCancelled = await order([{ ItemID: item, OrderedQty: '2', UOM: 'EA' }]);
    const opened = await order([{ ItemID: item, OrderedQty: '1', UOM: 'EA' }]);
    expect(await waiting(item)).toEqual([
      [updated.svcpoid, 1],
      [operatorCancelled.svcpoid, 1],
      [customerCancelled.svcpoid, 1],
      [opened.svcpoid, 1],
    ]);

    expect(await ok(ctx().post('/edi/3pl/outbound/order/cancel', { ...where(), SVCPOID: operatorCancelled.svcpoid }, world.admin))).toEqual(
      {
        Order: { SVCPOID: operatorCancelled.svcpoid, Status: 'Cancelled' },
      },
    );
    expect(
      await ok(ctx().put('/edi/outbound/order/cancel', { ...ids(), ReferenceNo: customerCancelled.referenceNo }, world.customer)),
    ).toEqual({
      Order: {
        CustomerID: world.tenant.customerIds[0],
        PONo: [],
        ReferenceNo: customerCancelled.referenceNo,
        SVCPOID: customerCancelled.svcpoid,
        Status: 'Success',
        Error: [],
      },
    });
    expect(await ok(ctx().post('/edi/3pl/outbound/order/open', { ...where(), SVCPOID: opened.svcpoid }, world.admin))).toEqual({
      Order: { SVCPOID: opened.svcpoid, Status: 'Open' },
    });
    // The update replaces the line (1, then a second of another item) and keeps the order's place, before the opened order.
    const other = uniqueId('IT');
    const update = await ok(
      ctx().post(
        '/edi/outbound/order',
        {
          ...updated.body,
          POContent: {
            ...updated.body.POContent,
            Items: [
              { ItemID: item, OrderedQty: '1', UOM: 'EA' },
              { ItemID: other, OrderedQty: '1', UOM: 'EA' },
            ],
          },
        },
        world.customer,
      ),
    );
    expect(update.Order).toMatchObject({
      SVCPOID: updated.svcpoid,
      Status: 'Warning',
      Error: `${item}: ordered 1, allocated 0, short 1; ${other}: ordered 1, allocated 0, short 1`,
    });
    expect(await waiting(item)).toEqual([
      [updated.svcpoid, 1],
      [opened.svcpoid, 1],
    ]);
    expect(await waiting(other)).toEqual([[updated.svcpoid, 2]]);

    await adjust(item, '1');
    expect([await allocated(updated.svcpoid), await allocated(opened.svcpoid)]).toEqual([['1', '0'], ['0']]);
    expect(await waiting(item)).toEqual([[opened.svcpoid, 1]]);
    await adjust(item, '10');
    expect(await waiting(item)).toEqual([]);
    expect(await waiting(other)).toEqual([[updated.svcpoid, 2]]);
    expect(
      await Promise.all(
        [shortShipped, partlyShipped, operatorCancelled, customerCancelled, opened].map(async ({ svcpoid }) => [
          await status(svcpoid),
          await allocated(svcpoid),
        ]),
      ),
    ).toEqual([
      ['Short Shipped', ['0']],
      ['Partial Shipped', ['3']],
      ['Cancelled', ['0']],
      ['Cancelled', ['0']],
      ['Open', ['1']],
    ]);
    // 2 + 4 + 1 + 10 in, 2 + 1 shipped; held by the partly shipped order (4 less the 1 it shipped), the updated (1) and the opened (1).
    expect(await balance(item)).toEqual([['Available', '14', '5', '9']]);
  });
});
