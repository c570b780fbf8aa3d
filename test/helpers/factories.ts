import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { inTransaction } from '../../src/db/transaction.js';
import type { Role } from '../../src/http/auth.js';
import type { Clock } from '../../src/lib/clock.js';
import { parseDecimal } from '../../src/lib/decimal.js';
import * as inventory from '../../src/modules/inventory/inventory.service.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import type { TestContext } from './app.js';
import { SHIP_TO } from './orders.js';
import { ADJUST_QTY, ITEM_IMPORT, ORDER_IMPORT, RECEIPT_IMPORT, THREEPL_ORDER, THREEPL_RECEIPT } from './paths.js';

/**
 * Test data builders: each makes what it needs, with unique IDs. Tenants and keys go through the
 * services; documents (receipts, orders, items) go through the HTTP API, so that they stay valid
 * whatever the services look like inside. A document builder creates whatever parent it is not
 * given: a tenant, a key, items in the item master.
 */

type Json = Record<string, unknown>;

export const uniqueId = (prefix: string) => `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`.slice(0, 15);

export interface Tenant {
  companyId: string;
  customerIds: string[];
  facilityIds: string[];
}

/** A company with the given number of customers and facilities (one of each by default). */
export async function createTenant(
  db: Db,
  clock: Clock,
  { customers = 1, facilities = 1, timeZone = 'America/Los_Angeles' } = {},
): Promise<Tenant> {
  const companyId = uniqueId('CO');
  await tenants.addCompany(db, clock, { companyId });
  const customerIds = Array.from({ length: customers }, () => uniqueId('CU'));
  const facilityIds = Array.from({ length: facilities }, () => uniqueId('FA'));
  for (const customerId of customerIds) await tenants.addCustomer(db, clock, { companyId, customerId });
  for (const facilityId of facilityIds) await tenants.addFacility(db, clock, { companyId, facilityId, timeZone });
  return { companyId, customerIds, facilityIds };
}

/** A key of `role` in the tenant's company; customer keys default to the first customer. */
export async function createKey(
  db: Db,
  clock: Clock,
  tenant: Tenant,
  role: Role,
  scope: { customerIds?: string[]; facilityIds?: string[]; userIds?: number[]; rateLimit?: number } = {},
): Promise<string> {
  const { key } = await tenants.createApiKey(db, clock, {
    role,
    companyId: tenant.companyId,
    customerIds: scope.customerIds ?? (role === 'customer' ? [tenant.customerIds[0]!] : []),
    facilityIds: scope.facilityIds ?? [],
    userIds: scope.userIds ?? (role === 'rater' ? [1] : []),
    label: `test ${role}`,
    rateLimit: scope.rateLimit ?? null,
  });
  return key;
}

/** The spec's error array a test expects for these messages. */
export const problems = (...messages: string[]) => messages.map((error) => ({ code: `EDI-ERROR-${error}`, error }));

/** A tenant of two customers and two facilities (America/Los_Angeles) with keys of every kind. */
export interface World {
  tenant: Tenant;
  admin: string;
  /** A customer key of the first customer. */
  customer: string;
  /** A customer key of the second customer. */
  otherCustomer: string;
  /** An operator key of the first facility. */
  operator: string;
  /** An operator key of the second facility. */
  otherOperator: string;
}

export async function createWorld(db: Db, clock: Clock): Promise<World> {
  const tenant = await createTenant(db, clock, { customers: 2, facilities: 2, timeZone: 'America/Los_Angeles' });
  return {
    tenant,
    admin: await createKey(db, clock, tenant, 'admin'),
    customer: await createKey(db, clock, tenant, 'customer', { customerIds: [tenant.customerIds[0]!] }),
    otherCustomer: await createKey(db, clock, tenant, 'customer', { customerIds: [tenant.customerIds[1]!] }),
    operator: await createKey(db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[0]!] }),
    otherOperator: await createKey(db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[1]!] }),
  };
}

/** The keys of two companies that isolation tests pit against each other (see `createRivals`). */
export type RivalKey = 'c1' | 'c2' | 'c1OnlyF2' | 'opF1' | 'opF2' | 'adminA' | 'raterA' | 'customerB' | 'operatorB' | 'adminB';

/**
 * Company A with customers C1, C2 and facilities F1, F2, and company B with one of each, with
 * keys of every kind: C1's and C2's, C1's limited to F2, an operator of each of A's facilities,
 * A's admin and rater, and B's customer, operator and admin.
 */
export async function createRivals(db: Db, clock: Clock): Promise<{ a: Tenant; b: Tenant; keys: Record<RivalKey, string> }> {
  const a = await createTenant(db, clock, { customers: 2, facilities: 2 });
  const b = await createTenant(db, clock, { customers: 1, facilities: 1 });
  const keys: Record<RivalKey, string> = {
    c1: await createKey(db, clock, a, 'customer', { customerIds: [a.customerIds[0]!] }),
    c2: await createKey(db, clock, a, 'customer', { customerIds: [a.customerIds[1]!] }),
    c1OnlyF2: await createKey(db, clock, a, 'customer', { customerIds: [a.customerIds[0]!], facilityIds: [a.facilityIds[1]!] }),
    opF1: await createKey(db, clock, a, 'operator', { facilityIds: [a.facilityIds[0]!] }),
    opF2: await createKey(db, clock, a, 'operator', { facilityIds: [a.facilityIds[1]!] }),
    adminA: await createKey(db, clock, a, 'admin'),
    raterA: await createKey(db, clock, a, 'rater'),
    customerB: await createKey(db, clock, b, 'customer'),
    operatorB: await createKey(db, clock, b, 'operator'),
    adminB: await createKey(db, clock, b, 'admin'),
  };
  return { a, b, keys };
}

/** The identifiers a customer's request starts with: CompanyID, CustomerID, FacilityID. */
export const idsOf = (tenant: Tenant, { customer = 0, facility = 0 } = {}) => ({
  CompanyID: tenant.companyId,
  CustomerID: tenant.customerIds[customer]!,
  FacilityID: tenant.facilityIds[facility]!,
});

/** The identifiers a 3PL request starts with: CompanyID, FacilityID. */
export const facilityOf = (tenant: Tenant, facility = 0) => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[facility]! });

/** Expects a 200 (naming the body otherwise, which says why) and answers the response. */
export async function expectOk(request: Promise<LightMyRequestResponse> | LightMyRequestResponse): Promise<LightMyRequestResponse> {
  const response = await request;
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

/** Where a document of a tenant's customer lives; a new tenant (one customer, one facility) when absent. */
export interface DocumentScope {
  tenant?: Tenant;
  /** Index of the customer in `tenant.customerIds` (0 by default). */
  customer?: number;
  /** Index of the facility in `tenant.facilityIds` (0 by default). */
  facility?: number;
}

/** The tenant a builder works in: the one given, or a new one. */
const tenantFor = async (ctx: TestContext, scope: DocumentScope) => scope.tenant ?? (await createTenant(ctx.database.db, ctx.clock));

/** A customer key of the scope's customer, made when none is given. */
const customerKeyFor = async (ctx: TestContext, tenant: Tenant, customer: number, key?: string) =>
  key ?? (await createKey(ctx.database.db, ctx.clock, tenant, 'customer', { customerIds: [tenant.customerIds[customer]!] }));

/** Puts items in the customer's item master through the API (a new customer key unless one is given). */
export async function importItems(
  ctx: TestContext,
  { tenant, customer = 0, key, items }: { tenant: Tenant; customer?: number; key?: string; items: (string | Json)[] },
): Promise<void> {
  const itemKey = await customerKeyFor(ctx, tenant, customer, key);
  await expectOk(
    ctx.post(
      ITEM_IMPORT,
      {
        CompanyID: tenant.companyId,
        CustomerID: tenant.customerIds[customer],
        Items: items.map((item) => (typeof item === 'string' ? { itemID: item } : item)),
      },
      itemKey,
    ),
  );
}

// ---- documents: receipts (RN) and orders (DN) -----------------------------------------------

/** What a document's body changes from its defaults. */
export interface BodyOverrides extends DocumentScope {
  /** Fields of the document's content (ASNContent, POContent) over its defaults. */
  content?: Json;
  /** Fields of the body's root over CompanyID, CustomerID and FacilityID. */
  root?: Json;
}

/** What a builder takes beside the body: the keys it uses and the status it moves the document to. */
interface BuildOverrides<Status> extends BodyOverrides {
  /** The key that imports it; a new customer key of the customer when absent. */
  key?: string;
  /** The operator key that moves it to `status`; a new operator key of the facility when needed and absent. */
  operatorKey?: string;
  /** Where the 3PL API moves it after the import (see the builder for how); Imported by default. */
  status?: Status;
  /** What a partial receipt or shipment takes of the first line (4 by default, of the default 10). */
  partialQty?: string;
  /** Headers of the import, e.g. an Idempotency-Key. */
  headers?: Record<string, string>;
}

/** What a builder answers; `answer` is the import's Receipt or Order. */
interface BuiltDocument<Body, Answer> {
  tenant: Tenant;
  svcpoid: string;
  /** The key that imported it. */
  key: string;
  /** The operator key that moved it, when it was moved. */
  operatorKey?: string;
  /** The body that was imported. */
  body: Body;
  answer: Answer;
}

/** The 3PL's operations on one document, by an operator of its facility (made when none is given). */
async function operatorOf(ctx: TestContext, tenant: Tenant, facility: number, operations: string, svcpoid: string, operatorKey?: string) {
  const key =
    operatorKey ?? (await createKey(ctx.database.db, ctx.clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[facility]!] }));
  const request = (operation: string, fields: Json) =>
    ctx.post(`${operations}/${operation}`, { ...facilityOf(tenant, facility), SVCPOID: svcpoid, ...fields }, key);
  const confirm = (items: Json[], close: boolean) =>
    request('post-confirmation', { ConfirmationNo: uniqueId('CN'), Items: items, ...(close ? { Close: true } : {}) });
  return { key, request, confirm };
}

export type ReceiptStatus = 'Imported' | 'Open' | 'In Progress' | 'Partial Received' | 'Closed' | 'Force Closed' | 'Cancelled';

/** A valid RN import body (nothing is sent): a unique PONo, CarrierName UPS, one line of 10 EA of SKU-1. */
export function receiptBody({ tenant, customer = 0, facility = 0, content = {}, root = {} }: BodyOverrides & { tenant: Tenant }) {
  return {
    ...idsOf(tenant, { customer, facility }),
    ...root,
    ASNContent: {
      PONo: uniqueId('PO'),
      CarrierName: 'UPS',
      Status: 'Imported',
      Items: [{ ItemNumber: 'SKU-1', ExpectedQty: '10', UOM: 'EA' }],
      ...content,
    },
  };
}

export interface BuildReceiptOverrides extends BuildOverrides<ReceiptStatus> {
  /** Puts the receipt's items in the item master before the import. */
  itemMaster?: boolean;
}

export interface BuiltReceipt
  extends BuiltDocument<
    ReturnType<typeof receiptBody>,
    { SVCPOID: string; PONo: string; CustomerID: string; ReferenceNo: unknown; Status: string; Error: unknown }
  > {
  poNo: string;
}

/**
 * Imports an RN through the API, creating any parent it is not given, and moves it to `status`
 * through the 3PL API: Open, Force Closed and Cancelled by the operator's move; In Progress and
 * Partial Received (with Close) by receiving `partialQty` of the first line; Closed by receiving
 * every line in full.
 */
export async function buildReceipt(ctx: TestContext, overrides: BuildReceiptOverrides = {}): Promise<BuiltReceipt> {
  const tenant = await tenantFor(ctx, overrides);
  const { customer = 0, facility = 0, status = 'Imported', partialQty = '4' } = overrides;
  const key = await customerKeyFor(ctx, tenant, customer, overrides.key);
  const body = receiptBody({ ...overrides, tenant });
  const lines = (body.ASNContent.Items ?? []) as { ItemNumber: string; ExpectedQty: string | number; UOM: string }[];
  if (overrides.itemMaster) await importItems(ctx, { tenant, customer, key, items: [...new Set(lines.map((line) => line.ItemNumber))] });
  const response = await expectOk(ctx.post(RECEIPT_IMPORT, body, key, overrides.headers));
  const answer = response.json().Receipt as BuiltReceipt['answer'];
  const built: BuiltReceipt = { tenant, svcpoid: answer.SVCPOID, poNo: body.ASNContent.PONo as string, key, body, answer };
  if (status === 'Imported') return built;

  const operator = await operatorOf(ctx, tenant, facility, THREEPL_RECEIPT, built.svcpoid, overrides.operatorKey);
  const first = lines[0]!;
  const moved = await expectOk(
    status === 'Open' || status === 'Force Closed' || status === 'Cancelled'
      ? operator.request({ Open: 'open', 'Force Closed': 'force-close', Cancelled: 'cancel' }[status], { Note: 'test setup' })
      : status === 'Closed'
        ? operator.confirm(
            lines.map((line) => ({ ItemNumber: line.ItemNumber, ReceivedQuantity: String(line.ExpectedQty), UOM: line.UOM })),
            true,
          )
        : operator.confirm([{ ItemNumber: first.ItemNumber, ReceivedQuantity: partialQty, UOM: first.UOM }], status === 'Partial Received'),
  );
  expect(moved.json().Receipt.Status, `the receipt should now be ${status}`).toBe(status);
  return { ...built, operatorKey: operator.key };
}

export type OrderStatus = 'Imported' | 'Open' | 'Partial Shipped' | 'Shipped' | 'Short Shipped' | 'Cancelled';

/** A valid DN import body (nothing is sent): a unique ReferenceNo, the SHIP_TO address, one line of 10 EA of a fresh SKU. */
export function orderBody({ tenant, customer = 0, facility = 0, content = {}, root = {} }: BodyOverrides & { tenant: Tenant }) {
  return {
    ...idsOf(tenant, { customer, facility }),
    ...root,
    POContent: {
      ReferenceNo: uniqueId('SO') as unknown,
      Address: SHIP_TO,
      Items: [{ ItemID: uniqueId('SKU'), OrderedQty: '10', UOM: 'EA' }] as Json[],
      ...content,
    },
  };
}

export type BuildOrderOverrides = BuildOverrides<OrderStatus>;

export interface BuiltOrder
  extends BuiltDocument<
    ReturnType<typeof orderBody>,
    { SVCPOID: string; PONo: unknown; CustomerID: string; ReferenceNo: string | number; Status: string; Error: unknown }
  > {
  referenceNo: string;
}

/**
 * Imports a DN through the API, creating any parent it is not given, and moves it to `status`
 * through the 3PL API: Open and Cancelled by the operator's move; Partial Shipped and Short Shipped
 * (with Close) by shipping `partialQty` of the first line; Shipped by shipping every line in full.
 * Shipping needs stock on hand: put it there first with `stock`.
 */
export async function buildOrder(ctx: TestContext, overrides: BuildOrderOverrides = {}): Promise<BuiltOrder> {
  const tenant = await tenantFor(ctx, overrides);
  const { customer = 0, facility = 0, status = 'Imported', partialQty = '4' } = overrides;
  const key = await customerKeyFor(ctx, tenant, customer, overrides.key);
  const body = orderBody({ ...overrides, tenant });
  const response = await expectOk(ctx.post(ORDER_IMPORT, body, key, overrides.headers));
  const answer = response.json().Order as BuiltOrder['answer'];
  const built: BuiltOrder = { tenant, svcpoid: answer.SVCPOID, referenceNo: body.POContent.ReferenceNo as string, key, body, answer };
  if (status === 'Imported') return built;

  const operator = await operatorOf(ctx, tenant, facility, THREEPL_ORDER, built.svcpoid, overrides.operatorKey);
  const lines = body.POContent.Items as { ItemID: string; OrderedQty: string | number; UOM: string }[];
  const first = lines[0]!;
  const moved = await expectOk(
    status === 'Open' || status === 'Cancelled'
      ? operator.request(status === 'Open' ? 'open' : 'cancel', { Note: 'test setup' })
      : status === 'Shipped'
        ? operator.confirm(
            lines.map((line) => ({ ItemNumber: line.ItemID, ShippedQty: String(line.OrderedQty), UOM: line.UOM })),
            true,
          )
        : operator.confirm([{ ItemNumber: first.ItemID, ShippedQty: partialQty, UOM: first.UOM }], status === 'Short Shipped'),
  );
  expect(moved.json().Order.Status, `the order should now be ${status}`).toBe(status);
  return { ...built, operatorKey: operator.key };
}

// ---- stock -----------------------------------------------------------------------------------

/** A line of opening stock, in the adjustment API's words. */
export interface StockLine {
  ItemNumber: string;
  Qty: string | number;
  /** EA by default. */
  UOM?: string;
  LotNo?: string;
  GoodsType?: string;
  TitleID?: string;
  InventoryStatus?: string;
  /** yyyy-MM-dd. */
  ExpirationDate?: string;
}

export interface StockOptions {
  tenant: Tenant;
  customer?: number;
  facility?: number;
  items: StockLine[];
  /**
   * With a key, the stock comes through the adjustment API as that key (an AdjustmentNo of its own,
   * as a warehouse would book it); without one, straight through `inventory.postStock` (the ledger
   * shows an adjustment of no key).
   */
  key?: string;
}

/** Puts stock on hand on the customer's balances in the facility. */
export async function stock(ctx: TestContext, { tenant, customer = 0, facility = 0, items, key }: StockOptions): Promise<void> {
  if (key) {
    const lines = items.map((line) => ({ UOM: 'EA', ...line }));
    await expectOk(ctx.post(ADJUST_QTY, { ...idsOf(tenant, { customer, facility }), AdjustmentNo: uniqueId('ADJ'), Items: lines }, key));
    return;
  }
  await inTransaction(ctx.database.db, (trx) =>
    inventory.postStock(trx, {
      companyId: tenant.companyId,
      customerId: tenant.customerIds[customer]!,
      facilityId: tenant.facilityIds[facility]!,
      keyId: null,
      sourceType: 'adjustment',
      sourceId: uniqueId('OPENING'),
      at: ctx.clock.now(),
      lines: items.map((line) => ({
        itemId: line.ItemNumber,
        uom: line.UOM ?? 'EA',
        lotNo: line.LotNo,
        goodsType: line.GoodsType,
        titleId: line.TitleID,
        inventoryStatus: line.InventoryStatus,
        expirationDate: line.ExpirationDate,
        quantity: parseDecimal(String(line.Qty)),
      })),
    }),
  );
}
