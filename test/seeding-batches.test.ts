import { beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../src/app.js';
import type { Principal } from '../src/http/auth.js';
import { Refusal } from '../src/lib/refusal.js';
import { adjustQuantities } from '../src/modules/inventory/adjustments.service.js';
import { importItems } from '../src/modules/items/items.service.js';
import { confirmShipment } from '../src/modules/orders/shipping.service.js';
import { importOrder } from '../src/modules/orders/orders.service.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { inSeedingBatch } from '../src/seeding-batches.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { createKey, createTenant, idsOf, type Tenant } from './helpers/factories.js';
import { SHIP_TO } from './helpers/orders.js';
import { ORDER_IMPORT } from './helpers/paths.js';

/**
 * The seeding path of `npm run bench:scale` (src/seeding-batches.ts): many requests through their
 * services in one transaction, each at the time the caller's clock gives it, each with the request
 * hash its body would have over HTTP; one refused request rolls back the whole batch.
 */

const SHIPMENT = '/edi/3pl/outbound/order/post-confirmation';

describeEachDialect('seeding batches', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let key: string;
  let principal: Principal;
  const seedingClock = { time: Date.parse('2026-01-05T10:00:00.000Z'), now: () => seedingClock.time };
  const db = () => ctx().database.db;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock);
    key = await createKey(database.db, clock, tenant, 'admin');
    principal = (await tenants.authenticateApiKey(database.db, clock, key))!;
  });

  const orderOf = (referenceNo: string, lines: { LineNo: number; ItemID: string }[]) => ({
    ...idsOf(tenant),
    POContent: {
      ReferenceNo: referenceNo,
      PONo: `PO-${referenceNo}`,
      Address: SHIP_TO,
      Items: lines.map((line) => ({ ...line, OrderedQty: '1', UOM: 'EA' as const })),
    },
  });
  const ordersOf = (...referenceNos: string[]) =>
    db()
      .selectFrom('orders')
      .select(['reference_no', 'status', 'created_at', 'updated_at'])
      .where('company_id', '=', tenant.companyId)
      .where('reference_no', 'in', referenceNos)
      .orderBy('reference_no')
      .execute();
  const acksOf = (...referenceNos: string[]) =>
    db()
      .selectFrom('acks')
      .select(['reference_no', 'status', 'failure_code', 'created_at'])
      .where('reference_no', 'in', referenceNos)
      .execute();

  it('writes what each request writes alone, at the time the clock gives it', async () => {
    const start = seedingClock.time;
    const ids = idsOf(tenant);
    await inSeedingBatch(db(), seedingClock, principal, async (contextOf) => {
      const items = { CompanyID: ids.CompanyID, CustomerID: ids.CustomerID, Items: [{ itemID: 'SKU-1' }] };
      await importItems(contextOf(`POST ${EDI_PREFIX}/edi/item-master/import`, items), items);
      const opening = { ...ids, AdjustmentNo: 'OPENING', Items: [{ ItemNumber: 'SKU-1', UOM: 'EA' as const, Qty: '10' }] };
      await adjustQuantities(contextOf(`POST ${EDI_PREFIX}/edi/3pl/adjust/inventory-adjust-qty-incremental`, opening), opening);
      for (const referenceNo of ['SO-1', 'SO-2']) {
        seedingClock.time += 60_000;
        const order = orderOf(referenceNo, [{ LineNo: 1, ItemID: 'SKU-1' }]);
        const { Order } = await importOrder(contextOf(`POST ${EDI_PREFIX}${ORDER_IMPORT}`, order), order);
        expect(Order.Status).toBe('Success');
      }
    });
    expect(await ordersOf('SO-1', 'SO-2')).toEqual([
      { reference_no: 'SO-1', status: 'Imported', created_at: start + 60_000, updated_at: start + 60_000 },
      { reference_no: 'SO-2', status: 'Imported', created_at: start + 120_000, updated_at: start + 120_000 },
    ]);
    const acks = await acksOf('SO-1', 'SO-2');
    expect(acks.map((ack) => [ack.reference_no, ack.status, ack.created_at]).sort()).toEqual([
      ['SO-1', 'Success', start + 60_000],
      ['SO-2', 'Success', start + 120_000],
    ]);
    const events = await db()
      .selectFrom('events')
      .select(['type', 'created_at'])
      .where('company_id', '=', tenant.companyId)
      .where('type', '=', 'order.imported')
      .orderBy('created_at')
      .execute();
    expect(events).toEqual([
      { type: 'order.imported', created_at: start + 60_000 },
      { type: 'order.imported', created_at: start + 120_000 },
    ]);
  });

  it('gives a request the hash its body has over HTTP: the same shipment sent again is a replay', async () => {
    const [order] = await db().selectFrom('orders').select('svcpoid').where('reference_no', '=', 'SO-1').execute();
    const shipment = {
      CompanyID: tenant.companyId,
      FacilityID: tenant.facilityIds[0]!,
      SVCPOID: order!.svcpoid,
      ConfirmationNo: 'SHP-1',
      Close: true,
      Items: [{ LineNo: 1, ItemNumber: 'SKU-1', ShippedQty: '1', UOM: 'EA' as const }],
    };
    seedingClock.time += 60_000;
    await inSeedingBatch(db(), seedingClock, principal, (contextOf) =>
      confirmShipment(contextOf(`POST ${EDI_PREFIX}${SHIPMENT}`, shipment), shipment),
    );
    const again = await ctx().post(SHIPMENT, shipment, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual({ Order: { SVCPOID: order!.svcpoid, Status: 'Shipped', ConfirmationNo: 'SHP-1' } });
  });

  it('rolls back every request of the batch when one is refused, the refusal’s failure ACK included', async () => {
    const batch = inSeedingBatch(db(), seedingClock, principal, async (contextOf) => {
      const good = orderOf('SO-3', [{ LineNo: 1, ItemID: 'SKU-1' }]);
      await importOrder(contextOf(`POST ${EDI_PREFIX}${ORDER_IMPORT}`, good), good);
      // A LineNo given twice is refused by the service, not by the schema.
      const refused = orderOf('SO-4', [
        { LineNo: 1, ItemID: 'SKU-1' },
        { LineNo: 1, ItemID: 'SKU-1' },
      ]);
      await importOrder(contextOf(`POST ${EDI_PREFIX}${ORDER_IMPORT}`, refused), refused);
    });
    await expect(batch).rejects.toBeInstanceOf(Refusal);
    expect(await ordersOf('SO-3', 'SO-4')).toEqual([]);
    expect(await acksOf('SO-3', 'SO-4')).toEqual([]);
  });
});
