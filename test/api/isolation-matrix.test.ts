import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import type { DialectName } from '../../src/db/dialect.js';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import type { Role } from '../../src/http/auth.js';
import { EVENT_TYPES } from '../../src/modules/events/events.schemas.js';
import { sequenceEvents } from '../../src/modules/events/events.service.js';
import { ADMIN_PREFIX } from '../../src/modules/admin/admin.routes.js';
import { RATE_PREFIX } from '../../src/modules/rating/rating.routes.js';
import { listApiKeys } from '../../src/modules/tenants/tenants.service.js';
import { loadRateCard } from '../../src/modules/rating/rating.service.js';
import { fanOut } from '../../src/modules/webhooks/deliveries.service.js';
import { addPartner } from '../../src/modules/x12/partners.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import {
  buildOrder,
  buildReceipt,
  createKey,
  createRivals,
  importItems,
  orderBody,
  problems,
  receiptBody,
  stock,
  uniqueId,
  type OrderStatus,
  type ReceiptStatus,
  type RivalKey,
  type Tenant,
} from '../helpers/factories.js';
import * as paths from '../helpers/paths.js';

/**
 * The isolation matrix (docs/proofs.md; docs/access.md): every route the app registers
 * has an entry here, and every entry is a registered route — a new route without one fails the
 * first test, naming it. For every route, the owner's valid request is sent by keys that must not
 * get it: none (401), another company's, another customer's of the same company, keys limited to
 * another facility, and keys of the roles the route does not admit. Each answers what docs/access.md's
 * order of checks says, in the route's error shape, exactly; no answer carries any of the owner's
 * data that the request did not itself name; and the refusals change nothing. The owner's document
 * named from a scope it is not in answers as a number never used does (404 for a lookup, nothing
 * for a search). Last, the owner's own request succeeds: the refusals were about scope, not about
 * the request.
 */

type Json = Record<string, unknown>;
type KeyName = RivalKey | 'raterB';

const MISSING = 'Missing Authorization header; send Authorization: APIKey <key>';

/** Who may call a route (docs/access.md): the customer's operations, the warehouse's, reads of both, rates. */
const CUSTOMER: readonly Role[] = ['customer', 'admin'];
const OPERATOR: readonly Role[] = ['operator', 'admin'];
const READ: readonly Role[] = ['customer', 'operator', 'admin'];
const RATE: readonly Role[] = ['rater', 'admin'];
const ROLES: readonly Role[] = ['customer', 'operator', 'admin', 'rater'];

/**
 * The routes open without a key (docs/compatibility.md): GET (and its HEAD) only. Fastify reports `/docs/`, the
 * trailing-slash twin of swagger-ui's root route, to onRoute hooks as HEAD only; the twin shares the
 * root route's options and hooks (so would an EDI route's).
 */
const OPEN = [
  '/',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/docs',
  '/docs/',
  '/docs/json',
  '/docs/yaml',
  '/docs/static/index.html',
  '/docs/static/swagger-initializer.js',
  '/docs/static/*',
  '/console',
  '/console/*',
];
/** The operator console's files (docs/console.md), one route each, named by the build: open, as the page that asks for a key must be. */
const CONSOLE_FILES = '/console/';
const OPEN_METHODS = ['GET', 'HEAD'];

const edi = (method: 'POST' | 'PUT', path: string) => `${method} ${EDI_PREFIX}${path}`;
const adminRoute = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string) => `${method} ${ADMIN_PREFIX}${path}`;
const rate = (path: string) => `POST ${RATE_PREFIX}${path}`;

/**
 * What is wrong between the routes the app registered and the matrix: a registered route without
 * an entry (nor open), an entry or an open route that is not registered. Each problem names it.
 */
function tableProblems(registered: readonly string[], entries: readonly string[], open: readonly string[]): string[] {
  const found: string[] = [];
  const isOpen = (route: string) => {
    const [method, url] = route.split(' ') as [string, string];
    return OPEN_METHODS.includes(method) && (open.includes(url) || url.startsWith(CONSOLE_FILES));
  };
  for (const route of registered) {
    if (!entries.includes(route) && !isOpen(route)) {
      found.push(`${route} is registered but has no entry in the isolation matrix: add one (or list it as open)`);
    }
  }
  for (const route of entries) {
    if (!registered.includes(route)) found.push(`${route} has an entry in the isolation matrix but the app registers no such route`);
  }
  for (const url of open) {
    if (!OPEN_METHODS.some((method) => registered.includes(`${method} ${url}`))) {
      found.push(`${url} is listed as open but the app registers no such route`);
    }
  }
  return found;
}

// ---- the world: company A (the owner's: customers C1, C2; facilities F1, F2) and company B ----

interface Receipt {
  svcpoid: string;
  poNo: string;
  referenceNo: string;
  sku: string;
}
interface Order {
  svcpoid: string;
  poNo: string;
  referenceNo: string;
  sku: string;
}

interface World {
  a: Tenant;
  b: Tenant;
  keys: Record<KeyName, string>;
  /** Each key's scope, as the factories made it: the model of docs/access.md's checks reads it. */
  scopes: Record<KeyName, Scope>;
  /** C1's documents in F1, one per route that needs one (a route that moves a document gets its own). */
  rn: Record<'cancel' | 'ack' | 'list' | 'get' | 'open' | 'opCancel' | 'forceClose' | 'confirm' | 'rc' | 'level', Receipt>;
  dn: Record<'cancel' | 'ack' | 'list' | 'get' | 'open' | 'opCancel' | 'ship' | 'dc' | 'level', Order>;
  /** Items of C1: in its item master, in stock in F1 (with a lot), posted to F1's ledger (with a lot), to move. */
  sku: Record<'master' | 'inventory' | 'ledger' | 'move', string>;
  /**
   * C1's webhook endpoints (EndpointIDs), one per route that names one (a route that changes or
   * deletes one gets its own): some take every facility, the others are limited to F1.
   */
  ep: Record<'list' | 'update' | 'delete' | 'rotate' | 'search' | 'replay', string>;
  /** Deliveries (DeliveryIDs) of C1's receipt in F1: to `ep.search`, and to `ep.replay` (the replay queues its own again). */
  dlv: Record<'search' | 'replay', string>;
  /** KeyIDs of company A's keys made for the admin API's key operations. */
  keyId: Record<'rotate' | 'revoke', number>;
  /** C1's X12 trading partner (ZZ/`partnerId`), and a 940 of C1's for F1 under an ISA13 of the caller's choice. */
  x12: { partnerId: string; interchange(controlNo: number): string; advice: number };
  /** Every identifier of the owner's data (company A, mostly C1 in F1): no refusal may carry one its request did not name. */
  owned: Set<string>;
  /** Company B's identifiers and documents: no answer to company A may carry one. */
  foreign: Set<string>;
}

interface Scope {
  role: Role;
  companyId: string;
  customerIds: string[];
  facilityIds: string[];
  userIds: number[];
}

/** A route's entry: who it admits, the owner's request, and the owner's document seen from elsewhere. */
interface Entry {
  roles: readonly Role[];
  /**
   * The rate engine answers in its envelope (docs/rating.md); the admin API (docs/admin.md) names no company
   * in its requests (the key's is the one it manages) and its records in the path; the rest in the
   * spec's shapes. `self`: an operation on the key itself, which every key may call and which shows
   * only that key. `x12`: the X12 bridge (docs/x12.md), whose body is an interchange (`X12` below)
   * and whose sender, not its body's identifiers, names the customer.
   */
  shape?: 'rate' | 'admin' | 'self' | 'x12';
  /** The URL to send to, where the route's has parameters (the admin API's records): the owner's record, or `value`. */
  url?(w: World, value?: string | number): string;
  /** The owner's success, when not 200 (the admin API's creations: 201). */
  succeeds?: number;
  owner(w: World): { key: KeyName; body: Json | undefined; shows?: string[] };
  /**
   * Routes whose bodies name a customer and no facility, and which admit a key limited to
   * facilities: the X12 bridge's (or a sender), where it sees and takes only its facilities'
   * advices, and the DN and RN imports an interchange stands for check its facilities; the webhook
   * operations on an endpoint, where it manages only the endpoints limited to some of its
   * facilities, and the owner's, of every facility or of F1 only, answer as unknown ones (`elsewhere`).
   */
  admitsFacilityKeys?: true;
  /** How the body names the owner's document: elsewhere it must answer as this never-used value does. */
  document?(w: World): { value: string | number; never: string | number };
  elsewhere?(w: World): Elsewhere[];
}

/** The owner's request with `fields` changed, by a key in whose scope the document is not. */
interface Elsewhere {
  who: string;
  key: KeyName;
  fields: Json;
  status: number;
  /** The exact answer (for a 404 or a rate envelope); a search's is compared with the never-used value's. */
  answer?: unknown;
}

const ids = (tenant: Tenant, customer = 0, facility = 0) => ({
  CompanyID: tenant.companyId,
  CustomerID: tenant.customerIds[customer]!,
  FacilityID: tenant.facilityIds[facility]!,
});
const at = (tenant: Tenant, facility = 0) => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[facility]! });
/** The webhook operations' identifiers: a customer of a company (an endpoint's facilities are its own). */
const customerOf = (tenant: Tenant, customer = 0) => ({ CompanyID: tenant.companyId, CustomerID: tenant.customerIds[customer]! });
const PAGE = { Paging: { PageSize: 1000 } };

/** The customer's document read by number: another customer, facility or company finds none. */
const customerElsewhere = (status: number, answer?: (w: World) => unknown) => (w: World) =>
  [
    { who: 'another customer naming it under its own CustomerID', key: 'c2', fields: { CustomerID: w.a.customerIds[1] } },
    { who: 'the owner’s customer naming it in another facility', key: 'c1', fields: { FacilityID: w.a.facilityIds[1] } },
    { who: 'the owner customer’s key limited to another facility, naming it', key: 'c1OnlyF2', fields: { FacilityID: w.a.facilityIds[1] } },
    { who: 'a customer of another company naming it under its own identifiers', key: 'customerB', fields: ids(w.b) },
  ].map((c) => ({ ...c, key: c.key as KeyName, status, answer: answer?.(w) }));

/** The warehouse's document or stock read in another facility or company: none there. */
const warehouseElsewhere = (status: number, answer?: (w: World) => unknown) => (w: World) =>
  [
    { who: 'an operator of another facility naming its own', key: 'opF2', fields: at(w.a, 1) },
    { who: 'the company’s admin naming another facility', key: 'adminA', fields: at(w.a, 1) },
    { who: 'an operator of another company naming its own facility', key: 'operatorB', fields: at(w.b) },
    { who: 'an admin of another company naming its own facility', key: 'adminB', fields: at(w.b) },
  ].map((c) => ({ ...c, key: c.key as KeyName, status, answer: answer?.(w) }));

const never = {
  poNo: () => uniqueId('NEVERPO'),
  referenceNo: () => uniqueId('NEVERREF'),
  sku: () => uniqueId('NEVERSKU'),
  rn: () => 'RN-999999999',
  dn: () => 'DN-999999999',
  // As long as the real ones (ep_ and dlv_ with a 26-character ULID) and within the schema's 30.
  endpoint: () => `ep_${'NEVERUSED'.padEnd(26, '0')}`,
  delivery: () => `dlv_${'NEVERUSED'.padEnd(26, '0')}`,
};

/** The receipt operations of the warehouse on one document: the body of each, as its owner sends it. */
const receiptOperation = (pick: keyof World['rn'], extra: (w: World) => Json = () => ({})): Entry => ({
  roles: OPERATOR,
  owner: (w) => ({ key: 'opF1', body: { ...at(w.a), SVCPOID: w.rn[pick].svcpoid, ...extra(w) }, shows: [w.rn[pick].svcpoid] }),
  document: (w) => ({ value: w.rn[pick].svcpoid, never: never.rn() }),
  elsewhere: warehouseElsewhere(404, (w) => ({ error: `Not found receipt ${w.rn[pick].svcpoid}` })),
});
const orderOperation = (pick: keyof World['dn'], extra: (w: World) => Json = () => ({})): Entry => ({
  roles: OPERATOR,
  owner: (w) => ({ key: 'opF1', body: { ...at(w.a), SVCPOID: w.dn[pick].svcpoid, ...extra(w) }, shows: [w.dn[pick].svcpoid] }),
  document: (w) => ({ value: w.dn[pick].svcpoid, never: never.dn() }),
  elsewhere: warehouseElsewhere(404, (w) => ({ error: `Not found order ${w.dn[pick].svcpoid}` })),
});
const NOTE = () => ({ Note: 'isolation matrix' });

/**
 * The customer's webhook endpoint or delivery (or its list) from scopes it is not in: its own key
 * limited to F2 (the owner's endpoints take every facility or F1 only), another customer's, the
 * company's admin's for another customer, another company's customer's and admin's (for its
 * customer, and for its whole company: no CustomerID). An endpoint belongs to its customer or,
 * without one, to its company, and to its facilities (docs/webhooks.md); nothing of C1's is in any of these.
 */
const webhookElsewhere = (status: number, answer?: (w: World) => unknown) => (w: World) =>
  [
    { who: 'the owner customer’s key limited to another facility', key: 'c1OnlyF2', fields: {} },
    { who: 'another customer, under its own CustomerID', key: 'c2', fields: { CustomerID: w.a.customerIds[1] } },
    { who: 'the company’s admin, under another customer', key: 'adminA', fields: { CustomerID: w.a.customerIds[1] } },
    { who: 'a customer of another company, under its own identifiers', key: 'customerB', fields: customerOf(w.b) },
    { who: 'an admin of another company, under its customer', key: 'adminB', fields: customerOf(w.b) },
    {
      who: 'an admin of another company, for its whole company',
      key: 'adminB',
      fields: { CompanyID: w.b.companyId, CustomerID: undefined },
    },
  ].map((c) => ({ ...c, key: c.key as KeyName, status, answer: answer?.(w) }));

/** The customer's operations on one of its endpoints: the body of each, as its owner sends it. */
const endpointOperation = (pick: keyof World['ep'], extra: () => Json = () => ({})): Entry => ({
  roles: CUSTOMER,
  admitsFacilityKeys: true,
  owner: (w) => ({ key: 'c1', body: { ...customerOf(w.a), EndpointID: w.ep[pick], ...extra() }, shows: [w.ep[pick]] }),
  document: (w) => ({ value: w.ep[pick], never: never.endpoint() }),
  elsewhere: webhookElsewhere(404, (w) => ({ error: `Not found endpoint ${w.ep[pick]}` })),
});
/** An endpoint URL: https:// and a public host name, resolved only when a delivery is attempted (never here). */
const hookUrl = () => `https://hooks.example.com/${uniqueId('HOOK')}`;

/**
 * An admin list of company A: another company's admin reads its own company's (200), with nothing
 * of A's; `shows` are what A's admin must find in it.
 */
const adminList = (shows: (w: World) => string[]): Entry => ({
  roles: ['admin'],
  shape: 'admin',
  owner: (w) => ({ key: 'adminA', body: undefined, shows: shows(w) }),
  elsewhere: () => [{ who: 'an admin of another company, reading its own', key: 'adminB', fields: {}, status: 200 }],
});
/** An admin creation in company A: another company's admin creates in its own (201). */
const adminCreation = (body: () => Json): Entry => ({
  roles: ['admin'],
  shape: 'admin',
  succeeds: 201,
  owner: () => ({ key: 'adminA', body: body() }),
  elsewhere: () => [{ who: 'an admin of another company, creating in its own', key: 'adminB', fields: {}, status: 201 }],
});
/**
 * An admin operation on one record of company A, named in the path: another company's admin finds
 * none (404), exactly as for an id never used.
 */
const adminRecord = (
  pick: (w: World) => string | number,
  path: (value: string | number) => string,
  neverUsed: () => string | number,
  unknown: (w: World, value: string | number) => unknown,
  body?: Json,
): Entry => ({
  roles: ['admin'],
  shape: 'admin',
  url: (w, value = pick(w)) => `${ADMIN_PREFIX}${path(value)}`,
  owner: () => ({ key: 'adminA', body }),
  document: (w) => ({ value: pick(w), never: neverUsed() }),
  elsewhere: (w) => [{ who: 'an admin of another company', key: 'adminB', fields: {}, status: 404, answer: unknown(w, pick(w)) }],
});

/** Every route the app serves but the open ones, keyed `METHOD url`. */
const MATRIX: Record<string, Entry> = {
  // ---- item master -------------------------------------------------------------------------------
  [edi('POST', paths.ITEM_IMPORT)]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), Items: [{ itemID: uniqueId('NEWSKU') }] } }),
  },
  [edi('POST', paths.ITEM_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ...PAGE }, shows: [w.sku.master] }),
    elsewhere: (w) => [
      { who: 'another customer reading its own item master', key: 'c2', fields: { CustomerID: w.a.customerIds[1] }, status: 200 },
    ],
  },

  // ---- receipts: the customer's ------------------------------------------------------------------
  [edi('POST', paths.RECEIPT_IMPORT)]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: receiptBody({ tenant: w.a }) }),
  },
  [edi('PUT', paths.RECEIPT_CANCEL)]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), PONo: w.rn.cancel.poNo }, shows: [w.rn.cancel.svcpoid] }),
    document: (w) => ({ value: w.rn.cancel.poNo, never: never.poNo() }),
    elsewhere: customerElsewhere(404, (w) => ({ error: `Not found receipt with PONo ${w.rn.cancel.poNo}` })),
  },
  [edi('POST', paths.RECEIPT_ACK_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), PONo: w.rn.ack.poNo }, shows: [w.rn.ack.svcpoid] }),
    document: (w) => ({ value: w.rn.ack.poNo, never: never.poNo() }),
    elsewhere: customerElsewhere(404, () => ({ error: 'Not found receipt' })),
  },
  [edi('POST', paths.RECEIPT_RC_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), PONo: w.rn.rc.poNo }, shows: [w.rn.rc.sku] }),
    document: (w) => ({ value: w.rn.rc.poNo, never: never.poNo() }),
    elsewhere: customerElsewhere(200),
  },
  [edi('POST', paths.RECEIPT_LEVEL_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), PONo: w.rn.level.poNo }, shows: [w.rn.level.svcpoid] }),
    document: (w) => ({ value: w.rn.level.poNo, never: never.poNo() }),
    elsewhere: customerElsewhere(200),
  },

  // ---- receipts: the warehouse's -----------------------------------------------------------------
  [edi('POST', `${paths.THREEPL_RECEIPT}/list`)]: {
    roles: OPERATOR,
    owner: (w) => ({ key: 'opF1', body: { ...at(w.a), PONo: w.rn.list.poNo }, shows: [w.rn.list.svcpoid] }),
    document: (w) => ({ value: w.rn.list.poNo, never: never.poNo() }),
    elsewhere: warehouseElsewhere(200),
  },
  [edi('POST', `${paths.THREEPL_RECEIPT}/get`)]: receiptOperation('get'),
  [edi('POST', `${paths.THREEPL_RECEIPT}/open`)]: receiptOperation('open', NOTE),
  [edi('POST', `${paths.THREEPL_RECEIPT}/cancel`)]: receiptOperation('opCancel', NOTE),
  [edi('POST', `${paths.THREEPL_RECEIPT}/force-close`)]: receiptOperation('forceClose', NOTE),
  [edi('POST', paths.RECEIPT_CONFIRM)]: receiptOperation('confirm', (w) => ({
    ConfirmationNo: uniqueId('CN'),
    Items: [{ ItemNumber: w.rn.confirm.sku, ReceivedQuantity: '1', UOM: 'EA' }],
  })),

  // ---- inventory ---------------------------------------------------------------------------------
  [edi('POST', paths.INVENTORY_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ItemNumber: w.sku.inventory }, shows: [`${w.sku.inventory}-LOT`] }),
    document: (w) => ({ value: w.sku.inventory, never: never.sku() }),
    elsewhere: customerElsewhere(200),
  },
  [edi('POST', paths.LEDGER_SEARCH)]: {
    roles: OPERATOR,
    owner: (w) => ({ key: 'opF1', body: { ...at(w.a), ItemNumber: w.sku.ledger }, shows: [`${w.sku.ledger}-LOT`] }),
    document: (w) => ({ value: w.sku.ledger, never: never.sku() }),
    elsewhere: warehouseElsewhere(200),
  },
  [edi('POST', paths.ADJUST_QTY)]: {
    roles: OPERATOR,
    owner: (w) => ({
      key: 'opF1',
      body: { ...ids(w.a), AdjustmentNo: uniqueId('ADJ'), Items: [{ ItemNumber: uniqueId('ADJSKU'), UOM: 'EA', Qty: '5' }] },
    }),
  },
  [edi('POST', paths.ADJUST_PROPERTY)]: {
    roles: OPERATOR,
    owner: (w) => ({
      key: 'opF1',
      body: {
        ...ids(w.a),
        AdjustmentNo: uniqueId('MOVE'),
        Items: [{ ItemNumber: w.sku.move, UOM: 'EA', Qty: '1', From: {}, To: { InventoryStatus: 'Hold' } }],
      },
    }),
  },

  // ---- orders: the customer's --------------------------------------------------------------------
  [edi('POST', paths.ORDER_IMPORT)]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: orderBody({ tenant: w.a }) }),
  },
  [edi('PUT', paths.ORDER_CANCEL)]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ReferenceNo: w.dn.cancel.referenceNo }, shows: [w.dn.cancel.svcpoid] }),
    document: (w) => ({ value: w.dn.cancel.referenceNo, never: never.referenceNo() }),
    elsewhere: customerElsewhere(404, (w) => ({ error: `Not found order with ReferenceNo ${w.dn.cancel.referenceNo}` })),
  },
  [edi('POST', paths.ORDER_ACK_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ReferenceNo: w.dn.ack.referenceNo }, shows: [w.dn.ack.svcpoid] }),
    document: (w) => ({ value: w.dn.ack.referenceNo, never: never.referenceNo() }),
    elsewhere: customerElsewhere(404, () => ({ error: 'Not found order' })),
  },
  [edi('POST', paths.ORDER_DC_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ReferenceNo: w.dn.dc.referenceNo }, shows: [w.dn.dc.svcpoid] }),
    document: (w) => ({ value: w.dn.dc.referenceNo, never: never.referenceNo() }),
    elsewhere: customerElsewhere(200),
  },
  [edi('POST', paths.ORDER_LEVEL_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ReferenceNo: w.dn.level.referenceNo }, shows: [w.dn.level.svcpoid] }),
    document: (w) => ({ value: w.dn.level.referenceNo, never: never.referenceNo() }),
    elsewhere: customerElsewhere(200),
  },

  // ---- orders: the warehouse's -------------------------------------------------------------------
  [edi('POST', `${paths.THREEPL_ORDER}/list`)]: {
    roles: OPERATOR,
    owner: (w) => ({ key: 'opF1', body: { ...at(w.a), ReferenceNo: w.dn.list.referenceNo }, shows: [w.dn.list.svcpoid] }),
    document: (w) => ({ value: w.dn.list.referenceNo, never: never.referenceNo() }),
    elsewhere: warehouseElsewhere(200),
  },
  [edi('POST', `${paths.THREEPL_ORDER}/get`)]: orderOperation('get'),
  [edi('POST', `${paths.THREEPL_ORDER}/open`)]: orderOperation('open', NOTE),
  [edi('POST', `${paths.THREEPL_ORDER}/cancel`)]: orderOperation('opCancel', NOTE),
  [edi('POST', paths.ORDER_SHIP)]: orderOperation('ship', (w) => ({
    ConfirmationNo: uniqueId('CN'),
    Items: [{ ItemNumber: w.dn.ship.sku, ShippedQty: '1', UOM: 'EA' }],
  })),

  // ---- events ------------------------------------------------------------------------------------
  [edi('POST', paths.EVENT_SEARCH)]: {
    roles: READ,
    owner: (w) => ({ key: 'c1', body: { ...ids(w.a), ...PAGE }, shows: [w.rn.level.svcpoid, w.dn.level.svcpoid] }),
    // Keys limited to another facility still read the customer's item events (items have no facility):
    // not cases here. The failure ACKs of other customers quote the owner's numbers that they sent
    // themselves in the cases above (their ACK searches show them too): they read every other type.
    elsewhere: (w) =>
      [
        { who: 'another customer reading its own events', key: 'c2' as KeyName, fields: { CustomerID: w.a.customerIds[1] } },
        { who: 'a customer of another company reading its own events', key: 'customerB' as KeyName, fields: ids(w.b) },
        { who: 'an admin of another company reading its own customer’s events', key: 'adminB' as KeyName, fields: ids(w.b) },
      ].map((c) => ({ ...c, fields: { ...c.fields, Types: EVENT_TYPES.filter((type) => type !== 'ack.failed') }, status: 200 })),
  },

  // ---- webhooks (docs/webhooks.md) ---------------------------------------------------------------------
  // The owner's endpoint limited to F1: a key limited to F2 may not make it (403, a FacilityID of its body).
  [edi('POST', `${paths.WEBHOOK_ENDPOINT}/create`)]: {
    roles: CUSTOMER,
    owner: (w) => {
      const Url = hookUrl();
      return { key: 'c1', body: { ...customerOf(w.a), FacilityIDs: [w.a.facilityIds[0]!], Url }, shows: [Url] };
    },
  },
  [edi('POST', `${paths.WEBHOOK_ENDPOINT}/list`)]: {
    roles: CUSTOMER,
    admitsFacilityKeys: true,
    owner: (w) => ({ key: 'c1', body: customerOf(w.a), shows: [w.ep.list] }),
    // Every list elsewhere is 200: each reads its own endpoints (C2's and company B's have one).
    elsewhere: webhookElsewhere(200),
  },
  [edi('POST', `${paths.WEBHOOK_ENDPOINT}/update`)]: endpointOperation('update', () => ({ Description: 'isolation matrix' })),
  [edi('POST', `${paths.WEBHOOK_ENDPOINT}/delete`)]: endpointOperation('delete'),
  [edi('POST', `${paths.WEBHOOK_ENDPOINT}/rotate-secret`)]: endpointOperation('rotate'),
  [edi('POST', `${paths.WEBHOOK_DELIVERY}/search-by-paging`)]: {
    roles: CUSTOMER,
    admitsFacilityKeys: true,
    owner: (w) => ({ key: 'c1', body: { ...customerOf(w.a), EndpointID: w.ep.search, ...PAGE }, shows: [w.dlv.search] }),
    // Another scope naming C1's endpoint finds nothing, as for an endpoint never made.
    document: (w) => ({ value: w.ep.search, never: never.endpoint() }),
    elsewhere: webhookElsewhere(200),
  },
  [edi('POST', `${paths.WEBHOOK_DELIVERY}/replay`)]: {
    roles: CUSTOMER,
    admitsFacilityKeys: true,
    owner: (w) => ({ key: 'c1', body: { ...customerOf(w.a), DeliveryID: w.dlv.replay } }),
    document: (w) => ({ value: w.dlv.replay, never: never.delivery() }),
    elsewhere: webhookElsewhere(404, (w) => ({ error: `Not found delivery ${w.dlv.replay}` })),
  },

  // ---- the admin API (docs/admin.md): company A's records, from company B's admin ----------------------
  [adminRoute('GET', '/customers')]: adminList((w) => w.a.customerIds),
  [adminRoute('POST', '/customers')]: adminCreation(() => ({ CustomerID: uniqueId('NEWCU') })),
  [adminRoute('PATCH', '/customers/:CustomerID')]: adminRecord(
    (w) => w.a.customerIds[0]!,
    (value) => `/customers/${value}`,
    () => uniqueId('NEVERCU'),
    (w, value) => ({ error: `Customer ${value} not found in company ${w.b.companyId}` }),
    { Name: 'isolation matrix' },
  ),
  [adminRoute('GET', '/facilities')]: adminList((w) => w.a.facilityIds),
  [adminRoute('POST', '/facilities')]: adminCreation(() => ({ FacilityID: uniqueId('NEWFA') })),
  [adminRoute('PATCH', '/facilities/:FacilityID')]: adminRecord(
    (w) => w.a.facilityIds[0]!,
    (value) => `/facilities/${value}`,
    () => uniqueId('NEVERFA'),
    (w, value) => ({ error: `Facility ${value} not found in company ${w.b.companyId}` }),
    { Name: 'isolation matrix' },
  ),
  // C1's keys name C1, and one of them F2.
  [adminRoute('GET', '/keys')]: adminList((w) => [w.a.customerIds[0]!, w.a.facilityIds[1]!]),
  [adminRoute('POST', '/keys')]: adminCreation(() => ({ Role: 'admin', Label: 'isolation matrix' })),
  [adminRoute('POST', '/keys/:KeyID/rotate')]: adminRecord(
    (w) => w.keyId.rotate,
    (value) => `/keys/${value}/rotate`,
    () => 999_999_999,
    (_w, value) => ({ error: `API key ${value} not found` }),
    {},
  ),
  [adminRoute('DELETE', '/keys/:KeyID')]: adminRecord(
    (w) => w.keyId.revoke,
    (value) => `/keys/${value}`,
    () => 999_999_999,
    (_w, value) => ({ error: `API key ${value} not found` }),
  ),
  [adminRoute('GET', '/rate-cards')]: adminList(() => ['Demo Parcel Rates 2026']),
  // Another company's admin loading a card loads it for its own company (the rate engine's entries
  // below need company B without one): the owner's load is the case here.
  [adminRoute('POST', '/rate-cards')]: {
    roles: ['admin'],
    shape: 'admin',
    owner: () => ({ key: 'adminA', body: { Card: JSON.parse(readFileSync(EXAMPLE_RATE_CARD, 'utf8')) as Json } }),
  },
  [adminRoute('GET', '/rate-cards/:Version')]: adminRecord(
    () => 1,
    (value) => `/rate-cards/${value}`,
    () => 999_999,
    (_w, value) => ({ error: `Rate card version ${value} of the company default not found` }),
  ),
  [adminRoute('GET', '/webhook-endpoints')]: adminList((w) => [w.ep.list, w.ep.update]),
  [adminRoute('GET', '/x12-partners')]: adminList((w) => [w.x12.partnerId]),
  // Another company's admin names a customer it does not have.
  [adminRoute('POST', '/x12-partners')]: {
    roles: ['admin'],
    shape: 'admin',
    succeeds: 201,
    // C1's second partner: C2 must stay without one (the 846's entry below).
    owner: (w) => ({ key: 'adminA', body: { CustomerID: w.a.customerIds[0]!, PartnerID: uniqueId('NEWX12') } }),
    elsewhere: (w) => [
      {
        who: 'an admin of another company, naming a customer of company A',
        key: 'adminB',
        fields: {},
        status: 404,
        answer: { error: `Customer ${w.a.customerIds[0]} not found in company ${w.b.companyId}` },
      },
    ],
  },
  // The admin entries above made changes in company A by then (the matrix runs in this order).
  [adminRoute('GET', '/changes')]: adminList(() => ['customer.created']),

  // ---- the X12 bridge -----------------------------------------------------------------------------
  [edi('POST', '/edi/x12')]: {
    roles: CUSTOMER,
    shape: 'x12',
    admitsFacilityKeys: true,
    // The identifiers are the model's: the interchange names them, and its sender names the customer.
    owner: (w) => ({
      key: 'c1',
      body: { ...ids(w.a), Sender: w.x12.partnerId, X12: w.x12.interchange(1) },
      shows: [w.x12.partnerId, 'AK5*A'],
    }),
    // C1's key limited to F2 is C1's partner's: its 940 for F1 is rejected in the 997, by the scope check of the DN import.
    elsewhere: (w) => [
      { who: 'the owner customer’s key limited to another facility', key: 'c1OnlyF2', fields: { X12: w.x12.interchange(2) }, status: 200 },
    ],
  },

  // C1's advice is an 846 of F1 (it names F1's stock): no other customer, and no key of C1's limited to F2, sees or takes it.
  [edi('POST', '/edi/x12/outbox/list')]: {
    roles: CUSTOMER,
    admitsFacilityKeys: true,
    owner: (w) => ({ key: 'c1', body: { ...customerOf(w.a), Status: 'All' }, shows: [String(w.x12.advice), w.sku.inventory] }),
    elsewhere: (w) =>
      [
        { who: 'another customer listing its own', key: 'c2', fields: customerOf(w.a, 1) },
        { who: 'the owner customer’s key limited to another facility', key: 'c1OnlyF2', fields: {} },
        { who: 'a customer of another company listing its own', key: 'customerB', fields: customerOf(w.b) },
      ].map((c) => ({
        ...c,
        key: c.key as KeyName,
        status: 200,
        answer: { results: { data: [] }, paging: { totalCount: 0, pageNo: 1, totalPage: 0, startIndex: 0, endIndex: 0, limit: 100 } },
      })),
  },
  [edi('POST', '/edi/x12/outbox/ack')]: {
    roles: CUSTOMER,
    admitsFacilityKeys: true,
    owner: (w) => ({ key: 'c1', body: { ...customerOf(w.a), OutboxIDs: [w.x12.advice] }, shows: [String(w.x12.advice)] }),
    elsewhere: (w) =>
      [
        { who: 'another customer naming it under its own CustomerID', key: 'c2', fields: customerOf(w.a, 1) },
        { who: 'the owner customer’s key limited to another facility', key: 'c1OnlyF2', fields: {} },
        { who: 'a customer of another company naming it under its own identifiers', key: 'customerB', fields: customerOf(w.b) },
      ].map((c) => ({ ...c, key: c.key as KeyName, status: 404, answer: { error: `Not found outbox advice ${w.x12.advice}` } })),
  },
  [edi('POST', '/edi/x12/846')]: {
    roles: CUSTOMER,
    owner: (w) => ({ key: 'c1', body: ids(w.a), shows: [w.x12.partnerId] }),
    elsewhere: (w) =>
      [
        { who: 'another customer of the company, which has no partner', key: 'c2', fields: ids(w.a, 1), customer: w.a.customerIds[1] },
        { who: 'a customer of another company, which has none either', key: 'customerB', fields: ids(w.b), customer: w.b.customerIds[0] },
      ].map(({ customer, ...c }) => ({
        ...c,
        key: c.key as KeyName,
        status: 404,
        answer: { error: `Customer ${customer} has no X12 trading partner` },
      })),
  },

  // ---- the key itself ------------------------------------------------------------------------------
  [`GET ${EDI_PREFIX}/edi/api-key`]: {
    roles: ROLES,
    shape: 'self',
    owner: (w) => ({ key: 'c1', body: undefined, shows: [w.a.customerIds[0]!, w.a.facilityIds[0]!] }),
    // Any other key sees itself: another company's admin, its own company and none of company A's.
    elsewhere: () => [{ who: 'an admin key of another company', key: 'adminB', fields: {}, status: 200 }],
  },

  // ---- the rate engine ---------------------------------------------------------------------------
  ...Object.fromEntries(
    ['/lastmile', '/lastmile/explain'].map((path): [string, Entry] => [
      rate(path),
      {
        roles: RATE,
        shape: 'rate',
        owner: () => ({ key: 'raterA', body: RATE_REQUEST, shows: ['Economy', 'Ground'] }),
        // docs/rating.md: an admin key quotes any UserID with its own company's card — company B has none.
        elsewhere: () => [
          {
            who: 'an admin of another company (quoted with its own company’s card, and it has none)',
            key: 'adminB',
            fields: {},
            status: 200,
            answer: {
              ...rateEnvelope(3, 'RateEngine.Service', `no rate card is in force for UserID ${RATE_REQUEST.UserID}`),
              ...(path.endsWith('/explain') ? { Explanation: null } : {}),
            },
          },
        ],
      },
    ]),
  ),
};

/** The rater key of company A quotes for UserID 1 (createKey's default); company B's rater for 2. */
const RATE_REQUEST = {
  UserID: 1,
  Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' },
};
function rateEnvelope(severity: number, source: string, message: string) {
  return { Result: [], Page: null, ErrorMsg: message, ErrorSeverity: severity, ErrorSource: source, Status: false };
}

// ---- docs/access.md's order of checks, as a model ------------------------------------------------------

interface Refusal {
  status: number;
  body: unknown;
}

/**
 * What a key's request for `body` must answer on a route admitting `roles`, in docs/access.md's order:
 * the key (401), the role and the CompanyID (403), the FacilityID's scope, and each of FacilityIDs'
 * (403), the CustomerID's scope (403). Undefined when the key may make the request. (The owner's
 * bodies are valid and name facilities of company A, so the schema (400) and Not found facility
 * (400) never answer here.)
 */
function ediRefusal(scope: Scope | undefined, roles: readonly Role[], body: Json): Refusal | undefined {
  const forbidden = (message: string) => ({ status: 403, body: problems(message) });
  if (!scope) return { status: 401, body: problems(MISSING) };
  if (!roles.includes(scope.role)) return forbidden(`An API key with role ${scope.role} may not call this operation`);
  if (body.CompanyID !== scope.companyId) return forbidden(`CompanyID ${String(body.CompanyID)} is outside this API key's scope`);
  const facilityId = body.FacilityID as string | undefined;
  if (facilityId !== undefined && scope.facilityIds.length > 0 && !scope.facilityIds.includes(facilityId)) {
    return forbidden(`FacilityID ${facilityId} is outside this API key's scope`);
  }
  const outside = ((body.FacilityIDs as string[] | undefined) ?? []).find(
    (listed) => scope.facilityIds.length > 0 && !scope.facilityIds.includes(listed),
  );
  if (outside !== undefined) return forbidden(`FacilityID ${outside} is outside this API key's scope`);
  const customerId = body.CustomerID as string | undefined;
  if (customerId !== undefined && scope.role === 'customer' && !scope.customerIds.includes(customerId)) {
    return forbidden(`CustomerID ${customerId} is outside this API key's scope`);
  }
  return undefined;
}

/** The rate engine's (docs/rating.md): the key (401), then the role and the UserID (403), in its envelope. */
function rateRefusal(scope: Scope | undefined, _roles: readonly Role[], body: Json): Refusal | undefined {
  const auth = (status: number, message: string) => ({ status, body: rateEnvelope(4, 'RateEngine.Auth', message) });
  if (!scope) return auth(401, MISSING);
  if (scope.role === 'admin') return undefined;
  if (scope.role !== 'rater') return auth(403, `An API key with role ${scope.role} may not ask for rates`);
  if (!scope.userIds.includes(body.UserID as number))
    return auth(403, `UserID ${String(body.UserID)} is not one this API key may quote for`);
  return undefined;
}

/** The admin API's (docs/admin.md): the key (401), then any role but admin (403); an admin manages only its own company. */
function adminRefusal(scope: Scope | undefined): Refusal | undefined {
  if (!scope) return { status: 401, body: problems(MISSING) };
  if (scope.role !== 'admin') return { status: 403, body: problems(`An API key with role ${scope.role} may not call this operation`) };
  return undefined;
}

/** The X12 bridge's (docs/x12.md): the key (401), the role (403), then a sender that is no partner of the key's customers (403). */
function x12Refusal(scope: Scope | undefined, roles: readonly Role[], body: Json): Refusal | undefined {
  if (!scope) return { status: 401, body: problems(MISSING) };
  if (!roles.includes(scope.role)) return { status: 403, body: problems(`An API key with role ${scope.role} may not call this operation`) };
  const partnerOfKey =
    scope.companyId === body.CompanyID && (scope.role === 'admin' || scope.customerIds.includes(body.CustomerID as string));
  if (!partnerOfKey) {
    return {
      status: 403,
      body: problems(`Interchange sender ZZ/${String(body.Sender)} is not a trading partner of this API key's customers`),
    };
  }
  return undefined;
}

/** An operation on the key itself: only a request without a key is refused. */
function selfRefusal(scope: Scope | undefined): Refusal | undefined {
  return scope ? undefined : { status: 401, body: problems(MISSING) };
}

/** The keys every route is refused to: none, another company's, customer's, facility's, and the roles it does not admit. */
function refusedKeys(entry: Entry, owner: KeyName, scopes: Record<KeyName, Scope>): { who: string; key?: KeyName }[] {
  const ownerRole = scopes[owner].role;
  const sameRoleInB: Record<Role, KeyName> = { customer: 'customerB', operator: 'operatorB', admin: 'adminB', rater: 'raterB' };
  const inOwnScope: Record<Role, KeyName> = { customer: 'c1', operator: 'opF1', admin: 'adminA', rater: 'raterA' };
  // Another company's admin is no refusal on the admin API: it manages its own company (`elsewhere`).
  const otherCompany: { who: string; key?: KeyName }[] =
    entry.shape === 'admin'
      ? [{ who: 'an operator key of another company', key: 'operatorB' }]
      : [
          { who: `a ${ownerRole} key of another company`, key: sameRoleInB[ownerRole] },
          ...(entry.shape === 'rate' ? [] : [{ who: 'an admin key of another company', key: 'adminB' as KeyName }]),
        ];
  // Every key may describe itself: only no key is refused, and the others show what they see in `elsewhere`.
  if (entry.shape === 'self') return [{ who: 'no key' }];
  const cases: { who: string; key?: KeyName }[] = [
    { who: 'no key' },
    ...otherCompany,
    { who: 'a customer key of another customer of the company', key: 'c2' },
    ...(entry.admitsFacilityKeys ? [] : [{ who: 'the owner customer’s key limited to another facility', key: 'c1OnlyF2' as KeyName }]),
    { who: 'an operator key of another facility', key: 'opF2' },
    ...ROLES.filter((role) => !entry.roles.includes(role)).map((role) => ({
      who: `a ${role} key (a role the route does not admit)`,
      key: inOwnScope[role],
    })),
  ];
  return cases;
}

// ---- checks on an answer ----------------------------------------------------------------------------

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Whole tokens only: RN-1 must not match RN-12. */
const containsToken = (text: string, value: string) => new RegExp(`(^|[^A-Za-z0-9-])${escape(value)}($|[^A-Za-z0-9])`).test(text);

/** The values of `secrets` in the answer's raw text (headers and body) that the request did not itself name. */
function leaked(response: LightMyRequestResponse, request: unknown, secrets: Iterable<string>): string[] {
  const sent = JSON.stringify(request);
  const answer = `${JSON.stringify(response.headers)}\n${response.body}`;
  return [...secrets].filter((value) => !containsToken(sent, value) && containsToken(answer, value));
}

/** The paging headers of an answer (X-Total-Count, X-Page-No, X-Page-Size): a count tells as much as a row. */
const pagingHeaders = (response: LightMyRequestResponse) =>
  Object.fromEntries(Object.entries(response.headers).filter(([name]) => name.startsWith('x-page') || name === 'x-total-count'));

describeEachDialect('isolation matrix', (dialect: DialectName) => {
  const registered: string[] = [];
  const ctx = useTestApp(
    dialect,
    {},
    {
      onRoute: ({ method, url }) => {
        for (const one of [method].flat()) registered.push(`${one} ${url}`);
      },
    },
  );
  let w: World;

  /** Sends `body` (none: no body) to the route, at `url` where its path has parameters. */
  const send = (route: string, body: unknown, key?: string, url?: string) => {
    const [method, path] = route.split(' ') as ['GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string];
    // The X12 bridge's body is its interchange alone.
    const interchange = (body as { X12?: string } | undefined)?.X12;
    return ctx().app.inject({
      method,
      url: url ?? path,
      headers: {
        ...(body === undefined ? {} : { 'content-type': interchange === undefined ? 'application/json' : 'application/edi-x12' }),
        ...(key ? { authorization: `APIKey ${key}` } : {}),
      },
      ...(body === undefined ? {} : { payload: interchange ?? JSON.stringify(body) }),
    });
  };

  /** Every row of both companies, in every table that has a company (keys aside: a refused key is still used). */
  async function snapshot(): Promise<string> {
    const db = ctx().database.db;
    const { rows: tables } =
      dialect === 'postgres'
        ? await sql<{ name: string }>`select table_name as name from information_schema.columns
            where column_name = 'company_id' and table_schema = current_schema() order by table_name`.execute(db)
        : await sql<{ name: string }>`select m.name as name from sqlite_master m join pragma_table_info(m.name) p
            where m.type = 'table' and p.name = 'company_id' order by m.name`.execute(db);
    const rowsOf: Record<string, string[]> = {};
    for (const { name } of tables.filter((t) => t.name !== 'api_keys')) {
      const { rows } = await sql`select * from ${sql.table(name)} where company_id in (${w.a.companyId}, ${w.b.companyId})`.execute(db);
      rowsOf[name] = rows.map((row) => JSON.stringify(row)).sort();
    }
    if (dialect === 'sqlite') rowsOf.counters = (await sql`select * from counters`.execute(db)).rows.map((row) => JSON.stringify(row));
    // The webhook tables too: a refused webhook operation must change no endpoint, delivery or attempt.
    expect(Object.keys(rowsOf)).toEqual(
      expect.arrayContaining(['receipts', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts']),
    );
    return JSON.stringify(rowsOf);
  }

  beforeAll(async () => {
    const { database, clock } = ctx();
    const { a, b, keys: rivals } = await createRivals(database.db, clock);
    const keys = { ...rivals, raterB: await createKey(database.db, clock, b, 'rater', { userIds: [2] }) };
    const scope = (tenant: Tenant, role: Role, more: Partial<Scope> = {}): Scope => ({
      role,
      companyId: tenant.companyId,
      customerIds: [],
      facilityIds: [],
      userIds: [],
      ...more,
    });
    // As createRivals makes them.
    const scopes: Record<KeyName, Scope> = {
      c1: scope(a, 'customer', { customerIds: [a.customerIds[0]!] }),
      c2: scope(a, 'customer', { customerIds: [a.customerIds[1]!] }),
      c1OnlyF2: scope(a, 'customer', { customerIds: [a.customerIds[0]!], facilityIds: [a.facilityIds[1]!] }),
      opF1: scope(a, 'operator', { facilityIds: [a.facilityIds[0]!] }),
      opF2: scope(a, 'operator', { facilityIds: [a.facilityIds[1]!] }),
      adminA: scope(a, 'admin'),
      raterA: scope(a, 'rater', { userIds: [1] }),
      customerB: scope(b, 'customer', { customerIds: [b.customerIds[0]!] }),
      operatorB: scope(b, 'operator'),
      adminB: scope(b, 'admin'),
      raterB: scope(b, 'rater', { userIds: [2] }),
    };
    const owned = new Set<string>([a.companyId, ...a.customerIds, ...a.facilityIds]);
    const own = <T extends string>(value: T) => (owned.add(value), value);
    const foreign = new Set<string>([b.companyId, ...b.customerIds, ...b.facilityIds]);

    const receipt = async (status: ReceiptStatus = 'Imported'): Promise<Receipt> => {
      const sku = own(uniqueId('RSKU'));
      const referenceNo = own(uniqueId('RREF'));
      const built = await buildReceipt(ctx(), {
        tenant: a,
        key: keys.c1,
        operatorKey: keys.opF1,
        status,
        content: { ReferenceNo: referenceNo, Items: [{ ItemNumber: sku, ExpectedQty: '10', UOM: 'EA' }] },
      });
      return { svcpoid: own(built.svcpoid), poNo: own(built.poNo), referenceNo, sku };
    };
    const order = async (status: OrderStatus = 'Imported', { stocked = false } = {}): Promise<Order> => {
      const sku = own(uniqueId('DSKU'));
      const poNo = own(uniqueId('DPO'));
      if (stocked) await stock(ctx(), { tenant: a, items: [{ ItemNumber: sku, Qty: '10' }] });
      const built = await buildOrder(ctx(), {
        tenant: a,
        key: keys.c1,
        operatorKey: keys.opF1,
        status,
        content: { PONo: poNo, Items: [{ ItemID: sku, OrderedQty: '10', UOM: 'EA' }] },
      });
      return { svcpoid: own(built.svcpoid), poNo, referenceNo: own(built.referenceNo), sku };
    };

    const rn = {
      cancel: await receipt(),
      ack: await receipt(),
      list: await receipt(),
      get: await receipt('Open'),
      open: await receipt(),
      opCancel: await receipt(),
      forceClose: await receipt('Open'),
      confirm: await receipt(),
      rc: await receipt('In Progress'),
      level: await receipt(),
    };
    const dn = {
      cancel: await order(),
      ack: await order(),
      list: await order(),
      get: await order('Open'),
      open: await order(),
      opCancel: await order(),
      ship: await order('Imported', { stocked: true }),
      dc: await order('Partial Shipped', { stocked: true }),
      level: await order(),
    };
    const sku = {
      master: own(uniqueId('MSKU')),
      inventory: own(uniqueId('ISKU')),
      ledger: own(uniqueId('LSKU')),
      move: own(uniqueId('VSKU')),
    };
    await importItems(ctx(), { tenant: a, key: keys.c1, items: [sku.master] });
    await stock(ctx(), { tenant: a, items: [{ ItemNumber: sku.inventory, Qty: '7', LotNo: own(`${sku.inventory}-LOT`) }] });
    await stock(ctx(), { tenant: a, items: [{ ItemNumber: sku.ledger, Qty: '3', LotNo: own(`${sku.ledger}-LOT`) }] });
    await stock(ctx(), { tenant: a, items: [{ ItemNumber: sku.move, Qty: '5' }] });
    await loadRateCard(database.db, clock, { companyId: a.companyId, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
    // What company A's rate card quotes is company A's too.
    const quote = await send(rate('/lastmile'), RATE_REQUEST, keys.adminA);
    expect(quote.statusCode, quote.body).toBe(200);
    for (const { Price } of quote.json().Result as { Price: string }[]) owned.add(Price);

    // Company B's own documents and stock, under numbers of its own.
    const bReceipt = await buildReceipt(ctx(), { tenant: b, key: keys.customerB });
    const bOrder = await buildOrder(ctx(), { tenant: b, key: keys.customerB });
    for (const value of [bReceipt.svcpoid, bReceipt.poNo, bOrder.svcpoid, bOrder.referenceNo]) foreign.add(value);
    const bSku = uniqueId('BSKU');
    foreign.add(bSku);
    await stock(ctx(), { tenant: b, items: [{ ItemNumber: bSku, Qty: '9' }] });

    // Webhooks (docs/webhooks.md). The world's events so far are fanned out before any endpoint exists: the
    // deliveries are only those of the receipts below. Nothing dispatches them (no HTTP is sent).
    await sequenceEvents(database.db);
    await fanOut(database.db, clock.now());
    const alien = <T extends string>(value: T) => (foreign.add(value), value);
    /** An endpoint made through the API, taking receipt.imported only; `keep` takes its id, URL and secret. */
    const endpoint = async (key: string, body: Json, keep: (value: string) => string) => {
      const Url = keep(hookUrl());
      const created = await send(edi('POST', `${paths.WEBHOOK_ENDPOINT}/create`), { ...body, Url, EventTypes: ['receipt.imported'] }, key);
      expect(created.statusCode, created.body).toBe(200);
      const { EndpointID, Secret } = created.json().Endpoint as { EndpointID: string; Secret: string };
      keep(Secret);
      return keep(EndpointID);
    };
    const inF1 = { ...customerOf(a), FacilityIDs: [a.facilityIds[0]!] };
    const ep = {
      list: await endpoint(keys.c1, customerOf(a), own),
      update: await endpoint(keys.c1, inF1, own),
      delete: await endpoint(keys.c1, customerOf(a), own),
      rotate: await endpoint(keys.c1, inF1, own),
      search: await endpoint(keys.c1, inF1, own),
      replay: await endpoint(keys.c1, customerOf(a), own),
    };
    // C1's key limited to F2, C2 and company B have an endpoint each (B's gets a delivery): the lists
    // elsewhere are not empty by chance, and the owner's answers must show nothing of B's. The F2
    // key's endpoint is limited to F2 (as it made it): the receipt in F1 below is not its business.
    await endpoint(keys.c1OnlyF2, customerOf(a), (value) => value);
    await endpoint(keys.c2, customerOf(a, 1), (value) => value);
    const bEndpoint = await endpoint(keys.customerB, customerOf(b), alien);
    // A receipt of C1 in F1 and one of company B: one delivery to each endpoint of its customer.
    await receipt();
    const bHooked = await buildReceipt(ctx(), { tenant: b, key: keys.customerB });
    for (const value of [bHooked.svcpoid, bHooked.poNo]) foreign.add(value);
    await sequenceEvents(database.db);
    await fanOut(database.db, clock.now());
    /** The deliveries a customer reads, with their ids and their events' kept. */
    const deliveries = async (key: string, body: Json, keep: (value: string) => string) => {
      const found = await send(edi('POST', `${paths.WEBHOOK_DELIVERY}/search-by-paging`), { ...body, ...PAGE }, key);
      expect(found.statusCode, found.body).toBe(200);
      const data = found.json().results.data as { DeliveryID: string; EndpointID: string; EventID: string }[];
      for (const { DeliveryID, EventID } of data) {
        keep(DeliveryID);
        keep(EventID);
      }
      return data;
    };
    const c1Deliveries = await deliveries(keys.c1, customerOf(a), own);
    expect(c1Deliveries.map((d) => d.EndpointID).sort()).toEqual(Object.values(ep).sort());
    expect((await deliveries(keys.customerB, customerOf(b), alien)).map((d) => d.EndpointID)).toEqual([bEndpoint]);
    const deliveryTo = (endpointId: string) => c1Deliveries.find((d) => d.EndpointID === endpointId)!.DeliveryID;
    const dlv = { search: deliveryTo(ep.search), replay: deliveryTo(ep.replay) };

    // Two keys of company A for the admin API to rotate and revoke (the rivals' keys stay as they are).
    await createKey(database.db, clock, a, 'operator');
    await createKey(database.db, clock, a, 'operator');
    const [rotate, revoke] = (await listApiKeys(database.db, a.companyId)).slice(-2).map((key) => key.id) as [number, number];
    const keyId = { rotate, revoke };

    // C1's X12 partner, and a 940 of C1's for F1 of an item in stock there.
    const partnerId = own(uniqueId('X12P'));
    await addPartner(database.db, clock, { companyId: a.companyId, customerId: a.customerIds[0]!, id: partnerId, qualifier: 'ZZ' });
    const x12Sku = own(uniqueId('XSKU'));
    await stock(ctx(), { tenant: a, items: [{ ItemNumber: x12Sku, Qty: '10' }] });
    const interchange = (controlNo: number) => {
      const isa13 = String(controlNo).padStart(9, '0');
      const body = [
        `W05*N*${own(uniqueId('X12SO'))}`,
        `N1*WH*F1*9*${a.facilityIds[0]}`,
        'N1*ST*Jane Doe',
        'N3*1 Market St',
        'N4*San Francisco*CA*94105',
        'LX*1',
        `W01*1*EA**VN*${x12Sku}`,
      ];
      return [
        `ISA*00*          *00*          *ZZ*${partnerId.padEnd(15)}*ZZ*${a.companyId.padEnd(15)}*261127*1200*U*00401*${isa13}*0*P*>~`,
        `GS*OW*${partnerId}*${a.companyId}*20261127*1200*${controlNo}*X*004010~`,
        'ST*940*0001~',
        ...body.map((segment) => `${segment}~`),
        `SE*${body.length + 2}*0001~`,
        `GE*1*${controlNo}~`,
        `IEA*1*${isa13}~`,
      ].join('\n');
    };
    // C1's advice: an 846 of its stock in F1.
    const requested = await send(edi('POST', '/edi/x12/846'), ids(a), keys.c1);
    expect(requested.statusCode, requested.body).toBe(200);
    const x12 = { partnerId, interchange, advice: requested.json().Advices[0].OutboxID as number };

    w = { a, b, keys, scopes, rn, dn, sku, ep, dlv, keyId, x12, owned, foreign };
  });

  it('has an entry for every route the app registers, and every entry is a registered route', () => {
    expect(registered.length).toBeGreaterThan(0);
    expect(tableProblems(registered, Object.keys(MATRIX), OPEN)).toEqual([]);
  });

  it('answers the open routes without a key', async () => {
    for (const route of registered.filter((r) => !(r in MATRIX))) {
      const [method, url] = route.split(' ') as ['GET' | 'HEAD', string];
      const response = await ctx().app.inject({ method, url: url.replace('*', 'swagger-ui.css') });
      expect(response.statusCode, `${route}: ${response.body.slice(0, 200)}`).toBeLessThan(400);
    }
  });

  for (const [route, entry] of Object.entries(MATRIX)) {
    it(`${route}: refused outside the owner's scope, no trace of its data, and the owner's request succeeds`, async () => {
      const owner = entry.owner(w);
      const url = entry.url?.(w);
      const model =
        entry.shape === 'rate'
          ? rateRefusal
          : entry.shape === 'admin'
            ? adminRefusal
            : entry.shape === 'self'
              ? selfRefusal
              : entry.shape === 'x12'
                ? x12Refusal
                : ediRefusal;
      // The model admits the owner: the refusals below are about the key, not the request.
      expect(model(w.scopes[owner.key], entry.roles, owner.body ?? {}), 'the owner must be admitted').toBeUndefined();
      // What the request itself names (its path too, where the record is named there).
      const named = (body: unknown, at = url) => ({ url: at, body });

      const before = await snapshot();
      for (const { who, key } of refusedKeys(entry, owner.key, w.scopes)) {
        const expected = model(key && w.scopes[key], entry.roles, owner.body ?? {});
        expect(expected, `${who} is admitted by the route: not a case of the matrix`).toBeDefined();
        const response = await send(route, owner.body, key && w.keys[key], url);
        expect({ who, status: response.statusCode, body: response.json() }).toEqual({ who, ...expected });
        expect(leaked(response, named(owner.body), w.owned), `${who}: the answer carries the owner's data`).toEqual([]);
      }
      expect(await snapshot(), 'a refused request changed something').toBe(before);

      const document = entry.document?.(w);
      for (const { who, key, fields, status, answer } of entry.elsewhere?.(w) ?? []) {
        const body = owner.body === undefined && Object.keys(fields).length === 0 ? undefined : { ...owner.body, ...fields };
        const response = await send(route, body, w.keys[key], url);
        expect({ who, status: response.statusCode }).toEqual({ who, status });
        if (answer !== undefined) expect(response.json(), who).toEqual(answer);
        // The facilities a key is limited to are its own to see (the endpoints it made name them).
        const known = { ...named(body), facilities: w.scopes[key].facilityIds };
        expect(leaked(response, known, w.owned), `${who}: the answer carries the owner's data`).toEqual([]);
        if (document) {
          // As if it did not exist: the same answer as for a number never used (in the body, or the path).
          const text = JSON.stringify(body)?.replaceAll(JSON.stringify(document.value), JSON.stringify(document.never));
          const unknown = await send(route, text === undefined ? undefined : JSON.parse(text), w.keys[key], entry.url?.(w, document.never));
          expect(unknown.statusCode, `${who}, a number never used`).toBe(status);
          expect(response.body, `${who}: the answer tells the document exists`).toBe(
            unknown.body.replaceAll(String(document.never), String(document.value)),
          );
          expect(pagingHeaders(response), `${who}: the paging tells the document exists`).toEqual(pagingHeaders(unknown));
        }
      }

      const response = await send(route, owner.body, w.keys[owner.key], url);
      expect(response.statusCode, response.body).toBe(entry.succeeds ?? 200);
      if (entry.shape === 'rate') expect(response.json()).toMatchObject({ Status: true, ErrorSeverity: 0 });
      for (const value of owner.shows ?? []) expect(containsToken(response.body, value), `the owner's answer shows ${value}`).toBe(true);
      expect(leaked(response, named(owner.body), w.foreign), 'the owner’s answer carries another company’s data').toEqual([]);
    });
  }

  it('a number the customer holds in another facility: the clash names no document there, nor does the ACK it leaves', async () => {
    // C1's key for F2 only sends, in F2, the ReferenceNos of C1's receipt and order in F1 (unique
    // among the customer's documents in every facility): it may learn the number is taken, not by what.
    const clashes = [
      {
        route: edi('POST', paths.RECEIPT_IMPORT),
        search: edi('POST', paths.RECEIPT_ACK_SEARCH),
        referenceNo: w.rn.level.referenceNo,
        body: receiptBody({ tenant: w.a, facility: 1, content: { ReferenceNo: w.rn.level.referenceNo } }),
        message: `ReferenceNo ${w.rn.level.referenceNo} is already used by a receipt in another facility`,
      },
      {
        route: edi('POST', paths.ORDER_IMPORT),
        search: edi('POST', paths.ORDER_ACK_SEARCH),
        referenceNo: w.dn.level.referenceNo,
        body: orderBody({ tenant: w.a, facility: 1, content: { ReferenceNo: w.dn.level.referenceNo } }),
        message: `ReferenceNo ${w.dn.level.referenceNo} is already used by an order in another facility`,
      },
    ];
    for (const { route, search, referenceNo, body, message } of clashes) {
      const response = await send(route, body, w.keys.c1OnlyF2);
      expect({ route, status: response.statusCode, body: response.json() }).toEqual({ route, status: 409, body: problems(message) });
      expect(leaked(response, body, w.owned), route).toEqual([]);
      // The failure ACK is in F2, where F2's operator and the key itself read it.
      for (const key of ['c1OnlyF2', 'opF2'] as const) {
        const filter = { ...ids(w.a, 0, 1), ReferenceNo: referenceNo };
        const acks = await send(search, filter, w.keys[key]);
        expect(acks.statusCode, acks.body).toBe(200);
        expect(acks.json().map((record: { ACK: unknown }) => record.ACK)).toContainEqual({ code: `EDI-ERROR-${message}`, error: message });
        expect(leaked(acks, filter, w.owned), `${key} reading the ACKs of ${route}`).toEqual([]);
      }
    }
  });
});

describe('the isolation matrix’s table check', () => {
  const registered = ['GET /healthz', 'HEAD /healthz', 'POST /a', 'PUT /b'];
  const entries = ['POST /a', 'PUT /b'];

  it('passes when the table and the routes match', () => {
    expect(tableProblems(registered, entries, ['/healthz'])).toEqual([]);
  });

  it('names a registered route without an entry', () => {
    expect(tableProblems([...registered, 'POST /new'], entries, ['/healthz'])).toEqual([
      'POST /new is registered but has no entry in the isolation matrix: add one (or list it as open)',
    ]);
    // An open URL is open for GET and HEAD only.
    expect(tableProblems([...registered, 'POST /healthz'], entries, ['/healthz'])).toEqual([
      'POST /healthz is registered but has no entry in the isolation matrix: add one (or list it as open)',
    ]);
  });

  it('names an entry or an open route that is not registered', () => {
    expect(tableProblems(registered, [...entries, 'POST /gone'], ['/healthz', '/gone'])).toEqual([
      'POST /gone has an entry in the isolation matrix but the app registers no such route',
      '/gone is listed as open but the app registers no such route',
    ]);
  });
});
