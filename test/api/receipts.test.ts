import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/dialects.js';
import { useTestApp } from '../helpers/app.js';
import { createKey, createTenant, idsOf, importItems, problems, receiptBody, uniqueId, type Tenant } from '../helpers/factories.js';
import { RECEIPT_ACK_SEARCH, RECEIPT_CANCEL, RECEIPT_IMPORT } from '../helpers/paths.js';

describeEachDialect('RN import and ACKs', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let key: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 2, facilities: 2, timeZone: 'America/Los_Angeles' });
    key = await createKey(database.db, clock, tenant, 'customer');
    await importItems(ctx(), { tenant, key, items: ['SKU-1', 'SKU-2'] });
  });

  const ids = () => idsOf(tenant);
  const receipt = (poNo: string, content: Record<string, unknown> = {}) => receiptBody({ tenant, content: { PONo: poNo, ...content } });
  const acksOf = async (filter: Record<string, unknown>) => {
    const response = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), ...filter, Paging: { PageSize: 1000 } }, key);
    return response.statusCode === 404 ? [] : response.json();
  };
  const put = (body: unknown) => ctx().put(RECEIPT_CANCEL, body, key);

  it('creates a receipt, answers the published shape, and acknowledges it once', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(RECEIPT_IMPORT, receipt(poNo), key);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      Receipt: {
        CustomerID: tenant.customerIds[0],
        PONo: poNo,
        ReferenceNo: [],
        SVCPOID: expect.stringMatching(/^RN-\d+$/),
        Status: 'Success',
        Error: [],
      },
    });
    expect(response.body).toContain('"ReferenceNo":[]');
    expect(await acksOf({ PONo: poNo })).toEqual([
      {
        FacilityID: tenant.facilityIds[0],
        CustomerID: tenant.customerIds[0],
        ReferenceNo: null,
        PONo: poNo,
        ACK: {
          CustomerId: tenant.customerIds[0],
          PONo: poNo,
          ReferenceNo: null,
          SVCPOID: body.Receipt.SVCPOID,
          Status: 'Success',
          Error: null,
        },
        CreatedWhen: '2026-03-05T06:07:09.123',
      },
    ]);
  });

  it('warns about unknown items and repeated lines (not a past schedule), and still saves the receipt', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(
      RECEIPT_IMPORT,
      receipt(poNo, {
        ReferenceNo: uniqueId('REF'),
        ScheduledDate: '3/1/2026 9:00:00 AM',
        Items: [
          { ItemNumber: 'SKU-1', ExpectedQty: 5, UOM: 'EA' },
          { ItemNumber: 'NEW-9', ExpectedQty: '1.5', UOM: 'CS' },
          { ItemNumber: 'SKU-1', ExpectedQty: '2', UOM: 'EA' },
        ],
      }),
      key,
    );
    expect(response.statusCode).toBe(200);
    const warning = 'Items not in the item master: NEW-9; Items[2] repeats item SKU-1 EA of Items[0]';
    expect(response.json().Receipt).toMatchObject({ Status: 'Warning', Error: warning });
    expect((await acksOf({ PONo: poNo }))[0].ACK).toMatchObject({ Status: 'Warning', Error: warning });
  });

  it('updates a live receipt under the same SVCPOID, and a cancelled PONo starts a new one', async () => {
    const poNo = uniqueId('PO');
    const first = (await ctx().post(RECEIPT_IMPORT, receipt(poNo), key)).json().Receipt.SVCPOID;
    const update = await ctx().post(RECEIPT_IMPORT, receipt(poNo, { Items: [{ ItemNumber: 'SKU-2', ExpectedQty: '3', UOM: 'EA' }] }), key);
    expect(update.json().Receipt.SVCPOID).toBe(first);

    const cancel = await ctx().post(RECEIPT_IMPORT, receipt(poNo, { ActionCode: 'Cancelled' }), key);
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().Receipt).toMatchObject({ SVCPOID: first, Status: 'Success' });
    const again = await ctx().post(RECEIPT_IMPORT, receipt(poNo), key);
    expect(again.json().Receipt.SVCPOID).not.toBe(first);
    expect((await acksOf({ PONo: poNo })).map((a: { ACK: { SVCPOID: string } }) => a.ACK.SVCPOID)).toEqual([
      first,
      first,
      first,
      again.json().Receipt.SVCPOID,
    ]);
  });

  it('refuses an invalid import with every problem named, saves nothing and writes one failure ACK', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(
      RECEIPT_IMPORT,
      receipt(poNo, {
        CarrierName: undefined,
        ReceiptType: 'Gift',
        Items: [{ ItemNumber: 'SKU-1', ExpectedQty: '1.23456', UOM: 'PK', Pallets: '1234' }],
      }),
      key,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problems(
        'ASNContent.CarrierName is required when SCACCode is empty',
        'ASNContent.ReceiptType must be one of: Regular Receipt, Title Transfer Receipt, Migo Transfer Receipt, Sales Return, Transload, Assembly',
        'ASNContent.Items[0].ExpectedQty must be a positive decimal with at most 11 integer and 4 fractional digits',
        'ASNContent.Items[0].Pallets must be a decimal(5,2): at most 3 integer and 2 fractional digits',
        'ASNContent.Items[0].UOM must be one of: EA, CS',
      ),
    );
    const acks = await acksOf({ PONo: poNo });
    expect(acks).toHaveLength(1);
    expect(acks[0].ACK).toEqual({
      code: `EDI-ERROR-${response
        .json()
        .map((p: { error: string }) => p.error)
        .join('; ')}`,
      error: response
        .json()
        .map((p: { error: string }) => p.error)
        .join('; '),
    });

    const carrierless = await ctx().post(RECEIPT_IMPORT, receipt(poNo, { CarrierName: null }), key);
    expect(carrierless.statusCode).toBe(400);
    expect(carrierless.json()).toEqual(problems('ASNContent.CarrierName is required when SCACCode is empty'));
    expect(await acksOf({ PONo: poNo })).toHaveLength(2);
    const cancelUnknown = await ctx().post(RECEIPT_IMPORT, receipt(poNo, { ActionCode: 'Cancelled' }), key);
    expect(cancelUnknown.statusCode).toBe(404);
    expect(cancelUnknown.json()).toEqual({ error: `Not found receipt with PONo ${poNo}` });
  });

  it('refuses a ReferenceNo another live receipt holds, naming it', async () => {
    const referenceNo = uniqueId('REF');
    const holder = (await ctx().post(RECEIPT_IMPORT, receipt(uniqueId('PO'), { ReferenceNo: referenceNo }), key)).json().Receipt;
    const clash = await ctx().post(RECEIPT_IMPORT, receipt(uniqueId('PO'), { ReferenceNo: referenceNo }), key);
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toEqual(problems(`ReferenceNo ${referenceNo} is already used by receipt ${holder.SVCPOID} (PONo ${holder.PONo})`));
  });

  it('cancels by PUT with PONo or ReferenceNo; nothing matching is 404', async () => {
    const referenceNo = uniqueId('REF');
    const poNo = uniqueId('PO');
    const created = (await ctx().post(RECEIPT_IMPORT, receipt(poNo, { ReferenceNo: referenceNo }), key)).json().Receipt;
    const response = await put({ ...ids(), ReferenceNo: referenceNo, CancelNote: 'duplicate order' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      Receipt: {
        CustomerID: tenant.customerIds[0],
        PONo: poNo,
        ReferenceNo: referenceNo,
        SVCPOID: created.SVCPOID,
        Status: 'Success',
        Error: [],
      },
    });
    const missing = await put({ ...ids(), PONo: poNo });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: `Not found receipt with PONo ${poNo}` });
    const neither = await put(ids());
    expect(neither.statusCode).toBe(400);
    expect(neither.json()).toEqual(problems('PONo or ReferenceNo is required'));
  });

  it('replays an Idempotency-Key: same body, same answer and no second ACK; another body is 422', async () => {
    const poNo = uniqueId('PO');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const first = await ctx().post(RECEIPT_IMPORT, receipt(poNo), key, headers);
    const replay = await ctx().post(RECEIPT_IMPORT, receipt(poNo), key, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(first.json());
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await acksOf({ PONo: poNo })).toHaveLength(1);
    const other = await ctx().post(RECEIPT_IMPORT, receipt(uniqueId('PO')), key, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual(problems('Idempotency-Key was already used with a different request'));
    expect(other.headers['idempotent-replayed']).toBeUndefined();

    // A refusal is replayed as it was answered, and marked as a replay too.
    const refusedHeaders = { 'idempotency-key': uniqueId('IK') };
    const unknownPoNo = uniqueId('PO');
    const refusedBody = receipt(unknownPoNo, { ActionCode: 'Cancelled' });
    const refused = await ctx().post(RECEIPT_IMPORT, refusedBody, key, refusedHeaders);
    const refusedAgain = await ctx().post(RECEIPT_IMPORT, refusedBody, key, refusedHeaders);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: `Not found receipt with PONo ${unknownPoNo}` });
    expect([refusedAgain.statusCode, refusedAgain.body]).toEqual([refused.statusCode, refused.body]);
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    expect(refusedAgain.headers['idempotent-replayed']).toBe('true');
  });

  it('writes no ACK for a 401, a 403 or unparseable JSON', async () => {
    const poNo = uniqueId('PO');
    expect((await ctx().post(RECEIPT_IMPORT, receipt(poNo))).statusCode).toBe(401);
    const otherCustomer = await ctx().post(RECEIPT_IMPORT, { ...receipt(poNo), CustomerID: tenant.customerIds[1] }, key);
    expect(otherCustomer.statusCode).toBe(403);
    expect((await ctx().post(RECEIPT_IMPORT, `{"CompanyID":"${tenant.companyId}"`, key)).statusCode).toBe(400);
    expect(await acksOf({ PONo: poNo })).toEqual([]);
  });

  it('searches ACKs in pages, oldest first, in the facility time zone; nothing matching is 404', async () => {
    const poNo = uniqueId('PO');
    // 2026-03-06T07:30:00Z is 23:30 on the 5th in Los Angeles.
    ctx().clock.time = Date.parse('2026-03-06T07:30:00.000Z');
    for (let i = 0; i < 5; i++) await ctx().post(RECEIPT_IMPORT, receipt(poNo), key);
    ctx().clock.time = Date.parse('2026-03-06T09:00:00.000Z');
    await ctx().post(RECEIPT_IMPORT, receipt(poNo), key);

    const day = { PONo: poNo, CreatedWhenFrom: '2026-03-05T00:00:00.000', CreatedWhenTo: '2026-03-05T23:59:59.999' };
    const page1 = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), ...day, Paging: { PageNo: 1, PageSize: 3 } }, key);
    const page2 = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), ...day, Paging: { PagingNo: 2, PageSize: 3 } }, key);
    expect(page1.json()).toHaveLength(3);
    expect(page2.json()).toHaveLength(2);
    expect(page1.headers['x-total-count']).toBe('5');
    expect(page1.json()[0].CreatedWhen).toBe('2026-03-05T23:30:00.000');
    const past = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), ...day, Paging: { PageNo: 3, PageSize: 3 } }, key);
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);

    const none = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), PONo: uniqueId('NONE') }, key);
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ error: 'Not found receipt' });
    const badTime = await ctx().post(RECEIPT_ACK_SEARCH, { ...ids(), CreatedWhenFrom: 'yesterday' }, key);
    expect(badTime.statusCode).toBe(400);
    expect(badTime.json()).toEqual(problems('CreatedWhenFrom must be an ISO 8601 local date-time such as 2024-03-05T14:07:09.123'));
  });
});
