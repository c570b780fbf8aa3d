/**
 * The scenarios: what each one sends, on which database, which baseline it is compared with, and a
 * check of one answer before the load starts (so that a scenario never measures an error path or an
 * empty page). A scenario may also have an `after()`, run once its load is over, that fails the run
 * when an answer under load was not what the check saw (the rate quotes).
 */
import {
  RECEIPT_LINES,
  adjustmentBody,
  itemIdOf,
  oneItemImportBody,
  orderImportBody,
  orderPageBody,
  rcSearchBody,
  receiptImportBody,
  searchBody,
} from './payload.js';
import {
  ADJUSTMENTS,
  ADJUSTMENT_ITEMS,
  ADJUST_PATH,
  BENCH_KEY_RATE_LIMIT,
  IMPORT_PATH,
  ITEMS_A,
  ITEMS_B,
  ORDERS,
  ORDERS_SEEDED,
  ORDER_HEADER_PATH,
  ORDER_IMPORT_PATH,
  RC_SEARCH_PATH,
  RECEIPTS,
  RECEIPTS_SEEDED,
  RECEIPT_ITEMS,
  RN_IMPORT_PATH,
  SEARCH_PATH,
  TENANT,
  documentNumbers,
  orderItemIds,
  post,
} from './seed.js';
import { DEST_ZIPS, RATE_PATH, rateAnswerProblem, rateBody } from './rate-parcels.js';

/**
 * The groups of scenarios that BENCH_ONLY may name, each with the seeding it needs (bench/run.js):
 * items (item search and import; the item master, SQLite only), receipts (RC search, RN import),
 * adjustments, orders (DN header query and DN import; the 100,000 orders), rate (the rate quote; a
 * card and a rater key, no HTTP seeding). B0 runs with every group; B1 and B1-pg with the groups
 * that write.
 */
export const GROUPS = ['items', 'receipts', 'adjustments', 'orders', 'rate'];
export const WRITE_GROUPS = ['items', 'receipts', 'adjustments', 'orders'];
/**
 * The groups whose scenarios also run against a Wharf with the limiter off (bench/servers.js), to
 * measure what the limiter costs: receipts (the RN import) and rate (the rate quote).
 */
export const LIMITER_GROUPS = ['receipts', 'rate'];

/**
 * The two sides of a limiter comparison: the Wharf that limits every request (the bench keys'
 * limit is never reached) and the one with no limiter at all. Each scenario measured both ways
 * keeps its key on the limiting server; the limiter-off one adds `keySuffix`, and `series` is the
 * RN import's PONo and ReferenceNo series, of its own so that its receipts are new ones too.
 */
const LIMITED = { server: (database) => database.wharf, keySuffix: '', titleSuffix: '', series: 'RN' };
const LIMITER_OFF = { server: (database) => database.unlimited, keySuffix: '-unlimited', titleSuffix: ', limiter off', series: 'RNU' };

/**
 * Checks that an answer came from the side it should: the limiting Wharf counted the request under
 * the bench keys' limit (RateLimit-Limit), the limiter-off one did not limit it at all.
 */
function expectSide(headers, side, title) {
  const limit = headers.get('ratelimit-limit');
  if (side === LIMITER_OFF) expect(limit === null, `${title}: the limiter-off Wharf answered RateLimit-Limit ${limit}`);
  else expect(limit === String(BENCH_KEY_RATE_LIMIT), `${title}: RateLimit-Limit ${limit}, expected ${BENCH_KEY_RATE_LIMIT}`);
}

/** The key of the limiter-off twin of the scenario (and tally) `key`. */
export const limiterOffKey = (key) => `${key}${LIMITER_OFF.keySuffix}`;

const PAGE_SIZE = 100;
const DEEP_PAGE = 90;
const JSON_HEADERS = { 'content-type': 'application/json' };
const withKey = (apiKey) => ({ ...JSON_HEADERS, authorization: `APIKey ${apiKey}` });

function expect(condition, message) {
  if (!condition) throw new Error(`pre-check failed: ${message}`);
}

/** A one-item import body whose itemID is new on every call, so every request is a real insert. */
function importBodies(prefix, customer) {
  let n = 0;
  return () => {
    n += 1;
    return oneItemImportBody(TENANT.company, customer, `${prefix}-${String(n).padStart(7, '0')}`, n, n);
  };
}

/** A Wharf item search of one page, checked for its size and position. */
function searchScenario({ key, title, database, customer, pageNo, totalCount }) {
  const { wharf, apiKey } = database;
  const body = searchBody(TENANT.company, customer, pageNo, PAGE_SIZE);
  return {
    key,
    title,
    database: database.label,
    baseline: 'B0',
    kind: 'read',
    target: { url: `${wharf}${SEARCH_PATH}`, headers: withKey(apiKey), body },
    async check() {
      const { json, bytes } = await post(wharf, SEARCH_PATH, apiKey, body);
      expect(json.paging.totalCount === totalCount, `${title}: totalCount ${json.paging.totalCount}, expected ${totalCount}`);
      expect(json.results.data.length === PAGE_SIZE, `${title}: ${json.results.data.length} items on the page`);
      expect(json.paging.startIndex === (pageNo - 1) * PAGE_SIZE + 1, `${title}: startIndex ${json.paging.startIndex}`);
      return bytes;
    },
  };
}

/** The two baselines of a run's reads and of its writes on `database` (B1 or B1-pg). */
function baselineScenarios(b0, databases) {
  const b0Body = searchBody(TENANT.company, TENANT.customerA, 1, PAGE_SIZE);
  const b0Scenario = {
    key: 'B0',
    title: 'B0: bare Fastify, small JSON answer',
    database: null,
    baseline: null,
    kind: 'read baseline',
    target: { url: `${b0}/b0`, headers: JSON_HEADERS, body: b0Body },
    async check() {
      const response = await fetch(`${b0}/b0`, { method: 'POST', headers: JSON_HEADERS, body: b0Body });
      expect(response.ok, `B0 answered ${response.status}`);
      return Buffer.byteLength(await response.text());
    },
  };
  // B1 and B1-pg run only when a group that writes does (bench/servers.js starts them then).
  const withB1 = databases.filter((database) => database.b1);
  const b1Scenarios = withB1.map(({ label, b1 }) => {
    const body = importBodies(b1.key, TENANT.customerA);
    return {
      key: b1.key,
      title: `${b1.key}: Fastify + schema + 1 durable ${label} insert`,
      database: label,
      baseline: null,
      kind: 'write baseline',
      target: {
        url: `${b1.url}/b1`,
        headers: JSON_HEADERS,
        requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: body() }) }],
      },
      async check() {
        const response = await fetch(`${b1.url}/b1`, { method: 'POST', headers: JSON_HEADERS, body: body() });
        const text = await response.text();
        expect(response.ok, `${b1.key} answered ${response.status}: ${text.slice(0, 300)}`);
        return Buffer.byteLength(text);
      },
    };
  });
  return [b0Scenario, ...b1Scenarios];
}

/** The item master reads on `database` (seeded with ITEMS_A and ITEMS_B items). */
function itemSearchScenarios(database) {
  return [
    searchScenario({
      key: 'search-A-p1',
      title: `Wharf item search, page 1 of ${ITEMS_A} items`,
      database,
      customer: TENANT.customerA,
      pageNo: 1,
      totalCount: ITEMS_A,
    }),
    searchScenario({
      key: 'search-A-p90',
      title: `Wharf item search, page ${DEEP_PAGE} of ${ITEMS_A} items`,
      database,
      customer: TENANT.customerA,
      pageNo: DEEP_PAGE,
      totalCount: ITEMS_A,
    }),
    searchScenario({
      key: 'search-B-p1',
      title: `Wharf item search, page 1 of ${ITEMS_B} items`,
      database,
      customer: TENANT.customerB,
      pageNo: 1,
      totalCount: ITEMS_B,
    }),
  ];
}

/** The item import of one new item on `database`; `tally` counts the answers' statuses. */
function itemImportScenario(database, tally) {
  const { wharf, apiKey } = database;
  const body = importBodies('IMP', TENANT.customerA);
  return {
    key: 'import-1',
    title: 'Wharf item import, 1 new item (~2 KB body)',
    database: database.label,
    baseline: database.b1.key,
    kind: 'write',
    target: {
      url: `${wharf}${IMPORT_PATH}`,
      headers: withKey(apiKey),
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: body() }),
          onResponse: (status, answer) => {
            if (status < 200 || status >= 300) return;
            const result = JSON.parse(answer).Items?.[0]?.Status;
            tally[result in tally ? result : 'other'] += 1;
          },
        },
      ],
    },
    async check() {
      const { json: answer, bytes } = await post(wharf, IMPORT_PATH, apiKey, body());
      expect(answer.Items?.[0]?.Status === 'Created', `import answered ${JSON.stringify(answer)}`);
      return bytes;
    },
  };
}

/** Page 1 of customer R's RECEIPTS_SEEDED RCs on `database`: every RC of RECEIPT_LINES lines. */
function rcSearchScenario(database) {
  const { wharf, apiKey } = database;
  const body = rcSearchBody(RECEIPTS, 1, PAGE_SIZE);
  const title = `Wharf RC search, page 1 of ${RECEIPTS_SEEDED} RCs (${RECEIPT_LINES} lines each)`;
  return {
    key: `rc-search-${database.id}`,
    title,
    database: database.label,
    baseline: 'B0',
    kind: 'read',
    target: { url: `${wharf}${RC_SEARCH_PATH}`, headers: withKey(apiKey), body },
    async check() {
      const { json, bytes, headers } = await post(wharf, RC_SEARCH_PATH, apiKey, body);
      const total = Number(headers.get('x-total-count'));
      expect(total === RECEIPTS_SEEDED, `${title}: X-Total-Count ${headers.get('x-total-count')}, expected ${RECEIPTS_SEEDED}`);
      expect(Array.isArray(json) && json.length === Math.min(PAGE_SIZE, RECEIPTS_SEEDED), `${title}: ${json.length} records on the page`);
      expect(
        json.every((record) => record.RC.Items.length === RECEIPT_LINES),
        `${title}: an RC without ${RECEIPT_LINES} lines`,
      );
      return bytes;
    },
  };
}

/**
 * The RN import of a new receipt of RECEIPT_LINES lines on `database`: a new PONo and ReferenceNo
 * on every request, so each one creates a receipt, its lines and an ACK. `tally` counts the answers'
 * statuses (Success: all items known; Warning: saved with a warning), the check's included, and
 * `newReceipts`, the answers with an SVCPOID not in `svcpoids` (an update would repeat one), which
 * the database's RN imports share. `side` is LIMITED or LIMITER_OFF: which Wharf it sends to, and
 * the series of its document numbers. bench/outbox-cost.js runs it too.
 */
export function rnImportScenario(database, tally, svcpoids, side = LIMITED) {
  const { apiKey } = database;
  const wharf = side.server(database);
  let n = 0;
  const body = () => {
    n += 1;
    return receiptImportBody(RECEIPTS, { ...documentNumbers(side.series, n), n, itemCount: RECEIPT_ITEMS });
  };
  const count = ({ Status: status, SVCPOID: svcpoid } = {}) => {
    tally[status in tally ? status : 'other'] += 1;
    if (svcpoid !== undefined && !svcpoids.has(svcpoid)) {
      svcpoids.add(svcpoid);
      tally.newReceipts += 1;
    }
  };
  return {
    key: `rn-import-${database.id}${side.keySuffix}`,
    title: `Wharf RN import, 1 new receipt of ${RECEIPT_LINES} lines${side.titleSuffix}`,
    database: database.label,
    baseline: database.b1.key,
    kind: 'write',
    target: {
      url: `${wharf}${RN_IMPORT_PATH}`,
      headers: withKey(apiKey),
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: body() }),
          onResponse: (status, answer) => {
            if (status >= 200 && status < 300) count(JSON.parse(answer).Receipt);
          },
        },
      ],
    },
    async check() {
      const { json: answer, bytes, headers } = await post(wharf, RN_IMPORT_PATH, apiKey, body());
      count(answer.Receipt);
      expect(answer.Receipt?.Status === 'Success', `RN import answered ${JSON.stringify(answer)}`);
      expectSide(headers, side, 'RN import');
      return bytes;
    },
  };
}

/** The number of columns of the DN header query's `head` and of each of its rows (spec 2.10). */
const ORDER_HEADER_COLUMNS = 40;
/** The DN header query's deep page: page 900 of the seeded orders' 1,000 pages of PAGE_SIZE. */
const ORDER_DEEP_PAGE = 900;

/**
 * One page of customer O's ORDERS_SEEDED orders by the DN header query on `database`, checked for
 * its total (exactly the seeded orders: the reads run before the DN import adds more), size,
 * position and its rows' 40 columns.
 */
function orderHeaderScenario(database, { key, pageNo }) {
  const { wharf, apiKey } = database;
  const body = orderPageBody(ORDERS, pageNo, PAGE_SIZE);
  const title = `Wharf DN header query, page ${pageNo} of ${ORDERS_SEEDED} orders`;
  return {
    key: `${key}-${database.id}`,
    title,
    database: database.label,
    baseline: 'B0',
    kind: 'read',
    target: { url: `${wharf}${ORDER_HEADER_PATH}`, headers: withKey(apiKey), body },
    async check() {
      const { json, bytes } = await post(wharf, ORDER_HEADER_PATH, apiKey, body);
      const { head, data } = json.results;
      expect(json.paging.totalCount === ORDERS_SEEDED, `${title}: totalCount ${json.paging.totalCount}, expected ${ORDERS_SEEDED}`);
      expect(json.paging.startIndex === (pageNo - 1) * PAGE_SIZE + 1, `${title}: startIndex ${json.paging.startIndex}`);
      expect(head.length === ORDER_HEADER_COLUMNS, `${title}: ${head.length} columns in head`);
      expect(data.length === PAGE_SIZE, `${title}: ${data.length} rows on the page`);
      expect(
        data.every((row) => Object.keys(row).length === ORDER_HEADER_COLUMNS && head.every((column) => column in row)),
        `${title}: a row without the ${ORDER_HEADER_COLUMNS} columns of head`,
      );
      return bytes;
    },
  };
}

/** The number of lines of a measured DN import, each of a different item. */
export const ORDER_LINES = 5;

/**
 * The DN import of a new order of ORDER_LINES lines on `database`: a new ReferenceNo (and PONo) on
 * every request, so each one creates an order, its lines, their allocations and an ACK; 1 EA a line
 * from plentiful stock, so every line allocates in full. The lines go round customer O's
 * ORDER_ITEMS in order, so the imports in flight allocate from different balances. `tally` counts
 * the answers' statuses (Success: allocated in full; Warning: short), the check's included, and
 * `newOrders`, the answers with an SVCPOID not seen before (an update would repeat one).
 * bench/outbox-cost.js runs it too.
 */
export function orderImportScenario(database, tally) {
  const { wharf, apiKey } = database;
  let n = 0;
  const body = () => {
    n += 1;
    return orderImportBody(ORDERS, { ...documentNumbers('DN', n), n, itemIds: orderItemIds(n, ORDER_LINES) });
  };
  const svcpoids = new Set();
  const count = ({ Status: status, SVCPOID: svcpoid } = {}) => {
    tally[status === 'Success' || status === 'Warning' ? status : 'other'] += 1;
    if (svcpoid !== undefined && !svcpoids.has(svcpoid)) {
      svcpoids.add(svcpoid);
      tally.newOrders += 1;
    }
  };
  const title = `Wharf DN import, 1 new order of ${ORDER_LINES} lines (allocating)`;
  return {
    key: `dn-import-${database.id}`,
    title,
    database: database.label,
    baseline: database.b1.key,
    kind: 'write',
    target: {
      url: `${wharf}${ORDER_IMPORT_PATH}`,
      headers: withKey(apiKey),
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: body() }),
          onResponse: (status, answer) => {
            if (status >= 200 && status < 300) count(JSON.parse(answer).Order);
          },
        },
      ],
    },
    async check() {
      const { json: answer, bytes } = await post(wharf, ORDER_IMPORT_PATH, apiKey, body());
      count(answer.Order);
      expect(answer.Order?.Status === 'Success', `${title}: answered ${JSON.stringify(answer).slice(0, 500)}`);
      return bytes;
    },
  };
}

/** The line counts of the adjustment scenarios: one line, and a count correction of 20 items. */
export const ADJUSTMENT_LINES = [1, 20];

/** The key of the adjustment scenario of `lines` lines on the database `databaseId`, and of its tally. */
export const adjustmentKey = (lines, databaseId) => `adjust-${lines}-${databaseId}`;

/**
 * An inventory adjustment of `tally.lines` lines on `database`: +1 EA on as many different items of
 * customer I, under a new AdjustmentNo on every request, so each one posts its lines and writes its
 * adjustment row. The items go round customer I's ADJUSTMENT_ITEMS in order, so the requests in
 * flight change different balances. `tally` counts the answers' statuses (the check's included) and
 * `mismatched`, the 2xx answers whose AdjustmentNo, items or quantities are not those sent (each
 * connection has one request in flight, so autocannon's per-connection context holds the one
 * answered).
 */
function adjustmentScenario(database, tally) {
  const { wharf, apiKey } = database;
  const { lines } = tally;
  let n = 0;
  const next = () => {
    n += 1;
    const adjustmentNo = `ADJ-${lines}-${String(n).padStart(8, '0')}`;
    const itemIds = Array.from({ length: lines }, (_, i) => itemIdOf((((n - 1) * lines + i) % ADJUSTMENT_ITEMS) + 1));
    return { adjustmentNo, itemIds, body: adjustmentBody(ADJUSTMENTS, { adjustmentNo, itemIds }) };
  };
  const count = (answer, sent) => {
    const status = answer.Adjustment?.Status;
    tally[status === 'Success' || status === 'Warning' ? status : 'other'] += 1;
    const items = answer.Adjustment?.Items ?? [];
    const same =
      answer.Adjustment?.AdjustmentNo === sent.adjustmentNo &&
      items.length === sent.itemIds.length &&
      items.every((item, i) => item.ItemNumber === sent.itemIds[i] && item.Qty === '1');
    if (!same) tally.mismatched += 1;
  };
  const title = `Wharf quantity adjustment, ${lines} line${lines === 1 ? '' : 's'} (+1 on ${lines === 1 ? 'an item' : `${lines} items`})`;
  return {
    key: adjustmentKey(lines, database.id),
    title,
    database: database.label,
    baseline: database.b1.key,
    kind: 'write',
    target: {
      url: `${wharf}${ADJUST_PATH}`,
      headers: withKey(apiKey),
      requests: [
        {
          method: 'POST',
          setupRequest: (request, context) => {
            const { body, ...sent } = next();
            context.sent = sent;
            return { ...request, body };
          },
          onResponse: (status, answer, context) => {
            if (status >= 200 && status < 300) count(JSON.parse(answer), context.sent);
          },
        },
      ],
    },
    async check() {
      const { body, ...sent } = next();
      const { json: answer, bytes } = await post(wharf, ADJUST_PATH, apiKey, body);
      count(answer, sent);
      expect(answer.Adjustment?.Status === 'Success', `${title}: answered ${JSON.stringify(answer).slice(0, 500)}`);
      expect(tally.mismatched === 0, `${title}: the answer is not that of ${sent.adjustmentNo}: ${JSON.stringify(answer).slice(0, 500)}`);
      return bytes;
    },
  };
}

/**
 * The last-mile rate quote on `database`, with its rater key: each request quotes the next parcel of
 * bench/rate-parcels.js (the destination goes round DEST_ZIPS), so the zone and the distance vary
 * as they would for a shipping client. A quote reads no database row in the common case (the key
 * and the card's choice are remembered for a second), so it is compared with B0. Every answer, the
 * warm-up's included, must be a quote of both services with four-decimal prices: `tally` counts
 * those (`quoted`) and the rest (`other`, with the first problem), and after() fails the run on any
 * of the rest (a non-2xx answer already fails it in bench/load.js). `side` is LIMITED or
 * LIMITER_OFF: which Wharf it sends to.
 */
function rateScenario(database, tally, side = LIMITED) {
  const { rateKey } = database;
  const wharf = side.server(database);
  let n = 0;
  const title = `Wharf rate quote (HTTP), ${DEST_ZIPS.length} destinations in turn${side.titleSuffix}`;
  const count = (answer) => {
    const problem = rateAnswerProblem(answer);
    if (problem === undefined) tally.quoted += 1;
    else {
      tally.other += 1;
      tally.firstProblem ??= `${problem}: ${JSON.stringify(answer).slice(0, 300)}`;
    }
  };
  return {
    key: `rate-${database.id}${side.keySuffix}`,
    title,
    database: database.label,
    baseline: 'B0',
    kind: 'read',
    target: {
      url: `${wharf}${RATE_PATH}`,
      headers: withKey(rateKey),
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: rateBody(n++) }),
          onResponse: (status, answer) => {
            if (status >= 200 && status < 300) count(JSON.parse(answer));
          },
        },
      ],
    },
    // Every destination once, so that a ZIP the geography or the card does not price fails here
    // rather than under load; the answer of the first is the one whose size the table shows.
    async check() {
      let firstBytes;
      for (let i = 0; i < DEST_ZIPS.length; i++) {
        const { json, bytes, headers } = await post(wharf, RATE_PATH, rateKey, rateBody(i));
        const problem = rateAnswerProblem(json);
        expect(problem === undefined, `${title}: to ${DEST_ZIPS[i]}: ${problem}: ${JSON.stringify(json).slice(0, 300)}`);
        expectSide(headers, side, title);
        firstBytes ??= bytes;
      }
      return firstBytes;
    },
    after() {
      if (tally.other > 0) {
        throw new Error(
          `${title} on ${database.label}: ${tally.other} answers were not quotes of both services (first: ${tally.firstProblem})`,
        );
      }
    },
  };
}

/**
 * Every scenario of `groups` (see GROUPS), in the order they run: the baselines, the rate quotes,
 * the reads, then the writes (the item import adds items to customer A and the DN import orders to
 * customer O, which the searches count): on each database the RN import, the adjustments of
 * ADJUSTMENT_LINES lines, then the DN import. Each rate quote and RN import has a twin on the
 * database's limiter-off Wharf (key `…-unlimited`), listed right before it; bench/run.js runs the
 * two in rounds, alternately first, and each keeps its body counter and tally from round to round.
 * The scenario on the limiting Wharf keeps the key, tally and baseline it had.
 *
 * `databases`: one entry per Wharf server, { id, label, wharf, unlimited, apiKey, rateKey, b1: {
 * key, url }, items } where `unlimited` is the URL of the limiter-off Wharf on the same database
 * (needed with the groups of LIMITER_GROUPS), `items` says whether the item master of customers A
 * and B was seeded there (the item scenarios run only on those) and `b1` is absent when no group
 * that writes runs. The tallies count the write and rate answers per scenario key, so that the run
 * can show each request was what it should be. `limiterPairs` lists the scenarios measured both
 * ways: { databaseId, database (label), withLimiter, withoutLimiter } (scenario keys).
 */
export function scenarios({ b0, databases, groups = GROUPS }) {
  const has = (group) => groups.includes(group);
  if (has('items')) expect(databases.filter((database) => database.items).length === 1, 'the item scenarios run on exactly one database');
  const tallies = {};
  const rates = [];
  const reads = [];
  const writes = [];
  const limiterPairs = [];
  const pair = (database, measured) => {
    limiterPairs.push({
      databaseId: database.id,
      database: database.label,
      withLimiter: measured.key,
      withoutLimiter: limiterOffKey(measured.key),
    });
  };
  for (const database of databases) {
    if (has('rate')) {
      const newTally = () => ({ quoted: 0, other: 0, firstProblem: null });
      const measured = rateScenario(database, (tallies[`rate-${database.id}`] = newTally()));
      rates.push(rateScenario(database, (tallies[limiterOffKey(measured.key)] = newTally()), LIMITER_OFF), measured);
      pair(database, measured);
    }
  }
  for (const database of databases) {
    if (has('items') && database.items) reads.push(...itemSearchScenarios(database));
    if (has('receipts')) reads.push(rcSearchScenario(database));
    if (has('orders')) {
      reads.push(orderHeaderScenario(database, { key: 'dn-header-p1', pageNo: 1 }));
      reads.push(orderHeaderScenario(database, { key: 'dn-header-deep', pageNo: ORDER_DEEP_PAGE }));
    }
  }
  for (const database of databases) {
    if (has('items') && database.items) {
      tallies['import-1'] = { Created: 0, Updated: 0, Unchanged: 0, other: 0 };
      writes.push(itemImportScenario(database, tallies['import-1']));
    }
    if (has('receipts')) {
      const newTally = () => ({ Success: 0, Warning: 0, other: 0, newReceipts: 0 });
      const svcpoids = new Set();
      const measured = rnImportScenario(database, (tallies[`rn-import-${database.id}`] = newTally()), svcpoids);
      const off = rnImportScenario(database, (tallies[limiterOffKey(measured.key)] = newTally()), svcpoids, LIMITER_OFF);
      writes.push(off, measured);
      pair(database, measured);
    }
    if (has('adjustments')) {
      for (const lines of ADJUSTMENT_LINES) {
        const tally = (tallies[adjustmentKey(lines, database.id)] = { lines, Success: 0, Warning: 0, other: 0, mismatched: 0 });
        writes.push(adjustmentScenario(database, tally));
      }
    }
    if (has('orders')) {
      const dn = (tallies[`dn-import-${database.id}`] = { Success: 0, Warning: 0, other: 0, newOrders: 0 });
      writes.push(orderImportScenario(database, dn));
    }
  }
  return { tallies, limiterPairs, list: [...baselineScenarios(b0, databases), ...rates, ...reads, ...writes] };
}
