/**
 * The measuring of `npm run bench:scale`: every search of the API that answers a totalCount, each
 * page of it that a client asks for (docs/performance.md, "Pages at scale"), over HTTP against the
 * running server with autocannon (bench/load.js). Each page is checked once first (2xx, the rows
 * its totalCount and position give, a lookup that finds its document), then driven for a warm-up
 * and a fixed time; the answers' totals and sizes are kept with the figures.
 *
 * The pages: `first`, page 1 of 100 with no filter beyond the scope the search requires; `lookup`,
 * the same with a document's number (PONo, itemID, ItemNumber, the ledger's Source, an EventID) of
 * a document from the middle of the seeded ones; `week`, the same with a seven-day window of
 * CreatedWhen or UpdatedWhen (whichever the search takes) centred on the middle of the seeded time;
 * `deep`, page 100 of 100 (offset 9,900); and for the events search `after`, the page after a
 * Sequence 50 below the newest (a client's cursor that is nearly caught up). A search without such
 * a filter has no such page; the X12 outbox's deep page lists every advice (`Status` All), since
 * the partner takes them as they come and only about a batch's worth wait.
 */
import { measure } from './load.js';
import { post } from './seed.js';
import { SCALE_TENANT } from './scale-seed.js';

const EDI = '/shared/bam/v1/public';
export const PAGE_SIZE = 100;
export const DEEP_PAGE = 100;
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** How far below the newest Sequence the `after` page starts. */
const AFTER_BACK = 50;

const { company, customer, facility } = SCALE_TENANT;
/** The scope of a customer's document searches. */
const customerInFacility = { CompanyID: company, FacilityID: facility, CustomerID: customer };
/** The warehouse's scope: the facility, every customer (the 3PL lists, the ledger). */
const facilityScope = { CompanyID: company, FacilityID: facility };
const customerScope = { CompanyID: company, CustomerID: customer };

/** Facility-local ISO time with milliseconds (the bench facility is in UTC). */
const local = (at) => new Date(at).toISOString().slice(0, 23);
/** ISO time with its offset. */
const offset = (at) => new Date(at).toISOString();

const createdLocal = (from, to) => ({ CreatedWhenFrom: local(from), CreatedWhenTo: local(to) });
const updatedOffset = (from, to) => ({ UpdatedWhenFrom: offset(from), UpdatedWhenTo: offset(to) });
const createdOffset = (from, to) => ({ CreatedWhenFrom: offset(from), CreatedWhenTo: offset(to) });

/**
 * Every search: its path, scope, how a lookup names a document (from the facts; undefined when
 * the facts have none) and which window it takes. Their order is the table's.
 */
const SEARCHES = [
  {
    id: 'dn-header',
    title: 'DN header (order level)',
    path: '/edi/outbound/order-level/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.order && { PONo: facts.order.poNo },
    window: updatedOffset,
  },
  {
    id: 'rn-header',
    title: 'RN header (receipt level)',
    path: '/edi/inbound/receipt-level/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.receipt && { PONo: facts.receipt.poNo },
    window: updatedOffset,
  },
  {
    id: 'rc',
    title: 'RC search',
    path: '/edi/inbound/receipt/rc/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.receipt && { PONo: facts.receipt.poNo },
    window: createdLocal,
  },
  {
    id: 'dc',
    title: 'DC search',
    path: '/edi/outbound/order/dc/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.shippedOrder && { PONo: facts.shippedOrder.poNo },
    window: createdLocal,
  },
  {
    id: 'rn-ack',
    title: 'RN ACK search',
    path: '/edi/inbound/receipt/ack/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.receipt && { PONo: facts.receipt.poNo },
    window: createdLocal,
  },
  {
    id: 'dn-ack',
    title: 'DN ACK search',
    path: '/edi/outbound/order/ack/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.order && { PONo: facts.order.poNo },
    window: createdLocal,
  },
  {
    id: 'order-list',
    title: '3PL order list',
    path: '/edi/3pl/outbound/order/list',
    scope: facilityScope,
    lookup: (facts) => facts.order && { PONo: facts.order.poNo },
    window: updatedOffset,
  },
  {
    id: 'receipt-list',
    title: '3PL receipt list',
    path: '/edi/3pl/inbound/receipt/list',
    scope: facilityScope,
    lookup: (facts) => facts.receipt && { PONo: facts.receipt.poNo },
    window: updatedOffset,
  },
  {
    id: 'items',
    title: 'Item master search',
    path: '/edi/item-master/search-by-paging',
    scope: customerScope,
    lookup: (facts) => facts.itemId && { itemID: facts.itemId },
    window: updatedOffset,
  },
  {
    id: 'inventory',
    title: 'Inventory search',
    path: '/edi/inventory/search-by-paging',
    scope: customerInFacility,
    lookup: (facts) => facts.itemId && { ItemNumber: facts.itemId },
    window: updatedOffset,
  },
  {
    id: 'ledger',
    title: 'Ledger search',
    path: '/edi/3pl/inventory/ledger/search-by-paging',
    scope: facilityScope,
    lookup: (facts) => facts.shippedOrder?.svcpoid && { Source: { Type: 'shipment', ID: facts.shippedOrder.svcpoid } },
    window: createdLocal,
  },
  {
    id: 'events',
    title: 'Events search',
    path: '/edi/events/search-by-paging',
    scope: customerScope,
    after: (facts) => facts.lastSequence > 0 && { AfterSequence: Math.max(0, facts.lastSequence - AFTER_BACK) },
    window: createdOffset,
  },
  {
    id: 'deliveries',
    title: 'Webhook delivery search',
    path: '/edi/webhook/delivery/search-by-paging',
    scope: { CompanyID: company },
    lookup: (facts) => facts.eventId && { EventID: facts.eventId },
  },
  {
    id: 'outbox',
    title: 'X12 outbox list',
    path: '/edi/x12/outbox/list',
    scope: customerScope,
    deepFilter: { Status: 'All' },
  },
];

export const PAGES = ['first', 'lookup', 'after', 'week', 'deep'];

/** The totalCount of an answer (its paging, or X-Total-Count for the searches that answer an array) and its rows. */
function pageOf(json, headers) {
  if (Array.isArray(json)) return { totalCount: Number(headers.get('x-total-count')), rows: json.length };
  return { totalCount: json.paging.totalCount, rows: json.results.data.length };
}

/** The first row of a page of `path` with `filter` (or undefined). */
async function firstRow(wharf, key, path, body) {
  const { json } = await post(wharf, `${EDI}${path}`, key, JSON.stringify(body));
  return Array.isArray(json) ? json[0] : json.results.data[0];
}

/**
 * What the pages name, at this size: the middle order and the middle shipped one (with its SVCPOID,
 * found by the 3PL order list), the middle receipt, the middle item, the newest Sequence, the
 * EventID of the middle delivery, and the seeded time (`seeded`: the seeder's facts).
 */
export async function pageFacts(wharf, key, seeded) {
  const facts = { ...seeded };
  if (seeded.shippedOrder) {
    const row = await firstRow(wharf, key, '/edi/3pl/outbound/order/list', { ...facilityScope, PONo: seeded.shippedOrder.poNo });
    if (!row) throw new Error(`the 3PL order list does not find order ${seeded.shippedOrder.poNo}`);
    facts.shippedOrder = { ...seeded.shippedOrder, svcpoid: row.SVCPOID };
  }
  const deliveries = { CompanyID: company, Paging: { PageNo: 1, PageSize: 1 } };
  const { json } = await post(wharf, `${EDI}/edi/webhook/delivery/search-by-paging`, key, JSON.stringify(deliveries));
  const total = json.paging.totalCount;
  if (total > 0) {
    const middle = await firstRow(wharf, key, '/edi/webhook/delivery/search-by-paging', {
      ...deliveries,
      Paging: { PageNo: Math.ceil(total / 2), PageSize: 1 },
    });
    facts.eventId = middle.EventID;
  }
  facts.deliveries = total;
  return facts;
}

/** Every page of every search at this size, as { key, search, page, path, body, expectFound }. */
export function pagesOf(facts) {
  const middle = (facts.firstAt + facts.lastAt) / 2;
  const paging = (pageNo) => ({ Paging: { PageNo: pageNo, PageSize: PAGE_SIZE } });
  const pages = [];
  for (const search of SEARCHES) {
    const add = (page, filter, pageNo = 1) => {
      if (!filter) return;
      pages.push({
        key: `${search.id}/${page}`,
        search: search.title,
        searchId: search.id,
        page,
        path: `${EDI}${search.path}`,
        body: JSON.stringify({ ...search.scope, ...filter, ...paging(pageNo) }),
        pageNo,
        expectFound: page === 'lookup',
      });
    };
    add('first', {});
    add('lookup', search.lookup?.(facts));
    add('after', search.after?.(facts));
    add('week', search.window?.(middle - WEEK_MS / 2, middle + WEEK_MS / 2));
    add('deep', search.deepFilter ?? {}, DEEP_PAGE);
  }
  return pages;
}

/**
 * One answer of the page: 2xx, as many rows as its totalCount leaves at its position, and a
 * lookup that finds something. Answers its totalCount, rows and size.
 */
export async function checkPage(wharf, key, page) {
  const { json, bytes, headers } = await post(wharf, page.path, key, page.body);
  const { totalCount, rows } = pageOf(json, headers);
  const expected = Math.max(0, Math.min(PAGE_SIZE, totalCount - (page.pageNo - 1) * PAGE_SIZE));
  if (!Number.isInteger(totalCount) || rows !== expected) {
    throw new Error(`${page.key}: ${rows} rows with a totalCount of ${totalCount}, expected ${expected}`);
  }
  if (page.expectFound && totalCount === 0) throw new Error(`${page.key} found nothing for ${page.body}`);
  return { totalCount, rows, answerBytes: bytes };
}

/** Drives one page for `warmupSeconds` + `seconds` with `connections`; answers autocannon's figures (bench/load.js). */
export function measurePage(wharf, key, page, { connections, seconds, warmupSeconds }) {
  return measure({
    title: page.key,
    target: {
      url: `${wharf}${page.path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
      body: page.body,
    },
    connections,
    duration: seconds,
    warmupSeconds,
  });
}
