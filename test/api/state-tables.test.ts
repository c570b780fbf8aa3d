import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { ORDER_MOVES, ORDER_STATUSES, type OrderMove, type OrderStatus } from '../../src/modules/orders/order-states.js';
import { RECEIPT_MOVES, RECEIPT_STATUSES, type ReceiptMove, type ReceiptStatus } from '../../src/modules/receipts/receipt-states.js';
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

/** A state table as the test reads it: its moves, each with the rule its row gives. */
interface Table<Move extends string, Doc> {
  moves: Record<Move, { by: string; from: readonly string[]; to: readonly string[]; refusal: (svcpoid: string, status: string) => string }>;
  statuses: readonly string[];
  /** A fresh document brought to `status` through the API. */
  build: (status: string) => Promise<Doc & { svcpoid: string }>;
  /** Makes `move` on the document through the API. */
  make: Record<Move, (doc: Doc) => Promise<LightMyRequestResponse>>;
  statusOf: (svcpoid: string) => Promise<string>;
}

/**
 * Every reachable (status, move) of the table: the move answers 200 and ends in one of the row's
 * `to` when the row lists the status in `from`, else 409 with the row's refusal, changing nothing.
 * Answers how many pairs it checked.
 */
async function expectEveryRowHolds<Move extends string, Doc>(table: Table<Move, Doc>): Promise<number> {
  let checked = 0;
  for (const [move, row] of Object.entries(table.moves) as [Move, Table<Move, Doc>['moves'][Move]][]) {
    for (const status of table.statuses.filter((s) => reachable(row.by, s))) {
      const doc = await table.build(status);
      const response = await table.make[move](doc);
      const label = `${status} ${move}`;
      if (row.from.includes(status)) {
        expect(response.statusCode, label).toBe(200);
        expect(row.to, label).toContain(await table.statusOf(doc.svcpoid));
      } else {
        expect(response.statusCode, label).toBe(409);
        expect(response.json(), label).toEqual(problems(row.refusal(doc.svcpoid, status)));
        expect(await table.statusOf(doc.svcpoid), label).toBe(status);
      }
      checked++;
    }
  }
  return checked;
}

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
    const checked = await expectEveryRowHolds({
      moves: RECEIPT_MOVES,
      statuses: RECEIPT_STATUSES,
      build: (status) => buildReceipt(ctx(), { tenant, key: keys.customer, operatorKey: keys.operator, status: status as ReceiptStatus }),
      make,
      statusOf,
    });
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
    const checked = await expectEveryRowHolds({
      moves: ORDER_MOVES,
      statuses: ORDER_STATUSES,
      build: async (status) => {
        // Enough stock for the order's 10 and one more unit to ship.
        await stock(ctx(), { tenant, items: [{ ItemNumber: 'SKU-1', Qty: '11' }], key: keys.operator });
        return buildOrder(ctx(), {
          tenant,
          key: keys.customer,
          operatorKey: keys.operator,
          status: status as OrderStatus,
          content: { Items: [{ ItemID: 'SKU-1', OrderedQty: '10', UOM: 'EA' }] },
        });
      },
      make,
      statusOf,
    });
    // Five moves over six statuses, less the Cancelled order for the two customer moves.
    expect(checked).toBe(5 * 6 - 2);
  });
});
