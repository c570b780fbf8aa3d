import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { addPartner } from '../src/modules/x12/partners.service.js';
import { useTestApp, type TestContext } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { expectInternalError, failureInjection } from './helpers/failures.js';
import {
  buildOrder,
  buildReceipt,
  createKey,
  createTenant,
  facilityOf,
  idsOf,
  importItems,
  orderBody,
  receiptBody,
  stock,
  uniqueId,
  type OrderStatus,
  type ReceiptStatus,
  type Tenant,
} from './helpers/factories.js';
import {
  ADJUST_PROPERTY,
  ADJUST_QTY,
  ITEM_IMPORT,
  ORDER_CANCEL,
  ORDER_IMPORT,
  ORDER_SHIP,
  RECEIPT_CANCEL,
  RECEIPT_CONFIRM,
  RECEIPT_IMPORT,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from './helpers/paths.js';

/**
 * docs/webhooks.md: every command writes its events in the transaction of its change, through the
 * command path — a change that rolls back leaves no event, a change that commits has exactly its
 * events. The events' multi-row INSERT is the last write of every command (before the stored
 * answer of its Idempotency-Key), so a trigger that fails it fails the whole request: nothing of the
 * change may remain, and no answer may be stored. Then, without the trigger, the same request with
 * the same Idempotency-Key does its work and leaves exactly the table's event types, and a third
 * send replays the answer without writing any more.
 */

/** Every table a command writes (and SQLite's SVCPOID counters, which the snapshot adds). */
const TABLES = [
  'events',
  'items',
  'receipts',
  'receipt_lines',
  'receipt_events',
  'receipt_confirmations',
  'orders',
  'order_lines',
  'order_events',
  'order_allocations',
  'order_line_shortages',
  'order_confirmations',
  'acks',
  'inventory_balances',
  'inventory_ledger',
  'inventory_adjustments',
  'idempotency_records',
  'x12_outbox',
  'x12_partners',
] as const;

/** The item the documents and stock of a case use. */
const SKU = 'SKU-1';

/** A fresh tenant of one customer and one facility, and its keys: each case starts from nothing. */
interface Scene {
  ctx: TestContext;
  tenant: Tenant;
  customerKey: string;
  operatorKey: string;
}

/** The one request a case sends three times: under the trigger, then without it, then as a replay. */
interface Request {
  method: 'post' | 'put';
  path: string;
  body: unknown;
  key: string;
}

interface Case {
  command: string;
  /** Makes the case's preconditions (documents in the right status, stock) and answers its request. */
  prepare(scene: Scene): Promise<Request>;
  /** The status of the request once its events can be written. */
  answers: number;
  /** The status while they cannot: 500 (the default), unless the request was refused anyway. */
  failedWith?: number;
  /** The types of the events the request writes, in the order written. */
  events: string[];
  /**
   * What its inventory.changed event tells of SKU-1 EA, balance by balance: `InventoryStatus
   * OnHand/Allocated/Available` — the stock as the committed change left it.
   */
  balances?: string[];
}

const byCustomer = (scene: Scene, path: string, body: unknown, method: Request['method'] = 'post'): Request => ({
  method,
  path,
  body,
  key: scene.customerKey,
});
const byOperator = (scene: Scene, path: string, body: unknown): Request => ({ method: 'post', path, body, key: scene.operatorKey });

/** A receipt of 10 EA of SKU-1 in `status`, moved there by the scene's operator. */
const receiptIn = (scene: Scene, status: ReceiptStatus = 'Imported') =>
  buildReceipt(scene.ctx, { tenant: scene.tenant, key: scene.customerKey, operatorKey: scene.operatorKey, status });

/** Stock of SKU-1 on hand (through the adjustment API, so that it has its own events). */
const stockUp = (scene: Scene, qty = '100') =>
  stock(scene.ctx, { tenant: scene.tenant, items: [{ ItemNumber: SKU, UOM: 'EA', Qty: qty }], key: scene.operatorKey });

/** An order of 10 EA of SKU-1 in `status`, allocated from stock put there first (none: a backorder). */
const orderIn = async (scene: Scene, status: OrderStatus = 'Imported', { stocked = true } = {}) => {
  if (stocked) await stockUp(scene);
  return buildOrder(scene.ctx, {
    tenant: scene.tenant,
    key: scene.customerKey,
    operatorKey: scene.operatorKey,
    status,
    content: { Items: [{ ItemID: SKU, OrderedQty: '10', UOM: 'EA' }] },
  });
};

const operatorMove = (scene: Scene, operations: string, move: string, svcpoid: string) =>
  byOperator(scene, `${operations}/${move}`, { ...facilityOf(scene.tenant), SVCPOID: svcpoid, Note: 'events atomicity' });

const markOpen = (scene: Scene, operations: string) =>
  byOperator(scene, `${operations}/list`, { ...facilityOf(scene.tenant), Status: 'Imported', MarkOpen: true, Paging: { PageSize: 1000 } });

/** Every command that changes state, and the events it must leave once it commits. */
const CASES: Case[] = [
  // ---- the item master ----------------------------------------------------------------------
  {
    command: 'item import of new items',
    prepare: async (s) =>
      byCustomer(s, ITEM_IMPORT, {
        CompanyID: s.tenant.companyId,
        CustomerID: s.tenant.customerIds[0],
        Items: [{ itemID: SKU }, { itemID: 'SKU-2' }],
      }),
    answers: 200,
    events: ['item.created', 'item.created'],
  },
  {
    command: 'item import of a changed item',
    prepare: async (s) => {
      await importItems(s.ctx, { tenant: s.tenant, key: s.customerKey, items: [SKU] });
      return byCustomer(s, ITEM_IMPORT, {
        CompanyID: s.tenant.companyId,
        CustomerID: s.tenant.customerIds[0],
        Items: [{ itemID: SKU, itemDescription: 'Blue mug' }],
      });
    },
    answers: 200,
    events: ['item.updated'],
  },

  // ---- receipts (RN) ------------------------------------------------------------------------
  {
    command: 'RN import',
    prepare: async (s) => byCustomer(s, RECEIPT_IMPORT, receiptBody({ tenant: s.tenant })),
    answers: 200,
    events: ['receipt.imported'],
  },
  {
    command: 'RN update (an import of a live PONo)',
    prepare: async (s) => {
      const { poNo } = await receiptIn(s);
      const content = { PONo: poNo, Items: [{ ItemNumber: 'SKU-2', ExpectedQty: '5', UOM: 'EA' }] };
      return byCustomer(s, RECEIPT_IMPORT, receiptBody({ tenant: s.tenant, content }));
    },
    answers: 200,
    events: ['receipt.updated'],
  },
  {
    command: 'RN customer cancel (PUT cancel)',
    prepare: async (s) => {
      const { poNo } = await receiptIn(s);
      return byCustomer(s, RECEIPT_CANCEL, { ...idsOf(s.tenant), PONo: poNo }, 'put');
    },
    answers: 200,
    events: ['receipt.cancelled'],
  },
  {
    command: 'RN import with ActionCode Cancelled',
    prepare: async (s) => {
      const { poNo } = await receiptIn(s);
      return byCustomer(s, RECEIPT_IMPORT, receiptBody({ tenant: s.tenant, content: { PONo: poNo, ActionCode: 'Cancelled' } }));
    },
    answers: 200,
    events: ['receipt.cancelled'],
  },
  {
    command: 'RN open (operator)',
    prepare: async (s) => operatorMove(s, THREEPL_RECEIPT, 'open', (await receiptIn(s)).svcpoid),
    answers: 200,
    events: ['receipt.opened'],
  },
  {
    command: 'RN cancel (operator)',
    prepare: async (s) => operatorMove(s, THREEPL_RECEIPT, 'cancel', (await receiptIn(s, 'Open')).svcpoid),
    answers: 200,
    events: ['receipt.cancelled'],
  },
  {
    command: 'RN force-close (operator)',
    prepare: async (s) => operatorMove(s, THREEPL_RECEIPT, 'force-close', (await receiptIn(s, 'In Progress')).svcpoid),
    answers: 200,
    events: ['receipt.closed'],
  },
  {
    command: 'RN receiving confirmation with Close',
    prepare: async (s) => {
      const { svcpoid } = await receiptIn(s);
      return byOperator(s, RECEIPT_CONFIRM, {
        ...facilityOf(s.tenant),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Close: true,
        Items: [{ ItemNumber: SKU, ReceivedQuantity: '10', UOM: 'EA' }],
      });
    },
    answers: 200,
    events: ['receipt.received', 'receipt.closed', 'inventory.changed'],
    balances: ['Available 10/0/10'],
  },
  {
    // The 944 is queued by settle, with its x12.ready event and the partner's control numbers: they roll back too.
    command: 'RN receiving confirmation of a customer with an X12 partner',
    prepare: async (s) => {
      await addPartner(s.ctx.database.db, s.ctx.clock, {
        companyId: s.tenant.companyId,
        customerId: s.tenant.customerIds[0]!,
        id: 'ATOMICX12',
        qualifier: 'ZZ',
      });
      const { svcpoid } = await receiptIn(s);
      return byOperator(s, RECEIPT_CONFIRM, {
        ...facilityOf(s.tenant),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Items: [{ ItemNumber: SKU, ReceivedQuantity: '10', UOM: 'EA' }],
      });
    },
    answers: 200,
    events: ['receipt.received', 'inventory.changed', 'x12.ready'],
    balances: ['Available 10/0/10'],
  },
  {
    // The backorder is filled by settle, after the command and before the events: it rolls back too.
    command: 'RN receiving confirmation that fills a backorder',
    prepare: async (s) => {
      await orderIn(s, 'Imported', { stocked: false });
      const { svcpoid } = await receiptIn(s);
      return byOperator(s, RECEIPT_CONFIRM, {
        ...facilityOf(s.tenant),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Items: [{ ItemNumber: SKU, ReceivedQuantity: '4', UOM: 'EA' }],
      });
    },
    answers: 200,
    events: ['receipt.received', 'inventory.changed'],
    balances: ['Available 4/4/0'],
  },
  {
    command: 'RN 3PL list with MarkOpen',
    prepare: async (s) => {
      await receiptIn(s);
      await receiptIn(s);
      return markOpen(s, THREEPL_RECEIPT);
    },
    answers: 200,
    events: ['receipt.opened', 'receipt.opened'],
  },

  // ---- orders (DN) --------------------------------------------------------------------------
  {
    command: 'DN import that allocates stock',
    prepare: async (s) => {
      await stockUp(s);
      return byCustomer(
        s,
        ORDER_IMPORT,
        orderBody({ tenant: s.tenant, content: { Items: [{ ItemID: SKU, OrderedQty: '10', UOM: 'EA' }] } }),
      );
    },
    answers: 200,
    events: ['order.imported', 'inventory.changed'],
    balances: ['Available 100/10/90'],
  },
  {
    command: 'DN update (an import of a live ReferenceNo)',
    prepare: async (s) => {
      const { referenceNo } = await orderIn(s);
      const content = { ReferenceNo: referenceNo, Items: [{ ItemID: SKU, OrderedQty: '3', UOM: 'EA' }] };
      return byCustomer(s, ORDER_IMPORT, orderBody({ tenant: s.tenant, content }));
    },
    answers: 200,
    events: ['order.updated', 'inventory.changed'],
    balances: ['Available 100/3/97'],
  },
  {
    command: 'DN customer cancel (PUT cancel)',
    prepare: async (s) => {
      const { referenceNo } = await orderIn(s);
      return byCustomer(s, ORDER_CANCEL, { ...idsOf(s.tenant), ReferenceNo: referenceNo }, 'put');
    },
    answers: 200,
    events: ['order.cancelled', 'inventory.changed'],
    balances: ['Available 100/0/100'],
  },
  {
    command: 'DN import with ActionCode Cancelled',
    prepare: async (s) => {
      const { referenceNo } = await orderIn(s);
      return byCustomer(s, ORDER_IMPORT, { ...idsOf(s.tenant), POContent: { ReferenceNo: referenceNo, ActionCode: 'Cancelled' } });
    },
    answers: 200,
    events: ['order.cancelled', 'inventory.changed'],
    balances: ['Available 100/0/100'],
  },
  {
    command: 'DN open (operator)',
    prepare: async (s) => operatorMove(s, THREEPL_ORDER, 'open', (await orderIn(s)).svcpoid),
    answers: 200,
    events: ['order.opened'],
  },
  {
    command: 'DN cancel (operator)',
    prepare: async (s) => operatorMove(s, THREEPL_ORDER, 'cancel', (await orderIn(s, 'Open')).svcpoid),
    answers: 200,
    events: ['order.cancelled', 'inventory.changed'],
    balances: ['Available 100/0/100'],
  },
  {
    command: 'DN shipment confirmation with Close',
    prepare: async (s) => {
      const { svcpoid } = await orderIn(s);
      return byOperator(s, ORDER_SHIP, {
        ...facilityOf(s.tenant),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Close: true,
        Items: [{ ItemNumber: SKU, ShippedQty: '4', UOM: 'EA' }],
      });
    },
    answers: 200,
    events: ['order.shipped', 'order.closed', 'inventory.changed'],
    balances: ['Available 96/0/96'],
  },
  {
    command: 'DN 3PL list with MarkOpen',
    prepare: async (s) => {
      await orderIn(s);
      await buildOrder(s.ctx, { tenant: s.tenant, key: s.customerKey, content: { Items: [{ ItemID: SKU, OrderedQty: '1', UOM: 'EA' }] } });
      return markOpen(s, THREEPL_ORDER);
    },
    answers: 200,
    events: ['order.opened', 'order.opened'],
  },

  // ---- adjustments ---------------------------------------------------------------------------
  {
    command: 'quantity adjustment',
    prepare: async (s) =>
      byOperator(s, ADJUST_QTY, { ...idsOf(s.tenant), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: SKU, UOM: 'EA', Qty: '7' }] }),
    answers: 200,
    events: ['inventory.adjusted', 'inventory.changed'],
    balances: ['Available 7/0/7'],
  },
  {
    command: 'property adjustment',
    prepare: async (s) => {
      await stockUp(s);
      return byOperator(s, ADJUST_PROPERTY, {
        ...idsOf(s.tenant),
        AdjustmentNo: uniqueId('MOVE'),
        Items: [{ ItemNumber: SKU, UOM: 'EA', Qty: '3', From: {}, To: { InventoryStatus: 'Hold' } }],
      });
    },
    answers: 200,
    events: ['inventory.adjusted', 'inventory.changed'],
    balances: ['Available 97/0/97', 'Hold 3/0/0'],
  },

  // ---- failure ACKs: written in a transaction of their own, after the refusal rolled back ----------
  {
    // The refusal is the service's: the failed second transaction is an error of the request, so
    // the caller gets a 500 (not the 404), and nothing tells it the refusal was acknowledged.
    command: 'failure ACK of a PUT cancel of an unknown PONo (refused by the service)',
    prepare: async (s) => byCustomer(s, RECEIPT_CANCEL, { ...idsOf(s.tenant), PONo: uniqueId('PO') }, 'put'),
    answers: 404,
    events: ['ack.failed'],
  },
  {
    // The refusal is the schema's: the error handler keeps the 400 when its ACK cannot be written.
    command: 'failure ACK of a DN import whose body fails its schema',
    prepare: async (s) =>
      byCustomer(s, ORDER_IMPORT, orderBody({ tenant: s.tenant, content: { Items: [{ ItemID: SKU, OrderedQty: '1', UOM: 'XX' }] } })),
    failedWith: 400,
    answers: 400,
    events: ['ack.failed'],
  },
];

interface EventRow {
  type: string;
  customer_id: string;
  facility_id: string | null;
  key_id: number | string | null;
  data: string;
}

describeEachDialect('events atomicity', (dialect) => {
  const ctx = useTestApp(dialect);
  const db = () => ctx().database.db;
  const failures = failureInjection(db, dialect);

  beforeAll(async () => {
    await failures.install();
  });

  const newScene = async (): Promise<Scene> => {
    const { database, clock } = ctx();
    const tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    return {
      ctx: ctx(),
      tenant,
      customerKey: await createKey(database.db, clock, tenant, 'customer'),
      operatorKey: await createKey(database.db, clock, tenant, 'operator'),
    };
  };
  /** The tenant's events, straight from the outbox, in the order written. */
  const eventsOf = async (tenant: Tenant) => {
    const { rows } = await sql<EventRow>`
      select type, customer_id, facility_id, key_id, data from events where company_id = ${tenant.companyId} order by id`.execute(db());
    return rows;
  };

  for (const { command, prepare, answers, failedWith = 500, events, balances } of CASES) {
    it(`${command}: no event without its change, exactly its events with it`, async () => {
      const scene = await newScene();
      const { tenant } = scene;
      const request = await prepare(scene);
      // One key for all three sends: a failure must not be stored as the key's answer.
      const headers = { 'idempotency-key': uniqueId('IK') };
      const send = (): Promise<LightMyRequestResponse> => ctx()[request.method](request.path, request.body, request.key, headers);
      // What the preparation wrote stays; only what the request adds is counted.
      const earlier = (await eventsOf(tenant)).length;
      const before = await failures.snapshot(tenant.companyId, TABLES);

      const failed = await failures.withFailingInserts('events', send);
      if (failedWith === 500) expectInternalError(failed);
      else expect(failed.statusCode, failed.body).toBe(failedWith);
      expect(await failures.snapshot(tenant.companyId, TABLES)).toEqual(before);

      const succeeded = await send();
      expect(succeeded.statusCode, succeeded.body).toBe(answers);
      // A refusal that the failed ACK did not turn into a 500 was answered as it is now.
      if (failedWith !== 500) expect(failed.json()).toEqual(succeeded.json());
      const written = (await eventsOf(tenant)).slice(earlier);
      expect(written.map((event) => event.type)).toEqual(events);
      // Each is the tenant customer's, of its facility (an item's of none), and made by a key (not the CLI).
      for (const event of written) {
        expect(event.customer_id).toBe(tenant.customerIds[0]);
        expect(JSON.parse(event.data)).toMatchObject({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] });
        expect(event.facility_id).toBe(event.type.startsWith('item.') ? null : tenant.facilityIds[0]);
        expect(event.key_id).not.toBeNull();
      }
      if (balances) {
        const changed = written.filter((event) => event.type === 'inventory.changed').flatMap((event) => JSON.parse(event.data).Balances);
        expect(changed.map((b) => `${b.ItemNumber} ${b.UOM} ${b.InventoryStatus} ${b.OnHand}/${b.Allocated}/${b.Available}`)).toEqual(
          balances.map((balance) => `${SKU} EA ${balance}`),
        );
      }

      // Committed once: the replay answers the same and writes no event again.
      const replayed = await send();
      expect(replayed.statusCode).toBe(answers);
      expect(replayed.json()).toEqual(succeeded.json());
      expect(await eventsOf(tenant)).toHaveLength(earlier + events.length);
    });
  }
});
