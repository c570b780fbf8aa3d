import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import { formatFacilityLocal } from '../../src/http/time.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import {
  buildReceipt,
  createKey,
  createTenant,
  facilityOf,
  idsOf,
  importItems,
  problems,
  receiptBody,
  uniqueId,
  type ReceiptStatus as Status,
  type Tenant,
} from '../helpers/factories.js';
import { RECEIPT_ACK_SEARCH, RECEIPT_CANCEL, RECEIPT_IMPORT, THREEPL_RECEIPT } from '../helpers/paths.js';

/**
 * The receipt rules of docs/receipts.md: every row of the receipt state machine (the allowed moves and
 * the refused ones, with their 409 bodies), and every validation rule of the RN import (spec 2.3)
 * with the ACK it writes or does not write.
 */

const ZONE = 'America/Los_Angeles';
const failureAck = (...messages: string[]) => ({ code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') });

const STATUSES: Status[] = ['Imported', 'Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'];

describeEachDialect('receipt rules', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let otherCustomerKey: string;
  let operatorKey: string;
  let adminKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 2, facilities: 1, timeZone: ZONE });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    otherCustomerKey = await createKey(database.db, clock, tenant, 'customer', { customerIds: [tenant.customerIds[1]!] });
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    adminKey = await createKey(database.db, clock, tenant, 'admin');
    await importItems(ctx(), { tenant, key: customerKey, items: ['SKU-1', 'SKU-2'] });
  });

  const ids = () => idsOf(tenant);
  const facility = () => facilityOf(tenant);
  const line = (extra: Record<string, unknown> = {}) => ({ ItemNumber: 'SKU-1', ExpectedQty: '10', UOM: 'EA', ...extra });
  const body = (poNo: string, content: Record<string, unknown> = {}, root: Record<string, unknown> = {}) =>
    receiptBody({ tenant, root, content: { PONo: poNo, ...content } });
  const importReceipt = (poNo: string, content: Record<string, unknown> = {}, key = customerKey, headers: Record<string, string> = {}) =>
    ctx().post(RECEIPT_IMPORT, body(poNo, content), key, headers);
  const imported = async (poNo: string, content: Record<string, unknown> = {}) => {
    const response = await importReceipt(poNo, content);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Receipt as { SVCPOID: string; PONo: string; Status: string };
  };
  const put = (payload: unknown, key = customerKey) => ctx().put(RECEIPT_CANCEL, payload, key);
  const act = (move: 'open' | 'cancel' | 'force-close', svcpoid: string) =>
    ctx().post(`${THREEPL_RECEIPT}/${move}`, { ...facility(), SVCPOID: svcpoid, Note: 'rules test' }, operatorKey);
  const confirm = (svcpoid: string, quantity: string, extra: Record<string, unknown> = {}) =>
    ctx().post(
      `${THREEPL_RECEIPT}/post-confirmation`,
      {
        ...facility(),
        SVCPOID: svcpoid,
        ConfirmationNo: uniqueId('CN'),
        Items: [{ ItemNumber: 'SKU-1', ReceivedQuantity: quantity, UOM: 'EA' }],
        ...extra,
      },
      operatorKey,
    );
  const get = async (svcpoid: string) => {
    const response = await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facility(), SVCPOID: svcpoid }, operatorKey);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().Receipt;
  };
  const statusOf = async (svcpoid: string) => (await get(svcpoid)).Status as Status;
  const count = async (table: string, where: Record<string, string> = {}) => {
    let query = sql`select count(*) as n from ${sql.table(table)} where company_id = ${tenant.companyId}`;
    for (const [column, value] of Object.entries(where)) query = sql`${query} and ${sql.ref(column)} = ${value}`;
    const { rows } = await query.execute(ctx().database.db);
    return Number((rows[0] as { n: number | string }).n);
  };
  const acksOf = async (poNo: string) => {
    const response = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), PONo: poNo, Paging: { PageSize: 1000 } }, customerKey);
    if (response.statusCode === 404) return [];
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { PONo: string | null; ReferenceNo: string | null; ACK: Record<string, unknown> }[];
  };

  /** A fresh receipt (one line, 10 EA of SKU-1) brought to `status` through the API. */
  const receiptIn = async (status: Status) => {
    const { svcpoid, poNo } = await buildReceipt(ctx(), { tenant, key: customerKey, operatorKey, status });
    expect(await statusOf(svcpoid)).toBe(status);
    return { svcpoid, poNo };
  };

  // ---- the allowed moves -------------------------------------------------------------------

  it('(none) --import--> Imported, with an SVCPOID of the form RN-<n>', async () => {
    const poNo = uniqueId('PO');
    const receipt = await imported(poNo);
    expect(receipt).toMatchObject({ PONo: poNo, Status: 'Success', SVCPOID: expect.stringMatching(/^RN-\d+$/) });
    expect(await statusOf(receipt.SVCPOID)).toBe('Imported');
  });

  it('Imported --3PL list with MarkOpen--> Open, shown as Open on the same page; Open and In Progress stay', async () => {
    const fresh = await receiptIn('Imported');
    const open = await receiptIn('Open');
    const busy = await receiptIn('In Progress');
    for (const { svcpoid, poNo } of [fresh, open, busy]) {
      const list = await ctx().post(`${THREEPL_RECEIPT}/list`, { ...facility(), PONo: poNo, MarkOpen: true }, operatorKey);
      expect(list.statusCode).toBe(200);
      expect(list.json().results.data.map((r: { SVCPOID: string; Status: string }) => [r.SVCPOID, r.Status])).toEqual([
        [svcpoid, svcpoid === busy.svcpoid ? 'In Progress' : 'Open'],
      ]);
    }
    expect(await statusOf(fresh.svcpoid)).toBe('Open');
    expect(await statusOf(open.svcpoid)).toBe('Open');
    expect(await statusOf(busy.svcpoid)).toBe('In Progress');
    // Without MarkOpen the list changes nothing.
    const other = await receiptIn('Imported');
    await ctx().post(`${THREEPL_RECEIPT}/list`, { ...facility(), PONo: other.poNo }, operatorKey);
    expect(await statusOf(other.svcpoid)).toBe('Imported');
  });

  it('Imported --operator open--> Open', async () => {
    const { svcpoid } = await receiptIn('Imported');
    const response = await act('open', svcpoid);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ Receipt: { SVCPOID: svcpoid, Status: 'Open' } });
    expect(await statusOf(svcpoid)).toBe('Open');
  });

  for (const from of ['Imported', 'Open'] as const) {
    it(`${from} --import (update)--> Imported, same SVCPOID, lines replaced`, async () => {
      const { svcpoid, poNo } = await receiptIn(from);
      const response = await importReceipt(poNo, { Items: [line({ ItemNumber: 'SKU-2', ExpectedQty: '3' })], BOLNo: 'BOL-2' });
      expect(response.statusCode).toBe(200);
      expect(response.json().Receipt).toMatchObject({ SVCPOID: svcpoid, Status: 'Success' });
      const receipt = await get(svcpoid);
      expect(receipt).toMatchObject({ Status: 'Imported', BOLNo: 'BOL-2' });
      expect(receipt.Items).toEqual([{ ItemNumber: 'SKU-2', ExpectedQty: '3', UOM: 'EA', LineNo: 1, ReceivedQty: '0' }]);
      expect(await count('receipts', { po_no: poNo })).toBe(1);
    });
  }

  it('Imported --import ActionCode Cancelled--> Cancelled, answered like the import and acknowledged', async () => {
    const { svcpoid, poNo } = await receiptIn('Imported');
    // Items are not needed to cancel.
    const response = await importReceipt(poNo, { ActionCode: 'Cancelled', Items: undefined });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      Receipt: { CustomerID: tenant.customerIds[0], PONo: poNo, ReferenceNo: [], SVCPOID: svcpoid, Status: 'Success', Error: [] },
    });
    expect(await statusOf(svcpoid)).toBe('Cancelled');
    expect((await acksOf(poNo)).map((a) => a.ACK)).toEqual([
      { CustomerId: tenant.customerIds[0], PONo: poNo, ReferenceNo: null, SVCPOID: svcpoid, Status: 'Success', Error: null },
      { CustomerId: tenant.customerIds[0], PONo: poNo, ReferenceNo: null, SVCPOID: svcpoid, Status: 'Success', Error: null },
    ]);
  });

  it('Imported --PUT cancel--> Cancelled, by PONo or by ReferenceNo', async () => {
    const byPoNo = await receiptIn('Imported');
    const response = await put({ ...ids(), PONo: byPoNo.poNo, CancelNote: 'not coming' });
    expect(response.statusCode).toBe(200);
    expect(response.json().Receipt).toMatchObject({ SVCPOID: byPoNo.svcpoid, Status: 'Success' });
    expect(await statusOf(byPoNo.svcpoid)).toBe('Cancelled');

    const referenceNo = uniqueId('REF');
    const byReference = await imported(uniqueId('PO'), { ReferenceNo: referenceNo });
    const cancelled = await put({ ...ids(), ReferenceNo: referenceNo });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().Receipt).toMatchObject({ SVCPOID: byReference.SVCPOID, ReferenceNo: referenceNo, Status: 'Success' });
    expect(await statusOf(byReference.SVCPOID)).toBe('Cancelled');
  });

  for (const from of ['Imported', 'Open'] as const) {
    it(`${from} --operator cancel--> Cancelled`, async () => {
      const { svcpoid } = await receiptIn(from);
      const response = await act('cancel', svcpoid);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ Receipt: { SVCPOID: svcpoid, Status: 'Cancelled' } });
      expect(await statusOf(svcpoid)).toBe('Cancelled');
    });
  }

  for (const from of ['Imported', 'Open', 'In Progress'] as const) {
    it(`${from} --3PL post-confirmation--> In Progress; with Close, Closed when complete, else Partial Received`, async () => {
      const received = from === 'In Progress' ? 4 : 0;
      const part = await receiptIn(from);
      const progress = await confirm(part.svcpoid, '1');
      expect(progress.statusCode).toBe(200);
      expect(progress.json().Receipt).toMatchObject({ SVCPOID: part.svcpoid, Status: 'In Progress', Warnings: [] });
      expect((await get(part.svcpoid)).Items[0].ReceivedQty).toBe(String(received + 1));

      const partial = await receiptIn(from);
      const short = await confirm(partial.svcpoid, '1', { Close: true });
      expect(short.json().Receipt.Status).toBe('Partial Received');
      expect(await statusOf(partial.svcpoid)).toBe('Partial Received');

      const whole = await receiptIn(from);
      const complete = await confirm(whole.svcpoid, String(10 - received), { Close: true });
      expect(complete.json().Receipt).toMatchObject({ Status: 'Closed', Warnings: [] });
      expect(await statusOf(whole.svcpoid)).toBe('Closed');
      expect((await get(whole.svcpoid)).Items[0].ReceivedQty).toBe('10');
    });

    it(`${from} --operator force close--> Force Closed`, async () => {
      const { svcpoid } = await receiptIn(from);
      const response = await act('force-close', svcpoid);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ Receipt: { SVCPOID: svcpoid, Status: 'Force Closed' } });
      expect(await statusOf(svcpoid)).toBe('Force Closed');
    });
  }

  it('after a customer cancel the same PONo (and ReferenceNo) imports as a new SVCPOID; the cancelled one stays cancelled', async () => {
    const poNo = uniqueId('PO');
    const referenceNo = uniqueId('REF');
    const first = await imported(poNo, { ReferenceNo: referenceNo });
    expect((await importReceipt(poNo, { ActionCode: 'Cancelled' })).statusCode).toBe(200);
    const second = await imported(poNo, { ReferenceNo: referenceNo });
    expect(second.SVCPOID).not.toBe(first.SVCPOID);
    expect(await statusOf(first.SVCPOID)).toBe('Cancelled');
    expect(await statusOf(second.SVCPOID)).toBe('Imported');
    // And an update now goes to the new one.
    const update = await importReceipt(poNo, { ReferenceNo: referenceNo, BOLNo: 'B2' });
    expect(update.json().Receipt.SVCPOID).toBe(second.SVCPOID);
  });

  it('after an operator cancel the same PONo imports as a new SVCPOID', async () => {
    const { svcpoid, poNo } = await receiptIn('Open');
    expect((await act('cancel', svcpoid)).statusCode).toBe(200);
    const again = await imported(poNo);
    expect(again.SVCPOID).not.toBe(svcpoid);
    expect(await statusOf(again.SVCPOID)).toBe('Imported');
  });

  // ---- the refused moves: 409 naming the current status, nothing changed -------------------

  const refusedOperatorMoves: { move: 'open' | 'cancel' | 'force-close'; from: Status[]; needs: string }[] = [
    { move: 'open', from: ['Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'], needs: 'Imported' },
    { move: 'cancel', from: ['In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'], needs: 'Imported or Open' },
    { move: 'force-close', from: ['Partial Received', 'Closed', 'Force Closed', 'Cancelled'], needs: 'Imported or Open or In Progress' },
  ];
  for (const { move, from, needs } of refusedOperatorMoves) {
    for (const status of from) {
      it(`${status} --operator ${move}--> 409 naming ${status}`, async () => {
        const { svcpoid } = await receiptIn(status);
        const response = await act(move, svcpoid);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toEqual(problems(`Receipt ${svcpoid} is ${status}; ${move} needs ${needs}`));
        expect(await statusOf(svcpoid)).toBe(status);
      });
    }
  }

  for (const status of ['Partial Received', 'Closed', 'Force Closed', 'Cancelled'] as const) {
    it(`${status} --3PL post-confirmation--> 409 naming ${status}; no stock posted`, async () => {
      const { svcpoid } = await receiptIn(status);
      const postings = await count('inventory_ledger', { source_id: svcpoid });
      const rcs = await count('receipt_confirmations', { svcpoid });
      const response = await confirm(svcpoid, '1');
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual(
        problems(`Receipt ${svcpoid} is ${status}; only Imported, Open, In Progress receipts can be received`),
      );
      expect(await statusOf(svcpoid)).toBe(status);
      expect(await count('inventory_ledger', { source_id: svcpoid })).toBe(postings);
      expect(await count('receipt_confirmations', { svcpoid })).toBe(rcs);
    });
  }

  it('a confirmation line of quantity zero is refused (400) and posts nothing', async () => {
    const { svcpoid } = await receiptIn('Open');
    const response = await confirm(svcpoid, '0');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problems('Items[0].ReceivedQuantity must be a positive decimal with at most 11 integer and 4 fractional digits'),
    );
    expect(await count('inventory_ledger', { source_id: svcpoid })).toBe(0);
    expect(await statusOf(svcpoid)).toBe('Open');
  });

  for (const status of ['In Progress', 'Partial Received', 'Closed', 'Force Closed'] as const) {
    it(`${status} --import (update)--> 409 naming ${status}, with a failure ACK; the receipt is unchanged`, async () => {
      const { svcpoid, poNo } = await receiptIn(status);
      const before = await get(svcpoid);
      const response = await importReceipt(poNo, { Items: [line({ ExpectedQty: '99' })], BOLNo: 'CHANGED' });
      expect(response.statusCode).toBe(409);
      const message = `Receipt ${svcpoid} is ${status}; it can no longer be updated`;
      expect(response.json()).toEqual(problems(message));
      expect(await get(svcpoid)).toEqual(before);
      const acks = await acksOf(poNo);
      expect(acks.at(-1)).toMatchObject({ PONo: poNo, ACK: failureAck(message) });
    });
  }

  for (const status of ['Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed'] as const) {
    it(`${status} --customer cancel (ActionCode Cancelled, PUT cancel)--> 409 naming ${status}, each with a failure ACK`, async () => {
      const { svcpoid, poNo } = await receiptIn(status);
      const message = `Receipt ${svcpoid} is ${status}; only an Imported receipt can be cancelled by the customer`;
      const acksBefore = (await acksOf(poNo)).length;

      const byImport = await importReceipt(poNo, { ActionCode: 'Cancelled' });
      expect(byImport.statusCode).toBe(409);
      expect(byImport.json()).toEqual(problems(message));
      const byPut = await put({ ...ids(), PONo: poNo });
      expect(byPut.statusCode).toBe(409);
      expect(byPut.json()).toEqual(problems(message));

      expect(await statusOf(svcpoid)).toBe(status);
      const acks = await acksOf(poNo);
      expect(acks).toHaveLength(acksBefore + 2);
      expect(acks.slice(-2).map((a) => a.ACK)).toEqual([failureAck(message), failureAck(message)]);
    });
  }

  it('Cancelled --customer cancel--> 404 with a failure ACK (a cancelled receipt is not live)', async () => {
    const { poNo } = await receiptIn('Cancelled');
    const byImport = await importReceipt(poNo, { ActionCode: 'Cancelled' });
    expect(byImport.statusCode).toBe(404);
    expect(byImport.json()).toEqual({ error: `Not found receipt with PONo ${poNo}` });
    const byPut = await put({ ...ids(), PONo: poNo });
    expect(byPut.statusCode).toBe(404);
    expect(byPut.json()).toEqual({ error: `Not found receipt with PONo ${poNo}` });
    expect((await acksOf(poNo)).slice(-2).map((a) => a.ACK)).toEqual([
      failureAck(`Not found receipt with PONo ${poNo}`),
      failureAck(`Not found receipt with PONo ${poNo}`),
    ]);
  });

  it('every status answers each move as the state machine says (the whole table)', async () => {
    // One receipt per (status, move); a move the table does not allow is 409 and changes nothing.
    const table: Record<Status, Record<string, Status | 409 | 404>> = {
      Imported: {
        open: 'Open',
        cancel: 'Cancelled',
        'force-close': 'Force Closed',
        confirm: 'In Progress',
        update: 'Imported',
        customerCancel: 'Cancelled',
      },
      Open: {
        open: 409,
        cancel: 'Cancelled',
        'force-close': 'Force Closed',
        confirm: 'In Progress',
        update: 'Imported',
        customerCancel: 409,
      },
      'In Progress': { open: 409, cancel: 409, 'force-close': 'Force Closed', confirm: 'In Progress', update: 409, customerCancel: 409 },
      'Partial Received': { open: 409, cancel: 409, 'force-close': 409, confirm: 409, update: 409, customerCancel: 409 },
      Closed: { open: 409, cancel: 409, 'force-close': 409, confirm: 409, update: 409, customerCancel: 409 },
      'Force Closed': { open: 409, cancel: 409, 'force-close': 409, confirm: 409, update: 409, customerCancel: 409 },
      Cancelled: { open: 409, cancel: 409, 'force-close': 409, confirm: 409, update: 'Imported', customerCancel: 404 },
    };
    const seen: string[] = [];
    for (const from of STATUSES) {
      for (const [move, expected] of Object.entries(table[from])) {
        const { svcpoid, poNo } = await receiptIn(from);
        const response =
          move === 'confirm'
            ? await confirm(svcpoid, '1')
            : move === 'update'
              ? await importReceipt(poNo)
              : move === 'customerCancel'
                ? await importReceipt(poNo, { ActionCode: 'Cancelled' })
                : await act(move as 'open' | 'cancel' | 'force-close', svcpoid);
        const outcome = response.statusCode === 200 ? 200 : response.statusCode;
        const after = await statusOf(svcpoid);
        seen.push(`${from} ${move}: ${outcome} ${after}`);
        if (typeof expected === 'number') {
          expect(outcome, `${from} ${move}`).toBe(expected);
          expect(after, `${from} ${move}`).toBe(from);
          if (expected === 409) expect(response.json()[0].error, `${from} ${move}`).toContain(`is ${from};`);
        } else if (from === 'Cancelled' && move === 'update') {
          // Not a move of the cancelled receipt: a new receipt under a new SVCPOID.
          expect(outcome).toBe(200);
          expect(response.json().Receipt.SVCPOID).not.toBe(svcpoid);
          expect(after).toBe('Cancelled');
        } else {
          expect(outcome, `${from} ${move}`).toBe(200);
          expect(after, `${from} ${move}`).toBe(expected);
        }
      }
    }
    expect(seen).toHaveLength(42);
  });

  // ---- the RN import's validation rules -----------------------------------------------------

  /** Moves the clock a second on, so that an ACK search from "now" sees only what follows. */
  const mark = () => {
    ctx().clock.advance(1000);
    return formatFacilityLocal(ctx().clock.now(), ZONE);
  };
  const acksSince = async (since: string) => {
    const response = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), CreatedWhenFrom: since, Paging: { PageSize: 1000 } }, customerKey);
    if (response.statusCode === 404) {
      expect(response.json()).toEqual({ error: 'Not found receipt' });
      return [];
    }
    return response.json() as Record<string, unknown>[];
  };

  const long = (n: number) => 'x'.repeat(n);
  /** [what, the request body, the messages, the PONo and ReferenceNo the failure ACK keeps] */
  const rejected: [string, (poNo: string) => unknown, string[], { poNo: boolean; referenceNo?: string | null }][] = [
    ['ASNContent missing', (p) => ({ ...body(p), ASNContent: undefined }), ['ASNContent is required'], { poNo: false }],
    ['PONo missing', (p) => body(p, { PONo: undefined }), ['ASNContent.PONo is required'], { poNo: false }],
    ['PONo empty', (p) => body(p, { PONo: '' }), ['ASNContent.PONo must not be empty'], { poNo: false }],
    ['PONo of 51 characters', (p) => body(p, { PONo: long(51) }), ['ASNContent.PONo must be at most 50 characters'], { poNo: false }],
    ['Status missing', (p) => body(p, { Status: undefined }), ['ASNContent.Status is required'], { poNo: true }],
    ['Status Open', (p) => body(p, { Status: 'Open' }), ['ASNContent.Status must be "Imported"'], { poNo: true }],
    [
      'Status Cancelled with ActionCode Cancelled',
      (p) => body(p, { Status: 'Cancelled', ActionCode: 'Cancelled' }),
      ['ASNContent.Status must be "Imported"'],
      { poNo: true },
    ],
    [
      'ReferenceNo of 51 characters',
      (p) => body(p, { ReferenceNo: long(51) }),
      ['ASNContent.ReferenceNo must be at most 50 characters'],
      { poNo: true, referenceNo: null },
    ],
    ['BOLNo of 51 characters', (p) => body(p, { BOLNo: long(51) }), ['ASNContent.BOLNo must be at most 50 characters'], { poNo: true }],
    [
      'CarrierName of 16 characters',
      (p) => body(p, { CarrierName: long(16) }),
      ['ASNContent.CarrierName must be at most 15 characters'],
      { poNo: true },
    ],
    [
      'SCACCode of 16 characters',
      (p) => body(p, { SCACCode: long(16) }),
      ['ASNContent.SCACCode must be at most 15 characters'],
      { poNo: true },
    ],
    [
      'ShippingInstruction of 1001 characters',
      (p) => body(p, { ShippingInstruction: long(1001) }),
      ['ASNContent.ShippingInstruction must be at most 1000 characters'],
      { poNo: true },
    ],
    [
      'header DynTxtPropertyValue01 of 101 characters',
      (p) => body(p, { DynTxtPropertyValue01: long(101) }),
      ['ASNContent.DynTxtPropertyValue01 must be at most 100 characters'],
      { poNo: true },
    ],
    [
      'header DynTxtPropertyValue20 of 101 characters',
      (p) => body(p, { DynTxtPropertyValue20: long(101) }),
      ['ASNContent.DynTxtPropertyValue20 must be at most 100 characters'],
      { poNo: true },
    ],
    [
      'line DynTxtPropertyValue01 of 201 characters',
      (p) => body(p, { Items: [line({ DynTxtPropertyValue01: long(201) })] }),
      ['ASNContent.Items[0].DynTxtPropertyValue01 must be at most 200 characters'],
      { poNo: true },
    ],
    [
      'ItemNumber of 31 characters',
      (p) => body(p, { Items: [line({ ItemNumber: long(31) })] }),
      ['ASNContent.Items[0].ItemNumber must be at most 30 characters'],
      { poNo: true },
    ],
    [
      'ItemNumber missing',
      (p) => body(p, { Items: [line({ ItemNumber: undefined })] }),
      ['ASNContent.Items[0].ItemNumber is required'],
      { poNo: true },
    ],
    [
      'line LotNo of 31 characters',
      (p) => body(p, { Items: [line({ LotNo: long(31) })] }),
      ['ASNContent.Items[0].LotNo must be at most 30 characters'],
      { poNo: true },
    ],
    [
      'GoodsType of 11 characters',
      (p) => body(p, { Items: [line({ GoodsType: long(11) })] }),
      ['ASNContent.Items[0].GoodsType must be at most 10 characters'],
      { poNo: true },
    ],
    [
      'ItemNotes of 1001 characters',
      (p) => body(p, { Items: [line({ ItemNotes: long(1001) })] }),
      ['ASNContent.Items[0].ItemNotes must be at most 1000 characters'],
      { poNo: true },
    ],
    ['UOM PK', (p) => body(p, { Items: [line({ UOM: 'PK' })] }), ['ASNContent.Items[0].UOM must be one of: EA, CS'], { poNo: true }],
    ['UOM missing', (p) => body(p, { Items: [line({ UOM: undefined })] }), ['ASNContent.Items[0].UOM is required'], { poNo: true }],
    [
      'ReceiptType not in the list',
      (p) => body(p, { ReceiptType: 'Gift' }),
      [
        'ASNContent.ReceiptType must be one of: Regular Receipt, Title Transfer Receipt, Migo Transfer Receipt, Sales Return, Transload, Assembly',
      ],
      { poNo: true },
    ],
    [
      'ActionCode Deleted',
      (p) => body(p, { ActionCode: 'Deleted' }),
      ['ASNContent.ActionCode must be one of: Imported, Cancelled'],
      { poNo: true },
    ],
    [
      'CarrierName missing with no SCACCode',
      (p) => body(p, { CarrierName: undefined }),
      ['ASNContent.CarrierName is required when SCACCode is empty'],
      { poNo: true },
    ],
    [
      'CarrierName empty with an empty SCACCode',
      (p) => body(p, { CarrierName: '', SCACCode: '' }),
      ['ASNContent.CarrierName is required when SCACCode is empty'],
      { poNo: true },
    ],
    ...(['ReceivingPriority', 'Receiving Priority'] as const).flatMap((key) =>
      [0, 101, 'abc', '0', '101', 1.5].map((value): [string, (poNo: string) => unknown, string[], { poNo: boolean }] => [
        `${key} ${JSON.stringify(value)}`,
        (p) => body(p, { Items: [line({ [key]: value })] }),
        [`ASNContent.Items[0].${key} must be a whole number from 1 to 100 or null`],
        { poNo: true },
      ]),
    ),
    [
      'ReceivingPriority and Receiving Priority disagreeing',
      (p) => body(p, { Items: [line({ ReceivingPriority: 5, 'Receiving Priority': '6' })] }),
      ['ASNContent.Items[0].ReceivingPriority and Receiving Priority disagree'],
      { poNo: true },
    ],
    [
      'Pallets -1 (refused by the schema)',
      (p) => body(p, { Items: [line({ Pallets: -1 })] }),
      ['ASNContent.Items[0].Pallets must be a decimal(5,2): at most 3 integer and 2 fractional digits'],
      { poNo: true },
    ],
    [
      'Pallets "1.234" (refused by the schema)',
      (p) => body(p, { Items: [line({ Pallets: '1.234' })] }),
      ['ASNContent.Items[0].Pallets must be a decimal(5,2): at most 3 integer and 2 fractional digits'],
      { poNo: true },
    ],
    ...[1000, 1.234, 999.999].map((value): [string, (poNo: string) => unknown, string[], { poNo: boolean }] => [
      `Pallets ${value}`,
      (p) => body(p, { Items: [line({ Pallets: value })] }),
      ['ASNContent.Items[0].Pallets must be a decimal(5,2): at most 3 integer and 2 fractional digits'],
      { poNo: true },
    ]),
    ...(['-1', '0', 0, '1e3', '123456789012', 1.23456, 'abc', '', '1.', '.5', -2] as const).map(
      (value): [string, (poNo: string) => unknown, string[], { poNo: boolean }] => [
        `ExpectedQty ${JSON.stringify(value)}`,
        (p) => body(p, { Items: [line({ ExpectedQty: value })] }),
        ['ASNContent.Items[0].ExpectedQty must be a positive decimal with at most 11 integer and 4 fractional digits'],
        { poNo: true },
      ],
    ),
    [
      'ExpectedQty missing',
      (p) => body(p, { Items: [line({ ExpectedQty: undefined })] }),
      ['ASNContent.Items[0].ExpectedQty is required'],
      { poNo: true },
    ],
    [
      'ScheduledDate tomorrow',
      (p) => body(p, { ScheduledDate: 'tomorrow' }),
      ['ASNContent.ScheduledDate must be a date-time such as 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09'],
      { poNo: true },
    ],
    [
      'ETD 13/45/2024 1:00:00 PM',
      (p) => body(p, { ETD: '13/45/2024 1:00:00 PM' }),
      ['ASNContent.ETD must be a date-time such as 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09'],
      { poNo: true },
    ],
    ['Items empty', (p) => body(p, { Items: [] }), ['ASNContent.Items must have at least 1 item'], { poNo: true }],
    ['Items missing', (p) => body(p, { Items: undefined }), ['ASNContent.Items is required'], { poNo: true }],
    [
      'several rule problems at once',
      (p) => body(p, { CarrierName: undefined, ScheduledDate: 'tomorrow', Items: [line({ ExpectedQty: '0' }), line({ Pallets: 1000 })] }),
      [
        'ASNContent.CarrierName is required when SCACCode is empty',
        'ASNContent.ScheduledDate must be a date-time such as 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09',
        'ASNContent.Items[0].ExpectedQty must be a positive decimal with at most 11 integer and 4 fractional digits',
        'ASNContent.Items[1].Pallets must be a decimal(5,2): at most 3 integer and 2 fractional digits',
      ],
      { poNo: true },
    ],
    [
      'several schema problems at once',
      (p) => body(p, { BOLNo: long(51), Items: [line({ UOM: 'PK', LotNo: long(31) })] }),
      [
        'ASNContent.BOLNo must be at most 50 characters',
        'ASNContent.Items[0].LotNo must be at most 30 characters',
        'ASNContent.Items[0].UOM must be one of: EA, CS',
      ],
      { poNo: true },
    ],
  ];

  for (const [what, makeBody, messages, kept] of rejected) {
    it(`refuses ${what}: 400 naming the field, no receipt, exactly one failure ACK`, async () => {
      const poNo = uniqueId('PO');
      const request = makeBody(poNo) as { ASNContent?: Record<string, unknown> };
      // A valid ReferenceNo rides along wherever the case leaves it alone; the ACK keeps it.
      const referenceNo = kept.referenceNo === undefined && request.ASNContent ? uniqueId('REF') : undefined;
      if (referenceNo) request.ASNContent!.ReferenceNo = referenceNo;
      const receipts = await count('receipts');
      const lines = await count('receipt_lines');
      const since = mark();

      const response = await ctx().post(RECEIPT_IMPORT, request, customerKey);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(problems(...messages));
      expect(await count('receipts')).toBe(receipts);
      expect(await count('receipt_lines')).toBe(lines);
      expect(await count('receipts', { po_no: poNo })).toBe(0);
      expect(await acksSince(since)).toEqual([
        {
          FacilityID: tenant.facilityIds[0],
          CustomerID: tenant.customerIds[0],
          PONo: kept.poNo ? poNo : null,
          ReferenceNo: referenceNo ?? null,
          ACK: failureAck(...messages),
          CreatedWhen: since,
        },
      ]);
    });
  }

  it('reports the schema problems and the rule problems of one body together (all problems at once)', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(
      RECEIPT_IMPORT,
      body(poNo, { BOLNo: long(51), CarrierName: undefined, ScheduledDate: 'tomorrow' }),
      customerKey,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      expect.arrayContaining(
        problems(
          'ASNContent.BOLNo must be at most 50 characters',
          'ASNContent.CarrierName is required when SCACCode is empty',
          'ASNContent.ScheduledDate must be a date-time such as 3/5/2024 2:07:09 PM or 2024-03-05T14:07:09',
        ),
      ),
    );
  });

  const noAck: [string, () => unknown, number, unknown | (() => unknown)][] = [
    ['CompanyID missing', () => ({ ...body(uniqueId('PO')), CompanyID: undefined }), 400, problems('CompanyID is required')],
    ['CustomerID missing', () => ({ ...body(uniqueId('PO')), CustomerID: undefined }), 400, problems('CustomerID is required')],
    ['FacilityID missing', () => ({ ...body(uniqueId('PO')), FacilityID: undefined }), 400, problems('FacilityID is required')],
    [
      'CustomerID of 16 characters',
      () => ({ ...body(uniqueId('PO')), CustomerID: long(16) }),
      400,
      problems('CustomerID must be at most 15 characters'),
    ],
    [
      'CustomerID missing and a rule problem',
      () => ({ ...body(uniqueId('PO'), { PONo: long(51) }), CustomerID: undefined }),
      400,
      problems('CustomerID is required', 'ASNContent.PONo must be at most 50 characters'),
    ],
    ['an unknown FacilityID', () => body(uniqueId('PO'), {}, { FacilityID: 'NOSUCHFAC' }), 400, { error: 'Not found facility' }],
    [
      'an invalid body with an unknown FacilityID',
      () => body(uniqueId('PO'), { Status: 'Open' }, { FacilityID: 'NOSUCHFAC' }),
      400,
      problems('ASNContent.Status must be "Imported"'),
    ],
    [
      'another customer (out of the key’s scope)',
      () => body(uniqueId('PO'), {}, { CustomerID: tenant.customerIds[1] }),
      403,
      () => problems(`CustomerID ${tenant.customerIds[1]} is outside this API key's scope`),
    ],
    [
      'an invalid body for another customer',
      () => body(uniqueId('PO'), { Status: 'Open' }, { CustomerID: tenant.customerIds[1] }),
      400,
      problems('ASNContent.Status must be "Imported"'),
    ],
  ];
  for (const [what, makeBody, status, answer] of noAck) {
    it(`writes no ACK when the identifiers are not valid and in scope: ${what}`, async () => {
      const acks = await count('acks');
      const receipts = await count('receipts');
      const response = await ctx().post(RECEIPT_IMPORT, makeBody(), customerKey);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual(typeof answer === 'function' ? answer() : answer);
      expect(await count('acks')).toBe(acks);
      expect(await count('receipts')).toBe(receipts);
    });
  }

  it('writes no ACK for a 401, a 403 (role or scope), a 415 or unparseable JSON', async () => {
    const poNo = uniqueId('PO');
    const acks = await count('acks');
    expect((await ctx().post(RECEIPT_IMPORT, body(poNo))).statusCode).toBe(401);
    expect((await ctx().post(RECEIPT_IMPORT, body(poNo), 'wk_not-a-real-key')).statusCode).toBe(401);
    const operator = await ctx().post(RECEIPT_IMPORT, body(poNo), operatorKey);
    expect(operator.statusCode).toBe(403);
    expect(operator.json()).toEqual(problems('An API key with role operator may not call this operation'));
    expect((await ctx().post(RECEIPT_IMPORT, body(poNo), otherCustomerKey)).statusCode).toBe(403);
    const invalidByOperator = await ctx().post(RECEIPT_IMPORT, body(poNo, { Status: 'Open' }), operatorKey);
    expect(invalidByOperator.statusCode).toBe(400);
    expect((await ctx().post(RECEIPT_IMPORT, `{"CompanyID":"${tenant.companyId}","CustomerID":`, customerKey)).statusCode).toBe(400);
    const text = await ctx().app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${RECEIPT_IMPORT}`,
      headers: { 'content-type': 'text/plain', authorization: `APIKey ${customerKey}` },
      payload: JSON.stringify(body(poNo)),
    });
    expect(text.statusCode).toBe(415);
    expect(await count('acks')).toBe(acks);
    expect(await acksOf(poNo)).toEqual([]);
  });

  it('an admin key acknowledges like the customer’s own key', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(RECEIPT_IMPORT, body(poNo, { UOM: 'x', Items: [] }), adminKey);
    expect(response.statusCode).toBe(400);
    expect(await acksOf(poNo)).toHaveLength(1);
  });

  it('an Idempotency-Key replay of a refused import writes no second ACK (schema and rule refusals)', async () => {
    for (const content of [{ Status: 'Open' }, { CarrierName: undefined }]) {
      const poNo = uniqueId('PO');
      const headers = { 'idempotency-key': uniqueId('IK') };
      const first = await importReceipt(poNo, content, customerKey, headers);
      expect(first.statusCode).toBe(400);
      const replay = await importReceipt(poNo, content, customerKey, headers);
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toEqual(first.json());
      expect(await acksOf(poNo)).toHaveLength(1);
      // Another body under the same key is 422 and writes nothing either.
      const other = await importReceipt(poNo, { ...content, BOLNo: 'other' }, customerKey, headers);
      expect(other.statusCode).toBe(422);
      expect(await acksOf(poNo)).toHaveLength(1);
    }
  });

  it('an Idempotency-Key replay of an accepted import, cancel or refused move writes no second ACK', async () => {
    const poNo = uniqueId('PO');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const first = await importReceipt(poNo, {}, customerKey, headers);
    expect((await importReceipt(poNo, {}, customerKey, headers)).json()).toEqual(first.json());
    const cancelHeaders = { 'idempotency-key': uniqueId('IK') };
    const cancel = await importReceipt(poNo, { ActionCode: 'Cancelled' }, customerKey, cancelHeaders);
    expect(cancel.statusCode).toBe(200);
    const cancelAgain = await importReceipt(poNo, { ActionCode: 'Cancelled' }, customerKey, cancelHeaders);
    expect(cancelAgain.statusCode).toBe(200);
    expect(cancelAgain.json()).toEqual(cancel.json());
    // Without the key, the second cancel finds nothing live: 404 and its failure ACK.
    const unkeyed = await importReceipt(poNo, { ActionCode: 'Cancelled' });
    expect(unkeyed.statusCode).toBe(404);
    expect((await acksOf(poNo)).map((a) => ('code' in a.ACK ? 'failure' : a.ACK.Status))).toEqual(['Success', 'Success', 'failure']);
  });

  // ---- what the import accepts ---------------------------------------------------------------

  it('accepts every field at its maximum length and the boundary values', async () => {
    const poNo = `${uniqueId('PO')}${'P'.repeat(50)}`.slice(0, 50);
    const dyn = (n: number) =>
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`DynTxtPropertyValue${String(i + 1).padStart(2, '0')}`, long(n)]));
    const response = await importReceipt(poNo, {
      ReceiptType: 'Sales Return',
      SupplierID: long(15),
      ReferenceNo: `${uniqueId('R')}${'R'.repeat(50)}`.slice(0, 50),
      BOLNo: long(50),
      ContainerNo: long(50),
      Seals: long(50),
      CarrierName: long(15),
      SCACCode: long(15),
      ShippingInstruction: long(1000),
      ...dyn(100),
      ActionCode: 'Imported',
      ETD: '12/31/2026 11:59:59 PM',
      Items: [
        line({
          ItemNumber: 'SKU-1',
          LotNo: long(30),
          GoodsType: long(10),
          ItemNotes: long(1000),
          ...dyn(200),
          Pallets: 999.99,
          ReceivingPriority: 100,
          ExpectedQty: '99999999999.9999',
        }),
        line({ ItemNumber: 'SKU-2', Pallets: '0.01', 'Receiving Priority': '1', ExpectedQty: 0.0001, UOM: 'CS' }),
        line({ ItemNumber: 'SKU-1', LotNo: 'B', ReceivingPriority: 7, 'Receiving Priority': '7', ExpectedQty: 1000 }),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().Receipt.Status).toBe('Success');
    const receipt = await get(response.json().Receipt.SVCPOID);
    expect(receipt.Items.map((i: { ExpectedQty: string }) => i.ExpectedQty)).toEqual(['99999999999.9999', '0.0001', '1000']);
    expect(receipt.ReceiptType).toBe('Sales Return');
  });

  it('defaults an empty or absent ReceiptType to Regular Receipt', async () => {
    for (const receiptType of [undefined, '', null]) {
      const response = await importReceipt(uniqueId('PO'), { ReceiptType: receiptType });
      expect(response.statusCode, `ReceiptType ${JSON.stringify(receiptType)}: ${response.body}`).toBe(200);
      expect((await get(response.json().Receipt.SVCPOID)).ReceiptType).toBe('Regular Receipt');
    }
  });

  it('takes a null ActionCode as absent (an import)', async () => {
    const response = await importReceipt(uniqueId('PO'), { ActionCode: null });
    expect(response.statusCode, response.body).toBe(200);
    expect(await statusOf(response.json().Receipt.SVCPOID)).toBe('Imported');
  });

  it('accepts SCACCode alone, without a CarrierName', async () => {
    const response = await importReceipt(uniqueId('PO'), { CarrierName: undefined, SCACCode: 'UPSN' });
    expect(response.statusCode).toBe(200);
  });

  it('reads ScheduledDate and ETD in the published US form and in ISO, in the facility’s time zone', async () => {
    const forms: [string, string][] = [
      ['3/10/2026 2:07:09 PM', '2026-03-10T14:07:09.000'],
      ['03/10/2026 02:07:09 PM', '2026-03-10T14:07:09.000'],
      ['3/10/2026 9:05 AM', '2026-03-10T09:05:00.000'],
      ['3/10/2026', '2026-03-10T00:00:00.000'],
      ['2026-03-10T14:07:09', '2026-03-10T14:07:09.000'],
      ['2026-03-10T14:07:09.123', '2026-03-10T14:07:09.123'],
      ['2026-03-10T22:07:09Z', '2026-03-10T15:07:09.000'],
    ];
    for (const [text, local] of forms) {
      const response = await importReceipt(uniqueId('PO'), { ScheduledDate: text, ETD: text });
      expect(response.statusCode, text).toBe(200);
      expect(response.json().Receipt.Status, text).toBe('Success');
      expect((await get(response.json().Receipt.SVCPOID)).ScheduledDate, text).toBe(local);
    }
  });

  it('keeps unknown keys (Title, Source, PalletSizeID, Kitting, KittingItems) and returns them from the 3PL get', async () => {
    const extras = {
      Title: 'Spring restock',
      Source: 'ERP',
      PalletSizeID: 'P48x40',
      Kitting: false,
      KittingItems: [{ ItemNumber: 'SKU-2', Qty: 2 }],
    };
    const response = await ctx().post(
      RECEIPT_IMPORT,
      {
        ...body(uniqueId('PO'), { ...extras, Items: [line({ LineColour: 'blue' })] }),
        Channel: 'EDI',
      },
      customerKey,
    );
    expect(response.statusCode, response.body).toBe(200);
    const receipt = await get(response.json().Receipt.SVCPOID);
    expect(receipt).toMatchObject(extras);
    expect(receipt.Items[0]).toMatchObject({ LineColour: 'blue' });
  });

  it('refuses, rather than keeps, a key named like a field Wharf sets (names Wharf owns), and stores nothing', async () => {
    const poNo = uniqueId('PO');
    const response = await importReceipt(poNo, {
      SVCPOID: 'RN-0',
      CreatedWhen: '1999-01-01T00:00:00.000',
      UpdatedWhen: '1999-01-01T00:00:00.000-08:00',
      CustomerID: tenant.customerIds[1],
      FacilityID: 'ELSEWHERE',
      Items: [line({ ReceivedQty: '10', LineNo: 99 })],
    });
    const messages = ['SVCPOID', 'CreatedWhen', 'UpdatedWhen', 'CustomerID', 'FacilityID', 'Items[0].ReceivedQty', 'Items[0].LineNo'].map(
      (name) => `ASNContent.${name} is not allowed here: Wharf's own answers use this name`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(problems(...messages));
    expect((await acksOf(poNo)).map((record) => record.ACK)).toEqual([failureAck(...messages)]);
    const list = await ctx().post(`${THREEPL_RECEIPT}/list`, { ...facility(), PONo: poNo }, operatorKey);
    expect(list.json().results.data).toEqual([]);
  });
});
