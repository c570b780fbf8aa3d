/**
 * Seeds the benchmark tenant: company, customers, facility and an admin key through the `wharf` CLI,
 * then the item master of each customer through the HTTP import, 1000 items a call.
 */
import { makeItem, importBody } from './payload.js';
import { runCli } from './processes.js';

export const TENANT = { company: 'BENCH', customerA: 'CUSTA', customerB: 'CUSTB', facility: 'WH1' };
export const ITEMS_A = 10_000;
export const ITEMS_B = 100;
const BATCH = 1000;

export const IMPORT_PATH = '/shared/bam/v1/public/edi/item-master/import';
export const SEARCH_PATH = '/shared/bam/v1/public/edi/item-master/search-by-paging';

/** Creates the tenant with the CLI and returns the admin key. */
export async function seedTenant(cliPath, dbUrl, env) {
  const { company, customerA, customerB, facility } = TENANT;
  const db = ['--db', dbUrl];
  await runCli(cliPath, ['company', 'add', company, ...db], env);
  await runCli(cliPath, ['customer', 'add', company, customerA, ...db], env);
  await runCli(cliPath, ['customer', 'add', company, customerB, ...db], env);
  await runCli(cliPath, ['facility', 'add', company, facility, '--timezone', 'UTC', ...db], env);
  const key = await runCli(cliPath, ['key', 'create', '--role', 'admin', '--company', company, '--label', 'bench', ...db], env);
  if (!/^\S+$/.test(key)) throw new Error('key create did not print a key alone');
  return key;
}

/** POSTs a JSON body to Wharf and returns the parsed answer; throws on a non-2xx status. */
export async function post(baseUrl, path, key, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return { json: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/** Imports `count` items for `customer` in calls of 1000; each must come back Created. */
async function seedItems(baseUrl, key, customer, count) {
  for (let start = 0; start < count; start += BATCH) {
    const items = [];
    for (let n = start + 1; n <= Math.min(start + BATCH, count); n++) items.push(makeItem(`ITEM-${String(n).padStart(5, '0')}`, n));
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
