import { expect, it } from 'vitest';
import * as inventory from '../src/modules/inventory/inventory.service.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import {
  buildOrder,
  buildReceipt,
  createKey,
  createTenant,
  stock,
  uniqueId,
  type OrderStatus,
  type ReceiptStatus,
} from './helpers/factories.js';
import { THREEPL_ORDER, THREEPL_RECEIPT } from './helpers/paths.js';

/** The factories themselves: the parents they make, and the statuses they reach through the API. */

describeEachDialect('test factories', (dialect) => {
  const ctx = useTestApp(dialect);

  it('buildReceipt makes its own tenant, key and item master, and answers what was imported', async () => {
    const receipt = await buildReceipt(ctx(), { itemMaster: true, content: { BOLNo: 'B-1' } });
    expect(receipt.answer).toMatchObject({ SVCPOID: receipt.svcpoid, PONo: receipt.poNo, Status: 'Success' });
    expect(receipt.body.ASNContent).toMatchObject({ PONo: receipt.poNo, BOLNo: 'B-1' });
    expect(receipt.tenant.customerIds).toHaveLength(1);
  });

  const receiptStatuses: ReceiptStatus[] = ['Imported', 'Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'];
  it.each(receiptStatuses)('buildReceipt reaches %s through the 3PL API', async (status) => {
    const tenant = await createTenant(ctx().database.db, ctx().clock);
    const receipt = await buildReceipt(ctx(), { tenant, status });
    // An imported receipt needs no operator; a moved one names the key that moved it.
    if (status === 'Imported') return expect(receipt.operatorKey).toBeUndefined();
    const got = await ctx().post(
      `${THREEPL_RECEIPT}/get`,
      { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], SVCPOID: receipt.svcpoid },
      receipt.operatorKey,
    );
    expect(got.json().Receipt.Status).toBe(status);
  });

  const orderStatuses: OrderStatus[] = ['Imported', 'Open', 'Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'];
  it.each(orderStatuses)('buildOrder reaches %s through the 3PL API, on stock put there first', async (status) => {
    const tenant = await createTenant(ctx().database.db, ctx().clock);
    const sku = uniqueId('SKU');
    await stock(ctx(), { tenant, items: [{ ItemNumber: sku, Qty: '10' }] });
    const order = await buildOrder(ctx(), { tenant, status, content: { Items: [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }] } });
    expect(order.answer).toMatchObject({ SVCPOID: order.svcpoid, ReferenceNo: order.referenceNo });
    if (status === 'Imported') return;
    const got = await ctx().post(
      `${THREEPL_ORDER}/get`,
      { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], SVCPOID: order.svcpoid },
      order.operatorKey,
    );
    expect(got.json().Order.Status).toBe(status);
  });

  it('stock puts the same balance on hand through the service and through the adjustment API', async () => {
    const tenant = await createTenant(ctx().database.db, ctx().clock, { customers: 2, facilities: 2 });
    const adminKey = await createKey(ctx().database.db, ctx().clock, tenant, 'admin');
    const line = { ItemNumber: 'MUG', Qty: '2.5', LotNo: 'L1', ExpirationDate: '2027-01-31', InventoryStatus: 'Hold' };
    await stock(ctx(), { tenant, customer: 1, facility: 1, items: [line] });
    await stock(ctx(), { tenant, customer: 1, facility: 1, items: [line], key: adminKey });
    const balances = await inventory.findBalances(
      ctx().database.db,
      { companyId: tenant.companyId, customerId: tenant.customerIds[1]!, facilityId: tenant.facilityIds[1]!, itemId: 'MUG' },
      { offset: 0, pageSize: 10 },
    );
    expect(balances).toMatchObject([
      { itemId: 'MUG', uom: 'EA', lotNo: 'L1', inventoryStatus: 'Hold', expirationDate: '2027-01-31', onHand: 50_000 },
    ]);
  });
});
