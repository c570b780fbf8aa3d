import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { expectInternalError, failureInjection } from './helpers/failures.js';
import { createKey, createTenant, facilityOf, idsOf, importItems, problems, uniqueId, type Tenant } from './helpers/factories.js';
import { RECEIPT_CANCEL, RECEIPT_IMPORT, THREEPL_RECEIPT } from './helpers/paths.js';

/**
 * docs/decisions.md: one request = one database transaction; a failure leaves no partial document or
 * posting. A trigger makes the last write of a request fail (the ACK of an import or cancel, the
 * RC of a confirmation, the event of an operator move); nothing the request wrote before it may
 * remain. Then, without the trigger, the same request succeeds. The last tests check that two
 * requests on one receipt serialize: the later one sees the earlier one's status.
 */

const TABLES = [
  'receipts',
  'receipt_lines',
  'receipt_events',
  'receipt_confirmations',
  'acks',
  'inventory_balances',
  'inventory_ledger',
  'idempotency_records',
  // A change's events go with it (docs/webhooks.md): a rolled-back change leaves none.
  'events',
] as const;

describeEachDialect('receipt atomicity', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let operatorKey: string;
  const db = () => ctx().database.db;
  const failures = failureInjection(db, dialect);

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    await importItems(ctx(), { tenant, key: customerKey, items: ['SKU-A', 'SKU-B'] });
    await failures.install();
  });

  const { withFailingInserts, race } = failures;
  /** Every row of the tenant in the tables a receipt request writes (and SQLite's SVCPOID counter). */
  const snapshot = () => failures.snapshot(tenant.companyId, TABLES);

  const ids = () => idsOf(tenant);
  const facility = () => facilityOf(tenant);
  const receiptBody = (poNo: string, content: Record<string, unknown> = {}) => ({
    ...ids(),
    ASNContent: {
      PONo: poNo,
      SCACCode: 'UPSN',
      Status: 'Imported',
      Items: [
        { ItemNumber: 'SKU-A', ExpectedQty: '10', UOM: 'EA', POLineNo: 1 },
        { ItemNumber: 'SKU-B', ExpectedQty: '5', UOM: 'CS', POLineNo: 2 },
      ],
      ...content,
    },
  });
  const importReceipt = async (poNo = uniqueId('PO'), content: Record<string, unknown> = {}) => {
    const response = await ctx().post(RECEIPT_IMPORT, receiptBody(poNo, content), customerKey);
    expect(response.statusCode, response.body).toBe(200);
    return { svcpoid: response.json().Receipt.SVCPOID as string, poNo };
  };
  const confirmation = (svcpoid: string, confirmationNo: string, extra: Record<string, unknown> = {}) => ({
    ...facility(),
    SVCPOID: svcpoid,
    ConfirmationNo: confirmationNo,
    Items: [
      { ItemNumber: 'SKU-A', ReceivedQuantity: '10', UOM: 'EA', LotNo: 'L1' },
      { ItemNumber: 'SKU-B', ReceivedQuantity: '2', UOM: 'CS' },
    ],
    ...extra,
  });
  const statusOf = async (svcpoid: string) => {
    const { rows } = await sql<{ status: string }>`select status from receipts where svcpoid = ${svcpoid}`.execute(db());
    return rows[0]!.status;
  };
  const ledgerRows = async (svcpoid: string) => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from inventory_ledger where source_id = ${svcpoid}`.execute(
      db(),
    );
    return Number(rows[0]!.n);
  };
  const receivedQuantities = async (svcpoid: string) => {
    const { rows } = await sql<{ item_id: string; received_qty: number | string }>`
      select item_id, received_qty from receipt_lines where svcpoid = ${svcpoid} order by line_no`.execute(db());
    return rows.map((row) => [row.item_id, Number(row.received_qty) / 10_000]);
  };
  /** The status moves recorded for a receipt must form one chain: each starts where the last ended. */
  const expectEventChain = async (svcpoid: string) => {
    const { rows } = await sql<{ from_status: string; to_status: string }>`
      select from_status, to_status from receipt_events where svcpoid = ${svcpoid} order by id`.execute(db());
    let current = 'Imported';
    for (const event of rows) {
      expect(event.from_status, `events of ${svcpoid}: ${JSON.stringify(rows)}`).toBe(current);
      current = event.to_status;
    }
    expect(await statusOf(svcpoid)).toBe(current);
  };

  // ---- imports and cancels: the ACK is the last write --------------------------------------

  it('an import whose ACK cannot be written leaves no receipt, no line, no counter step and no stored answer; then it succeeds', async () => {
    const poNo = uniqueId('PO');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const before = await snapshot();
    const failed = await withFailingInserts('acks', () => ctx().post(RECEIPT_IMPORT, receiptBody(poNo), customerKey, headers));
    expectInternalError(failed);
    expect(await snapshot()).toEqual(before);

    // The 500 was not stored under the Idempotency-Key: the same request now does its work.
    const retried = await ctx().post(RECEIPT_IMPORT, receiptBody(poNo), customerKey, headers);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().Receipt).toMatchObject({ PONo: poNo, Status: 'Success' });
    expect(await statusOf(retried.json().Receipt.SVCPOID)).toBe('Imported');
    const { rows } = await sql`select * from acks where po_no = ${poNo}`.execute(db());
    expect(rows).toHaveLength(1);
  });

  it('an update whose ACK cannot be written leaves the receipt, its lines and its document as they were', async () => {
    const { svcpoid, poNo } = await importReceipt();
    const before = await snapshot();
    const failed = await withFailingInserts('acks', () =>
      ctx().post(
        RECEIPT_IMPORT,
        receiptBody(poNo, { BOLNo: 'NEW', Items: [{ ItemNumber: 'SKU-B', ExpectedQty: '1', UOM: 'EA' }] }),
        customerKey,
      ),
    );
    expectInternalError(failed);
    expect(await snapshot()).toEqual(before);
    expect(await receivedQuantities(svcpoid)).toEqual([
      ['SKU-A', 0],
      ['SKU-B', 0],
    ]);
  });

  it('a cancel (ActionCode Cancelled, PUT cancel) whose ACK cannot be written leaves the receipt Imported', async () => {
    const { svcpoid, poNo } = await importReceipt();
    const before = await snapshot();
    await withFailingInserts('acks', async () => {
      expectInternalError(await ctx().post(RECEIPT_IMPORT, receiptBody(poNo, { ActionCode: 'Cancelled' }), customerKey));
      expectInternalError(await ctx().put(RECEIPT_CANCEL, { ...ids(), PONo: poNo }, customerKey));
    });
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(svcpoid)).toBe('Imported');
    // And the PONo is still taken by the live receipt: an import updates it.
    const again = await ctx().post(RECEIPT_IMPORT, receiptBody(poNo), customerKey);
    expect(again.json().Receipt.SVCPOID).toBe(svcpoid);
  });

  // ---- confirmations: the RC is the last write ----------------------------------------------

  it('a confirmation whose RC cannot be written posts no stock, receives nothing and moves nothing; then it succeeds once', async () => {
    const { svcpoid } = await importReceipt();
    const confirmationNo = uniqueId('CN');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const body = confirmation(svcpoid, confirmationNo, { Close: true });
    const before = await snapshot();

    const failed = await withFailingInserts('receipt_confirmations', () =>
      ctx().post(`${THREEPL_RECEIPT}/post-confirmation`, body, operatorKey, headers),
    );
    expectInternalError(failed);
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(svcpoid)).toBe('Imported');
    expect(await receivedQuantities(svcpoid)).toEqual([
      ['SKU-A', 0],
      ['SKU-B', 0],
    ]);
    expect(await ledgerRows(svcpoid)).toBe(0);

    const succeeded = await ctx().post(`${THREEPL_RECEIPT}/post-confirmation`, body, operatorKey, headers);
    expect(succeeded.statusCode).toBe(200);
    expect(succeeded.json()).toEqual({
      Receipt: { SVCPOID: svcpoid, Status: 'Partial Received', ConfirmationNo: confirmationNo, Warnings: [] },
    });
    expect(await ledgerRows(svcpoid)).toBe(2);
    expect(await receivedQuantities(svcpoid)).toEqual([
      ['SKU-A', 10],
      ['SKU-B', 2],
    ]);
    // Applied once: the same ConfirmationNo again (without the header) replays and posts nothing more.
    const replay = await ctx().post(`${THREEPL_RECEIPT}/post-confirmation`, body, operatorKey);
    expect(replay.json()).toEqual(succeeded.json());
    expect(await ledgerRows(svcpoid)).toBe(2);
  });

  it('a confirmation one of whose later lines is refused (a balance past 11 integer digits) posts none of its lines', async () => {
    // Fill SKU-B's balance (lot FULL) to the maximum through one receipt...
    const filler = await importReceipt(uniqueId('PO'), { Items: [{ ItemNumber: 'SKU-B', ExpectedQty: '99999999999.9999', UOM: 'CS' }] });
    const full = await ctx().post(
      `${THREEPL_RECEIPT}/post-confirmation`,
      {
        ...facility(),
        SVCPOID: filler.svcpoid,
        ConfirmationNo: 'FILL',
        Items: [{ ItemNumber: 'SKU-B', ReceivedQuantity: '99999999999.9999', UOM: 'CS', LotNo: 'FULL' }],
      },
      operatorKey,
    );
    expect(full.statusCode).toBe(200);
    // ...then receive SKU-A (applied first, in key order) and one more SKU-B of that lot on another.
    const { svcpoid } = await importReceipt();
    const before = await snapshot();
    const refused = await ctx().post(
      `${THREEPL_RECEIPT}/post-confirmation`,
      confirmation(svcpoid, uniqueId('CN'), {
        Items: [
          { ItemNumber: 'SKU-A', ReceivedQuantity: '10', UOM: 'EA' },
          { ItemNumber: 'SKU-B', ReceivedQuantity: '1', UOM: 'CS', LotNo: 'FULL' },
        ],
      }),
      operatorKey,
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual([
      { code: expect.stringMatching(/^EDI-ERROR-Stock of .*would exceed 99999999999\.9999/), error: expect.any(String) },
    ]);
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(svcpoid)).toBe('Imported');
  });

  // ---- operator moves and MarkOpen: the event is the last write ------------------------------

  it('an operator move or a MarkOpen list whose event cannot be written leaves every status as it was', async () => {
    const first = await importReceipt();
    const second = await importReceipt();
    const before = await snapshot();
    await withFailingInserts('receipt_events', async () => {
      for (const move of ['open', 'cancel', 'force-close']) {
        expectInternalError(await ctx().post(`${THREEPL_RECEIPT}/${move}`, { ...facility(), SVCPOID: first.svcpoid }, operatorKey));
      }
      expectInternalError(
        await ctx().post(
          `${THREEPL_RECEIPT}/list`,
          { ...facility(), Status: 'Imported', MarkOpen: true, Paging: { PageSize: 1000 } },
          operatorKey,
        ),
      );
      // A confirmation writes an event before its RC: it fails whole, too.
      expectInternalError(
        await ctx().post(`${THREEPL_RECEIPT}/post-confirmation`, confirmation(second.svcpoid, uniqueId('CN')), operatorKey),
      );
    });
    expect(await snapshot()).toEqual(before);
    expect(await statusOf(first.svcpoid)).toBe('Imported');
    expect(await statusOf(second.svcpoid)).toBe('Imported');
  });

  // ---- two requests on one receipt serialize ---------------------------------------------------

  it('a confirmation and an operator cancel of one receipt serialize: one wins, the other is 409, and the books agree', async () => {
    const { svcpoid } = await importReceipt();
    const confirmationNo = uniqueId('CN');
    const { slow: confirmed, fast: cancelled } = await race(
      () => ctx().post(`${THREEPL_RECEIPT}/post-confirmation`, confirmation(svcpoid, confirmationNo), operatorKey),
      () => ctx().post(`${THREEPL_RECEIPT}/cancel`, { ...facility(), SVCPOID: svcpoid }, operatorKey),
    );
    expect([confirmed.statusCode, cancelled.statusCode].sort()).toEqual([200, 409]);
    if (confirmed.statusCode === 200) {
      expect(confirmed.json().Receipt.Status).toBe('In Progress');
      expect(cancelled.json()).toEqual(problems(`Receipt ${svcpoid} is In Progress; cancel needs Imported or Open`));
      expect(await statusOf(svcpoid)).toBe('In Progress');
      expect(await ledgerRows(svcpoid)).toBe(2);
    } else {
      expect(confirmed.json()).toEqual(
        problems(`Receipt ${svcpoid} is Cancelled; only Imported, Open, In Progress receipts can be received`),
      );
      expect(await statusOf(svcpoid)).toBe('Cancelled');
      expect(await ledgerRows(svcpoid)).toBe(0);
    }
    await expectEventChain(svcpoid);
  });

  it('a confirmation and a customer update of one receipt serialize: received quantities stay on the lines that received them', async () => {
    const { svcpoid, poNo } = await importReceipt();
    const { slow: confirmed, fast: updated } = await race(
      () =>
        ctx().post(
          `${THREEPL_RECEIPT}/post-confirmation`,
          {
            ...facility(),
            SVCPOID: svcpoid,
            ConfirmationNo: uniqueId('CN'),
            Items: [{ ItemNumber: 'SKU-A', ReceivedQuantity: '3', UOM: 'EA' }],
          },
          operatorKey,
        ),
      () => ctx().post(RECEIPT_IMPORT, receiptBody(poNo, { Items: [{ ItemNumber: 'SKU-B', ExpectedQty: '7', UOM: 'EA' }] }), customerKey),
    );
    expect(confirmed.statusCode).toBe(200);
    if (updated.statusCode === 409) {
      // The confirmation came first: the receipt is In Progress and keeps its lines.
      expect(updated.json()).toEqual(problems(`Receipt ${svcpoid} is In Progress; it can no longer be updated`));
      expect(await receivedQuantities(svcpoid)).toEqual([
        ['SKU-A', 3],
        ['SKU-B', 0],
      ]);
    } else {
      // The update came first: the confirmation received SKU-A, which the new lines do not have.
      expect(updated.statusCode).toBe(200);
      expect(confirmed.json().Receipt.Warnings).toEqual(['Items[0] item SKU-A EA is not on the receipt']);
      expect(await receivedQuantities(svcpoid)).toEqual([['SKU-B', 0]]);
    }
    expect(await statusOf(svcpoid)).toBe('In Progress');
    await expectEventChain(svcpoid);
  });
});
