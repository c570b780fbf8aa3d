import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import * as inventory from '../../src/modules/inventory/inventory.service.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import { buildReceipt, createKey, createTenant, facilityOf, importItems, problems, type Tenant } from '../helpers/factories.js';
import { RECEIPT_CONFIRM, THREEPL_RECEIPT } from '../helpers/paths.js';

describeEachDialect('3PL inbound receiving', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let operatorKey: string;
  let otherOperatorKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 2, timeZone: 'America/Chicago' });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    operatorKey = await createKey(database.db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[0]!] });
    otherOperatorKey = await createKey(database.db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[1]!] });
    await importItems(ctx(), {
      tenant,
      key: customerKey,
      items: [{ itemID: 'MUG', itemDescription: 'Mug', shortDescription: 'mug' }],
    });
  });

  const facility = () => facilityOf(tenant);
  const importReceipt = async (lines = [{ ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA', POLineNo: 1 }]) => {
    // SCACCode instead of a CarrierName, and a header property the get must return.
    const content = { CarrierName: undefined, SCACCode: 'UPSN', Items: lines, DynTxtPropertyValue01: 'h1' };
    return (await buildReceipt(ctx(), { tenant, key: customerKey, content })).svcpoid;
  };
  const confirm = (
    svcpoid: string,
    confirmationNo: string,
    items: Record<string, unknown>[],
    extra: Record<string, unknown> = {},
    key = operatorKey,
  ) => ctx().post(RECEIPT_CONFIRM, { ...facility(), SVCPOID: svcpoid, ConfirmationNo: confirmationNo, Items: items, ...extra }, key);
  const onHand = async (itemId: string, lotNo = '') => {
    const balances = await inventory.findBalances(
      ctx().database.db,
      { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, facilityId: tenant.facilityIds[0]!, itemId, lotNo },
      { offset: 0, pageSize: 100 },
    );
    return balances.reduce((sum, b) => sum + b.onHand, 0) / 10_000;
  };

  it('lists with MarkOpen, receives in two confirmations and closes; stock follows exactly', async () => {
    const svcpoid = await importReceipt();
    const before = await onHand('MUG', 'L1');
    const list = await ctx().post(
      `${THREEPL_RECEIPT}/list`,
      { ...facility(), Status: 'Imported', MarkOpen: true, Paging: { PageSize: 1000 } },
      operatorKey,
    );
    expect(list.statusCode).toBe(200);
    const listed = list.json().results.data.find((r: { SVCPOID: string }) => r.SVCPOID === svcpoid);
    expect(listed).toMatchObject({ SVCPOID: svcpoid, Status: 'Open', CustomerID: tenant.customerIds[0] });

    const first = await confirm(svcpoid, 'C-1', [
      { ItemNumber: 'MUG', ReceivedQuantity: '4.5', UOM: 'EA', LotNo: 'L1', SerialNumber: ['S1'] },
    ]);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ Receipt: { SVCPOID: svcpoid, Status: 'In Progress', ConfirmationNo: 'C-1', Warnings: [] } });
    const second = await confirm(svcpoid, 'C-2', [{ ItemNumber: 'MUG', ReceivedQuantity: 5.5, UOM: 'EA', LotNo: 'L1' }], { Close: true });
    expect(second.json().Receipt).toMatchObject({ Status: 'Closed' });
    expect(await onHand('MUG', 'L1')).toBe(before + 10);

    const got = await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facility(), SVCPOID: svcpoid }, operatorKey);
    expect(got.json().Receipt).toMatchObject({ SVCPOID: svcpoid, Status: 'Closed', DynTxtPropertyValue01: 'h1' });
    expect(got.json().Receipt.Items).toEqual([
      { ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA', POLineNo: 1, LineNo: 1, ReceivedQty: '10' },
    ]);
    // Closed: no move is left, and the timeline tells how it got there, in the facility's time (Chicago).
    const operatorId = (await tenants.authenticateApiKey(ctx().database.db, ctx().clock, operatorKey))!.keyId;
    const at = '2026-03-05T08:07:09.123-06:00';
    expect(got.json().Moves).toEqual([]);
    expect(got.json().Timeline).toEqual([
      { When: at, Action: 'import', FromStatus: null, ToStatus: 'Imported', Note: null, KeyID: null },
      { When: at, Action: 'open', FromStatus: 'Imported', ToStatus: 'Open', Note: 'MarkOpen', KeyID: operatorId },
      { When: at, Action: 'confirm', FromStatus: 'Open', ToStatus: 'In Progress', Note: null, KeyID: operatorId },
      { When: at, Action: 'confirm', FromStatus: 'In Progress', ToStatus: 'Closed', Note: null, KeyID: operatorId },
    ]);

    const closed = await confirm(svcpoid, 'C-3', [{ ItemNumber: 'MUG', ReceivedQuantity: '1', UOM: 'EA' }]);
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toEqual(problems(`Receipt ${svcpoid} is Closed; only Imported, Open, In Progress receipts can be received`));
  });

  it('replays a ConfirmationNo with the same body and refuses it with another', async () => {
    const svcpoid = await importReceipt();
    const before = await onHand('MUG');
    const body = [{ ItemNumber: 'MUG', ReceivedQuantity: '3', UOM: 'EA' }];
    const first = await confirm(svcpoid, 'R-1', body);
    const again = await confirm(svcpoid, 'R-1', body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect([first, again].map((answer) => answer.headers['idempotent-replayed'])).toEqual([undefined, 'true']);
    const different = await confirm(svcpoid, 'R-1', [{ ItemNumber: 'MUG', ReceivedQuantity: '4', UOM: 'EA' }]);
    expect(different.statusCode).toBe(409);
    expect(different.headers['idempotent-replayed']).toBeUndefined();
    expect(different.json()).toEqual(problems(`ConfirmationNo R-1 was already applied to ${svcpoid} with a different body`));
    expect(await onHand('MUG')).toBe(before + 3);
  });

  it('posts stock once and writes one RC when one confirmation arrives ten times at once', async () => {
    const svcpoid = await importReceipt();
    const before = await onHand('MUG', 'CONC');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => confirm(svcpoid, 'X-1', [{ ItemNumber: 'MUG', ReceivedQuantity: '2', UOM: 'EA', LotNo: 'CONC' }])),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(await onHand('MUG', 'CONC')).toBe(before + 2);
    const { rows } = await sql<{ n: number }>`select count(*) as n from receipt_confirmations where svcpoid = ${svcpoid}`.execute(
      ctx().database.db,
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('accepts over-receipts and unannounced items with warnings', async () => {
    const svcpoid = await importReceipt([{ ItemNumber: 'MUG', ExpectedQty: '1', UOM: 'EA', POLineNo: 7 }]);
    const response = await confirm(svcpoid, 'W-1', [
      { ItemNumber: 'MUG', ReceivedQuantity: '3', UOM: 'EA' },
      { ItemNumber: 'SURPRISE', ReceivedQuantity: '1', UOM: 'CS' },
    ]);
    expect(response.json().Receipt.Warnings).toEqual([
      'Items[1] item SURPRISE CS is not on the receipt',
      'Line 1 item MUG: 3 received, 1 expected',
    ]);
  });

  it('moves by the operator: open, cancel, force-close, and refuses the moves the state machine forbids', async () => {
    const svcpoid = await importReceipt();
    const act = (move: string, key = operatorKey) =>
      ctx().post(`${THREEPL_RECEIPT}/${move}`, { ...facility(), SVCPOID: svcpoid, Note: 'by test' }, key);
    const moves = async () => (await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facility(), SVCPOID: svcpoid }, operatorKey)).json().Moves;
    expect(await moves()).toEqual(['open', 'cancel', 'force-close', 'receive']);
    expect((await act('open')).json()).toEqual({ Receipt: { SVCPOID: svcpoid, Status: 'Open' } });
    expect(await moves()).toEqual(['cancel', 'force-close', 'receive']);
    const reopen = await act('open');
    expect(reopen.statusCode).toBe(409);
    expect(reopen.json()).toEqual(problems(`Receipt ${svcpoid} is Open; open needs Imported`));
    expect((await act('force-close')).json().Receipt.Status).toBe('Force Closed');
    expect(await moves()).toEqual([]);
    expect((await act('cancel')).statusCode).toBe(409);

    const other = await importReceipt();
    const cancel = await ctx().post(`${THREEPL_RECEIPT}/cancel`, { ...facility(), SVCPOID: other }, operatorKey);
    expect(cancel.json().Receipt.Status).toBe('Cancelled');
  });

  it('keeps facilities apart: an operator of another facility gets 403, an unknown or foreign receipt 404', async () => {
    const svcpoid = await importReceipt();
    const foreign = await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facility(), SVCPOID: svcpoid }, otherOperatorKey);
    expect(foreign.statusCode).toBe(403);
    const elsewhere = await ctx().post(
      `${THREEPL_RECEIPT}/get`,
      { ...facility(), FacilityID: tenant.facilityIds[1], SVCPOID: svcpoid },
      otherOperatorKey,
    );
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toEqual({ error: `Not found receipt ${svcpoid}` });
    const customer = await ctx().post(`${THREEPL_RECEIPT}/get`, { ...facility(), SVCPOID: svcpoid }, customerKey);
    expect(customer.statusCode).toBe(403);
  });
});
