import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { formatFacilityLocal } from '../../src/http/time.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, uniqueId, type World } from '../helpers/factories.js';

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
const RECEIPT_CONFIRM = '/edi/3pl/inbound/receipt/post-confirmation';

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
  const now = () => formatFacilityLocal(ctx().clock.now(), ZONE);

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
});
