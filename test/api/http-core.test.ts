import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, EDI_PREFIX } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { App } from '../../src/http/module.js';
import { sha256Hex } from '../../src/lib/ids.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { useTestApp } from '../helpers/app.js';
import { createTestDatabase, describeEachDialect } from '../helpers/dialects.js';
import { parseMetrics, valueOf } from '../helpers/metrics.js';
import { createKey, createTenant, type Tenant, problems } from '../helpers/factories.js';
import { ITEM_IMPORT as IMPORT, ITEM_SEARCH as SEARCH } from '../helpers/paths.js';

/** The version package.json gives, which /healthz reports. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The HTTP core: body parsing and validation (400/413/415), 404, 500, request logs, operations endpoints. */

const BODY_LIMIT = 2048;

/** The spec's error array, one entry per message. */

/** Log lines collected from an app built outside useTestApp. */
function logCollector(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: { level, stream } };
}

describeEachDialect('HTTP core', (dialect) => {
  const ctx = useTestApp(dialect, { bodyLimit: BODY_LIMIT });
  let tenant: Tenant;
  let key: string;
  let keyId: number;
  let adminKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 2 });
    const created = await tenants.createApiKey(database.db, clock, {
      role: 'customer',
      companyId: tenant.companyId,
      customerIds: [tenant.customerIds[0]!],
      facilityIds: [],
      userIds: [],
      label: 'http core',
    });
    key = created.key;
    keyId = created.view.id;
    adminKey = await createKey(database.db, clock, tenant, 'admin');
  });

  const ids = () => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] });

  describe('400: malformed and invalid bodies', () => {
    it('refuses malformed JSON without echoing the parser', async () => {
      for (const text of ['{"a":', '{CompanyID: "x"}', "{'a': 1}", '{"a": 1,}', 'nul']) {
        const response = await ctx().post(SEARCH, text, key);
        expect(response.statusCode, text).toBe(400);
        expect(response.json()).toEqual(problems('Malformed JSON body'));
      }
    });

    it('refuses an empty body sent as JSON', async () => {
      const response = await ctx().post(SEARCH, '', key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(problems('Request body is empty'));
    });

    it('refuses a JSON body that is not an object', async () => {
      for (const text of ['[]', `[${JSON.stringify(ids())}]`, 'null', '"text"', '42', 'true']) {
        const response = await ctx().post(SEARCH, text, key);
        expect(response.statusCode, text).toBe(400);
        expect(response.json()).toEqual(problems('Request body must be an object'));
      }
    });

    it('refuses prototype-poisoning keys', async () => {
      const response = await ctx().post(
        SEARCH,
        `{"CompanyID":"${tenant.companyId}","CustomerID":"${tenant.customerIds[0]}","__proto__":{"x":1}}`,
        key,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(problems('Malformed JSON body'));
    });

    it('reports every problem at once, each with its field path', async () => {
      const response = await ctx().post(
        SEARCH,
        {
          CompanyID: '',
          CustomerID: 'X'.repeat(16),
          FacilityID: 7,
          Status: 'Gone',
          PageNo: 0,
          Paging: { PageNo: 0, PagingNo: 'x', PageSize: 1001 },
        },
        key,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        problems(
          'CompanyID must not be empty',
          'CustomerID must be at most 15 characters',
          'FacilityID must be a string',
          'Status must be one of: Active, Inactive',
          'PageNo must be at least 1',
          'Paging.PageNo must be at least 1',
          'Paging.PagingNo must be an integer',
          'Paging.PageSize must be at most 1000',
        ),
      );
    });

    it('names every missing required field', async () => {
      const response = await ctx().post(IMPORT, {}, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(problems('CompanyID is required', 'CustomerID is required', 'Items is required'));
    });

    it('names array elements by index', async () => {
      const response = await ctx().post(IMPORT, { ...ids(), Items: [null, 5, { itemID: 3, UPCCode: 5, BaseLength: -1 }] }, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        problems(
          'Items[0] must be an object',
          'Items[1] must be an object',
          'Items[2].itemID must be a string',
          'Items[2].UPCCode must be a string or null',
          'Items[2].BaseLength must be at least 0',
        ),
      );
    });

    it('reports at most the first 100 problems', async () => {
      const Items = Array.from({ length: 150 }, () => ({}));
      const response = await ctx().post(IMPORT, { ...ids(), Items }, adminKey);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(problems(...Array.from({ length: 100 }, (_, i) => `Items[${i}].itemID is required`)));
    });

    it('takes Paging.PageSize from 1 to 1000 and refuses 0 and 1001', async () => {
      for (const PageSize of [1, 1000]) {
        const response = await ctx().post(SEARCH, { ...ids(), Paging: { PageSize } }, key);
        expect(response.statusCode).toBe(200);
        expect(response.json().paging.limit).toBe(PageSize);
      }
      const zero = await ctx().post(SEARCH, { ...ids(), Paging: { PageSize: 0 } }, key);
      expect(zero.statusCode).toBe(400);
      expect(zero.json()).toEqual(problems('Paging.PageSize must be at least 1'));
      const tooBig = await ctx().post(SEARCH, { ...ids(), Paging: { PageSize: 1001 } }, key);
      expect(tooBig.statusCode).toBe(400);
      expect(tooBig.json()).toEqual(problems('Paging.PageSize must be at most 1000'));
      const fraction = await ctx().post(SEARCH, { ...ids(), Paging: { PageSize: 2.5 } }, key);
      expect(fraction.statusCode).toBe(400);
      expect(fraction.json()).toEqual(problems('Paging.PageSize must be an integer'));
    });

    it('does not coerce: a number is not a string, a string is not a number, null is not a string', async () => {
      const number = await ctx().post(SEARCH, { CompanyID: 123, CustomerID: tenant.customerIds[0] }, key);
      expect(number.statusCode).toBe(400);
      expect(number.json()).toEqual(problems('CompanyID must be a string'));
      const text = await ctx().post(SEARCH, { ...ids(), Paging: { PageNo: '2', PageSize: '10' } }, key);
      expect(text.statusCode).toBe(400);
      expect(text.json()).toEqual(problems('Paging.PageNo must be an integer', 'Paging.PageSize must be an integer'));
      const nulls = await ctx().post(SEARCH, { CompanyID: tenant.companyId, CustomerID: null }, key);
      expect(nulls.statusCode).toBe(400);
      expect(nulls.json()).toEqual(problems('CustomerID must be a string'));
      const bool = await ctx().post(SEARCH, { ...ids(), FacilityID: true }, key);
      expect(bool.statusCode).toBe(400);
      expect(bool.json()).toEqual(problems('FacilityID must be a string'));
    });

    it('accepts unknown body keys, at the top level and inside Paging', async () => {
      const response = await ctx().post(SEARCH, { ...ids(), Source: 'ERP', Extra: { a: [1] }, Paging: { PageSize: 5, Cursor: 'x' } }, key);
      expect(response.statusCode).toBe(200);
      expect(response.json().paging).toEqual({ totalCount: 0, pageNo: 1, totalPage: 0, startIndex: 0, endIndex: 0, limit: 5 });
    });
  });

  describe('415 and 413', () => {
    it.each([
      ['text/plain', 'CompanyID=x'],
      ['application/x-www-form-urlencoded', 'CompanyID=x&CustomerID=y'],
      ['multipart/form-data; boundary=x', '--x--'],
      ['application/xml', '<a/>'],
      ['application/jsonx', '{}'],
    ])('answers 415 to a %s body', async (contentType, payload) => {
      const response = await ctx().post(SEARCH, payload, key, { 'content-type': contentType });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual(problems('Content-Type must be application/json'));
    });

    it('answers 415 to a body without a Content-Type', async () => {
      const response = await ctx().app.inject({
        method: 'POST',
        url: `${EDI_PREFIX}${SEARCH}`,
        headers: { authorization: `APIKey ${key}` },
        payload: JSON.stringify(ids()),
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual(problems('Content-Type must be application/json'));
    });

    it('accepts application/json with a charset and in any letter case', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'Application/JSON']) {
        expect((await ctx().post(SEARCH, ids(), key, { 'content-type': contentType })).statusCode).toBe(200);
      }
    });

    it('accepts a body of exactly the limit and answers 413 to one byte more', async () => {
      const padded = (bytes: number) => {
        const base = JSON.stringify({ ...ids(), Pad: '' });
        return JSON.stringify({ ...ids(), Pad: 'x'.repeat(bytes - Buffer.byteLength(base)) });
      };
      const atLimit = padded(BODY_LIMIT);
      expect(Buffer.byteLength(atLimit)).toBe(BODY_LIMIT);
      expect((await ctx().post(SEARCH, atLimit, key)).statusCode).toBe(200);

      const over = padded(BODY_LIMIT + 1);
      const response = await ctx().post(SEARCH, over, key);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual(problems('Request body is larger than the limit'));

      const import413 = await ctx().post(IMPORT, { ...ids(), Items: Array.from({ length: 100 }, (_, i) => ({ itemID: `BIG-${i}` })) }, key);
      expect(import413.statusCode).toBe(413);
      const search = await ctx().post(SEARCH, ids(), key);
      expect(search.json().paging.totalCount).toBe(0);
    });
  });

  describe('404 and 405', () => {
    it('answers an unknown route in the array shape, without the query string', async () => {
      const response = await ctx().app.inject({ method: 'GET', url: '/no/such/route?token=secret' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(problems('Route GET /no/such/route not found'));
    });

    it('answers an unknown EDI path with 404, and a wrong method on a known one with 405 and the methods it takes', async () => {
      const unknown = await ctx().post('/edi/no-such-operation', ids(), key);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual(problems(`Route POST ${EDI_PREFIX}/edi/no-such-operation not found`));
      const wrongMethod = await ctx().app.inject({
        method: 'GET',
        url: `${EDI_PREFIX}${SEARCH}`,
        headers: { authorization: `APIKey ${key}` },
      });
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe('POST');
      expect(wrongMethod.json()).toEqual(problems(`Method GET is not allowed on ${EDI_PREFIX}${SEARCH}; it takes POST`));
      const cancel = await ctx().app.inject({ method: 'DELETE', url: `${EDI_PREFIX}/edi/inbound/receipt/cancel?x=1` });
      expect(cancel.statusCode).toBe(405);
      expect(cancel.headers.allow).toBe('PUT');
      expect(cancel.json()).toEqual(problems(`Method DELETE is not allowed on ${EDI_PREFIX}/edi/inbound/receipt/cancel; it takes PUT`));
      const health = await ctx().app.inject({ method: 'POST', url: '/healthz' });
      expect(health.statusCode).toBe(405);
      expect(health.headers.allow).toBe('GET, HEAD');
      expect(health.json()).toEqual(problems('Method POST is not allowed on /healthz; it takes GET, HEAD'));
    });
  });

  describe('500 and apps built directly', () => {
    const SQL_MESSAGE = "select * from api_keys where key_hash = 'a3f1c0ffee' and revoked_at is null";

    async function buildSideApp(overrides: Partial<Config>, register: (app: App) => void = () => {}, level = 'info') {
      const { lines, logger } = logCollector(level);
      const config = { ...loadConfig({ databaseUrl: ctx().database.url }, {}), ...overrides };
      const app = await buildApp({ config, db: ctx().database.db, clock: ctx().clock, logger });
      register(app);
      await app.ready();
      return { app, lines };
    }

    it('answers a bug with the array shape and a request id, never SQL or a stack, and logs that id', async () => {
      const { app, lines } = await buildSideApp({}, (a) => {
        a.get('/test/boom', async () => {
          throw new Error(SQL_MESSAGE);
        });
        a.get('/test/driver-error', async () => {
          throw Object.assign(new Error(`relation "api_keys" does not exist: ${SQL_MESSAGE}`), {
            code: '42P01',
            detail: 'Key (key_hash)=(a3f1c0ffee)',
            statusCode: 503,
          });
        });
      });
      try {
        for (const url of ['/test/boom', '/test/driver-error']) {
          const response = await app.inject({ method: 'GET', url });
          expect(response.statusCode, url).toBe(500);
          const body = response.json() as { code: string; error: string }[];
          expect(body).toHaveLength(1);
          const match = /^Internal error \(request id ([0-9a-f-]{36})\)$/.exec(body[0]!.error);
          expect(match, body[0]!.error).not.toBeNull();
          const requestId = match![1]!;
          expect(body).toEqual(problems(`Internal error (request id ${requestId})`));
          for (const leak of ['select', 'api_keys', 'key_hash', 'a3f1c0ffee', '42P01', 'at ', '.ts']) {
            expect(response.body).not.toContain(leak);
          }

          const requestLines = lines.filter((l) => l.reqId === requestId && l.msg === 'request');
          expect(requestLines).toHaveLength(1);
          expect(requestLines[0]).toMatchObject({ level: 50, method: 'GET', url, statusCode: 500 });
          const failure = lines.find((l) => l.reqId === requestId && l.msg === 'request failed');
          expect(failure).toBeDefined();
          expect(JSON.stringify(failure)).not.toMatch(/\bat .+:\d+:\d+/); // no stack frames
          expect(JSON.stringify(failure)).not.toContain('a3f1c0ffee)'); // the driver's detail (parameters) is not logged
          if (url === '/test/driver-error') {
            // A database error's message may quote SQL: only its class and code are logged.
            expect(failure?.error).toEqual({ type: 'Error', code: '42P01' });
          }
        }
      } finally {
        await app.close();
      }
    });

    it('at level warn writes no line for an answered request, and still one for a 500', async () => {
      const { app, lines } = await buildSideApp(
        {},
        (a) => {
          a.get('/test/boom', async () => {
            throw new Error('boom');
          });
        },
        'warn',
      );
      try {
        expect((await app.inject('/healthz')).statusCode).toBe(200);
        expect((await app.inject('/no-such-route')).statusCode).toBe(404);
        expect(lines).toEqual([]);
        expect((await app.inject('/test/boom')).statusCode).toBe(500);
        expect(lines.filter((l) => l.msg === 'request')).toEqual([
          expect.objectContaining({ level: 50, method: 'GET', url: '/test/boom', statusCode: 500 }),
        ]);
      } finally {
        await app.close();
      }
    });

    it("names the failed error's class and driver code in the 'request failed' line", async () => {
      const { app, lines } = await buildSideApp({}, (a) => {
        a.get('/test/type-error', async () => {
          throw Object.assign(new TypeError('x is undefined'), { code: 'ERR_TEST' });
        });
      });
      try {
        const response = await app.inject('/test/type-error');
        expect(response.statusCode).toBe(500);
        const failure = lines.find((l) => l.msg === 'request failed');
        expect(failure?.error).toEqual({ type: 'TypeError', code: 'ERR_TEST', message: 'x is undefined' });
      } finally {
        await app.close();
      }
    });

    it('gives each request its own id', async () => {
      const { app } = await buildSideApp({}, (a) => {
        a.get('/test/boom', async () => {
          throw new Error('boom');
        });
      });
      try {
        const [a, b] = await Promise.all([app.inject('/test/boom'), app.inject('/test/boom')]);
        expect(a.json()[0].error).not.toBe(b.json()[0].error);
        // The id in the body is the one in the header.
        expect(a.json()).toEqual(problems(`Internal error (request id ${a.headers['x-request-id']})`));
        const sent = await app.inject({ url: '/test/boom', headers: { 'x-request-id': 'caller-7' } });
        expect(sent.headers['x-request-id']).toBe('caller-7');
        expect(sent.json()).toEqual(problems('Internal error (request id caller-7)'));
      } finally {
        await app.close();
      }
    });

    it('takes bodies up to 5 MiB by default (above Fastify’s own 1 MiB) and 413s larger ones', async () => {
      const { app } = await buildSideApp({});
      try {
        const send = (bytes: number) => {
          const base = JSON.stringify({ ...ids(), Pad: '' });
          return app.inject({
            method: 'POST',
            url: `${EDI_PREFIX}${SEARCH}`,
            headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
            payload: JSON.stringify({ ...ids(), Pad: 'x'.repeat(bytes - Buffer.byteLength(base)) }),
          });
        };
        expect((await send(2 * 1024 * 1024)).statusCode).toBe(200);
        const response = await send(5 * 1024 * 1024 + 1);
        expect(response.statusCode).toBe(413);
        expect(response.json()).toEqual(problems('Request body is larger than the limit'));
      } finally {
        await app.close();
      }
    });

    it('/readyz answers 503 when the database does not', async () => {
      const database = await createTestDatabase(dialect, { migrate: false });
      const { lines, logger } = logCollector();
      const config = { ...loadConfig({ databaseUrl: database.url }, {}) };
      const app = await buildApp({ config, db: database.db, clock: ctx().clock, logger });
      await app.ready();
      try {
        expect((await app.inject('/readyz')).json()).toEqual({ status: 'ready' });
        await database.destroy();
        const response = await app.inject('/readyz');
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({ status: 'unavailable' });
        expect(lines.some((l) => l.msg === 'database not reachable')).toBe(true);
        expect((await app.inject('/healthz')).json()).toEqual({ status: 'ok', version: PACKAGE_VERSION });
      } finally {
        await app.close();
      }
    });
  });

  describe('X-Request-Id', () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

    it("is on every answer: a new uuid each time, or the caller's own, which the log line names too", async () => {
      const answers = [
        await ctx().post(SEARCH, ids(), key),
        await ctx().post(SEARCH, { ...ids(), Paging: { PageNo: 0 } }, key),
        await ctx().post(SEARCH, ids(), 'wk_not-a-key'),
        await ctx().app.inject('/nowhere'),
        await ctx().app.inject('/healthz'),
      ];
      const ids_ = answers.map((answer) => answer.headers['x-request-id']);
      for (const id of ids_) expect(id).toMatch(UUID);
      expect(new Set(ids_).size).toBe(ids_.length);

      for (const sent of ['order-42.retry_1', 'A'.repeat(128)]) {
        const before = ctx().logs.length;
        const answer = await ctx().post(SEARCH, ids(), key, { 'x-request-id': sent });
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['x-request-id']).toBe(sent);
        expect(
          ctx()
            .logs.slice(before)
            .map((line) => line.reqId),
        ).toEqual([sent]);
      }
    });

    it("replaces a caller's id that is too long or has characters outside [A-Za-z0-9._-]", async () => {
      for (const sent of ['A'.repeat(129), 'two words', 'semi;colon', 'ünïcode', '']) {
        const answer = await ctx().post(SEARCH, ids(), key, { 'x-request-id': sent });
        expect(answer.statusCode, sent).toBe(200);
        expect(answer.headers['x-request-id'], sent).toMatch(UUID);
      }
    });
  });

  describe('request log', () => {
    it('writes exactly one line per request: id, method, path, route, status, time, and key, company and customer', async () => {
      const route = `${EDI_PREFIX}${SEARCH}`;
      const who = { keyId, companyId: tenant.companyId };
      const cases: { send: () => Promise<{ statusCode: number }>; status: number; url: string; route?: string; who?: object }[] = [
        { send: () => ctx().post(SEARCH, ids(), key), status: 200, url: route, route, who: { ...who, customerId: tenant.customerIds[0] } },
        {
          send: () => ctx().post(SEARCH, { ...ids(), Paging: { PageNo: 0 } }, key),
          status: 400,
          url: route,
          route,
          who: { ...who, customerId: tenant.customerIds[0] },
        },
        { send: () => ctx().post(SEARCH, '{"a":', key), status: 400, url: route, route, who },
        {
          send: () => ctx().post(SEARCH, { ...ids(), CustomerID: tenant.customerIds[1] }, key),
          status: 403,
          url: route,
          route,
          who: { ...who, customerId: tenant.customerIds[1] },
        },
        // A CustomerID no spec ID could be is not written down.
        { send: () => ctx().post(SEARCH, { ...ids(), CustomerID: 'x'.repeat(16) }, key), status: 400, url: route, route, who },
        { send: () => ctx().post(SEARCH, 'a=b', key, { 'content-type': 'text/plain' }), status: 415, url: route, route, who },
        { send: () => ctx().post(SEARCH, { Pad: 'x'.repeat(BODY_LIMIT) }, key), status: 413, url: route, route, who },
        { send: () => ctx().post(`${SEARCH}?apikey=${key}`, ids(), 'wk_not-a-key'), status: 401, url: route, route },
        { send: () => ctx().app.inject(`/nowhere?key=${key}`), status: 404, url: '/nowhere' },
        { send: () => ctx().app.inject('/healthz'), status: 200, url: '/healthz', route: '/healthz' },
      ];
      for (const { send, status, url, route: expectedRoute, who: expectedWho = {} } of cases) {
        const before = ctx().logs.length;
        const response = await send();
        expect(response.statusCode).toBe(status);
        const lines = ctx().logs.slice(before);
        expect(lines, `${status} ${url}`).toHaveLength(1);
        const { reqId, responseTime, ...line } = lines[0]!;
        expect(reqId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(typeof responseTime).toBe('number');
        expect(responseTime as number).toBeGreaterThanOrEqual(0);
        const expected = {
          msg: 'request',
          level: 30,
          method: expect.any(String),
          url,
          route: expectedRoute,
          statusCode: status,
          ...expectedWho,
        };
        // Every field of the line is named here (toEqual takes an undefined field for an absent one).
        expect(Object.fromEntries(Object.entries(line).filter(([name]) => !['time', 'pid', 'hostname'].includes(name)))).toEqual(expected);
      }
      const requestIds = ctx()
        .logs.filter((l) => l.msg === 'request')
        .map((l) => l.reqId);
      expect(new Set(requestIds).size).toBe(requestIds.length);
    });

    it('never writes a key, its hash, the Authorization header or a body into the log', async () => {
      const unknownKey = 'wk_presented-but-unknown-0123456789';
      await ctx().post(SEARCH, { ...ids(), Secret: 'body-secret-value' }, key);
      await ctx().post(SEARCH, ids(), unknownKey);
      await ctx().post(SEARCH, ids(), undefined, { authorization: `Bearer ${key}` });
      const text = JSON.stringify(ctx().logs);
      for (const secret of [key, adminKey, unknownKey, sha256Hex(key), 'body-secret-value', 'APIKey ']) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain('"authorization"');
    });
  });

  describe('operations endpoints', () => {
    it('/healthz and /readyz answer without a key; /healthz reports the version of package.json', async () => {
      expect(PACKAGE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
      const health = await ctx().app.inject('/healthz');
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok', version: PACKAGE_VERSION });
      const ready = await ctx().app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready' });
    });

    it('/metrics counts requests and their durations by method, route and status', async () => {
      const route = `${EDI_PREFIX}${SEARCH}`;
      const read = async () => {
        const response = await ctx().app.inject('/metrics');
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        return parseMetrics(response.body);
      };
      const value = valueOf;

      const before = await read();
      await ctx().post(SEARCH, ids(), key);
      await ctx().post(SEARCH, ids(), key);
      await ctx().post(SEARCH, ids());
      await ctx().app.inject('/random-a');
      await ctx().app.inject('/random-b');
      const after = await read();

      const ok = { method: 'POST', route, status: '200' };
      const unauthorized = { method: 'POST', route, status: '401' };
      expect(value(after, 'wharf_http_requests_total', ok) - value(before, 'wharf_http_requests_total', ok)).toBe(2);
      expect(value(after, 'wharf_http_requests_total', unauthorized) - value(before, 'wharf_http_requests_total', unauthorized)).toBe(1);
      expect(
        value(after, 'wharf_http_request_duration_seconds_count', ok) - value(before, 'wharf_http_request_duration_seconds_count', ok),
      ).toBe(2);
      expect(value(after, 'wharf_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(
        value(after, 'wharf_http_request_duration_seconds_count', ok),
      );
      expect(value(after, 'wharf_http_request_duration_seconds_sum', ok)).toBeGreaterThan(0);
      // Every bucket is there, and they are cumulative: each counts the answers within its bound.
      const bounds = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf'];
      const buckets = bounds.map(
        (le) =>
          after.find(
            (s) =>
              s.name === 'wharf_http_request_duration_seconds_bucket' &&
              s.labels.le === le &&
              s.labels.route === route &&
              s.labels.status === '200',
          )?.value,
      );
      expect(buckets.every((count) => count !== undefined)).toBe(true);
      expect(buckets.every((count, i) => i === 0 || count! >= buckets[i - 1]!)).toBe(true);

      // Unmatched paths share one series, so probing URLs cannot grow the label set.
      const unmatched = { method: 'GET', route: '(unmatched)', status: '404' };
      expect(value(after, 'wharf_http_requests_total', unmatched) - value(before, 'wharf_http_requests_total', unmatched)).toBe(2);
      expect(after.some((s) => s.labels.route === '/random-a' || s.labels.route === '/random-b')).toBe(false);
      // Process metrics are there too.
      expect(after.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
    });

    it('/openapi.json is an OpenAPI 3.1 document with the item master and the APIKey scheme', async () => {
      const response = await ctx().app.inject('/openapi.json');
      expect(response.statusCode).toBe(200);
      const doc = response.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.components.securitySchemes.APIKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([`${EDI_PREFIX}${IMPORT}`, `${EDI_PREFIX}${SEARCH}`]));
      expect(Object.keys(doc.paths)).not.toContain('/openapi.json');
      expect(Object.keys(doc.paths)).not.toContain('/metrics');

      const ediOperations = Object.entries(
        doc.paths as Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>,
      )
        .filter(([path]) => path.startsWith(EDI_PREFIX))
        .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method} ${path}`, op })));
      expect(ediOperations.length).toBeGreaterThanOrEqual(2);
      for (const { name, op } of ediOperations) {
        expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['200', '400', '401', '403', '413', '415', '500']));
        expect(op.security, name).toEqual([{ APIKey: [] }]);
      }
      const search = doc.paths[`${EDI_PREFIX}${SEARCH}`].post;
      expect(search.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SearchItemsRequest' });
      expect(doc.components.schemas.SearchItemsRequest.required).toEqual(['CompanyID', 'CustomerID']);
      expect(doc.paths['/healthz'].get.security).toBeUndefined();
    });

    it('/docs/ answers the interactive reference as HTML', async () => {
      const response = await ctx().app.inject('/docs/');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toMatch(/<html/i);
    });
  });
});
