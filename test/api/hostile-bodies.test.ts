import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import { ADMIN_PREFIX } from '../../src/modules/admin/admin.routes.js';
import { RATE_PREFIX } from '../../src/modules/rating/rating.routes.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createWorld, facilityOf, idsOf, orderBody, problems, receiptBody, uniqueId, type World } from '../helpers/factories.js';
import { failureInjection } from '../helpers/failures.js';
import {
  ADJUST_QTY,
  ITEM_IMPORT,
  ITEM_SEARCH,
  ORDER_CANCEL,
  ORDER_ACK_SEARCH,
  ORDER_IMPORT,
  ORDER_SHIP,
  RECEIPT_ACK_SEARCH,
  RECEIPT_CONFIRM,
  RECEIPT_IMPORT,
  RECEIPT_RC_SEARCH,
  THREEPL_RECEIPT,
} from '../helpers/paths.js';

/**
 * Hostile bodies are 400, never 500 (docs/operations.md), on every EDI route and the rate engine's, on both
 * databases: each answer is the operation's own error shape, names the problem, changes nothing
 * but an import's failure ACK, and quotes neither SQL nor a stack.
 */

type Json = Record<string, unknown>;

const RATE = `${RATE_PREFIX}/lastmile`;
const RECEIPT_GET = `${THREEPL_RECEIPT}/get`;
const TOO_DEEP = 'Request body is nested deeper than 64 levels';
const NUL = 'must not contain a NUL character (\\u0000)';
const SURROGATE = 'must not contain a lone surrogate (an unpaired \\uD800-\\uDFFF escape)';
const INEXACT = 'must be between -9007199254740991 and 9007199254740991 (2^53 - 1)';

/** Every table a refused request must leave as it was (ACKs are looked at on their own). */
const TABLES = [
  'items',
  'receipts',
  'receipt_lines',
  'receipt_events',
  'receipt_confirmations',
  'orders',
  'order_lines',
  'order_allocations',
  'order_line_shortages',
  'order_events',
  'inventory_balances',
  'inventory_ledger',
  'inventory_adjustments',
  'idempotency_records',
] as const;

/** The rate engine's envelope for bad input. */
const rateBadInput = (message: string) => ({
  Result: [],
  Page: null,
  ErrorMsg: message,
  ErrorSeverity: 2,
  ErrorSource: 'RateEngine.Validation',
  Status: false,
});

/** `levels` arrays, one inside the other, as JSON text. */
const nestedText = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describeEachDialect('Hostile bodies', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;
  let rater: string;
  const failures = failureInjection(() => ctx().database.db, dialect);
  const snapshot = () => failures.snapshot(world.tenant.companyId, TABLES);

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
    rater = await createKey(ctx().database.db, ctx().clock, world.tenant, 'rater', { userIds: [1] });
  });

  const ids = () => idsOf(world.tenant);
  const facility = () => facilityOf(world.tenant);
  const rate = (payload: string | Json) =>
    ctx().app.inject({
      method: 'POST',
      url: RATE,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${rater}` },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const acksOf = async (path: string, filter: Json) => {
    const response = await ctx().post(path, { ...ids(), ...filter }, world.customer);
    return response.statusCode === 404 ? [] : (response.json() as { ReferenceNo: unknown; PONo: unknown; ACK: Json }[]);
  };
  /** The JSON text of `body` with the `marker` string value replaced by raw JSON. */
  const withRaw = (body: Json, marker: string, raw: string) => JSON.stringify(body).replace(JSON.stringify(marker), raw);
  const expectRefused = (response: LightMyRequestResponse, ...messages: string[]) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual(problems(...messages));
  };

  /**
   * Every POST and PUT operation with a JSON body, from the app's own OpenAPI document (the X12
   * bridge's text bodies have hostile tests of their own: x12-interchanges, x12-properties).
   */
  const operations = () =>
    Object.entries(
      (ctx().app.swagger() as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> }).paths,
    ).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody?.content['application/json'] !== undefined)
        .map(([method, operation]) => ({ method: method.toUpperCase() as 'POST' | 'PUT', path, operation })),
    );
  const send = (method: 'POST' | 'PUT', path: string, payload: string) =>
    ctx().app.inject({
      method,
      url: path,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${path.startsWith(RATE_PREFIX) ? rater : world.admin}` },
      payload,
    });

  describe('nesting', () => {
    it('every EDI and rate operation refuses a body nested deeper than 64 levels in its own error shape, and writes nothing', async () => {
      const routes = operations();
      expect(routes.length).toBeGreaterThanOrEqual(25);
      expect(routes.filter((route) => route.path.startsWith(RATE_PREFIX))).toHaveLength(2);
      const before = await snapshot();
      for (const { method, path } of routes) {
        const body = withRaw({ ...ids(), PONo: 'PO-DEEP', ReferenceNo: 'REF-DEEP', Title: 'deep' }, 'deep', nestedText(5000));
        const response = await send(method, path, body);
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(400);
        expect(response.json(), `${method} ${path}`).toEqual(path.startsWith(RATE_PREFIX) ? rateBadInput(TOO_DEEP) : problems(TOO_DEEP));
      }
      expect(await snapshot()).toEqual(before);
      // Like malformed JSON, a body that cannot be read gets no ACK.
      expect(await acksOf(RECEIPT_ACK_SEARCH, { PONo: 'PO-DEEP' })).toEqual([]);
      expect(await acksOf(ORDER_ACK_SEARCH, { ReferenceNo: 'REF-DEEP' })).toEqual([]);
      expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
    });

    it('takes a body of exactly 64 levels and keeps its nesting', async () => {
      const body = receiptBody({ tenant: world.tenant, content: { Title: 'deep' } });
      // The body is level 1, ASNContent level 2, so Title's arrays are levels 3 to 64.
      const response = await ctx().post(RECEIPT_IMPORT, withRaw(body, 'deep', nestedText(62)), world.customer);
      expect(response.statusCode, response.body).toBe(200);
      const refused = await ctx().post(RECEIPT_IMPORT, withRaw(body, 'deep', nestedText(63)), world.customer);
      expectRefused(refused, TOO_DEEP);
    });
  });

  describe('numbers beyond 2^53 - 1', () => {
    it('a DN ReferenceNo beyond 2^53 - 1 is 400 with a failure ACK, so 9007199254740995 no longer lands on 9007199254740996', async () => {
      const before = await snapshot();
      for (const big of ['9007199254740995', '9007199254740996']) {
        const body = orderBody({ tenant: world.tenant, content: { ReferenceNo: 'big', PONo: `PO-${big}` } });
        const response = await ctx().post(ORDER_IMPORT, withRaw(body, 'big', big), world.customer);
        expectRefused(response, `POContent.ReferenceNo ${INEXACT}`);
        // The failure ACK names the PONo, and no ReferenceNo: it did not pass its own check.
        const [ack, ...more] = await acksOf(ORDER_ACK_SEARCH, { PONo: `PO-${big}` });
        expect(more).toEqual([]);
        expect(ack).toMatchObject({
          ReferenceNo: null,
          PONo: `PO-${big}`,
          ACK: { code: `EDI-ERROR-POContent.ReferenceNo ${INEXACT}`, error: `POContent.ReferenceNo ${INEXACT}` },
        });
      }
      expect(await snapshot()).toEqual(before);
      // The largest exact integer is a ReferenceNo like any other, echoed as a number.
      const largest = await ctx().post(
        ORDER_IMPORT,
        withRaw(orderBody({ tenant: world.tenant, content: { ReferenceNo: 'big' } }), 'big', '9007199254740991'),
        world.customer,
      );
      expect(largest.statusCode, largest.body).toBe(200);
      expect(largest.json().Order.ReferenceNo).toBe(9007199254740991);
    });

    it('quantities beyond 2^53 - 1 are 400 naming the exact-number rule, with every other problem', async () => {
      const order = orderBody({ tenant: world.tenant, content: { Items: [{ ItemID: 'SKU-1', OrderedQty: 'big', UOM: 'PK' }] } });
      expectRefused(
        await ctx().post(ORDER_IMPORT, withRaw(order, 'big', '90071992547409930'), world.customer),
        'POContent.Items[0].OrderedQty must be a positive decimal with at most 11 integer and 4 fractional digits',
        'POContent.Items[0].UOM must be one of: EA, CS',
        `POContent.Items[0].OrderedQty ${INEXACT}`,
      );
      const adjustment = { ...ids(), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: 'SKU-1', UOM: 'EA', Qty: 'big' }] };
      expectRefused(
        await ctx().post(ADJUST_QTY, withRaw(adjustment, 'big', '-1e300'), world.operator),
        'Items[0].Qty must be a decimal with at most 11 integer and 4 fractional digits',
        `Items[0].Qty ${INEXACT}`,
      );
    });

    it('the rate engine refuses numbers beyond 2^53 - 1 in its envelope', async () => {
      const body = {
        UserID: 'big',
        Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: 'heavy' },
      };
      const response = await rate(withRaw(body, 'big', '9007199254740993').replace('"heavy"', '1e16'));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual(
        rateBadInput(
          [
            'UserID must be at most 999999999999999',
            'Data.Weight must be a positive decimal number such as "12.5" (at most 6 integer and 4 fractional digits, no exponent)',
            `UserID ${INEXACT}`,
            `Data.Weight ${INEXACT}`,
          ].join('; '),
        ),
      );
    });
  });

  describe('slow clients', () => {
    // Short limits, so that the test waits half a second; nothing below depends on how long anything takes.
    const slow = useTestApp(dialect, { requestTimeoutMs: 500, headersTimeoutMs: 500, connectionsCheckingIntervalMs: 50 });
    let port: number;
    /** The slow app's own database, tenant and keys. */
    let slowWorld: World;
    let slowRater: string;

    beforeAll(async () => {
      const { app, database, clock } = slow();
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as AddressInfo).port;
      slowWorld = await createWorld(database.db, clock);
      slowRater = await createKey(database.db, clock, slowWorld.tenant, 'rater', { userIds: [1] });
    });

    /** What a raw connection that sends `text` and then nothing more reads, until the server closes it. */
    const stall = (text: string) =>
      new Promise<{ status: string; headers: string; body: unknown; closedBy: string }>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(text));
        let received = '';
        let closedBy = 'server';
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => (received += chunk));
        socket.on('error', (error: NodeJS.ErrnoException) => (closedBy = `error ${error.code}`));
        socket.on('close', () => {
          const [head = '', ...rest] = received.split('\r\n\r\n');
          const [status = '', ...headers] = head.split('\r\n');
          resolve({ status, headers: headers.join('\n'), body: rest.length ? JSON.parse(rest.join('\r\n\r\n')) : undefined, closedBy });
        });
      });
    const head = (path: string, key: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: APIKey ${key}\r\nContent-Length: ${length}\r\n\r\n`;
    const TIMED_OUT = 'Request timed out: its headers or its body did not arrive in time';

    it('uses the configured limits, and leaves maxRequestsPerSocket unset', () => {
      const server = slow().app.server;
      expect({ request: server.requestTimeout, headers: server.headersTimeout, keepAlive: server.keepAliveTimeout }).toEqual({
        request: 500,
        headers: 500,
        keepAlive: 72_000,
      });
      expect(server.maxRequestsPerSocket).toBeFalsy();
    });

    it('a stalled body gets 408 in the EDI error shape, and the connection is closed', { timeout: 30_000 }, async () => {
      const answer = await stall(`${head(`${EDI_PREFIX}${RECEIPT_IMPORT}`, slowWorld.customer, 100)}{"CompanyID":`);
      expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
      expect(answer.headers).toContain('Connection: close');
      expect(answer.body).toEqual(problems(TIMED_OUT));
      expect(answer.closedBy).toBe('server');
      // The request's one log line says what its caller saw.
      expect(slow().logs.filter((line) => line.msg === 'request' && line.statusCode === 408)).toEqual([
        expect.objectContaining({ method: 'POST', url: `${EDI_PREFIX}${RECEIPT_IMPORT}`, keyId: expect.any(Number) }),
      ]);
    });

    it('a stalled body on the rate engine gets 408 in its envelope', { timeout: 30_000 }, async () => {
      const answer = await stall(`${head(RATE, slowRater, 100)}{"UserID":1,`);
      expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
      expect(answer.body).toEqual(rateBadInput(TIMED_OUT));
      expect(answer.closedBy).toBe('server');
    });

    it('stalled headers get 408 in the EDI shape and the connection is closed', { timeout: 30_000 }, async () => {
      const answer = await stall(`POST ${EDI_PREFIX}${RECEIPT_IMPORT} HTTP/1.1\r\nHost: localhost\r\nContent-Type: appl`);
      expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
      expect(answer.body).toEqual(problems(TIMED_OUT));
      expect(answer.closedBy).toBe('server');
    });

    it('a request already answered (401) while its body stalls gets no second answer, and is closed too', { timeout: 30_000 }, async () => {
      const answer = await stall(`${head(`${EDI_PREFIX}${RECEIPT_IMPORT}`, 'unknown-key', 100)}{"CompanyID":`);
      expect(answer.status).toBe('HTTP/1.1 401 Unauthorized');
      expect(answer.body).toEqual(problems('Unknown or revoked API key'));
      expect(answer.closedBy).toBe('server');
    });

    it('a whole request on the same server is answered as usual, and nothing was logged as an error', async () => {
      const response = await fetch(`http://127.0.0.1:${port}${EDI_PREFIX}${RECEIPT_IMPORT}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `APIKey ${slowWorld.customer}` },
        body: JSON.stringify(receiptBody({ tenant: slowWorld.tenant })),
      });
      expect(response.status).toBe(200);
      expect(slow().logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
    });
  });

  describe('blank optional fields of an import', () => {
    it('RN import: "" and white space are absent on every optional field, ActionCode, ReceivingPriority and Pallets included', async () => {
      const poNo = uniqueId('PO');
      const body = receiptBody({
        tenant: world.tenant,
        root: { TitleID: ' ' },
        content: {
          PONo: poNo,
          ReceiptType: '',
          ActionCode: '',
          SupplierID: '  ',
          ReferenceNo: '',
          ScheduledDate: '',
          ETD: ' ',
          Title: '',
          Items: [
            {
              ItemNumber: 'SKU-1',
              ExpectedQty: '10',
              UOM: 'EA',
              POLineNo: '',
              Pallets: '',
              ReceivingPriority: '',
              'Receiving Priority': ' ',
              LotNo: '\t',
              DynTxtPropertyValue01: '',
            },
          ],
        },
      });
      const response = await ctx().post(RECEIPT_IMPORT, body, world.customer);
      expect(response.statusCode, response.body).toBe(200);
      const svcpoid = response.json().Receipt.SVCPOID;
      expect(response.json()).toEqual({
        Receipt: {
          CustomerID: ids().CustomerID,
          PONo: poNo,
          ReferenceNo: [],
          SVCPOID: svcpoid,
          Status: 'Warning',
          Error: 'Items not in the item master: SKU-1',
        },
      });
      // Stored as if they had not been sent; a key the schema does not know is kept as it came.
      const get = await ctx().post(RECEIPT_GET, { ...facility(), SVCPOID: svcpoid }, world.operator);
      expect(get.json().Receipt).toMatchObject({
        ReceiptType: 'Regular Receipt',
        SupplierID: null,
        ReferenceNo: null,
        ScheduledDate: null,
        TitleID: null,
        Title: '',
        Items: [{ ItemNumber: 'SKU-1', ExpectedQty: '10', UOM: 'EA', LineNo: 1, ReceivedQty: '0' }],
      });
      expect(Object.keys(get.json().Receipt.Items[0]).sort()).toEqual(['ExpectedQty', 'ItemNumber', 'LineNo', 'ReceivedQty', 'UOM']);
      expect(get.json().Receipt).not.toHaveProperty('ActionCode');
      expect(get.json().Receipt).not.toHaveProperty('ETD');
    });

    it('RN import: a blank required field is still refused, and a blank CarrierName is missing', async () => {
      const poNo = uniqueId('PO');
      const response = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: poNo, CarrierName: '   ', SCACCode: '', Status: '' } }),
        world.customer,
      );
      expectRefused(response, 'ASNContent.CarrierName is required when SCACCode is empty', 'ASNContent.Status must be "Imported"');
      expect((await acksOf(RECEIPT_ACK_SEARCH, { PONo: poNo })).map((record) => record.ACK.error)).toEqual([
        'ASNContent.CarrierName is required when SCACCode is empty; ASNContent.Status must be "Imported"',
      ]);
      expectRefused(
        await ctx().post(RECEIPT_IMPORT, receiptBody({ tenant: world.tenant, content: { PONo: '' } }), world.customer),
        'ASNContent.PONo must not be empty',
      );
    });

    it('DN import and cancel: blank optional fields are absent, at the root and in every nested object', async () => {
      const referenceNo = uniqueId('SO');
      const body = orderBody({
        tenant: world.tenant,
        content: {
          ReferenceNo: referenceNo,
          PONo: '',
          ActionCode: '',
          Status: ' ',
          ShipNoLater: '',
          ShippingInfo: { FreightTerm: '', ShipMethod: ' ', CarrierName: '' },
          OrderNotes: { Note: '' },
          Items: [{ ItemID: 'SKU-1', OrderedQty: '1', UOM: 'EA', LineNo: '', LotNo: '', GoodsType: ' ' }],
        },
      });
      const response = await ctx().post(ORDER_IMPORT, body, world.customer);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().Order).toMatchObject({ PONo: [], ReferenceNo: referenceNo, Status: 'Warning' });
      const cancel = await ctx().put(ORDER_CANCEL, { ...ids(), PONo: '  ', ReferenceNo: referenceNo, CancelNote: '' }, world.customer);
      expect(cancel.statusCode, cancel.body).toBe(200);
      expect(cancel.json().Order).toMatchObject({ ReferenceNo: referenceNo, Status: 'Success' });
    });

    it('item master import: a blank status is the default, a blank number is unset', async () => {
      const response = await ctx().post(
        ITEM_IMPORT,
        { ...ids(), Items: [{ itemID: 'SKU-BLANK', status: '', BaseWeight: '', itemDescription: ' ', isBundle: '' }] },
        world.customer,
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ Items: [{ itemID: 'SKU-BLANK', Status: 'Created' }] });
      const search = await ctx().post(ITEM_SEARCH, { ...ids() }, world.customer);
      const item = (search.json().results.data as Json[]).find((record) => record.itemID === 'SKU-BLANK');
      expect(item).toMatchObject({ status: 'Active', BaseWeight: null, itemDescription: null, isBundle: null });
    });
  });

  describe('local times', () => {
    // The world's facilities are in Los Angeles, whose clocks skip 2:00 to 3:00 on 2026-03-08.
    const GAP = 'does not exist in America/Los_Angeles: its clocks move forward from UTC-8 to UTC-7 on 2026-03-08 and skip it';
    const HOUR_13 = 'has hour 13 with PM; with AM or PM the hour is 1 to 12';

    it('RN import: a ScheduledDate or ETD in the DST gap is 400 naming the gap, with a failure ACK, and nothing is saved', async () => {
      const before = await snapshot();
      const poNo = uniqueId('PO');
      const response = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: poNo, ScheduledDate: '3/8/2026 2:30:00 AM', ETD: '2026-03-08T02:00:00' } }),
        world.customer,
      );
      const messages = [`ASNContent.ScheduledDate 3/8/2026 2:30:00 AM ${GAP}`, `ASNContent.ETD 2026-03-08T02:00:00 ${GAP}`];
      expectRefused(response, ...messages);
      expect(await snapshot()).toEqual(before);
      expect((await acksOf(RECEIPT_ACK_SEARCH, { PONo: poNo })).map((record) => record.ACK)).toEqual([
        { code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') },
      ]);
      // An hour later the clock exists again.
      const after = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: poNo, ScheduledDate: '3/8/2026 3:00:00 AM' } }),
        world.customer,
      );
      expect(after.statusCode, after.body).toBe(200);
    });

    it('RN and DN imports: an hour past 12 with AM/PM is 400 naming it, with the other problems and a failure ACK', async () => {
      const poNo = uniqueId('PO');
      const receipt = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: poNo, ScheduledDate: '3/8/2026 13:00:00 PM', ETD: '3/8/2026 0:30 AM' } }),
        world.customer,
      );
      const messages = [`ASNContent.ScheduledDate ${HOUR_13}`, 'ASNContent.ETD has hour 0 with AM; with AM or PM the hour is 1 to 12'];
      expectRefused(receipt, ...messages);
      expect((await acksOf(RECEIPT_ACK_SEARCH, { PONo: poNo })).map((record) => record.ACK.error)).toEqual([messages.join('; ')]);
      const order = await ctx().post(
        ORDER_IMPORT,
        orderBody({ tenant: world.tenant, content: { AppointmentTime: '3/8/2026 13:00 PM' } }),
        world.customer,
      );
      expectRefused(order, `POContent.AppointmentTime ${HOUR_13}`);
    });

    it('DN import: every order date is checked against the gap', async () => {
      const referenceNo = uniqueId('SO');
      const response = await ctx().post(
        ORDER_IMPORT,
        orderBody({
          tenant: world.tenant,
          content: {
            ReferenceNo: referenceNo,
            ShipNotBefore: '20260308023000',
            DeliveryRequestDate: '3/8/2026 2:59 AM',
            ShipNoLater: '20260309000000',
          },
        }),
        world.customer,
      );
      expectRefused(response, `POContent.ShipNotBefore 20260308023000 ${GAP}`, `POContent.DeliveryRequestDate 3/8/2026 2:59 AM ${GAP}`);
      expect(await acksOf(ORDER_ACK_SEARCH, { ReferenceNo: referenceNo })).toHaveLength(1);
    });

    it('confirmations and searches: ReceivedDate, ShippedTime and CreatedWhenFrom/To in the gap are 400 and move nothing', async () => {
      const svcpoid = (await ctx().post(RECEIPT_IMPORT, receiptBody({ tenant: world.tenant }), world.customer)).json().Receipt
        .SVCPOID as string;
      const before = await snapshot();
      expectRefused(
        await ctx().post(
          RECEIPT_CONFIRM,
          {
            ...facility(),
            SVCPOID: svcpoid,
            ConfirmationNo: uniqueId('CN'),
            ReceivedDate: '2026-03-08T02:30:00',
            Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: '1', UOM: 'EA' }],
          },
          world.operator,
        ),
        `ReceivedDate 2026-03-08T02:30:00 ${GAP}`,
      );
      expect(await snapshot()).toEqual(before);
      const order = (await ctx().post(ORDER_IMPORT, orderBody({ tenant: world.tenant }), world.customer)).json().Order.SVCPOID as string;
      const afterOrder = await snapshot();
      expectRefused(
        await ctx().post(
          ORDER_SHIP,
          {
            ...facility(),
            SVCPOID: order,
            ConfirmationNo: uniqueId('CN'),
            ShippedTime: '2026-03-08T02:30:00.000',
            Items: [{ ItemNumber: 'SKU-1', ShippedQty: '1', UOM: 'EA' }],
          },
          world.operator,
        ),
        `ShippedTime 2026-03-08T02:30:00.000 ${GAP}`,
      );
      expect(await snapshot()).toEqual(afterOrder);
      expectRefused(
        await ctx().post(
          RECEIPT_ACK_SEARCH,
          { ...ids(), CreatedWhenFrom: '2026-03-08T02:00', CreatedWhenTo: '2026-03-08T02:59:59' },
          world.customer,
        ),
        `CreatedWhenFrom 2026-03-08T02:00 ${GAP}`,
        `CreatedWhenTo 2026-03-08T02:59:59 ${GAP}`,
      );
      const search = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), CreatedWhenFrom: '2026-03-08T03:00' }, world.customer);
      expect([200, 404]).toContain(search.statusCode);
    });
  });

  describe('texts Wharf cannot store', () => {
    it('a NUL in any text field is 400 on both databases, with a failure ACK that leaves the bad number out', async () => {
      const before = await snapshot();
      const poNo = uniqueId('PO');
      const bol = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: poNo, BOLNo: 'BOL\u00001' } }),
        world.customer,
      );
      expectRefused(bol, `ASNContent.BOLNo ${NUL}`);
      const badPoNo = `${poNo}\u0000`;
      const po = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, content: { PONo: badPoNo, ReferenceNo: `REF-${poNo}` } }),
        world.customer,
      );
      expectRefused(po, `ASNContent.PONo ${NUL}`);
      expect(await snapshot()).toEqual(before);
      expect((await acksOf(RECEIPT_ACK_SEARCH, { PONo: poNo })).map((record) => record.ACK)).toEqual([
        { code: `EDI-ERROR-ASNContent.BOLNo ${NUL}`, error: `ASNContent.BOLNo ${NUL}` },
      ]);
      const [nulAck, ...more] = await acksOf(RECEIPT_ACK_SEARCH, { ReferenceNo: `REF-${poNo}` });
      expect(more).toEqual([]);
      expect(nulAck).toMatchObject({ PONo: null, ReferenceNo: `REF-${poNo}`, ACK: { error: `ASNContent.PONo ${NUL}` } });

      // Everywhere else too: a ship-to name, an item's description, a confirmation number, a search filter.
      expectRefused(
        await ctx().post(ORDER_IMPORT, orderBody({ tenant: world.tenant, content: { RetailerName: 'Shop\u0000' } }), world.customer),
        `POContent.RetailerName ${NUL}`,
      );
      expectRefused(
        await ctx().post(ITEM_IMPORT, { ...ids(), Items: [{ itemID: 'SKU-NUL', itemDescription: 'mug\u0000' }] }, world.customer),
        `Items[0].itemDescription ${NUL}`,
      );
      expectRefused(
        await ctx().post(
          RECEIPT_CONFIRM,
          {
            CompanyID: world.tenant.companyId,
            FacilityID: ids().FacilityID,
            SVCPOID: 'RN-1',
            ConfirmationNo: 'C\u0000',
            Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: '1', UOM: 'EA' }],
          },
          world.operator,
        ),
        `ConfirmationNo ${NUL}`,
      );
      expectRefused(await ctx().post(RECEIPT_RC_SEARCH, { ...ids(), PONo: '\u0000' }, world.customer), `PONo ${NUL}`);
      // An identifier that cannot be stored is looked up nowhere: no ACK, no database error.
      const facility = await ctx().post(
        RECEIPT_IMPORT,
        receiptBody({ tenant: world.tenant, root: { FacilityID: 'F\u0000' }, content: { PONo: `${poNo}-F` } }),
        world.customer,
      );
      expectRefused(facility, `FacilityID ${NUL}`);
      expect(await acksOf(RECEIPT_ACK_SEARCH, { PONo: `${poNo}-F` })).toEqual([]);
      expect(await snapshot()).toEqual(before);
      expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
    });

    it('a NUL in a path parameter or a query (%00) is 400 on both databases, naming the part of the URL, and changes nothing', async () => {
      const before = await snapshot();
      const admin = (method: 'GET' | 'PATCH', url: string, payload?: Json) =>
        ctx().app.inject({
          method,
          url: `${ADMIN_PREFIX}${url}`,
          headers: { authorization: `APIKey ${world.admin}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
          payload: payload && JSON.stringify(payload),
        });
      expectRefused(await admin('PATCH', '/customers/A%00B', { Name: 'Renamed' }), `A path parameter ${NUL}`);
      expectRefused(await admin('PATCH', `/facilities/${ids().FacilityID}%00`, { Name: 'Renamed' }), `A path parameter ${NUL}`);
      expectRefused(await admin('GET', '/changes?Before=1%00'), `A query parameter ${NUL}`);
      expectRefused(await admin('GET', '/changes?%00=1'), `A query parameter ${NUL}`);
      expect(await snapshot()).toEqual(before);
      expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
    });

    it('lone surrogates are 400: AdjustmentNos "A\\ud800" and "A\\ud83d" are no longer both applied as the same "A\\ufffd"', async () => {
      const adjustment = (adjustmentNo: string) => ({
        ...ids(),
        AdjustmentNo: adjustmentNo,
        Items: [{ ItemNumber: 'SKU-SURROGATE', UOM: 'EA', Qty: '1' }],
      });
      const before = await snapshot();
      for (const adjustmentNo of ['A\ud800', 'A\ud83d']) {
        expectRefused(await ctx().post(ADJUST_QTY, adjustment(adjustmentNo), world.operator), `AdjustmentNo ${SURROGATE}`);
      }
      expect(await snapshot()).toEqual(before);
      // A pair is a character like any other.
      const emoji = await ctx().post(ADJUST_QTY, adjustment(`A\ud83d\ude00${uniqueId('')}`), world.operator);
      expect(emoji.statusCode, emoji.body).toBe(200);
    });

    it('a key that cannot be stored is named by its object, and nothing below it is quoted', async () => {
      const body = receiptBody({ tenant: world.tenant, content: { 'Kit\ud800': { Note: '\u0000' } } });
      expectRefused(
        await ctx().post(RECEIPT_IMPORT, body, world.customer),
        'ASNContent must not have a key that contains a lone surrogate (an unpaired \\uD800-\\uDFFF escape)',
      );
    });

    it('every operation refuses a NUL, a lone surrogate and an inexact number anywhere in its body', async () => {
      const before = await snapshot();
      for (const { method, path } of operations()) {
        const body = withRaw({ ...ids(), Hostile: { Nul: '\u0000', Half: '\ud800', Big: 'big' } }, 'big', '-9007199254740993');
        const response = await send(method, path, body);
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(400);
        const messages = path.startsWith(RATE_PREFIX)
          ? response.json().ErrorMsg.split('; ')
          : (response.json() as { error: string }[]).map((entry) => entry.error);
        expect(messages, `${method} ${path}`).toEqual(
          expect.arrayContaining([`Hostile.Nul ${NUL}`, `Hostile.Half ${SURROGATE}`, `Hostile.Big ${INEXACT}`]),
        );
      }
      expect(await snapshot()).toEqual(before);
      expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
    });

    it('the rate engine answers a NUL in its envelope', async () => {
      const response = await rate({
        UserID: 1,
        Data: { OriginZip: '9000\u0000', DestZip: '10001', Length: '1', Width: '1', Hight: '1', Weight: '1' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        rateBadInput(
          'Data.OriginZip must be a 5-digit ZIP code or a ZIP+4, as text (e.g. "02134" or "02134-1234"); Data.OriginZip must not contain a NUL character (\\u0000)',
        ),
      );
    });
  });
});
