import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import { formatFacilityLocal, formatWithOffset } from '../../src/http/time.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, uniqueId, type World } from '../helpers/factories.js';
import { SHIP_TO } from '../helpers/orders.js';

/**
 * Defects found by trying the API with only the spec in hand, each pinned on the raw body:
 * a past ScheduledDate is no warning; an RN line's customized fields reach its RC item; unknown
 * root keys of an import are kept and shown by the 3PL get; the 3PL get shows every date in one
 * form; and the JSON type a DN ReferenceNo is echoed in after an update changes it.
 */

const ZONE = 'America/Los_Angeles';
const RN_IMPORT = '/edi/inbound/receipt';
const RN_ACKS = '/edi/inbound/receipt/ack/search-by-paging';
const RC_SEARCH = '/edi/inbound/receipt/rc/search-by-paging';
const RECEIPT_GET = '/edi/3pl/inbound/receipt/get';
const RECEIPT_CONFIRM = '/edi/3pl/inbound/receipt/post-confirmation';
const DN_IMPORT = '/edi/outbound/order';
const DN_CANCEL = '/edi/outbound/order/cancel';
const DN_ACKS = '/edi/outbound/order/ack/search-by-paging';
const DN_HEADERS = '/edi/outbound/order-level/search-by-paging';
const ORDER_GET = '/edi/3pl/outbound/order/get';
const ORDER_LIST = '/edi/3pl/outbound/order/list';

type Json = Record<string, unknown>;

const pad = (n: number) => String(n).padStart(2, '0');
/** An RC item's DynTxtPropertyValue01…20 (dynTxtPropertyValue from 11 on), null unless given. */
const rcItemDynamics = (values: Record<number, string> = {}) =>
  Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => i + 1).map((n) => [`${n > 10 ? 'dyn' : 'Dyn'}TxtPropertyValue${pad(n)}`, values[n] ?? null]),
  );

describeEachDialect('Spec defects', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
    const items = await ctx().post(
      '/edi/item-master/import',
      {
        CompanyID: world.tenant.companyId,
        CustomerID: world.tenant.customerIds[0],
        Items: [{ itemID: 'MUG', itemDescription: 'Stoneware mug', shortDescription: 'mug' }],
      },
      world.admin,
    );
    expect(items.statusCode, items.body).toBe(200);
  });

  const ids = () => ({
    CompanyID: world.tenant.companyId,
    CustomerID: world.tenant.customerIds[0]!,
    FacilityID: world.tenant.facilityIds[0]!,
  });
  const facility = () => ({ CompanyID: world.tenant.companyId, FacilityID: world.tenant.facilityIds[0]! });
  const body = (response: LightMyRequestResponse) => JSON.parse(response.body);
  /** A 3PL get's document, without the moves and timeline the console reads (receiving and shipping tests cover those). */
  const documentOf = (response: LightMyRequestResponse) => {
    const { Moves: _moves, Timeline: _timeline, ...document } = body(response);
    return document;
  };
  const now = () => formatFacilityLocal(ctx().clock.now(), ZONE);
  const nowWithOffset = () => formatWithOffset(ctx().clock.now(), ZONE);

  /** An RN import body; `content` is merged into a minimal ASNContent of one MUG line. */
  const receiptBody = (content: Json, root: Json = {}) => ({
    ...ids(),
    ...root,
    ASNContent: {
      PONo: uniqueId('PO'),
      SCACCode: 'UPSN',
      Status: 'Imported',
      Items: [{ POLineNo: 1, ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA' }],
      ...content,
    },
  });
  /** Imports a receipt that must be accepted; its SVCPOID. */
  const importReceipt = async (payload: Json): Promise<string> => {
    const response = await ctx().post(RN_IMPORT, payload, world.customer);
    expect(response.statusCode, response.body).toBe(200);
    return body(response).Receipt.SVCPOID;
  };
  const getReceipt = (svcpoid: string) => ctx().post(RECEIPT_GET, { ...facility(), SVCPOID: svcpoid }, world.operator);

  /** A DN import body of one line of an item nobody stocks (its answer is a known Warning). */
  const orderBody = (referenceNo: unknown, sku: string, content: Json = {}, root: Json = {}) => ({
    ...ids(),
    ...root,
    POContent: { ReferenceNo: referenceNo, Address: SHIP_TO, Items: [{ ItemID: sku, OrderedQty: '1', UOM: 'EA' }], ...content },
  });
  const shortfall = (sku: string) => `${sku}: ordered 1, allocated 0, short 1`;
  const getOrder = (svcpoid: string) => ctx().post(ORDER_GET, { ...facility(), SVCPOID: svcpoid }, world.operator);

  // ---- 1. a past ScheduledDate ---------------------------------------------------------------

  it('a past ScheduledDate (a late ASN) is no warning: the import and its ACK say Success', async () => {
    const poNo = uniqueId('PO');
    const response = await ctx().post(RN_IMPORT, receiptBody({ PONo: poNo, ScheduledDate: '3/1/2026 9:00:00 AM' }), world.customer);
    expect(response.statusCode).toBe(200);
    const svcpoid = body(response).Receipt.SVCPOID;
    expect(svcpoid).toMatch(/^RN-\d+$/);
    expect(body(response)).toEqual({
      Receipt: { CustomerID: world.tenant.customerIds[0], PONo: poNo, ReferenceNo: [], SVCPOID: svcpoid, Status: 'Success', Error: [] },
    });

    const acks = await ctx().post(RN_ACKS, { ...ids(), PONo: poNo }, world.customer);
    expect(acks.statusCode).toBe(200);
    expect(body(acks)).toEqual([
      {
        FacilityID: world.tenant.facilityIds[0],
        CustomerID: world.tenant.customerIds[0],
        ReferenceNo: null,
        PONo: poNo,
        ACK: { CustomerId: world.tenant.customerIds[0], PONo: poNo, ReferenceNo: null, SVCPOID: svcpoid, Status: 'Success', Error: null },
        CreatedWhen: now(),
      },
    ]);
  });

  // ---- 2. RN line customized fields on the RC ------------------------------------------------

  it('an RC item carries its RN line’s DynTxtPropertyValueNN unless the confirmation line sends its own', async () => {
    const poNo = uniqueId('PO');
    const svcpoid = await importReceipt(
      receiptBody({
        PONo: poNo,
        Items: [
          {
            POLineNo: 1,
            ItemNumber: 'MUG',
            ExpectedQty: '10',
            UOM: 'EA',
            DynTxtPropertyValue01: 'rn-01',
            DynTxtPropertyValue02: 'rn-02',
            DynTxtPropertyValue03: 'rn-03',
            DynTxtPropertyValue04: 'rn-04',
            DynTxtPropertyValue11: 'rn-11',
            DynTxtPropertyValue12: 'rn-12',
            DynTxtPropertyValue20: 'rn-20',
          },
          { POLineNo: 2, ItemNumber: 'MUG', ExpectedQty: '5', UOM: 'CS', DynTxtPropertyValue05: 'rn2-05' },
        ],
      }),
    );
    const confirmation = await ctx().post(
      RECEIPT_CONFIRM,
      {
        ...facility(),
        SVCPOID: svcpoid,
        ConfirmationNo: 'C-1',
        Items: [
          {
            ItemNumber: 'MUG',
            ReceivedQuantity: '4',
            UOM: 'EA',
            // Its own values win for 02, 12 and 13; "" and null are no value, so 03 and 04 fall back.
            DynTxtPropertyValue02: 'rc-02',
            DynTxtPropertyValue03: '',
            DynTxtPropertyValue04: null,
            DynTxtPropertyValue12: 'rc-12',
            DynTxtPropertyValue13: 'rc-13',
          },
          { ItemNumber: 'MUG', ReceivedQuantity: '5', UOM: 'CS' },
          { ItemNumber: 'SURPRISE', ReceivedQuantity: '1', UOM: 'EA', DynTxtPropertyValue01: 'own-01' },
        ],
      },
      world.operator,
    );
    expect(confirmation.statusCode, confirmation.body).toBe(200);

    const response = await ctx().post(RC_SEARCH, { ...ids(), PONo: poNo }, world.customer);
    expect(response.statusCode).toBe(200);
    const item = { ItemShortDescription: 'mug', ItemDescription: 'Stoneware mug', ReceivedQuantity: 4 };
    const common = { CustomerMaterial: null, Diverse: null, ItemNote: null, SerialNumber: [], LotNo: null, ExpirationDate: null };
    expect(body(response).map((record: { RC: { Items: Json[] } }) => record.RC.Items)).toEqual([
      [
        {
          POLineNo: 1,
          ItemNumber: 'MUG',
          ...item,
          ...common,
          UOM: 'EA',
          ExpectedQty: '10',
          SHIPMENTLINEID: '1',
          SupplierID: null,
          SupplierName: null,
          ...rcItemDynamics({ 1: 'rn-01', 2: 'rc-02', 3: 'rn-03', 4: 'rn-04', 11: 'rn-11', 12: 'rc-12', 13: 'rc-13', 20: 'rn-20' }),
        },
        {
          POLineNo: 2,
          ItemNumber: 'MUG',
          ...item,
          ReceivedQuantity: 5,
          ...common,
          UOM: 'CS',
          ExpectedQty: '5',
          SHIPMENTLINEID: '2',
          SupplierID: null,
          SupplierName: null,
          ...rcItemDynamics({ 5: 'rn2-05' }),
        },
        {
          POLineNo: null,
          ItemNumber: 'SURPRISE',
          ItemShortDescription: null,
          ItemDescription: null,
          ReceivedQuantity: 1,
          ...common,
          UOM: 'EA',
          ExpectedQty: null,
          SHIPMENTLINEID: null,
          SupplierID: null,
          SupplierName: null,
          ...rcItemDynamics({ 1: 'own-01' }),
        },
      ],
    ]);
  });

  // ---- 3. unknown root keys of an import -------------------------------------------------------

  it('keeps unknown root keys of an RN import and shows them in the 3PL get; refuses the names Wharf owns', async () => {
    const poNo = uniqueId('PO');
    const content = {
      PONo: poNo,
      SCACCode: 'UPSN',
      Status: 'Imported',
      Source: 'ASN-CONTENT',
      Items: [{ POLineNo: 1, ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA' }],
    };
    const root = {
      Source: 'ERP-7',
      Batch: { Id: 7, Lines: [1, 2] },
      Sender: 'edi-gateway',
    };
    // Named like fields Wharf's answers use: refused, at the root as anywhere (names Wharf owns).
    const owned = await ctx().post(
      RN_IMPORT,
      { ...ids(), ...root, SVCPOID: 'RN-0', Status: 'Closed', CreatedWhen: '1999-01-01T00:00:00.000', Items: [], ASNContent: content },
      world.customer,
    );
    expect(owned.statusCode).toBe(400);
    expect(body(owned).map((problem: { error: string }) => problem.error)).toEqual(
      ['SVCPOID', 'Status', 'CreatedWhen', 'Items'].map((name) => `${name} is not allowed here: Wharf's own answers use this name`),
    );
    const svcpoid = await importReceipt({ ...ids(), ...root, ASNContent: content });
    const response = await getReceipt(svcpoid);
    expect(response.statusCode).toBe(200);
    expect(documentOf(response)).toEqual({
      Receipt: {
        Batch: { Id: 7, Lines: [1, 2] },
        Sender: 'edi-gateway',
        // ASNContent's own Source wins over the root's.
        Source: 'ASN-CONTENT',
        TitleID: null,
        SVCPOID: svcpoid,
        CustomerID: world.tenant.customerIds[0],
        FacilityID: world.tenant.facilityIds[0],
        PONo: poNo,
        ReferenceNo: null,
        Status: 'Imported',
        ReceiptType: 'Regular Receipt',
        SupplierID: null,
        CarrierName: null,
        SCACCode: 'UPSN',
        BOLNo: null,
        ContainerNo: null,
        ScheduledDate: null,
        CreatedWhen: now(),
        UpdatedWhen: nowWithOffset(),
        Items: [{ POLineNo: 1, ItemNumber: 'MUG', ExpectedQty: '10', UOM: 'EA', LineNo: 1, ReceivedQty: '0' }],
      },
    });

    // On the wire the root keys come first, at the top of the Receipt object.
    expect(Object.keys(body(response).Receipt).slice(0, 3)).toEqual(['Source', 'Batch', 'Sender']);

    // An import without root extras is stored exactly as before, so documents stored before
    // root extras were kept read the same way.
    const plain = receiptBody({});
    const plainSvcpoid = await importReceipt(plain);
    const { rows } = await sql<{ document: string }>`
      select document from receipts where company_id = ${world.tenant.companyId} and svcpoid = ${plainSvcpoid}`.execute(ctx().database.db);
    expect(rows.map((row) => row.document)).toEqual([JSON.stringify({ TitleID: null, ASNContent: plain.ASNContent })]);
    const plainGet = body(await getReceipt(plainSvcpoid)).Receipt;
    expect(Object.keys(plainGet).sort()).toEqual(
      [...Object.keys(plain.ASNContent), 'TitleID', 'SVCPOID', 'CustomerID', 'FacilityID', 'ReferenceNo', 'ReceiptType']
        .concat(['SupplierID', 'CarrierName', 'BOLNo', 'ContainerNo', 'ScheduledDate', 'CreatedWhen', 'UpdatedWhen'])
        .sort(),
    );
  });

  it('keeps unknown root keys of a DN import and shows them in the 3PL get; refuses the names Wharf owns', async () => {
    const sku = uniqueId('SKU');
    const referenceNo = uniqueId('SO');
    const root = { Source: 'ERP-7', Channel: { Name: 'B2B', Priority: 2 } };
    // Named like fields Wharf's answers use: refused, at the root as anywhere (names Wharf owns).
    const owned = { SVCPOID: 'DN-0', Status: 'Shipped', UpdatedWhen: 'never' };
    const refused = await ctx().post(DN_IMPORT, orderBody(referenceNo, sku, {}, { ...root, ...owned }), world.customer);
    expect(refused.statusCode).toBe(400);
    expect(body(refused).map((problem: { error: string }) => problem.error)).toEqual(
      Object.keys(owned).map((name) => `${name} is not allowed here: Wharf's own answers use this name`),
    );
    const imported = await ctx().post(DN_IMPORT, orderBody(referenceNo, sku, { OrderType: 'Regular' }, root), world.customer);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = body(imported).Order.SVCPOID;
    const response = await getOrder(svcpoid);
    expect(response.statusCode).toBe(200);
    expect(documentOf(response)).toEqual({
      Order: {
        Source: 'ERP-7',
        Channel: { Name: 'B2B', Priority: 2 },
        ReferenceNo: referenceNo,
        Address: SHIP_TO,
        OrderType: 'Regular',
        TitleID: null,
        SVCPOID: svcpoid,
        CustomerID: world.tenant.customerIds[0],
        FacilityID: world.tenant.facilityIds[0],
        PONo: null,
        Status: 'Imported',
        ShipToName: 'Jane Doe',
        CarrierName: null,
        SCACCode: null,
        ShipNotBefore: null,
        ShipNoLater: null,
        CreatedWhen: now(),
        UpdatedWhen: nowWithOffset(),
        Items: [{ ItemID: sku, OrderedQty: '1', UOM: 'EA', LineNo: 1, AllocatedQty: '0', ShippedQty: '0' }],
      },
    });

    // Without root extras the stored document is exactly the earlier format.
    const plain = orderBody(uniqueId('SO'), sku);
    const plainImport = await ctx().post(DN_IMPORT, plain, world.customer);
    expect(plainImport.statusCode, plainImport.body).toBe(200);
    const { rows } = await sql<{ document: string }>`
      select document from orders where company_id = ${world.tenant.companyId} and svcpoid = ${body(plainImport).Order.SVCPOID}`.execute(
      ctx().database.db,
    );
    expect(rows.map((row) => row.document)).toEqual([JSON.stringify({ TitleID: null, POContent: plain.POContent })]);
  });

  // ---- 4. one date form in the 3PL get -----------------------------------------------------------

  it('the receipt get shows ScheduledDate and ETD in the facility-local form of its other times', async () => {
    const poNo = uniqueId('PO');
    const svcpoid = await importReceipt(
      receiptBody({
        PONo: poNo,
        ScheduledDate: '3/10/2026 2:07:09 PM',
        // Its own offset is kept: 07:00 in Los Angeles (still PST on March 7).
        ETD: '2026-03-07T15:00:00Z',
      }),
    );
    const response = await getReceipt(svcpoid);
    expect(response.statusCode).toBe(200);
    const receipt = body(response).Receipt;
    expect({ ScheduledDate: receipt.ScheduledDate, ETD: receipt.ETD, CreatedWhen: receipt.CreatedWhen }).toEqual({
      ScheduledDate: '2026-03-10T14:07:09.000',
      ETD: '2026-03-07T07:00:00.000',
      CreatedWhen: now(),
    });

    // An empty ETD is absent (docs/operations.md): not shown, like one never sent; ScheduledDate, a column, is null.
    const blank = await getReceipt(await importReceipt(receiptBody({ ETD: '' })));
    expect(blank.statusCode).toBe(200);
    expect(body(blank).Receipt.ScheduledDate).toBeNull();
    expect(body(blank).Receipt).not.toHaveProperty('ETD');
  });

  it('the order get shows every POContent date in the facility-local form, whichever form it came in', async () => {
    const sku = uniqueId('SKU');
    const referenceNo = uniqueId('SO');
    const dates = {
      ShipNotBefore: '20260310080000',
      ShipNotLater: '3/12/2026 5:00 PM',
      ScheduledDate: '20260311090000',
      // Its own offset is kept: 13:30 in Los Angeles (PDT from March 8).
      AppointmentTime: '2026-03-11T20:30:00Z',
      DeliveryRequestDate: '3/13/2026',
    };
    const imported = await ctx().post(DN_IMPORT, orderBody(referenceNo, sku, dates), world.customer);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = body(imported).Order.SVCPOID;
    const response = await getOrder(svcpoid);
    expect(response.statusCode).toBe(200);
    expect(documentOf(response)).toEqual({
      Order: {
        ReferenceNo: referenceNo,
        Address: SHIP_TO,
        ShipNotBefore: '2026-03-10T08:00:00.000',
        ShipNotLater: '2026-03-12T17:00:00.000',
        ShipNoLater: '2026-03-12T17:00:00.000',
        ScheduledDate: '2026-03-11T09:00:00.000',
        AppointmentTime: '2026-03-11T13:30:00.000',
        DeliveryRequestDate: '2026-03-13T00:00:00.000',
        TitleID: null,
        SVCPOID: svcpoid,
        CustomerID: world.tenant.customerIds[0],
        FacilityID: world.tenant.facilityIds[0],
        PONo: null,
        Status: 'Imported',
        OrderType: null,
        ShipToName: 'Jane Doe',
        CarrierName: null,
        SCACCode: null,
        CreatedWhen: now(),
        UpdatedWhen: nowWithOffset(),
        Items: [{ ItemID: sku, OrderedQty: '1', UOM: 'EA', LineNo: 1, AllocatedQty: '0', ShippedQty: '0' }],
      },
    });
  });

  // ---- 5. the JSON type of a DN ReferenceNo after an update ------------------------------------

  it('a DN ReferenceNo is echoed in the type of the latest import; each ACK keeps the type of its own call', async () => {
    const sku = uniqueId('SKU');
    const customerId = world.tenant.customerIds[0];
    const facilityId = world.tenant.facilityIds[0];
    const answer = (svcpoid: string, referenceNo: string | number, error: string | never[] = shortfall(sku)) => ({
      Order: {
        CustomerID: customerId,
        PONo: [],
        ReferenceNo: referenceNo,
        SVCPOID: svcpoid,
        Status: error.length ? 'Warning' : 'Success',
        Error: error,
      },
    });
    const ackRecord = (svcpoid: string, referenceNo: string | number, error: string | null = shortfall(sku)) => ({
      FacilityID: facilityId,
      CustomerID: customerId,
      ReferenceNo: referenceNo,
      PONo: null,
      ACK: {
        CustomerId: customerId,
        PONo: null,
        ReferenceNo: referenceNo,
        SVCPOID: svcpoid,
        Status: error ? 'Warning' : 'Success',
        Error: error,
      },
      CreatedWhen: now(),
    });
    /** Where the order shows its ReferenceNo besides the import answer: the 3PL get, the 3PL list, the DN header query. */
    const shownReferenceNos = async (svcpoid: string) => {
      const got = await getOrder(svcpoid);
      const listed = await ctx().post(ORDER_LIST, { ...facility(), ReferenceNo: '123' }, world.operator);
      const headers = await ctx().post(DN_HEADERS, { ...ids(), ReferenceNo: 123 }, world.customer);
      expect([got.statusCode, listed.statusCode, headers.statusCode]).toEqual([200, 200, 200]);
      return {
        get: body(got).Order.ReferenceNo,
        list: body(listed).results.data.map((row: Json) => [row.SVCPOID, row.ReferenceNo]),
        headerQuery: body(headers).results.data.map((row: Json) => [row['Order #'], row['Ref.#']]),
      };
    };

    const first = await ctx().post(DN_IMPORT, orderBody(123, sku), world.customer);
    expect(first.statusCode).toBe(200);
    const svcpoid = body(first).Order.SVCPOID;
    expect(body(first)).toEqual(answer(svcpoid, 123));

    // The same order (compared as text), updated with a text ReferenceNo.
    const update = await ctx().post(DN_IMPORT, orderBody('123', sku), world.customer);
    expect(update.statusCode).toBe(200);
    expect(body(update)).toEqual(answer(svcpoid, '123'));
    expect(await shownReferenceNos(svcpoid)).toEqual({ get: '123', list: [[svcpoid, '123']], headerQuery: [[svcpoid, '123']] });

    // Updated again with the number: the order shows a number again.
    const again = await ctx().post(DN_IMPORT, orderBody(123, sku), world.customer);
    expect(again.statusCode).toBe(200);
    expect(body(again)).toEqual(answer(svcpoid, 123));
    expect(await shownReferenceNos(svcpoid)).toEqual({ get: 123, list: [[svcpoid, 123]], headerQuery: [[svcpoid, 123]] });

    // A cancel names the order with text; its answer and ACK show the order's own type.
    const cancel = await ctx().app.inject({
      method: 'PUT',
      url: `${EDI_PREFIX}${DN_CANCEL}`,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${world.customer}` },
      payload: JSON.stringify({ ...ids(), ReferenceNo: '123' }),
    });
    expect(cancel.statusCode).toBe(200);
    expect(body(cancel)).toEqual(answer(svcpoid, 123, []));

    const acks = await ctx().post(DN_ACKS, { ...ids(), ReferenceNo: '123' }, world.customer);
    expect(acks.statusCode).toBe(200);
    expect(body(acks)).toEqual([
      ackRecord(svcpoid, 123),
      ackRecord(svcpoid, '123'),
      ackRecord(svcpoid, 123),
      ackRecord(svcpoid, 123, null),
    ]);
  });
});
