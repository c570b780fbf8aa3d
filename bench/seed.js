/**
 * Seeds the benchmark tenant: company, customers, facility and an admin key through the `wharf` CLI,
 * then over HTTP the item master of each customer (the item import, 1000 items a call), the
 * receipts with their receiving confirmations (RCs), the opening stock that the adjustments change,
 * and the outbound orders that the DN header query pages through; and, with the CLI again, the rate
 * card and the rater key of the rate scenarios.
 */
import {
  adjustmentBody,
  confirmationBody,
  importBody,
  itemIdOf,
  makeItem,
  orderImportBody,
  orderPageBody,
  receiptImportBody,
} from './payload.js';
import { runCli } from './processes.js';
import { RATE_USER_ID } from './rate-parcels.js';

/**
 * Customers A and B hold the item scenarios' item masters; customer R the receipts; customer I the
 * adjusted stock; customer O the outbound orders.
 */
export const TENANT = {
  company: 'BENCH',
  customerA: 'CUSTA',
  customerB: 'CUSTB',
  customerR: 'CUSTR',
  customerI: 'CUSTI',
  customerO: 'CUSTO',
  facility: 'WH1',
};
export const ITEMS_A = 10_000;
export const ITEMS_B = 100;
const BATCH = 1000;

/** The receipt scenarios' tenant, in the shape the receipt bodies take. */
export const RECEIPTS = { company: TENANT.company, customer: TENANT.customerR, facility: TENANT.facility };
/** Customer R's item master, which the receipt lines draw from. */
export const RECEIPT_ITEMS = 100;
/** Receipts seeded for customer R, each with one confirmation: the RCs the RC search pages through. */
export const RECEIPTS_SEEDED = 100;

/** The adjustment scenarios' tenant, in the shape the adjustment body takes. */
export const ADJUSTMENTS = { company: TENANT.company, customer: TENANT.customerI, facility: TENANT.facility };
/**
 * Customer I's item master, each item with opening stock: the adjustments' lines go round it, so
 * that the requests in flight at one time (connections × lines) touch different balances as long
 * as that product stays below it.
 */
export const ADJUSTMENT_ITEMS = 1000;
/** The opening stock of each of customer I's items, EA. */
export const OPENING_STOCK = 100;

/** The order scenarios' tenant, in the shape the order bodies take. */
export const ORDERS = { company: TENANT.company, customer: TENANT.customerO, facility: TENANT.facility };
/**
 * Customer O's item master, each item with opening stock: the order lines go round it, so that the
 * imports in flight at one time (connections × lines) allocate from different balances as long as
 * that product stays below it.
 */
export const ORDER_ITEMS = 100;
/**
 * The opening stock of each of customer O's items, EA: far more than a run allocates (the seeded
 * orders take ORDERS_SEEDED × SEEDED_ORDER_LINES ÷ ORDER_ITEMS EA of an item, a measured import
 * of 5 lines one EA of 5 items), so that no import in the run runs short.
 */
export const ORDER_OPENING_STOCK = 10_000_000;
/** Orders seeded for customer O: the ones the DN header query pages through. */
export const ORDERS_SEEDED = 100_000;
/**
 * The lines of each seeded order, 1 EA each. The header query reads no line, so one is enough; and
 * every line costs the seeding an allocation (see docs/performance.md for how long it takes).
 */
export const SEEDED_ORDER_LINES = 1;
/** The seeding's DN imports in flight at one time: enough to keep the server busy, bounded so that it never queues thousands. */
export const SEED_CONCURRENCY = 16;

/**
 * The per-minute limit of the bench's API keys (`key create --rate-limit`, the most the CLI takes):
 * so far above what any run makes that the limiter never refuses a request, while it still counts
 * every one. Without it the keys would get the defaults (600 a minute on the EDI routes, 6,000 on
 * the rate engine) and every scenario would be refused within its first seconds; with 0 (no limit)
 * the limiter would let every request through without counting it, and so cost nothing to measure.
 */
export const BENCH_KEY_RATE_LIMIT = 1_000_000_000;
const neverRefused = ['--rate-limit', String(BENCH_KEY_RATE_LIMIT)];

export const IMPORT_PATH = '/shared/bam/v1/public/edi/item-master/import';
export const SEARCH_PATH = '/shared/bam/v1/public/edi/item-master/search-by-paging';
export const RN_IMPORT_PATH = '/shared/bam/v1/public/edi/inbound/receipt';
export const CONFIRMATION_PATH = '/shared/bam/v1/public/edi/3pl/inbound/receipt/post-confirmation';
export const RC_SEARCH_PATH = '/shared/bam/v1/public/edi/inbound/receipt/rc/search-by-paging';
export const RECEIPT_LIST_PATH = '/shared/bam/v1/public/edi/3pl/inbound/receipt/list';
export const ADJUST_PATH = '/shared/bam/v1/public/edi/3pl/adjust/inventory-adjust-qty-incremental';
export const LEDGER_SEARCH_PATH = '/shared/bam/v1/public/edi/3pl/inventory/ledger/search-by-paging';
export const ORDER_IMPORT_PATH = '/shared/bam/v1/public/edi/outbound/order';
export const ORDER_HEADER_PATH = '/shared/bam/v1/public/edi/outbound/order-level/search-by-paging';
export const ORDER_LIST_PATH = '/shared/bam/v1/public/edi/3pl/outbound/order/list';
export const INVENTORY_SEARCH_PATH = '/shared/bam/v1/public/edi/inventory/search-by-paging';

/** Creates the tenant with the CLI and returns the admin key (limited to BENCH_KEY_RATE_LIMIT a minute). */
export async function seedTenant(cliPath, dbUrl, env) {
  const { company, customerA, customerB, customerR, customerI, customerO, facility } = TENANT;
  const db = ['--db', dbUrl];
  await runCli(cliPath, ['company', 'add', company, ...db], env);
  for (const customer of [customerA, customerB, customerR, customerI, customerO]) {
    await runCli(cliPath, ['customer', 'add', company, customer, ...db], env);
  }
  await runCli(cliPath, ['facility', 'add', company, facility, '--timezone', 'UTC', ...db], env);
  const key = await runCli(
    cliPath,
    ['key', 'create', '--role', 'admin', '--company', company, '--label', 'bench', ...neverRefused, ...db],
    env,
  );
  if (!/^\S+$/.test(key)) throw new Error('key create did not print a key alone');
  return key;
}

/**
 * Loads `cardFile` as the bench company's default rate card and creates a rater key for
 * RATE_USER_ID (limited to BENCH_KEY_RATE_LIMIT a minute), with the CLI as an operator would;
 * returns the key. A rater key rather than the admin key, since that is what a shipping client holds.
 */
export async function seedRating(cliPath, dbUrl, env, cardFile, company = TENANT.company) {
  const started = performance.now();
  const db = ['--db', dbUrl];
  await runCli(cliPath, ['ratecard', 'load', cardFile, '--company', company, ...db], env);
  const rater = ['--role', 'rater', '--company', company, '--user-id', String(RATE_USER_ID), '--label', 'bench-rater'];
  const key = await runCli(cliPath, ['key', 'create', ...rater, ...neverRefused, ...db], env);
  if (!/^\S+$/.test(key)) throw new Error('key create did not print a key alone');
  return { key, seconds: (performance.now() - started) / 1000 };
}

/** POSTs a JSON body to Wharf and returns the parsed answer, its size and headers; throws on a non-2xx status. */
export async function post(baseUrl, path, key, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return { json: JSON.parse(text), bytes: Buffer.byteLength(text), headers: response.headers };
}

/** Imports `count` items for `customer` in calls of 1000; each must come back Created. */
async function seedItems(baseUrl, key, customer, count) {
  for (let start = 0; start < count; start += BATCH) {
    const items = [];
    for (let n = start + 1; n <= Math.min(start + BATCH, count); n++) items.push(makeItem(itemIdOf(n), n));
    const { json } = await post(baseUrl, IMPORT_PATH, key, importBody(TENANT.company, customer, items));
    const notCreated = json.Items.filter((item) => item.Status !== 'Created');
    if (json.Items.length !== items.length || notCreated.length > 0) {
      throw new Error(`seeding ${customer}: ${notCreated.length} of ${items.length} items were not Created`);
    }
  }
}

/** Seeds both customers' items and returns how long it took. */
export async function seedItemMaster(baseUrl, key) {
  const started = performance.now();
  await seedItems(baseUrl, key, TENANT.customerA, ITEMS_A);
  await seedItems(baseUrl, key, TENANT.customerB, ITEMS_B);
  return { itemsA: ITEMS_A, itemsB: ITEMS_B, seconds: (performance.now() - started) / 1000 };
}

/** The PONo and ReferenceNo of the n-th receipt or order of a series (`SEED`, or a scenario's prefix). */
export function documentNumbers(series, n) {
  const suffix = String(n).padStart(7, '0');
  return { poNo: `${series}-PO-${suffix}`, referenceNo: `${series}-REF-${suffix}` };
}

/**
 * Seeds customer R: its item master, then RECEIPTS_SEEDED receipts of RECEIPT_LINES lines, each
 * received in full by one confirmation, so that it has RECEIPTS_SEEDED RCs. Every import must answer
 * Success (a new receipt whose items are all known) and every confirmation must be accepted.
 */
export async function seedReceipts(baseUrl, key) {
  const started = performance.now();
  await seedItems(baseUrl, key, RECEIPTS.customer, RECEIPT_ITEMS);
  const svcpoids = new Set();
  for (let n = 1; n <= RECEIPTS_SEEDED; n++) {
    const body = receiptImportBody(RECEIPTS, { ...documentNumbers('SEED', n), n, itemCount: RECEIPT_ITEMS });
    const { json: imported } = await post(baseUrl, RN_IMPORT_PATH, key, body);
    const { SVCPOID: svcpoid, Status: status } = imported.Receipt;
    if (status !== 'Success' || svcpoids.has(svcpoid)) throw new Error(`seeding receipt ${n}: ${JSON.stringify(imported)}`);
    svcpoids.add(svcpoid);
    const lines = JSON.parse(body).ASNContent.Items;
    const { json: confirmed } = await post(
      baseUrl,
      CONFIRMATION_PATH,
      key,
      confirmationBody(RECEIPTS, { svcpoid, confirmationNo: `SEED-RC-${n}`, lines }),
    );
    if (confirmed.Receipt?.ConfirmationNo !== `SEED-RC-${n}` || confirmed.Receipt.Warnings.length > 0) {
      throw new Error(`confirming seeded receipt ${svcpoid}: ${JSON.stringify(confirmed)}`);
    }
  }
  return {
    customer: RECEIPTS.customer,
    items: RECEIPT_ITEMS,
    receipts: RECEIPTS_SEEDED,
    confirmations: RECEIPTS_SEEDED,
    seconds: (performance.now() - started) / 1000,
  };
}

/** How many receipts customer R has, by the 3PL list's totalCount. */
export async function countReceipts(baseUrl, key) {
  const body = JSON.stringify({
    CompanyID: RECEIPTS.company,
    FacilityID: RECEIPTS.facility,
    CustomerID: RECEIPTS.customer,
    Paging: { PageNo: 1, PageSize: 1 },
  });
  const { json } = await post(baseUrl, RECEIPT_LIST_PATH, key, body);
  return json.paging.totalCount;
}

/**
 * Seeds customer I: its item master of ADJUSTMENT_ITEMS items, then one adjustment that gives each
 * of them OPENING_STOCK EA (no lot, Available), so that every measured adjustment line changes a
 * balance that exists, as a count correction does. It must answer Success with a line an item.
 */
export async function seedAdjustmentStock(baseUrl, key) {
  const started = performance.now();
  await seedItems(baseUrl, key, ADJUSTMENTS.customer, ADJUSTMENT_ITEMS);
  const itemIds = Array.from({ length: ADJUSTMENT_ITEMS }, (_, i) => itemIdOf(i + 1));
  const body = adjustmentBody(ADJUSTMENTS, { adjustmentNo: 'SEED-ADJ', itemIds, qty: String(OPENING_STOCK) });
  const { json } = await post(baseUrl, ADJUST_PATH, key, body);
  if (json.Adjustment?.Status !== 'Success' || json.Adjustment.Items.length !== ADJUSTMENT_ITEMS) {
    throw new Error(`seeding the opening stock of ${ADJUSTMENTS.customer}: ${JSON.stringify(json).slice(0, 500)}`);
  }
  return {
    customer: ADJUSTMENTS.customer,
    items: ADJUSTMENT_ITEMS,
    openingStock: OPENING_STOCK,
    seconds: (performance.now() - started) / 1000,
  };
}

/** How many adjustment postings (ledger rows, one a line) customer I has, by the ledger search's totalCount. */
export async function countAdjustmentPostings(baseUrl, key) {
  const body = JSON.stringify({
    CompanyID: ADJUSTMENTS.company,
    FacilityID: ADJUSTMENTS.facility,
    CustomerID: ADJUSTMENTS.customer,
    Source: { Type: 'adjustment' },
    Paging: { PageNo: 1, PageSize: 1 },
  });
  const { json } = await post(baseUrl, LEDGER_SEARCH_PATH, key, body);
  return json.paging.totalCount;
}

/**
 * The items of the n-th order (n from 1) of `lines` lines: the next `lines` of customer O's
 * ORDER_ITEMS in order, so that consecutive orders allocate from different balances.
 */
export function orderItemIds(n, lines) {
  return Array.from({ length: lines }, (_, i) => itemIdOf((((n - 1) * lines + i) % ORDER_ITEMS) + 1));
}

/**
 * Runs `task(n)` for n from 1 to `count` with at most `concurrency` in flight; rejects with the first
 * failure, after which no further task starts.
 */
async function inParallel(count, concurrency, task) {
  let next = 1;
  let failed = false;
  const worker = async () => {
    while (!failed && next <= count) {
      const n = next++;
      try {
        await task(n);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Whether the database gets its upkeep after the n-th seeded order: once early, then every 10,000 orders. */
const isUpkeepPoint = (n) => n === 1_000 || n % 10_000 === 0;

/**
 * Seeds customer O: its item master of ORDER_ITEMS items, one adjustment that gives each of them
 * ORDER_OPENING_STOCK EA, then ORDERS_SEEDED orders of SEEDED_ORDER_LINES lines through the DN
 * import, SEED_CONCURRENCY at a time (one at a time would leave the server idle between round
 * trips). Every import must answer Success (allocated in full) with an SVCPOID of its own.
 * `progress` gets a line of text every 10,000 orders. `upkeep` runs after the 1,000th order and
 * every 10,000th, while the other imports go on: on PostgreSQL, the VACUUM ANALYZE that
 * autovacuum would run as the table grows (see vacuumAnalyze in bench/postgres.js).
 */
export async function seedOrders(baseUrl, key, { progress, upkeep = async () => {} }) {
  const started = performance.now();
  await seedItems(baseUrl, key, ORDERS.customer, ORDER_ITEMS);
  const itemIds = Array.from({ length: ORDER_ITEMS }, (_, i) => itemIdOf(i + 1));
  const stock = adjustmentBody(ORDERS, { adjustmentNo: 'SEED-ORDER-STOCK', itemIds, qty: String(ORDER_OPENING_STOCK) });
  const { json: adjusted } = await post(baseUrl, ADJUST_PATH, key, stock);
  if (adjusted.Adjustment?.Status !== 'Success' || adjusted.Adjustment.Items.length !== ORDER_ITEMS) {
    throw new Error(`seeding the opening stock of ${ORDERS.customer}: ${JSON.stringify(adjusted).slice(0, 500)}`);
  }

  const ordersStarted = performance.now();
  const svcpoids = new Set();
  let upkeepSeconds = 0;
  await inParallel(ORDERS_SEEDED, SEED_CONCURRENCY, async (n) => {
    const body = orderImportBody(ORDERS, { ...documentNumbers('SEED', n), n, itemIds: orderItemIds(n, SEEDED_ORDER_LINES) });
    const { json } = await post(baseUrl, ORDER_IMPORT_PATH, key, body);
    const { SVCPOID: svcpoid, Status: status } = json.Order ?? {};
    if (status !== 'Success' || svcpoids.has(svcpoid)) throw new Error(`seeding order ${n}: ${JSON.stringify(json)}`);
    svcpoids.add(svcpoid);
    const done = svcpoids.size;
    if (done % 10_000 === 0) {
      const seconds = (performance.now() - ordersStarted) / 1000;
      progress(`${done} of ${ORDERS_SEEDED} orders in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)}/s)`);
    }
    if (isUpkeepPoint(done)) {
      const upkeepStarted = performance.now();
      await upkeep();
      upkeepSeconds += (performance.now() - upkeepStarted) / 1000;
    }
  });
  const finished = performance.now();
  return {
    customer: ORDERS.customer,
    items: ORDER_ITEMS,
    openingStock: ORDER_OPENING_STOCK,
    orders: ORDERS_SEEDED,
    linesEach: SEEDED_ORDER_LINES,
    concurrency: SEED_CONCURRENCY,
    ordersSeconds: (finished - ordersStarted) / 1000,
    upkeepSeconds,
    seconds: (finished - started) / 1000,
  };
}

/**
 * Customer O's item master and its opening stock, without the seeded orders: what a DN import
 * allocates from, each line in full (the outbox and X12 benches).
 */
export async function seedOrderStock(wharf, apiKey) {
  const started = performance.now();
  const itemIds = Array.from({ length: ORDER_ITEMS }, (_, i) => itemIdOf(i + 1));
  const items = itemIds.map((id, i) => makeItem(id, i + 1));
  const { json: imported } = await post(wharf, IMPORT_PATH, apiKey, importBody(TENANT.company, ORDERS.customer, items));
  if (imported.Items.some((item) => item.Status !== 'Created')) throw new Error(`seeding ${ORDERS.customer}'s items: not all Created`);
  const stock = adjustmentBody(ORDERS, { adjustmentNo: 'SEED-ORDER-STOCK', itemIds, qty: String(ORDER_OPENING_STOCK) });
  const { json: adjusted } = await post(wharf, ADJUST_PATH, apiKey, stock);
  if (adjusted.Adjustment?.Status !== 'Success' || adjusted.Adjustment.Items.length !== ORDER_ITEMS) {
    throw new Error(`seeding the opening stock of ${ORDERS.customer}: ${JSON.stringify(adjusted).slice(0, 500)}`);
  }
  return { items: ORDER_ITEMS, openingStock: ORDER_OPENING_STOCK, seconds: (performance.now() - started) / 1000 };
}

/** How many orders customer O has, by the 3PL list's totalCount. */
export async function countOrders(baseUrl, key) {
  const { json } = await post(baseUrl, ORDER_LIST_PATH, key, orderPageBody(ORDERS, 1, 1));
  return json.paging.totalCount;
}

/** What customer O's stock holds allocated, EA, summed over its balances (one a item: one page holds them all). */
export async function allocatedStock(baseUrl, key) {
  const { json } = await post(baseUrl, INVENTORY_SEARCH_PATH, key, orderPageBody(ORDERS, 1, 1000));
  if (json.paging.totalCount > json.results.data.length) throw new Error(`${ORDERS.customer} has more balances than one page holds`);
  return json.results.data.reduce((sum, row) => sum + Number(row.Allocated), 0);
}
