/**
 * What the run checks after the load: every write scenario's answers were writes of their own, and
 * the database holds what they wrote (read back over HTTP).
 */
import { searchBody } from './payload.js';
import { ADJUSTMENT_LINES, ORDER_LINES, adjustmentKey, limiterOffKey } from './scenarios.js';
import {
  ADJUSTMENT_ITEMS,
  ITEMS_A,
  ORDERS,
  ORDERS_SEEDED,
  RECEIPTS,
  RECEIPTS_SEEDED,
  SEARCH_PATH,
  SEEDED_ORDER_LINES,
  TENANT,
  allocatedStock,
  countAdjustmentPostings,
  countOrders,
  countReceipts,
  post,
} from './seed.js';

/** Every item import answer must have been a write, and the created items must be in customer A's master. */
async function verifyImports(wharf, apiKey, tally) {
  const answered = tally.Created + tally.Updated + tally.Unchanged + tally.other;
  if (tally.Unchanged > 0 || tally.other > 0 || answered === 0) {
    throw new Error(`the item import scenario was not all writes: ${JSON.stringify(tally)}`);
  }
  const after = await post(wharf, SEARCH_PATH, apiKey, searchBody(TENANT.company, TENANT.customerA, 1, 1));
  if (after.json.paging.totalCount < ITEMS_A + tally.Created) {
    throw new Error(
      `after the import ${TENANT.customerA} has ${after.json.paging.totalCount} items, expected at least ${ITEMS_A + tally.Created}`,
    );
  }
}

/**
 * Every RN import answer must have been Success with an SVCPOID of its own (an update of an existing
 * PONo would repeat one), and customer R must hold at least the seeded receipts plus one per answer
 * (more when requests were still in flight as a run stopped: those were created but not counted).
 * `tallies` are those of the database's RN import scenarios, by key: the one with the limiter and
 * its limiter-off twin, which both write to customer R of that database.
 */
async function verifyReceiptImports(database, tallies) {
  let answered = 0;
  for (const [key, tally] of Object.entries(tallies)) {
    if (tally.Warning > 0 || tally.other > 0 || tally.Success === 0 || tally.newReceipts !== tally.Success) {
      throw new Error(`the RN import ${key} on ${database.label} was not all clean creates: ${JSON.stringify(tally)}`);
    }
    answered += tally.Success;
  }
  const receipts = await countReceipts(database.wharf, database.apiKey);
  if (receipts < RECEIPTS_SEEDED + answered) {
    throw new Error(
      `after the RN imports on ${database.label} ${RECEIPTS.customer} has ${receipts} receipts, expected at least ${RECEIPTS_SEEDED + answered}`,
    );
  }
}

/**
 * Every adjustment answer must have been Success and name the AdjustmentNo, items and +1 sent; and
 * customer I's ledger must hold one adjustment posting per line answered, on top of the opening
 * stock's ADJUSTMENT_ITEMS. A replayed AdjustmentNo would answer alike but post nothing, so the
 * ledger would fall short. It may hold more, by at most the lines of the requests in flight when the
 * warm-up and the measured run of each scenario stopped (committed, their answers not counted).
 */
async function verifyAdjustments(database, tallies, connections) {
  let expected = ADJUSTMENT_ITEMS;
  let slack = 0;
  for (const tally of tallies) {
    if (tally.Warning > 0 || tally.other > 0 || tally.mismatched > 0 || tally.Success === 0) {
      throw new Error(`the ${tally.lines}-line adjustment on ${database.label} was not all clean writes: ${JSON.stringify(tally)}`);
    }
    expected += tally.lines * tally.Success;
    slack += tally.lines * 2 * connections;
  }
  const postings = await countAdjustmentPostings(database.wharf, database.apiKey);
  if (postings < expected || postings > expected + slack) {
    throw new Error(
      `after the adjustments on ${database.label} the ledger of ${TENANT.customerI} holds ${postings} adjustment postings, ` +
        `expected ${expected} to ${expected + slack}`,
    );
  }
  return { postings, expectedAtLeast: expected };
}

/**
 * Every DN import answer must have been Success (allocated in full) with an SVCPOID of its own, and
 * customer O must hold the seeded orders plus one per answer, plus at most the requests still in
 * flight when the warm-up and the measured run stopped (created, their answers not counted). Its
 * stock must hold allocated exactly what those orders ordered: 1 EA a line, SEEDED_ORDER_LINES
 * lines a seeded order and ORDER_LINES a measured one, so an order saved without its allocation,
 * or allocated twice, shows.
 */
async function verifyOrderImports(database, tally, connections) {
  if (tally.Warning > 0 || tally.other > 0 || tally.Success === 0 || tally.newOrders !== tally.Success) {
    throw new Error(`the DN import on ${database.label} was not all clean creates: ${JSON.stringify(tally)}`);
  }
  const expected = ORDERS_SEEDED + tally.Success;
  const slack = 2 * connections;
  const orders = await countOrders(database.wharf, database.apiKey);
  if (orders < expected || orders > expected + slack) {
    throw new Error(
      `after the DN import on ${database.label} ${ORDERS.customer} has ${orders} orders, expected ${expected} to ${expected + slack}`,
    );
  }
  const allocated = await allocatedStock(database.wharf, database.apiKey);
  const ordered = ORDERS_SEEDED * SEEDED_ORDER_LINES + (orders - ORDERS_SEEDED) * ORDER_LINES;
  if (allocated !== ordered) {
    throw new Error(
      `after the DN import on ${database.label} ${ORDERS.customer} has ${allocated} EA allocated, its ${orders} orders ordered ${ordered}`,
    );
  }
  return { orders, expectedAtLeast: expected, allocated };
}

/**
 * Runs every check of the write scenarios whose tallies bench/scenarios.js keeps (by scenario key),
 * for the scenarios that ran (BENCH_ONLY may leave some out); throws on the first that fails.
 * Answers, per database id, the ledger counts of the adjustments and the order and allocation
 * counts of the DN import, of those that ran.
 */
export async function verifyWrites({ databases, tallies, connections }) {
  const itemDatabase = databases.find((database) => database.items);
  if (tallies['import-1']) await verifyImports(itemDatabase.wharf, itemDatabase.apiKey, tallies['import-1']);
  const adjustments = {};
  const orders = {};
  for (const database of databases) {
    const rnKey = `rn-import-${database.id}`;
    const rn = Object.fromEntries([rnKey, limiterOffKey(rnKey)].filter((key) => tallies[key]).map((key) => [key, tallies[key]]));
    if (Object.keys(rn).length > 0) await verifyReceiptImports(database, rn);
    const ofDatabase = ADJUSTMENT_LINES.map((lines) => tallies[adjustmentKey(lines, database.id)]).filter(Boolean);
    if (ofDatabase.length > 0) adjustments[database.id] = await verifyAdjustments(database, ofDatabase, connections);
    const dn = tallies[`dn-import-${database.id}`];
    if (dn) orders[database.id] = await verifyOrderImports(database, dn, connections);
  }
  return { adjustments, orders };
}
