import type { Db } from './db/database.js';
import type { Clock } from './lib/clock.js';
import type { CommandContext } from './http/command-context.js';
import * as orders from './modules/orders/orders.service.js';
import { findLive as findLiveOrders } from './modules/orders/orders.repository.js';
import { findLive as findLiveReceipts } from './modules/receipts/receipts.repository.js';
import { findEndpoint, withFacilities } from './modules/webhooks/endpoints.repository.js';
import * as shipping from './modules/orders/shipping.service.js';
import * as receipts from './modules/receipts/receipts.service.js';
import * as receiving from './modules/receipts/receiving.service.js';
import * as tenants from './modules/tenants/tenants.service.js';
import * as endpoints from './modules/webhooks/endpoints.service.js';

/**
 * The demo's receipts, orders, webhook endpoints and spare keys: one of each in the state that an
 * operation of the API document moves from, so that every documented example works as it stands
 * against a fresh `npm run demo` (docs/admin.md), in any order, and the console has work to show.
 * Seeded once, on the first run: a fresh database numbers them RN-1…RN-6 and DN-1…DN-5.
 */

const WHERE = { CompanyID: 'DEMO', CustomerID: 'ACME', FacilityID: 'LAX1' } as const;

/** The receipts by PONo, in seeding order; the comment names the example that uses each. */
export const DEMO_RECEIPTS = {
  received: 'PO-DEMO-1000', // RN-1, Closed: the receiving confirmation and receipt detail examples read it
  toCancel: 'PO-DEMO-1001', // RN-2, Imported: the customer's cancel
  toOpen: 'PO-DEMO-1002', // RN-3, Imported: the operator's open
  toCancelAsOperator: 'PO-DEMO-1003', // RN-4, Open: the operator's cancel
  toForceClose: 'PO-DEMO-1004', // RN-5, Open: force close
  toReceive: 'PO-DEMO-1005', // RN-6, Open: the receiving confirmation
} as const;

/** The orders by PONo, in seeding order. */
export const DEMO_ORDERS = {
  shipped: 'SO-DEMO-2000', // DN-1, Shipped: the shipment confirmation and order detail examples read it
  toCancel: 'SO-DEMO-2001', // DN-2, Imported: the customer's cancel
  toOpen: 'SO-DEMO-2002', // DN-3, Imported: the operator's open
  toCancelAsOperator: 'SO-DEMO-2003', // DN-4, Open: the operator's cancel
  toShip: 'SO-DEMO-2004', // DN-5, Open: the shipment confirmation
} as const;

/** Webhook endpoints with ids an example can name; disabled, so that they deliver nothing. */
export const DEMO_ENDPOINTS = { kept: 'ep_demo_acme', toDelete: 'ep_demo_acme_old' } as const;

/** Keys beside the four the demo prints, for the rotate and revoke examples (KeyID 5 and 6 on a fresh database). */
const SPARE_KEY_LABELS = ['demo spare: rotate me', 'demo spare: revoke me'];

const receiptLines = [{ POLineNo: 1, ItemNumber: 'MUG-RED-12', ExpectedQty: '48', UOM: 'EA' as const }];
const orderLines = [{ LineNo: 1, ItemID: 'MUG-BLUE-12', OrderedQty: '6', UOM: 'EA' as const }];
const shipTo = {
  ShipToName: 'Jane Doe',
  ShipToAddress1: '1 Market St',
  ShipToCity: 'San Francisco',
  ShipToState: 'CA',
  ShipToZipCode: '94105',
  ShipToCountry: 'US',
};

async function seedReceipts(cx: (request: unknown) => CommandContext): Promise<void> {
  for (const [role, poNo] of Object.entries(DEMO_RECEIPTS)) {
    const request = {
      ...WHERE,
      ASNContent: {
        PONo: poNo,
        ReferenceNo: `ASN-${poNo.slice(-4)}`,
        CarrierName: 'Acme Freight',
        Status: 'Imported' as const,
        Items: receiptLines,
      },
    };
    const { Receipt } = await receipts.importReceipt(cx(request), request);
    const action = { CompanyID: WHERE.CompanyID, FacilityID: WHERE.FacilityID, SVCPOID: Receipt.SVCPOID };
    if (role === 'toCancel' || role === 'toOpen') continue;
    await receiving.moveReceipt(cx(action), 'open', action);
    if (role !== 'received') continue;
    const confirmation = {
      ...action,
      ConfirmationNo: 'RCV-DEMO-1000',
      Close: true,
      Items: [{ POLineNo: 1, ItemNumber: 'MUG-RED-12', ReceivedQuantity: '48', UOM: 'EA' as const }],
    };
    await receiving.confirmReceipt(cx(confirmation), confirmation);
  }
}

async function seedOrders(cx: (request: unknown) => CommandContext): Promise<void> {
  for (const [role, poNo] of Object.entries(DEMO_ORDERS)) {
    const request = {
      ...WHERE,
      POContent: {
        PONo: poNo,
        ReferenceNo: `SO-${poNo.slice(-4)}`,
        Address: shipTo,
        ShippingInfo: { CarrierName: 'UPS', SCACCode: 'UPSN' },
        Items: orderLines,
        Status: 'Imported' as const,
      },
    };
    const { Order } = await orders.importOrder(cx(request), request);
    const action = { CompanyID: WHERE.CompanyID, FacilityID: WHERE.FacilityID, SVCPOID: Order.SVCPOID };
    if (role === 'toCancel' || role === 'toOpen') continue;
    await shipping.moveOrder(cx(action), 'open', action);
    if (role !== 'shipped') continue;
    const shipment = {
      ...action,
      ConfirmationNo: 'SHP-DEMO-2000',
      TrackingNo: '1Z999AA10123456784',
      Close: true,
      Items: [{ LineNo: 1, ItemNumber: 'MUG-BLUE-12', ShippedQty: '6', UOM: 'EA' as const }],
    };
    await shipping.confirmShipment(cx(shipment), shipment);
  }
}

/**
 * Made by the customer key, as the customer's system would make them: limited to its facility
 * (LAX1), so that the customer key manages them in the examples.
 */
async function seedEndpoints(customerCx: (request: unknown) => CommandContext): Promise<void> {
  for (const endpointId of Object.values(DEMO_ENDPOINTS)) {
    const request = {
      CompanyID: WHERE.CompanyID,
      CustomerID: WHERE.CustomerID,
      Url: 'https://hooks.acme.example/wharf',
      Description: 'Demo endpoint',
    };
    await endpoints.createEndpoint(customerCx(request), request, false, endpointId);
    const disable = { CompanyID: WHERE.CompanyID, CustomerID: WHERE.CustomerID, EndpointID: endpointId, Enabled: false };
    await endpoints.updateEndpoint(customerCx(disable), disable, false);
  }
}

/**
 * A demo database seeded before endpoints had facilities has demo endpoints of every facility,
 * which the customer key (limited to LAX1) may not manage: they are limited to LAX1, as a fresh
 * seed makes them.
 */
async function limitEndpointsToFacility(db: Db, cx: (request: unknown) => CommandContext): Promise<void> {
  for (const endpointId of Object.values(DEMO_ENDPOINTS)) {
    const found = await findEndpoint(db, WHERE.CompanyID, endpointId);
    const [endpoint] = found ? await withFacilities(db, [found]) : [];
    if (!endpoint || endpoint.facility_ids !== null) continue;
    const limit = { CompanyID: WHERE.CompanyID, CustomerID: WHERE.CustomerID, EndpointID: endpointId, FacilityIDs: [WHERE.FacilityID] };
    await endpoints.updateEndpoint(cx(limit), limit, false);
  }
}

/**
 * Seeds each kind once, when its first one is missing: a run that stopped halfway is finished by the
 * next, and a later run changes nothing that staff or the examples have moved on since.
 */
export async function seedDemoDocuments(
  db: Db,
  clock: Clock,
  cx: (request: unknown) => CommandContext,
  customerCx: (request: unknown) => CommandContext,
): Promise<void> {
  const customer = { companyId: WHERE.CompanyID, customerId: WHERE.CustomerID };
  if ((await findLiveReceipts(db, { ...customer, poNo: DEMO_RECEIPTS.received })).length === 0) await seedReceipts(cx);
  if ((await findLiveOrders(db, { ...customer, poNo: DEMO_ORDERS.shipped })).length === 0) await seedOrders(cx);
  if (!(await findEndpoint(db, WHERE.CompanyID, DEMO_ENDPOINTS.kept))) await seedEndpoints(customerCx);
  else await limitEndpointsToFacility(db, cx);
  const labels = new Set((await tenants.listApiKeys(db, WHERE.CompanyID)).map((key) => key.label));
  for (const label of SPARE_KEY_LABELS.filter((spare) => !labels.has(spare))) {
    await tenants.createApiKey(db, clock, {
      role: 'customer',
      companyId: WHERE.CompanyID,
      customerIds: [WHERE.CustomerID],
      facilityIds: [],
      userIds: [],
      label,
    });
  }
}
