/**
 * Seeds the benchmark tenant: company, customers, facility and an admin key through the `wharf` CLI,
 * then over HTTP the item master of each customer (the item import, 1000 items a call), the
 * receipts with their receiving confirmations (RCs) and the opening stock that the adjustments change.
 */
import { adjustmentBody, confirmationBody, importBody, itemIdOf, makeItem, receiptImportBody } from './payload.js';
import { runCli } from './processes.js';

/** Customers A and B hold the item scenarios' item masters; customer R the receipts; customer I the adjusted stock. */
export const TENANT = { company: 'BENCH', customerA: 'CUSTA', customerB: 'CUSTB', customerR: 'CUSTR', customerI: 'CUSTI', facility: 'WH1' };
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

export const IMPORT_PATH = '/shared/bam/v1/public/edi/item-master/import';
export const SEARCH_PATH = '/shared/bam/v1/public/edi/item-master/search-by-paging';
export const RN_IMPORT_PATH = '/shared/bam/v1/public/edi/inbound/receipt';
export const CONFIRMATION_PATH = '/shared/bam/v1/public/edi/3pl/inbound/receipt/post-confirmation';
export const RC_SEARCH_PATH = '/shared/bam/v1/public/edi/inbound/receipt/rc/search-by-paging';
export const RECEIPT_LIST_PATH = '/shared/bam/v1/public/edi/3pl/inbound/receipt/list';
export const ADJUST_PATH = '/shared/bam/v1/public/edi/3pl/adjust/inventory-adjust-qty-incremental';
export const LEDGER_SEARCH_PATH = '/shared/bam/v1/public/edi/3pl/inventory/ledger/search-by-paging';

/** Creates the tenant with the CLI and returns the admin key. */
export async function seedTenant(cliPath, dbUrl, env) {
  const { company, customerA, customerB, customerR, customerI, facility } = TENANT;
  const db = ['--db', dbUrl];
  await runCli(cliPath, ['company', 'add', company, ...db], env);
  for (const customer of [customerA, customerB, customerR, customerI]) {
    await runCli(cliPath, ['customer', 'add', company, customer, ...db], env);
  }
  await runCli(cliPath, ['facility', 'add', company, facility, '--timezone', 'UTC', ...db], env);
  const key = await runCli(cliPath, ['key', 'create', '--role', 'admin', '--company', company, '--label', 'bench', ...db], env);
  if (!/^\S+$/.test(key)) throw new Error('key create did not print a key alone');
  return key;
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

/** The PONo and ReferenceNo of the n-th receipt of a series (`SEED`, or a scenario's prefix). */
export function receiptNumbers(series, n) {
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
    const body = receiptImportBody(RECEIPTS, { ...receiptNumbers('SEED', n), n, itemCount: RECEIPT_ITEMS });
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
