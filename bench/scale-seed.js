/**
 * The seeding of `npm run bench:scale`: a year of one customer's documents, written in this process
 * through the same service functions the routes call (the built dist/), in batches of BATCH_ORDERS
 * orders, each batch one transaction (dist/seeding-batches.js), on a clock the seeding drives, so
 * that every row they leave (ACKs, events, allocations, ledger, X12 advices, counters) is the row
 * production writes.
 *
 * What a year holds (docs/performance.md, "Pages at scale"): an order every ORDER_INTERVAL_MS
 * (about 2,740 a day, 1,000,000 a year) of 1 to 3 lines of 1 EA, from an item master that starts at
 * INITIAL_ITEMS items and gains one every ORDERS_PER_NEW_ITEM orders (item imports). Every order is
 * allocated in full: before a batch's orders, each item that would run short is received (RN import
 * of up to RECEIPT_LINES lines in a monthly lot, then a receiving confirmation with Close), and one
 * adjustment a batch corrects the count of up to 4 balances (−1 and +1 in turn, on the lots just
 * received). One order in CANCEL_EVERY is cancelled by the customer an hour after its import; every
 * other one ships (a shipment confirmation with Close, which writes its DC) 4 to 12 hours after its
 * import. The customer has an X12 partner, so each receipt, shipment and adjustment queues an
 * advice; the partner takes what waits at the start of every batch (outbox list and ack), so about
 * one batch's advices wait at any time. One webhook endpoint of the customer takes
 * WEBHOOK_EVENT_TYPES only: a fixed small share of the events (about 4 deliveries per 100 orders,
 * where the orders make about 6 events each), and after each batch the dispatcher's fan-out (numbering the events, making the
 * deliveries) runs here as it would right after the commit; the server attempts them later.
 *
 * Sizes accumulate: seedTo(n) carries on from where the last call stopped, in time and in state.
 */
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { itemIdOf, makeItem, importBody, orderImportBody, confirmationBody } from './payload.js';
import { vacuumAnalyze } from './postgres.js';
import { ADJUST_PATH, CONFIRMATION_PATH, IMPORT_PATH, ORDER_IMPORT_PATH, ORDERS, RN_IMPORT_PATH, documentNumbers } from './seed.js';

const EDI = '/shared/bam/v1/public';

/** The customer whose year is seeded: customer O of the bench tenant (bench/seed.js). */
export const SCALE_TENANT = ORDERS;
/** 1,000,000 orders in 365 days. */
export const ORDER_INTERVAL_MS = (365 * 24 * 3600 * 1000) / 1_000_000;
/** Orders a transaction carries, with the receipts, shipments, cancels and adjustments that fall in their time. */
export const BATCH_ORDERS = 500;
export const INITIAL_ITEMS = 100;
export const ORDERS_PER_NEW_ITEM = 50;
/** The most lines of one receipt. */
export const RECEIPT_LINES = 10;
/** One order in this many is cancelled (2.7%). */
export const CANCEL_EVERY = 37;
const HOUR_MS = 3600 * 1000;
const CASE_EA = 24;
/** What a restock leaves beyond a batch's demand, EA: room for the count corrections. */
const RESTOCK_MARGIN_EA = 24;
/** The event types the webhook endpoint takes. */
export const WEBHOOK_EVENT_TYPES = ['order.cancelled', 'receipt.closed', 'inventory.adjusted'];
/** PostgreSQL gets a VACUUM ANALYZE after the first batch and then every this many (autovacuum's work; bench/postgres.js). */
const UPKEEP_EVERY_BATCHES = 20;

/** The documents' numbers: orders SO-PO-…/SO-REF-…, receipts ASN-PO-…/ASN-REF-…. */
export const orderNumbers = (n) => documentNumbers('SO', n);
export const receiptNumbers = (r) => documentNumbers('ASN', r);
export const isCancelled = (n) => n % CANCEL_EVERY === 5;
const CANCEL_AFTER_MS = HOUR_MS;
const shipAfter = (n) => (4 + (n % 9)) * HOUR_MS;

/** The real clock: the bench key is looked up now, not in the seeded year. */
const systemClock = { now: () => Date.now() };

/** Items in the master once order n is due. */
const itemsBy = (n) => INITIAL_ITEMS + Math.floor(n / ORDERS_PER_NEW_ITEM);

/** A 32-bit mix of two integers, for choosing items without a random source: every run seeds the same. */
function mix(a, b) {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/** The items of order n (1 to 3 different ones) among the first `itemCount`. */
function orderItemIds(n, itemCount) {
  const lines = 1 + (n % 3);
  const chosen = new Set();
  for (let i = 0; chosen.size < lines; i++) chosen.add(1 + (mix(n, i) % itemCount));
  return [...chosen].map(itemIdOf);
}

/** The month's lot of a receipt made at `at`. */
const lotOf = (at) => `LOT-${new Date(at).toISOString().slice(0, 7).replace('-', '')}`;

/** Loads the services from the built dist/. */
async function loadServices(root) {
  const dist = (path) => import(join(root, 'dist', path));
  const [
    batches,
    config,
    server,
    tenants,
    items,
    receipts,
    receiving,
    orders,
    shipping,
    adjustments,
    outbox,
    endpoints,
    deliveries,
    events,
    validate,
    formats,
  ] = await Promise.all([
    dist('seeding-batches.js'),
    dist('config.js'),
    dist('server.js'),
    dist('modules/tenants/tenants.service.js'),
    dist('modules/items/items.service.js'),
    dist('modules/receipts/receipts.service.js'),
    dist('modules/receipts/receiving.service.js'),
    dist('modules/orders/orders.service.js'),
    dist('modules/orders/shipping.service.js'),
    dist('modules/inventory/adjustments.service.js'),
    dist('modules/x12/outbox.service.js'),
    dist('modules/webhooks/endpoints.service.js'),
    dist('modules/webhooks/deliveries.service.js'),
    dist('modules/events/events.service.js'),
    dist('lib/validate.js'),
    dist('http/formats.js'),
  ]);
  const schemas = await Promise.all([
    dist('modules/items/items.schemas.js'),
    dist('modules/receipts/receipts.schemas.js'),
    dist('modules/receipts/receiving.schemas.js'),
    dist('modules/orders/orders.schemas.js'),
    dist('modules/orders/shipping.schemas.js'),
    dist('modules/inventory/adjustments.schemas.js'),
    dist('modules/x12/x12.schemas.js'),
    dist('modules/webhooks/webhooks.schemas.js'),
  ]);
  const schema = Object.assign({}, ...schemas);
  // The routes' validator: Wharf's options and its date formats (app.ts).
  const ajv = new Ajv({ ...validate.ajvOptions, formats: formats.dateTimeFormats });
  const problemsOf = (bodySchema, body) => {
    const check = ajv.compile(bodySchema);
    return check(body) ? [] : check.errors.map((error) => `${error.instancePath} ${error.message}`);
  };
  return {
    inSeedingBatch: batches.inSeedingBatch,
    loadConfig: config.loadConfig,
    openDatabase: server.openDatabase,
    authenticateApiKey: tenants.authenticateApiKey,
    findLastNumbered: events.findLastNumbered,
    fanOut: deliveries.fanOut,
    problemsOf,
    /** Each request kind: its route (for the request hash), its body's schema and its service. */
    requests: {
      items: { route: `POST ${IMPORT_PATH}`, schema: schema.ItemImportRequestSchema, run: items.importItems },
      receipt: { route: `POST ${RN_IMPORT_PATH}`, schema: schema.ReceiptImportRequestSchema, run: receipts.importReceipt },
      receiving: { route: `POST ${CONFIRMATION_PATH}`, schema: schema.ConfirmationRequestSchema, run: receiving.confirmReceipt },
      order: { route: `POST ${ORDER_IMPORT_PATH}`, schema: schema.OrderImportRequestSchema, run: orders.importOrder },
      cancel: { route: `PUT ${EDI}/edi/outbound/order/cancel`, schema: schema.OrderCancelRequestSchema, run: orders.cancelOrderByCustomer },
      shipment: {
        route: `POST ${EDI}/edi/3pl/outbound/order/post-confirmation`,
        schema: schema.ShipmentRequestSchema,
        run: shipping.confirmShipment,
      },
      adjustment: { route: `POST ${ADJUST_PATH}`, schema: schema.QuantityAdjustmentRequestSchema, run: adjustments.adjustQuantities },
      outboxAck: { route: `POST ${EDI}/edi/x12/outbox/ack`, schema: schema.OutboxAckRequestSchema, run: outbox.acknowledgeAdvices },
      endpoint: {
        route: `POST ${EDI}/edi/webhook/endpoint/create`,
        schema: schema.EndpointCreateRequestSchema,
        run: (cx, request) => endpoints.createEndpoint(cx, request, true),
      },
    },
    listOutbox: outbox.listOutbox,
  };
}

/** The answer every kind of request must give; anything else stops the seeding. */
const EXPECTED = {
  items: (answer, request) => answer.Items.length === request.Items.length && answer.Items.every((item) => item.Status === 'Created'),
  receipt: (answer) => answer.Receipt.Status === 'Success',
  receiving: (answer, request) =>
    answer.Receipt.ConfirmationNo === request.ConfirmationNo && answer.Receipt.Status === 'Closed' && answer.Receipt.Warnings.length === 0,
  order: (answer) => answer.Order.Status === 'Success',
  cancel: (answer) => answer.Order.Status === 'Success',
  shipment: (answer) => answer.Order.Status === 'Shipped',
  adjustment: (answer, request) => answer.Adjustment.Status === 'Success' && answer.Adjustment.Items.length === request.Items.length,
  outboxAck: (answer, request) => answer.Taken.length === request.OutboxIDs.length,
  endpoint: (answer) => typeof answer.Endpoint.EndpointID === 'string',
};

/**
 * Seeds one database at scale: prepare() once, then seedTo() for each size. The database is open
 * only while it seeds, so that the server measured next has it to itself.
 */
export class ScaleSeeder {
  #services;
  #dbUrl;
  #env;
  #principal;
  #clock = {
    time: 0,
    now() {
      return this.time;
    },
  };
  /** The time of order 0: order n is due at start + n × ORDER_INTERVAL_MS. */
  #start;
  /** Orders imported so far; receipts, adjustments, items and other counts. */
  #counts = {
    orders: 0,
    orderLines: 0,
    receipts: 0,
    receiptLines: 0,
    shipments: 0,
    cancels: 0,
    adjustments: 0,
    items: 0,
    advicesTaken: 0,
    batches: 0,
  };
  /** EA each item has Available, as the seeding's plan left it. */
  #available = new Map();
  /** Orders imported and neither shipped nor cancelled yet: n → { svcpoid }. */
  #openOrders = new Map();
  /** Shipments and cancels still to make: { at, kind, n }, in no order. */
  #scheduled = [];
  /** The times of the first and the latest request seeded. */
  #firstAt = 0;
  #lastAt = 0;
  /** The newest event's Sequence once the last size's fan-out was done. */
  #lastSequence = 0;
  /** Request kinds whose first body was checked against its route's schema. */
  #checked = new Set();

  constructor({ services, dbUrl, env, start }) {
    this.#services = services;
    this.#dbUrl = dbUrl;
    this.#env = env;
    this.#start = start;
  }

  /** Loads the built services; `start` is when the seeded year begins (ms since the epoch). */
  static async create(root, { dbUrl, env, start }) {
    return new ScaleSeeder({ services: await loadServices(root), dbUrl, env, start });
  }

  get counts() {
    return { ...this.#counts };
  }

  /**
   * What the seeded documents hold, for the pages that name them: the middle order, the middle one
   * that shipped (none before the first shipment), the middle receipt and item, the newest Sequence
   * and the seeded time.
   */
  facts() {
    const { orders, receipts, items } = this.#counts;
    const middle = Math.ceil(orders / 2);
    let shipped = middle;
    while (shipped >= 1 && (isCancelled(shipped) || this.#openOrders.has(shipped))) shipped -= 1;
    return {
      orders,
      receipts,
      items,
      firstAt: this.#firstAt,
      lastAt: this.#lastAt,
      lastSequence: this.#lastSequence,
      order: orderNumbers(middle),
      shippedOrder: shipped >= 1 ? orderNumbers(shipped) : undefined,
      receipt: receipts > 0 ? receiptNumbers(Math.ceil(receipts / 2)) : undefined,
      itemId: items > 0 ? itemIdOf(Math.ceil(items / 2)) : undefined,
    };
  }

  /** The time order n is due. */
  orderAt(n) {
    return this.#start + n * ORDER_INTERVAL_MS;
  }

  #open() {
    const { loadConfig, openDatabase } = this.#services;
    return openDatabase(loadConfig({ databaseUrl: this.#dbUrl, logLevel: 'warn' }, this.#env));
  }

  /** Makes one request through its service in a batch; checks its body once a kind and its answer always. */
  async #request(contextOf, kind, request) {
    const { route, schema, run } = this.#services.requests[kind];
    if (!this.#checked.has(kind)) {
      const problems = this.#services.problemsOf(schema, request);
      if (problems.length > 0) throw new Error(`a seeded ${kind} body is one its route refuses: ${problems.join('; ')}`);
      this.#checked.add(kind);
    }
    const answer = await run(contextOf(route, request), request);
    if (!EXPECTED[kind](answer, request)) {
      throw new Error(`a seeded ${kind} was answered ${JSON.stringify(answer).slice(0, 500)} for ${JSON.stringify(request).slice(0, 500)}`);
    }
    return answer;
  }

  /**
   * Once, before the first size: the webhook endpoint of the customer, pointing at `url` (the
   * bench's receiver), made with the admin key `apiKey`, whose principal every request acts as.
   */
  async prepare(apiKey, url) {
    const db = this.#open();
    try {
      this.#principal = await this.#services.authenticateApiKey(db, systemClock, apiKey);
      if (!this.#principal) throw new Error('the bench key is not known to the database');
      this.#clock.time = this.#start;
      const request = {
        CompanyID: SCALE_TENANT.company,
        CustomerID: SCALE_TENANT.customer,
        Url: url,
        EventTypes: WEBHOOK_EVENT_TYPES,
        Description: 'bench:scale receiver',
      };
      await this.#services.inSeedingBatch(db, this.#clock, this.#principal, (contextOf) => this.#request(contextOf, 'endpoint', request));
    } finally {
      await db.destroy();
    }
  }

  /**
   * Seeds up to `orders` orders in all (the orders seeded before included), with everything their
   * time holds; `progress(text)` hears every 10 batches. Answers the seconds spent (in batches, in
   * the fan-out after them, and on PostgreSQL in upkeep: VACUUM ANALYZE) and the counts so far.
   */
  async seedTo(orders, { progress = () => {} } = {}) {
    const db = this.#open();
    const onPostgres = this.#dbUrl.startsWith('postgres');
    const seconds = { batches: 0, fanOut: 0, upkeep: 0 };
    const from = this.#counts.orders;
    const started = performance.now();
    try {
      while (this.#counts.orders < orders) {
        const first = this.#counts.orders + 1;
        const last = Math.min(orders, this.#counts.orders + BATCH_ORDERS);
        const plan = this.#plan(first, last);
        const batchStarted = performance.now();
        const learned = await this.#services.inSeedingBatch(db, this.#clock, this.#principal, (contextOf) => this.#run(contextOf, plan));
        seconds.batches += (performance.now() - batchStarted) / 1000;
        this.#keep(plan, learned);
        const fanOutStarted = performance.now();
        await this.#services.fanOut(db, this.#clock.now());
        seconds.fanOut += (performance.now() - fanOutStarted) / 1000;
        this.#counts.batches += 1;
        if (onPostgres && (this.#counts.batches === 1 || this.#counts.batches % UPKEEP_EVERY_BATCHES === 0)) {
          seconds.upkeep += await vacuumAnalyze(this.#dbUrl);
        }
        if (this.#counts.batches % 10 === 0) {
          const elapsed = (performance.now() - started) / 1000;
          progress(`${this.#counts.orders} orders seeded (${((this.#counts.orders - from) / elapsed).toFixed(0)} a second for this size)`);
        }
      }
      if (onPostgres) seconds.upkeep += await vacuumAnalyze(this.#dbUrl);
      this.#lastSequence = await this.#services.findLastNumbered(db);
      return { seconds, counts: this.counts };
    } finally {
      await db.destroy();
    }
  }

  /**
   * The requests of the batch of orders `first` to `last`, each with its time, in time order: the
   * partner's take of its advices, the new items, the restocks and their confirmations, the count
   * correction, then the orders with the shipments and cancels that fall between them. Moves the
   * plan's stock on as the batch will.
   */
  #plan(first, last) {
    const begin = first === 1 ? this.#start : this.orderAt(first - 1);
    const end = this.orderAt(last);
    const itemCount = itemsBy(last);
    const orders = [];
    const demand = new Map();
    for (let n = first; n <= last; n++) {
      const itemIds = orderItemIds(n, itemCount);
      orders.push({ n, itemIds });
      for (const itemId of itemIds) demand.set(itemId, (demand.get(itemId) ?? 0) + 1);
    }
    // Restocks: each item the batch would leave short gets its demand, the margin, in whole cases.
    const restocks = [];
    for (const [itemId, wanted] of demand) {
      const available = this.#available.get(itemId) ?? 0;
      if (available >= wanted + RESTOCK_MARGIN_EA) continue;
      const qty = Math.ceil((wanted + RESTOCK_MARGIN_EA - available) / CASE_EA) * CASE_EA;
      restocks.push({ itemId, qty });
    }
    const receipts = [];
    for (let i = 0; i < restocks.length; i += RECEIPT_LINES) receipts.push(restocks.slice(i, i + RECEIPT_LINES));

    // The batch's first requests, spread over the first ORDER_INTERVAL_MS of its time, before its first order.
    const opening = [];
    const step = Math.floor((ORDER_INTERVAL_MS * 0.8) / (4 + 2 * receipts.length));
    let at = begin + step;
    const next = () => (at += step) - step;
    opening.push({ at: next(), kind: 'take' });
    const newItems = [];
    for (let i = this.#counts.items + 1; i <= itemCount; i++) newItems.push(i);
    if (newItems.length > 0) opening.push({ at: next(), kind: 'items', newItems });
    const lot = lotOf(begin);
    receipts.forEach((lines, i) => {
      const r = this.#counts.receipts + i + 1;
      opening.push({ at: next(), kind: 'receipt', r, lot, lines });
      opening.push({ at: next(), kind: 'receiving', r, lot, lines });
    });
    const corrections = restocks.slice(0, 4).map((line, i) => ({ itemId: line.itemId, lotNo: lot, qty: i % 2 === 0 ? -1 : 1 }));
    if (corrections.length === 0) {
      corrections.push({ itemId: itemIdOf(1 + (mix(first, 7) % itemCount)), lotNo: undefined, qty: 1 });
    }
    opening.push({ at: next(), kind: 'adjustment', a: this.#counts.adjustments + 1, corrections });

    for (const { itemId, qty } of restocks) this.#available.set(itemId, (this.#available.get(itemId) ?? 0) + qty);
    for (const { itemId, qty } of corrections) this.#available.set(itemId, (this.#available.get(itemId) ?? 0) + qty);
    for (const [itemId, wanted] of demand) this.#available.set(itemId, this.#available.get(itemId) - wanted);

    const timed = orders.map(({ n, itemIds }) => ({ at: this.orderAt(n), kind: 'order', n, itemIds }));
    for (const { n, itemIds } of orders) {
      const at = this.orderAt(n);
      if (isCancelled(n)) this.#scheduled.push({ at: at + CANCEL_AFTER_MS, kind: 'cancel', n, itemIds });
      else this.#scheduled.push({ at: at + shipAfter(n), kind: 'shipment', n, itemIds });
    }
    const due = this.#scheduled.filter((op) => op.at <= end);
    this.#scheduled = this.#scheduled.filter((op) => op.at > end);
    for (const op of due) {
      if (op.kind === 'cancel') for (const itemId of op.itemIds) this.#available.set(itemId, this.#available.get(itemId) + 1);
    }
    const requests = [...opening, ...timed, ...due].sort((a, b) => a.at - b.at);
    if (requests[0].at <= this.#lastAt) throw new Error('the seeding clock would go back');
    if (first === 1) this.#firstAt = requests[0].at;
    this.#lastAt = requests.at(-1).at;
    return { first, last, requests, newItems, receipts: receipts.length, restockLines: restocks.length };
  }

  /**
   * Makes the batch's requests in order, the clock at each one's time. Answers what it learned (the
   * SVCPOIDs of its orders, the advices taken) without keeping it: a batch that runs again starts
   * from the same state.
   */
  async #run(contextOf, plan) {
    const { company, customer, facility } = SCALE_TENANT;
    const svcpoids = new Map();
    const receiptIds = new Map();
    let advicesTaken = 0;
    const svcpoidOf = (n) => svcpoids.get(n) ?? this.#openOrders.get(n)?.svcpoid;
    for (const op of plan.requests) {
      this.#clock.time = op.at;
      switch (op.kind) {
        case 'take': {
          for (;;) {
            const request = { CompanyID: company, CustomerID: customer, Status: 'Waiting', Paging: { PageNo: 1, PageSize: 1000 } };
            // The list is a read: the route's service, in the batch's transaction.
            const { db: trx, principal } = contextOf(`POST ${EDI}/edi/x12/outbox/list`, request);
            const waiting = await this.#services.listOutbox(trx, principal, request);
            const ids = waiting.results.data.map((advice) => advice.OutboxID);
            if (ids.length === 0) break;
            await this.#request(contextOf, 'outboxAck', { CompanyID: company, CustomerID: customer, OutboxIDs: ids });
            advicesTaken += ids.length;
          }
          break;
        }
        case 'items': {
          const request = JSON.parse(
            importBody(
              company,
              customer,
              op.newItems.map((i) => makeItem(itemIdOf(i), i)),
            ),
          );
          await this.#request(contextOf, 'items', request);
          break;
        }
        case 'receipt': {
          const { poNo, referenceNo } = receiptNumbers(op.r);
          const request = {
            CompanyID: company,
            CustomerID: customer,
            FacilityID: facility,
            ASNContent: {
              ReceiptType: 'Regular Receipt',
              SupplierID: `SUP-${op.r % 20}`,
              PONo: poNo,
              ReferenceNo: referenceNo,
              BOLNo: `BOL-${String(op.r).padStart(8, '0')}`,
              ContainerNo: `CONT${String(op.r).padStart(7, '0')}`,
              CarrierName: 'Bench Freight',
              SCACCode: 'BNCH',
              Status: 'Imported',
              Items: op.lines.map((line, i) => ({
                POLineNo: i + 1,
                ItemNumber: line.itemId,
                ExpectedQty: String(line.qty),
                UOM: 'EA',
                LotNo: op.lot,
                Pallets: '1',
              })),
            },
          };
          const answer = await this.#request(contextOf, 'receipt', request);
          receiptIds.set(op.r, { svcpoid: answer.Receipt.SVCPOID, lines: request.ASNContent.Items });
          break;
        }
        case 'receiving': {
          const { svcpoid, lines } = receiptIds.get(op.r);
          const request = {
            ...JSON.parse(confirmationBody(SCALE_TENANT, { svcpoid, confirmationNo: `RC-${op.r}`, lines })),
            Close: true,
          };
          await this.#request(contextOf, 'receiving', request);
          break;
        }
        case 'adjustment':
          await this.#request(contextOf, 'adjustment', {
            CompanyID: company,
            FacilityID: facility,
            CustomerID: customer,
            AdjustmentNo: `ADJ-${op.a}`,
            ReasonCode: 'CYCLE-COUNT',
            Items: op.corrections.map(({ itemId, lotNo, qty }) => ({
              ItemNumber: itemId,
              UOM: 'EA',
              ...(lotNo ? { LotNo: lotNo } : {}),
              Qty: String(qty),
            })),
          });
          break;
        case 'order': {
          const request = JSON.parse(orderImportBody(SCALE_TENANT, { ...orderNumbers(op.n), n: op.n, itemIds: op.itemIds }));
          const answer = await this.#request(contextOf, 'order', request);
          svcpoids.set(op.n, answer.Order.SVCPOID);
          break;
        }
        case 'cancel':
          await this.#request(contextOf, 'cancel', {
            CompanyID: company,
            CustomerID: customer,
            FacilityID: facility,
            ReferenceNo: orderNumbers(op.n).referenceNo,
            CancelNote: 'The buyer withdrew the order',
          });
          break;
        case 'shipment':
          await this.#request(contextOf, 'shipment', {
            CompanyID: company,
            FacilityID: facility,
            SVCPOID: svcpoidOf(op.n),
            ConfirmationNo: `SHP-${op.n}`,
            CarrierName: 'Bench Parcel',
            SCACCode: 'BNCP',
            TrackingNo: `1ZBENCH${String(op.n).padStart(10, '0')}`,
            Close: true,
            Items: op.itemIds.map((itemId, i) => ({ LineNo: i + 1, ItemNumber: itemId, ShippedQty: '1', UOM: 'EA' })),
          });
          break;
        default:
          throw new Error(`unknown request kind ${op.kind}`);
      }
    }
    return { svcpoids, advicesTaken };
  }

  /** Keeps what a committed batch learned and counts what it made. */
  #keep(plan, { svcpoids, advicesTaken }) {
    const counts = this.#counts;
    for (const op of plan.requests) {
      if (op.kind === 'order') {
        this.#openOrders.set(op.n, { svcpoid: svcpoids.get(op.n) });
        counts.orderLines += op.itemIds.length;
      } else if (op.kind === 'shipment' || op.kind === 'cancel') {
        this.#openOrders.delete(op.n);
        counts[op.kind === 'shipment' ? 'shipments' : 'cancels'] += 1;
      }
    }
    counts.orders = plan.last;
    counts.items += plan.newItems.length;
    counts.receipts += plan.receipts;
    counts.receiptLines += plan.restockLines;
    counts.adjustments += 1;
    counts.advicesTaken += advicesTaken;
  }
}
