import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { ORDER_MOVES, ORDER_STATUSES, type OrderMove } from '../../src/modules/orders/order-states.js';
import { RECEIPT_MOVES, RECEIPT_STATUSES, type ReceiptMove } from '../../src/modules/receipts/receipt-states.js';
import { useTestApp, type TestContext } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import {
  buildOrder,
  buildReceipt,
  createKey,
  createTenant,
  facilityOf,
  idsOf,
  problems,
  stock,
  uniqueId,
  type BuiltOrder,
  type BuiltReceipt,
  type Tenant,
} from '../helpers/factories.js';
import {
  ORDER_CANCEL,
  ORDER_IMPORT,
  ORDER_SHIP,
  RECEIPT_CANCEL,
  RECEIPT_CONFIRM,
  RECEIPT_IMPORT,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from '../helpers/paths.js';

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

describeEachDialect('receipt state table', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let keys: Keys;
  beforeAll(async () => {
    ({ tenant, keys } = await setUp(ctx));
  });

  const operatorMove = (move: string, svcpoid: string) =>
    ctx().post(`${THREEPL_RECEIPT}/${move}`, { ...facilityOf(tenant), SVCPOID: svcpoid }, keys.operator);
  const statusOf = async (svcpoid: string) =>
    (await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facilityOf(tenant), SVCPOID: svcpoid }, keys.operator)).json().Receipt.Status;

  /** How the API makes each move of the table. */
  const make: Record<ReceiptMove, (receipt: BuiltReceipt) => Promise<LightMyRequestResponse>> = {
    update: ({ body }) => ctx().post(RECEIPT_IMPORT, body, keys.customer),
    'customer-cancel': ({ poNo }) => ctx().put(RECEIPT_CANCEL, { ...idsOf(tenant), PONo: poNo }, keys.customer),
    open: ({ svcpoid }) => operatorMove('open', svcpoid),
    cancel: ({ svcpoid }) => operatorMove('cancel', svcpoid),
    'force-close': ({ svcpoid }) => operatorMove('force-close', svcpoid),
    receive: ({ svcpoid }) =>
      ctx().post(
        RECEIPT_CONFIRM,
        {
          ...facilityOf(tenant),
          SVCPOID: svcpoid,
          ConfirmationNo: uniqueId('CN'),
          Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: '1', UOM: 'EA' }],
        },
        keys.operator,
      ),
  };

  it('every status answers every move as its row says', async () => {
    let checked = 0;
    for (const [move, row] of Object.entries(RECEIPT_MOVES) as [ReceiptMove, (typeof RECEIPT_MOVES)[ReceiptMove]][]) {
      for (const status of RECEIPT_STATUSES.filter((s) => reachable(row.by, s))) {
        const receipt = await buildReceipt(ctx(), { tenant, key: keys.customer, operatorKey: keys.operator, status });
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

  const operatorMove = (move: string, svcpoid: string) =>
    ctx().post(`${THREEPL_ORDER}/${move}`, { ...facilityOf(tenant), SVCPOID: svcpoid }, keys.operator);
  const statusOf = async (svcpoid: string) =>
    (await ctx().post(`${THREEPL_ORDER}/get`, { ...facilityOf(tenant), SVCPOID: svcpoid }, keys.operator)).json().Order.Status;

  const make: Record<OrderMove, (order: BuiltOrder) => Promise<LightMyRequestResponse>> = {
    update: ({ body }) => ctx().post(ORDER_IMPORT, body, keys.customer),
    'customer-cancel': ({ referenceNo }) => ctx().put(ORDER_CANCEL, { ...idsOf(tenant), ReferenceNo: referenceNo }, keys.customer),
    open: ({ svcpoid }) => operatorMove('open', svcpoid),
    cancel: ({ svcpoid }) => operatorMove('cancel', svcpoid),
    ship: ({ svcpoid }) =>
      ctx().post(
        ORDER_SHIP,
        {
          ...facilityOf(tenant),
          SVCPOID: svcpoid,
          ConfirmationNo: uniqueId('CN'),
          Items: [{ ItemNumber: 'SKU-1', ShippedQty: '1', UOM: 'EA' }],
        },
        keys.operator,
      ),
  };

  it('every status answers every move as its row says', async () => {
    let checked = 0;
    for (const [move, row] of Object.entries(ORDER_MOVES) as [OrderMove, (typeof ORDER_MOVES)[OrderMove]][]) {
      for (const status of ORDER_STATUSES.filter((s) => reachable(row.by, s))) {
        // Enough stock for the order's 10 and one more unit to ship.
        await stock(ctx(), { tenant, items: [{ ItemNumber: 'SKU-1', Qty: '11' }], key: keys.operator });
        const order = await buildOrder(ctx(), {
          tenant,
          key: keys.customer,
          operatorKey: keys.operator,
          status,
          content: { Items: [{ ItemID: 'SKU-1', OrderedQty: '10', UOM: 'EA' }] },
        });
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
