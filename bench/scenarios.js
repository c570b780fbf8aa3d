/**
 * The scenarios: what each one sends, which baseline it is compared with, and a check of one answer
 * before the load starts (so that a scenario never measures an error path or an empty page).
 */
import { oneItemImportBody, searchBody } from './payload.js';
import { IMPORT_PATH, ITEMS_A, ITEMS_B, SEARCH_PATH, TENANT, post } from './seed.js';

const PAGE_SIZE = 100;
const DEEP_PAGE = 90;

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
function searchScenario({ key, title, wharf, apiKey, customer, pageNo, totalCount }) {
  const body = searchBody(TENANT.company, customer, pageNo, PAGE_SIZE);
  return {
    key,
    title,
    baseline: 'B0',
    kind: 'read',
    target: {
      url: `${wharf}${SEARCH_PATH}`,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${apiKey}` },
      body,
    },
    async check() {
      const { json, bytes } = await post(wharf, SEARCH_PATH, apiKey, body);
      expect(json.paging.totalCount === totalCount, `${title}: totalCount ${json.paging.totalCount}, expected ${totalCount}`);
      expect(json.results.data.length === PAGE_SIZE, `${title}: ${json.results.data.length} items on the page`);
      expect(json.paging.startIndex === (pageNo - 1) * PAGE_SIZE + 1, `${title}: startIndex ${json.paging.startIndex}`);
      return bytes;
    },
  };
}

/**
 * Every scenario, in the order they run. The import runs last: it adds items to customer A.
 * `tally` counts the import answers' statuses, so that the run can show each request was a write.
 */
export function scenarios({ b0, b1, wharf, apiKey }) {
  const json = { 'content-type': 'application/json' };
  const b1Body = importBodies('B1', TENANT.customerA);
  const wharfBody = importBodies('IMP', TENANT.customerA);
  const tally = { Created: 0, Updated: 0, Unchanged: 0, other: 0 };
  const b0Body = searchBody(TENANT.company, TENANT.customerA, 1, PAGE_SIZE);

  return {
    tally,
    list: [
      {
        key: 'B0',
        title: 'B0: bare Fastify, small JSON answer',
        baseline: null,
        kind: 'read baseline',
        target: { url: `${b0}/b0`, headers: json, body: b0Body },
        async check() {
          const response = await fetch(`${b0}/b0`, { method: 'POST', headers: json, body: b0Body });
          expect(response.ok, `B0 answered ${response.status}`);
          return Buffer.byteLength(await response.text());
        },
      },
      {
        key: 'B1',
        title: 'B1: Fastify + schema + 1 durable SQLite insert',
        baseline: null,
        kind: 'write baseline',
        target: {
          url: `${b1}/b1`,
          headers: json,
          requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: b1Body() }) }],
        },
        async check() {
          const response = await fetch(`${b1}/b1`, { method: 'POST', headers: json, body: b1Body() });
          const text = await response.text();
          expect(response.ok, `B1 answered ${response.status}: ${text.slice(0, 300)}`);
          return Buffer.byteLength(text);
        },
      },
      searchScenario({
        key: 'search-A-p1',
        title: `Wharf search, page 1 of ${ITEMS_A} items`,
        wharf,
        apiKey,
        customer: TENANT.customerA,
        pageNo: 1,
        totalCount: ITEMS_A,
      }),
      searchScenario({
        key: 'search-A-p90',
        title: `Wharf search, page ${DEEP_PAGE} of ${ITEMS_A} items`,
        wharf,
        apiKey,
        customer: TENANT.customerA,
        pageNo: DEEP_PAGE,
        totalCount: ITEMS_A,
      }),
      searchScenario({
        key: 'search-B-p1',
        title: `Wharf search, page 1 of ${ITEMS_B} items`,
        wharf,
        apiKey,
        customer: TENANT.customerB,
        pageNo: 1,
        totalCount: ITEMS_B,
      }),
      {
        key: 'import-1',
        title: 'Wharf import, 1 new item (~2 KB body)',
        baseline: 'B1',
        kind: 'write',
        target: {
          url: `${wharf}${IMPORT_PATH}`,
          headers: { ...json, authorization: `APIKey ${apiKey}` },
          requests: [
            {
              method: 'POST',
              setupRequest: (request) => ({ ...request, body: wharfBody() }),
              onResponse: (status, body) => {
                if (status < 200 || status >= 300) return;
                const result = JSON.parse(body).Items?.[0]?.Status;
                tally[result in tally ? result : 'other'] += 1;
              },
            },
          ],
        },
        async check() {
          const { json: answer, bytes } = await post(wharf, IMPORT_PATH, apiKey, wharfBody());
          expect(answer.Items?.[0]?.Status === 'Created', `import answered ${JSON.stringify(answer)}`);
          return bytes;
        },
      },
    ],
  };
}
