import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import { ORDER_MOVES, ORDER_STATUSES, type OrderMove, type OrderStatus } from '../../src/modules/orders/order-states.js';
import { RECEIPT_MOVES, RECEIPT_STATUSES, type ReceiptMove, type ReceiptStatus } from '../../src/modules/receipts/receipt-states.js';
import { useTestApp, type TestContext } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, problems, uniqueId, type Tenant } from '../helpers/factories.js';
import { SHIP_TO } from '../helpers/orders.js';

/**
 * The state tables of receipt-states.ts and order-states.ts, read row by row: for every status
 * and every move, the API makes the move when the row lists the status in `from` (ending in one of
 * its `to`), and otherwise answers 409 with the row's own refusal and changes nothing. The
 * hand-written tables of receipt-rules and shipping tests pin the same machine from the outside.
 */

/** Customer moves find a document by its natural key among live documents: a Cancelled one is not found, not refused. */
const reachable = (by: string, status: string) => !(by === 'customer' && status === 'Cancelled');

interface Keys {
  customer: string;
  operator: string;
}

async function setUp(ctx: () => TestContext): Promise<{ tenant: Tenant; keys: Keys }> {
  const { database, clock } = ctx();
  const tenant = await createTenant(database.db, clock);
  const keys = {
    customer: await createKey(database.db, clock, tenant, 'customer'),
    operator: await createKey(database.db, clock, tenant, 'operator'),
  };
  return { tenant, keys };
}

const put = (ctx: () => TestContext, path: string, body: unknown, key: string) =>
  ctx().app.inject({
    method: 'PUT',
    url: `${EDI_PREFIX}${path}`,
    headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
    payload: JSON.stringify(body),
  });

describeEachDialect('receipt state table', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let keys: Keys;
  beforeAll(async () => {
    ({ tenant, keys } = await setUp(ctx));
  });

  const ids = () => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0]!, FacilityID: tenant.facilityIds[0]! });
  const where = () => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0]! });
  const importBody = (poNo: string) => ({
    ...ids(),
    ASNContent: { PONo: poNo, CarrierName: 'UPS', Status: 'Imported', Items: [{ ItemNumber: 'SKU-1', ExpectedQty: '10', UOM: 'EA' }] },
  });
  const confirm = (svcpoid: string, quantity: string, close: boolean) =>
    ctx().post(
      '/edi/3pl/inbound/receipt/post-confirmation',
      {
        ...where(),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Close: close,
        Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: quantity, UOM: 'EA' }],
      },
      keys.operator,
    );
  const operatorMove = (move: string, svcpoid: string) =>
    ctx().post(`/edi/3pl/inbound/receipt/${move}`, { ...where(), SVCPOID: svcpoid }, keys.operator);
  const statusOf = async (svcpoid: string) =>
    (await ctx().post('/edi/3pl/inbound/receipt/get', { ...where(), SVCPOID: svcpoid }, keys.operator)).json().Receipt.Status;

  /** How the API makes each move of the table. */
  const make: Record<ReceiptMove, (receipt: { svcpoid: string; poNo: string }) => ReturnType<typeof confirm>> = {
    update: ({ poNo }) => ctx().post('/edi/inbound/receipt', importBody(poNo), keys.customer),
    'customer-cancel': ({ poNo }) => put(ctx, '/edi/inbound/receipt/cancel', { ...ids(), PONo: poNo }, keys.customer),
    open: ({ svcpoid }) => operatorMove('open', svcpoid),
    cancel: ({ svcpoid }) => operatorMove('cancel', svcpoid),
    'force-close': ({ svcpoid }) => operatorMove('force-close', svcpoid),
    receive: ({ svcpoid }) => confirm(svcpoid, '1', false),
  };

  /** A fresh receipt of 10 EA brought to `status` through the API. */
  const receiptIn = async (status: ReceiptStatus) => {
    const poNo = uniqueId('PO');
    const imported = await ctx().post('/edi/inbound/receipt', importBody(poNo), keys.customer);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = imported.json().Receipt.SVCPOID as string;
    const steps: Record<ReceiptStatus, () => Promise<unknown>> = {
      Imported: async () => {},
      Open: () => operatorMove('open', svcpoid),
      'In Progress': () => confirm(svcpoid, '4', false),
      'Partial Received': () => confirm(svcpoid, '4', true),
      Closed: () => confirm(svcpoid, '10', true),
      'Force Closed': () => operatorMove('force-close', svcpoid),
      Cancelled: () => operatorMove('cancel', svcpoid),
    };
    await steps[status]();
    expect(await statusOf(svcpoid)).toBe(status);
    return { svcpoid, poNo };
  };

  it('every status answers every move as its row says', async () => {
    let checked = 0;
    for (const [move, row] of Object.entries(RECEIPT_MOVES) as [ReceiptMove, (typeof RECEIPT_MOVES)[ReceiptMove]][]) {
      for (const status of RECEIPT_STATUSES.filter((s) => reachable(row.by, s))) {
        const receipt = await receiptIn(status);
        const response = await make[move](receipt);
        const label = `${status} ${move}`;
        if ((row.from as readonly string[]).includes(status)) {
          expect(response.statusCode, label).toBe(200);
          expect(row.to, label).toContain(await statusOf(receipt.svcpoid));
        } else {
          expect(response.statusCode, label).toBe(409);
          expect(response.json(), label).toEqual(problems(row.refusal(receipt.svcpoid, status)));
          expect(await statusOf(receipt.svcpoid), label).toBe(status);
        }
        checked++;
      }
    }
    // Six moves over seven statuses, less the Cancelled receipt for the two customer moves.
    expect(checked).toBe(6 * 7 - 2);
  });
});

describeEachDialect('order state table', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let keys: Keys;
  beforeAll(async () => {
    ({ tenant, keys } = await setUp(ctx));
  });

  const ids = () => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0]!, FacilityID: tenant.facilityIds[0]! });
  const where = () => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0]! });
  const importBody = (referenceNo: string) => ({
    ...ids(),
    POContent: { ReferenceNo: referenceNo, Address: SHIP_TO, Items: [{ ItemID: 'SKU-1', OrderedQty: '10', UOM: 'EA' }] },
  });
  const ship = (svcpoid: string, quantity: string, close: boolean) =>
    ctx().post(
      '/edi/3pl/outbound/order/post-confirmation',
      {
        ...where(),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Close: close,
        Items: [{ ItemNumber: 'SKU-1', ShippedQty: quantity, UOM: 'EA' }],
      },
      keys.operator,
    );
  const operatorMove = (move: string, svcpoid: string) =>
    ctx().post(`/edi/3pl/outbound/order/${move}`, { ...where(), SVCPOID: svcpoid }, keys.operator);
  const statusOf = async (svcpoid: string) =>
    (await ctx().post('/edi/3pl/outbound/order/get', { ...where(), SVCPOID: svcpoid }, keys.operator)).json().Order.Status;

  const make: Record<OrderMove, (order: { svcpoid: string; referenceNo: string }) => ReturnType<typeof ship>> = {
    update: ({ referenceNo }) => ctx().post('/edi/outbound/order', importBody(referenceNo), keys.customer),
    'customer-cancel': ({ referenceNo }) => put(ctx, '/edi/outbound/order/cancel', { ...ids(), ReferenceNo: referenceNo }, keys.customer),
    open: ({ svcpoid }) => operatorMove('open', svcpoid),
    cancel: ({ svcpoid }) => operatorMove('cancel', svcpoid),
    ship: ({ svcpoid }) => ship(svcpoid, '1', false),
  };

  /** A fresh order of 10 EA brought to `status` through the API; stock to ship comes from an adjustment. */
  const orderIn = async (status: OrderStatus) => {
    const stocked = await ctx().post(
      '/edi/3pl/adjust/inventory-adjust-qty-incremental',
      { ...ids(), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: 'SKU-1', UOM: 'EA', Qty: '11' }] },
      keys.operator,
    );
    expect(stocked.statusCode, stocked.body).toBe(200);
    const referenceNo = uniqueId('SO');
    const imported = await ctx().post('/edi/outbound/order', importBody(referenceNo), keys.customer);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = imported.json().Order.SVCPOID as string;
    const steps: Record<OrderStatus, () => Promise<unknown>> = {
      Imported: async () => {},
      Open: () => operatorMove('open', svcpoid),
      'Partial Shipped': () => ship(svcpoid, '4', false),
      Shipped: () => ship(svcpoid, '10', true),
      'Short Shipped': () => ship(svcpoid, '4', true),
      Cancelled: () => operatorMove('cancel', svcpoid),
    };
    await steps[status]();
    expect(await statusOf(svcpoid)).toBe(status);
    return { svcpoid, referenceNo };
  };

  it('every status answers every move as its row says', async () => {
    let checked = 0;
    for (const [move, row] of Object.entries(ORDER_MOVES) as [OrderMove, (typeof ORDER_MOVES)[OrderMove]][]) {
      for (const status of ORDER_STATUSES.filter((s) => reachable(row.by, s))) {
        const order = await orderIn(status);
        const response = await make[move](order);
        const label = `${status} ${move}`;
        if ((row.from as readonly string[]).includes(status)) {
          expect(response.statusCode, label).toBe(200);
          expect(row.to, label).toContain(await statusOf(order.svcpoid));
        } else {
          expect(response.statusCode, label).toBe(409);
          expect(response.json(), label).toEqual(problems(row.refusal(order.svcpoid, status)));
          expect(await statusOf(order.svcpoid), label).toBe(status);
        }
        checked++;
      }
    }
    // Five moves over six statuses, less the Cancelled order for the two customer moves.
    expect(checked).toBe(5 * 6 - 2);
  });
});
