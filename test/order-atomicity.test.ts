import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { expectInternalError, failureInjection } from './helpers/failures.js';
import { createKey, createTenant, facilityOf, idsOf, problems, stock, uniqueId, type Tenant } from './helpers/factories.js';
import { ORDER_CANCEL, ORDER_IMPORT, THREEPL_ORDER } from './helpers/paths.js';

/**
 * docs/decisions.md for orders: one request = one database transaction. A trigger makes the last write of a
 * request fail (the ACK of an import or cancel, the DC of a shipment, the event of an operator
 * move); nothing the request wrote before it — the order, its lines, its allocations, the balances'
 * allocated and on-hand quantities, the ledger — may remain. Then, without the trigger, the same
 * request succeeds. The last tests check that two requests on one order serialize.
 */

const SCALE = 10_000;
const TABLES = [
  'orders',
  'order_lines',
  'order_allocations',
  'order_line_shortages',
  'order_events',
  'order_confirmations',
  'acks',
  'inventory_balances',
  'inventory_ledger',
  'idempotency_records',
  // A change's events go with it (docs/webhooks.md): a rolled-back change leaves none.
  'events',
] as const;

describeEachDialect('order atomicity', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let operatorKey: string;
  const db = () => ctx().database.db;
  const failures = failureInjection(db, dialect);

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    await stock(ctx(), {
      tenant,
      items: [
        { ItemNumber: 'SKU-A', UOM: 'EA', Qty: '1000', LotNo: 'L1' },
        { ItemNumber: 'SKU-B', UOM: 'CS', Qty: '1000' },
      ],
      key: operatorKey,
    });
    await failures.install();
  });

  const facility = () => facilityOf(tenant);
  const ids = () => idsOf(tenant);

  const { withFailingInserts, race } = failures;
  /** Every row of the tenant in the tables an order request writes (and SQLite's SVCPOID counters). */
  const snapshot = () => failures.snapshot(tenant.companyId, TABLES);

  const orderBody = (referenceNo: string, content: Record<string, unknown> = {}) => ({
    ...ids(),
    POContent: {
      ReferenceNo: referenceNo,
      PONo: 'PO-1',
      Address: {
        ShipToName: 'J',
        ShipToAddress1: '1 Main St',
        ShipToCity: 'Reno',
        ShipToState: 'NV',
        ShipToZipCode: '89501',
        ShipToCountry: 'US',
      },
      Items: [
        { LineNo: 1, ItemID: 'SKU-A', OrderedQty: '10', UOM: 'EA' },
        { LineNo: 2, ItemID: 'SKU-B', OrderedQty: '5', UOM: 'CS' },
      ],
      ...content,
    },
  });
  const importOrder = async (referenceNo = uniqueId('SO'), content: Record<string, unknown> = {}) => {
    const response = await ctx().post(ORDER_IMPORT, orderBody(referenceNo, content), customerKey);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().Order.Status).toBe('Success');
    return { svcpoid: response.json().Order.SVCPOID as string, referenceNo };
  };
  const shipment = (svcpoid: string, confirmationNo: string, extra: Record<string, unknown> = {}) => ({
    ...facility(),
    SVCPOID: svcpoid,
    ConfirmationNo: confirmationNo,
    Items: [
      { LineNo: 1, ItemNumber: 'SKU-A', ShippedQty: '10', UOM: 'EA' },
      { LineNo: 2, ItemNumber: 'SKU-B', ShippedQty: '2', UOM: 'CS' },
    ],
    ...extra,
  });
  const statusOf = async (svcpoid: string) => {
    const { rows } = await sql<{ status: string }>`select status from orders where svcpoid = ${svcpoid}`.execute(db());
    return rows[0]!.status;
  };
  /** Per line: [item, allocated now, shipped], in units. */
  const linesOf = async (svcpoid: string) => {
    const { rows } = await sql<{ item_id: string; shipped_qty: number | string; held: number | string | null }>`
      select l.item_id, l.shipped_qty,
        (select sum(a.quantity) from order_allocations a where a.svcpoid = l.svcpoid and a.line_no = l.line_no) as held
      from order_lines l where l.svcpoid = ${svcpoid} order by l.line_no`.execute(db());
    return rows.map((row) => [row.item_id, Number(row.held ?? 0) / SCALE, Number(row.shipped_qty) / SCALE]);
  };
  const ledgerRows = async (svcpoid: string) => {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from inventory_ledger where source_type = 'shipment' and source_id = ${svcpoid}`.execute(db());
    return Number(rows[0]!.n);
  };
  /** The status moves recorded for an order form one chain: each starts where the last ended. */
  const expectEventChain = async (svcpoid: string) => {
    const { rows } = await sql<{ from_status: string; to_status: string }>`
      select from_status, to_status from order_events where svcpoid = ${svcpoid} order by id`.execute(db());
    let current = 'Imported';
    for (const event of rows) {
      expect(event.from_status, `events of ${svcpoid}: ${JSON.stringify(rows)}`).toBe(current);
      current = event.to_status;
    }
    expect(await statusOf(svcpoid)).toBe(current);
  };
  const put = (body: unknown) => ctx().put(ORDER_CANCEL, body, customerKey);

  // ---- imports and cancels: the ACK is the last write --------------------------------------

  it('an import whose ACK cannot be written leaves no order, no line, no allocation, no counter step; then it succeeds', async () => {
    const referenceNo = uniqueId('SO');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const before = await snapshot();
    expectInternalError(await withFailingInserts('acks', () => ctx().post(ORDER_IMPORT, orderBody(referenceNo), customerKey, headers)));
    expect(await snapshot()).toEqual(before);

    const retried = await ctx().post(ORDER_IMPORT, orderBody(referenceNo), customerKey, headers);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().Order).toMatchObject({ ReferenceNo: referenceNo, Status: 'Success', Error: [] });
    expect(await linesOf(retried.json().Order.SVCPOID)).toEqual([
      ['SKU-A', 10, 0],
      ['SKU-B', 5, 0],
    ]);
  });

  it('an update whose ACK cannot be written keeps the order, its lines and its allocation as they were', async () => {
    const { svcpoid, referenceNo } = await importOrder();
    const before = await snapshot();
    const failed = await withFailingInserts('acks', () =>
      ctx().post(ORDER_IMPORT, orderBody(referenceNo, { Items: [{ ItemID: 'SKU-B', OrderedQty: '1', UOM: 'CS' }] }), customerKey),
    );
    expectInternalError(failed);
    expect(await snapshot()).toEqual(before);
    expect(await linesOf(svcpoid)).toEqual([
      ['SKU-A', 10, 0],
      ['SKU-B', 5, 0],
    ]);
  });

  it('a cancel (ActionCode Cancelled, PUT cancel) whose ACK cannot be written keeps the order Imported and its allocation', async () => {
    const { svcpoid, referenceNo } = await importOrder();
    const before = await snapshot();
    await withFailingInserts('acks', async () => {
      expectInternalError(
        await ctx().post(ORDER_IMPORT, { ...ids(), POContent: { ReferenceNo: referenceNo, ActionCode: 'Cancelled' } }, customerKey),
      );
      expectInternalError(await put({ ...ids(), ReferenceNo: referenceNo }));
    });
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(svcpoid)).toBe('Imported');
    expect(await linesOf(svcpoid)).toEqual([
      ['SKU-A', 10, 0],
      ['SKU-B', 5, 0],
    ]);
  });

  // ---- shipments: the DC is the last write -------------------------------------------------

  it('a shipment whose DC cannot be written takes no stock, consumes no allocation and moves nothing; then it ships once', async () => {
    const { svcpoid } = await importOrder();
    const confirmationNo = uniqueId('CN');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const body = shipment(svcpoid, confirmationNo, { Close: true });
    const before = await snapshot();
    expectInternalError(
      await withFailingInserts('order_confirmations', () => ctx().post(`${THREEPL_ORDER}/post-confirmation`, body, operatorKey, headers)),
    );
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(svcpoid)).toBe('Imported');
    expect(await ledgerRows(svcpoid)).toBe(0);

    const shipped = await ctx().post(`${THREEPL_ORDER}/post-confirmation`, body, operatorKey, headers);
    expect(shipped.statusCode).toBe(200);
    expect(shipped.json()).toEqual({ Order: { SVCPOID: svcpoid, Status: 'Short Shipped', ConfirmationNo: confirmationNo } });
    // Shipped 10 of 10 and 2 of 5; the close gave the other 3 back.
    expect(await linesOf(svcpoid)).toEqual([
      ['SKU-A', 0, 10],
      ['SKU-B', 0, 2],
    ]);
    expect(await ledgerRows(svcpoid)).toBe(2);
    const replay = await ctx().post(`${THREEPL_ORDER}/post-confirmation`, body, operatorKey);
    expect(replay.json()).toEqual(shipped.json());
    expect(await ledgerRows(svcpoid)).toBe(2);
  });

  it('a shipment one of whose lines cannot be covered takes none of its lines', async () => {
    const { svcpoid } = await importOrder();
    const before = await snapshot();
    const refused = await ctx().post(
      `${THREEPL_ORDER}/post-confirmation`,
      shipment(svcpoid, uniqueId('CN'), {
        Items: [
          { LineNo: 1, ItemNumber: 'SKU-A', ShippedQty: '10', UOM: 'EA' },
          { LineNo: 2, ItemNumber: 'SKU-B', ShippedQty: '6', UOM: 'CS' },
        ],
      }),
      operatorKey,
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual(problems('Items[1] item SKU-B: 6 more would ship 6 of line 2, which ordered 5'));
    expect(await snapshot()).toEqual(before);
  });

  // ---- operator moves and MarkOpen: the event is the last write ------------------------------

  it('an operator move, a MarkOpen list or a shipment whose event cannot be written leaves every status and allocation as it was', async () => {
    const first = await importOrder();
    const second = await importOrder();
    const before = await snapshot();
    await withFailingInserts('order_events', async () => {
      for (const move of ['open', 'cancel']) {
        expectInternalError(await ctx().post(`${THREEPL_ORDER}/${move}`, { ...facility(), SVCPOID: first.svcpoid }, operatorKey));
      }
      expectInternalError(
        await ctx().post(
          `${THREEPL_ORDER}/list`,
          { ...facility(), Status: 'Imported', MarkOpen: true, Paging: { PageSize: 1000 } },
          operatorKey,
        ),
      );
      expectInternalError(await ctx().post(`${THREEPL_ORDER}/post-confirmation`, shipment(second.svcpoid, uniqueId('CN')), operatorKey));
    });
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(first.svcpoid)).toBe('Imported');
    expect(await statusOf(second.svcpoid)).toBe('Imported');
  });

  // ---- two requests on one order serialize ---------------------------------------------------

  it('a shipment and an operator cancel of one order serialize: one wins, the other is 409, and the books agree', async () => {
    const { svcpoid } = await importOrder();
    const { slow: shipped, fast: cancelled } = await race(
      () => ctx().post(`${THREEPL_ORDER}/post-confirmation`, shipment(svcpoid, uniqueId('CN')), operatorKey),
      () => ctx().post(`${THREEPL_ORDER}/cancel`, { ...facility(), SVCPOID: svcpoid }, operatorKey),
    );
    expect([shipped.statusCode, cancelled.statusCode].sort()).toEqual([200, 409]);
    if (shipped.statusCode === 200) {
      expect(shipped.json().Order.Status).toBe('Partial Shipped');
      expect(cancelled.json()).toEqual(problems(`Order ${svcpoid} is Partial Shipped; cancel needs Imported or Open`));
      expect(await linesOf(svcpoid)).toEqual([
        ['SKU-A', 0, 10],
        ['SKU-B', 3, 2],
      ]);
      expect(await ledgerRows(svcpoid)).toBe(2);
    } else {
      expect(shipped.json()).toEqual(problems(`Order ${svcpoid} is Cancelled; only Imported, Open, Partial Shipped orders can be shipped`));
      expect(await linesOf(svcpoid)).toEqual([
        ['SKU-A', 0, 0],
        ['SKU-B', 0, 0],
      ]);
      expect(await ledgerRows(svcpoid)).toBe(0);
    }
    await expectEventChain(svcpoid);
  });

  it('a shipment and a customer update of one order serialize: the update is refused once shipping started, or ships the new lines', async () => {
    const { svcpoid, referenceNo } = await importOrder();
    const { slow: shipped, fast: updated } = await race(
      () =>
        ctx().post(
          `${THREEPL_ORDER}/post-confirmation`,
          { ...facility(), SVCPOID: svcpoid, ConfirmationNo: uniqueId('CN'), Items: [{ ItemNumber: 'SKU-B', ShippedQty: '1', UOM: 'CS' }] },
          operatorKey,
        ),
      () => ctx().post(ORDER_IMPORT, orderBody(referenceNo, { Items: [{ ItemID: 'SKU-B', OrderedQty: '4', UOM: 'CS' }] }), customerKey),
    );
    expect(shipped.statusCode).toBe(200);
    if (updated.statusCode === 409) {
      // The shipment came first: the order is Partial Shipped and keeps its lines.
      expect(updated.json()).toEqual(problems(`Order ${svcpoid} is Partial Shipped; it can no longer be updated`));
      expect(await linesOf(svcpoid)).toEqual([
        ['SKU-A', 10, 0],
        ['SKU-B', 4, 1],
      ]);
    } else {
      // The update came first: the shipment took one of the new line's four.
      expect(updated.statusCode).toBe(200);
      expect(await linesOf(svcpoid)).toEqual([['SKU-B', 3, 1]]);
    }
    expect(await statusOf(svcpoid)).toBe('Partial Shipped');
    await expectEventChain(svcpoid);
  });
});
