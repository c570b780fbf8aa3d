/**
 * What two real `wharf serve` processes sharing one PostgreSQL database keep exact under concurrent
 * load (docs/orders.md, docs/operations.md), written once for every way they may reach it: test/two-processes.test.ts
 * connects them straight to PostgreSQL, test/pgbouncer.test.ts through PgBouncer in transaction
 * pooling. A file sets up the database, the tenant (`createTenant`) and the two processes, then
 * calls `itKeepsTheInvariants` inside its describe block.
 */
import { expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import type { TestDatabase } from './dialects.js';
import { uniqueId } from './factories.js';
import type { Wharf } from './processes.js';

/** A bound that only ends a hang: process-level tests must pass on a machine busy with other work. */
export const PROCESS_TEST_MS = 180_000;
export const QTY = '/edi/3pl/adjust/inventory-adjust-qty-incremental';
export const INVENTORY = '/edi/inventory/search-by-paging';
/** Quantities are stored as value × 10⁴ (src/lib/decimal.ts). */
export const SCALE = 10_000;

export interface Answer {
  status: number;
  body: string;
}

/** Runs a `wharf` command against the shared database and answers what it printed. */
export type Cli = (...args: string[]) => Promise<string>;

/** The company, customer and facility the processes serve, and the keys the load is sent with. */
export interface Tenant {
  companyId: string;
  customerId: string;
  facilityId: string;
  operatorKey: string;
  adminKey: string;
}

export interface TwoProcesses {
  /** The shared database, opened straight (not through the processes), to read what they wrote. */
  database: TestDatabase;
  wharfs: [Wharf, Wharf];
  tenant: Tenant;
  cli: Cli;
}

/** Makes the tenant with the CLI: the company first, then its customer, facility and keys at once. */
export async function createTenant(cli: Cli): Promise<Tenant> {
  const companyId = uniqueId('CO');
  const customerId = uniqueId('CU');
  const facilityId = uniqueId('FA');
  await cli('company', 'add', companyId);
  const [, , operatorKey, adminKey] = await Promise.all([
    cli('customer', 'add', companyId, customerId),
    cli('facility', 'add', companyId, facilityId),
    // The load keys carry no rate limit: these tests prove what the processes keep exact under load.
    cli('key', 'create', '--role', 'operator', '--company', companyId, '--label', 'two processes', '--rate-limit', '0'),
    cli('key', 'create', '--role', 'admin', '--company', companyId, '--label', 'two processes, orders', '--rate-limit', '0'),
  ]);
  expect(operatorKey).toMatch(/^wk_[A-Za-z0-9_-]{43,}$/);
  return { companyId, customerId, facilityId, operatorKey: operatorKey!, adminKey: adminKey! };
}

/** POSTs `body` as JSON to an EDI route of one process, with the operator key unless told otherwise. */
export async function post(wharf: Wharf, tenant: Tenant, path: string, body: unknown, key = tenant.operatorKey): Promise<Answer> {
  const response = await fetch(`${wharf.base}${EDI_PREFIX}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Registers, in the calling describe block, one test per invariant the two processes keep: a rate
 * limit shared between them, parallel adjustments against limited stock, one AdjustmentNo sent many
 * times, orders against limited stock, and receiving confirmations and orders at once.
 * `context` is called inside each test, once the file's own setup has run.
 */
export function itKeepsTheInvariants(context: () => TwoProcesses): void {
  const send = (wharf: Wharf, path: string, body: unknown, key?: string) => post(wharf, context().tenant, path, body, key);
  /** A DN import of one unit of `itemId`. */
  const oneUnitOrder = (referenceNo: string, itemId: string) => {
    const { companyId, customerId, facilityId } = context().tenant;
    return {
      CompanyID: companyId,
      CustomerID: customerId,
      FacilityID: facilityId,
      POContent: {
        ReferenceNo: referenceNo,
        Address: {
          ShipToName: 'R',
          ShipToAddress1: '1 Main St',
          ShipToCity: 'Reno',
          ShipToState: 'NV',
          ShipToZipCode: '89501',
          ShipToCountry: 'US',
        },
        Items: [{ ItemID: itemId, OrderedQty: '1', UOM: 'EA' }],
      },
    };
  };
  const adjust = (wharf: Wharf, adjustmentNo: string, lotNo: string, qty: string) => {
    const { companyId, customerId, facilityId } = context().tenant;
    return send(wharf, QTY, {
      CompanyID: companyId,
      FacilityID: facilityId,
      CustomerID: customerId,
      AdjustmentNo: adjustmentNo,
      Items: [{ ItemNumber: 'RACE', LotNo: lotNo, UOM: 'EA', Qty: qty }],
    });
  };
  /** The inventory inquiry as one process answers it: OnHand per lot of RACE (lots with nothing on hand are left out). */
  const inquire = async (wharf: Wharf, lotNo: string) => (await inquireRows(wharf, 'RACE', lotNo)).map((row) => row.OnHand);
  const inquireRows = async (wharf: Wharf, itemNumber: string, lotNo: string) => {
    const { companyId, customerId, facilityId } = context().tenant;
    const answer = await send(wharf, INVENTORY, {
      CompanyID: companyId,
      FacilityID: facilityId,
      CustomerID: customerId,
      ItemNumber: itemNumber,
      LotNo: lotNo,
    });
    expect(answer.status).toBe(200);
    return JSON.parse(answer.body).results.data as { OnHand: string; Allocated: string; Available: string }[];
  };
  /** The balance row and the ledger of a lot, read straight from the database. */
  const balanceOf = async (lotNo: string) => {
    const { database, tenant } = context();
    const db = database.db;
    const balances = await db
      .selectFrom('inventory_balances')
      .select(['on_hand', 'allocated'])
      .where('company_id', '=', tenant.companyId)
      .where('customer_id', '=', tenant.customerId)
      .where('facility_id', '=', tenant.facilityId)
      .where('item_id', '=', 'RACE')
      .where('lot_no', '=', lotNo)
      .execute();
    expect(balances).toHaveLength(1);
    const ledger = await db
      .selectFrom('inventory_ledger')
      .select(['quantity', 'on_hand_after', 'source_id'])
      .where('company_id', '=', tenant.companyId)
      .where('customer_id', '=', tenant.customerId)
      .where('facility_id', '=', tenant.facilityId)
      .where('item_id', '=', 'RACE')
      .where('lot_no', '=', lotNo)
      .orderBy('id')
      .execute();
    return {
      onHand: Number(balances[0]!.on_hand),
      allocated: Number(balances[0]!.allocated),
      ledger: ledger.map((row) => ({ quantity: Number(row.quantity), onHandAfter: Number(row.on_hand_after), sourceId: row.source_id })),
    };
  };

  it(
    "one key's limit is shared by both processes: of 120 requests at once with a limit of 40, at most 40 are served",
    async () => {
      const { cli, wharfs, tenant } = context();
      const { companyId, customerId, facilityId } = tenant;
      const limited = await cli('key', 'create', '--role', 'operator', '--company', companyId, '--label', 'limited', '--rate-limit', '40');
      const request = (wharf: Wharf) =>
        fetch(`${wharf.base}${EDI_PREFIX}${INVENTORY}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `APIKey ${limited}` },
          body: JSON.stringify({ CompanyID: companyId, FacilityID: facilityId, CustomerID: customerId }),
        });
      const answers = await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const response = await request(wharfs[i % 2]!);
          await response.arrayBuffer();
          // The window an answer was counted in ends RateLimit-Reset seconds after it: answers name
          // the same window when those ends are within a few seconds of each other (windows are a minute apart).
          const windowEnd = Date.now() + Number(response.headers.get('ratelimit-reset')) * 1000;
          return { status: response.status, window: Math.round(windowEnd / 60_000), limit: response.headers.get('ratelimit-limit') };
        }),
      );
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200, 429]));
      expect(new Set(answers.map((answer) => answer.limit))).toEqual(new Set(['40']));
      const servedByWindow = new Map<number, number>();
      for (const answer of answers.filter((a) => a.status === 200))
        servedByWindow.set(answer.window, (servedByWindow.get(answer.window) ?? 0) + 1);
      for (const served of servedByWindow.values()) expect(served).toBeLessThanOrEqual(40);
    },
    PROCESS_TEST_MS,
  );

  it(
    '200 parallel −1 adjustments against 150, alternating between the processes: 150 succeed, 50 are 409, the balance is 0',
    async () => {
      const { wharfs } = context();
      const [a, b] = wharfs;
      const seed = await adjust(a, 'SEED-150', 'R1', '150');
      expect(seed.status, seed.body).toBe(200);
      // The other process sees the stock at once: there is no per-process state.
      expect(await inquire(b, 'R1')).toEqual(['150']);

      const numbers = Array.from({ length: 200 }, (_, i) => `TAKE-${i}`);
      const answers = await Promise.all(numbers.map((number, i) => adjust(wharfs[i % 2]!, number, 'R1', '-1')));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(150);
      expect(statuses.filter((status) => status === 409)).toHaveLength(50);
      // Both processes took part: of its 100 requests, each had at least 50 served, since the other
      // could take at most 100 of the 150. (Which refused the 50 is how the requests interleaved.)
      for (const parity of [0, 1]) {
        const own = statuses.filter((_, i) => i % 2 === parity);
        expect(own.filter((status) => status === 200).length).toBeGreaterThanOrEqual(50);
      }
      const refusal = 'Not enough stock of item RACE, lot R1, UOM EA: 0 available, 1 to take';
      for (const answer of answers.filter((a) => a.status === 409)) {
        expect(JSON.parse(answer.body)).toEqual([{ code: `EDI-ERROR-${refusal}`, error: refusal }]);
      }
      for (const answer of answers.filter((a) => a.status === 200)) {
        expect(JSON.parse(answer.body).Adjustment.Items).toMatchObject([{ ItemNumber: 'RACE', LotNo: 'R1', Qty: '-1' }]);
      }

      // The balance is 0, by the inquiry of either process (an empty balance is left out) and in the database.
      expect(await inquire(a, 'R1')).toEqual([]);
      expect(await inquire(b, 'R1')).toEqual([]);
      const { onHand, allocated, ledger } = await balanceOf('R1');
      expect([onHand, allocated]).toEqual([0, 0]);
      // The ledger: the seed and one posting per success, summing to the balance.
      expect(ledger).toHaveLength(151);
      expect(ledger.reduce((sum, row) => sum + row.quantity, 0)).toBe(onHand);
      expect(ledger[0]).toEqual({ quantity: 150 * SCALE, onHandAfter: 150 * SCALE, sourceId: 'SEED-150' });
      const takes = ledger.slice(1);
      expect(new Set(takes.map((row) => row.sourceId))).toEqual(new Set(numbers.filter((_, i) => statuses[i] === 200)));
      expect(takes.every((row) => row.quantity === -SCALE)).toBe(true);
      // Each take saw a different on-hand: 149 down to 0, once each — the writers were serialized.
      expect(takes.map((row) => row.onHandAfter / SCALE).sort((x, y) => y - x)).toEqual(Array.from({ length: 150 }, (_, i) => 149 - i));
      // And every answer's OnHand is one of those, each once.
      const answered = answers.filter((a) => a.status === 200).map((a) => Number(JSON.parse(a.body).Adjustment.Items[0].OnHand));
      expect(answered.sort((x, y) => y - x)).toEqual(Array.from({ length: 150 }, (_, i) => 149 - i));
    },
    PROCESS_TEST_MS,
  );

  it(
    'one AdjustmentNo sent ten times at once to both processes posts once, even when it takes the last stock',
    async () => {
      const { wharfs, database, tenant } = context();
      const add = uniqueId('ADD');
      const adds = await Promise.all(Array.from({ length: 10 }, (_, i) => adjust(wharfs[i % 2]!, add, 'R2', '3')));
      expect(adds.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      expect(new Set(adds.map((answer) => answer.body)).size).toBe(1);
      let balance = await balanceOf('R2');
      expect(balance.onHand).toBe(3 * SCALE);
      expect(balance.ledger).toEqual([{ quantity: 3 * SCALE, onHandAfter: 3 * SCALE, sourceId: add }]);
      expect(await inquire(wharfs[1], 'R2')).toEqual(['3']);

      const take = uniqueId('TAKE');
      const takes = await Promise.all(Array.from({ length: 10 }, (_, i) => adjust(wharfs[i % 2]!, take, 'R2', '-3')));
      expect(takes.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      expect(new Set(takes.map((answer) => answer.body)).size).toBe(1);
      balance = await balanceOf('R2');
      expect(balance.onHand).toBe(0);
      expect(balance.ledger.filter((row) => row.sourceId === take)).toEqual([{ quantity: -3 * SCALE, onHandAfter: 0, sourceId: take }]);
      expect(balance.ledger.reduce((sum, row) => sum + row.quantity, 0)).toBe(balance.onHand);
      const adjustments = await database.db
        .selectFrom('inventory_adjustments')
        .select('adjustment_no')
        .where('company_id', '=', tenant.companyId)
        .where('adjustment_no', 'in', [add, take])
        .execute();
      expect(adjustments.map((row) => row.adjustment_no).sort()).toEqual([add, take].sort());
    },
    PROCESS_TEST_MS,
  );

  it(
    '150 orders of 1 against 100 units, imported at once through both processes: 100 allocated, 50 Warnings, Available 0',
    async () => {
      const { wharfs, database, tenant } = context();
      const { companyId, customerId, facilityId, adminKey } = tenant;
      const [a, b] = wharfs;
      const seed = await send(a, QTY, {
        CompanyID: companyId,
        FacilityID: facilityId,
        CustomerID: customerId,
        AdjustmentNo: 'SEED-ALLOC',
        Items: [{ ItemNumber: 'ALLOC', LotNo: 'A1', UOM: 'EA', Qty: '100' }],
      });
      expect(seed.status, seed.body).toBe(200);

      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          send(i % 2 === 0 ? a : b, '/edi/outbound/order', oneUnitOrder(`RACE-${i}`, 'ALLOC'), adminKey),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(150).fill(200));
      const orders = answers.map((answer) => JSON.parse(answer.body).Order as { Status: string; Error: unknown; SVCPOID: string });
      expect(orders.filter((o) => o.Status === 'Success')).toHaveLength(100);
      const warnings = orders.filter((o) => o.Status === 'Warning');
      expect(warnings).toHaveLength(50);
      for (const warning of warnings) expect(warning.Error).toBe('ALLOC: ordered 1, allocated 0, short 1');
      expect(new Set(orders.map((o) => o.SVCPOID)).size).toBe(150);
      // Both processes allocated, and together no more than the stock: each saw the other's
      // allocations. Which of them comes up short depends on how the requests interleave (one may
      // serve all 75 of its own before the stock runs out), so it is not asserted.
      for (const parity of [0, 1]) {
        const own = orders.filter((_, i) => i % 2 === parity).map((o) => o.Status);
        expect(own).toContain('Success');
      }

      expect(await inquireRows(b, 'ALLOC', 'A1')).toMatchObject([{ OnHand: '100', Allocated: '100', Available: '0' }]);
      const db = database.db;
      const balance = await db
        .selectFrom('inventory_balances')
        .select(['on_hand', 'allocated'])
        .where('company_id', '=', companyId)
        .where('item_id', '=', 'ALLOC')
        .executeTakeFirstOrThrow();
      expect([Number(balance.on_hand), Number(balance.allocated)]).toEqual([100 * SCALE, 100 * SCALE]);
      // Every allocated unit belongs to exactly one of the Success orders.
      const held = await db
        .selectFrom('order_allocations')
        .select(['svcpoid', 'quantity'])
        .where('company_id', '=', companyId)
        .where('item_id', '=', 'ALLOC')
        .execute();
      expect(held).toHaveLength(100);
      expect(held.every((row) => Number(row.quantity) === SCALE)).toBe(true);
      expect(new Set(held.map((row) => row.svcpoid))).toEqual(new Set(orders.filter((o) => o.Status === 'Success').map((o) => o.SVCPOID)));
    },
    PROCESS_TEST_MS,
  );

  it(
    '8 receiving confirmations of 5 and 60 orders of 1, at once through both processes: each of the 40 units allocated once',
    async () => {
      const { wharfs, database, tenant } = context();
      const { companyId, customerId, facilityId, adminKey } = tenant;
      const [a, b] = wharfs;
      const ids = { CompanyID: companyId, CustomerID: customerId, FacilityID: facilityId };
      const receipt = await send(
        a,
        '/edi/inbound/receipt',
        {
          ...ids,
          ASNContent: {
            PONo: 'BACK-PO',
            CarrierName: 'UPS',
            Status: 'Imported',
            Items: [{ ItemNumber: 'BACK', ExpectedQty: '40', UOM: 'EA' }],
          },
        },
        adminKey,
      );
      expect(receipt.status, receipt.body).toBe(200);
      const svcpoid = JSON.parse(receipt.body).Receipt.SVCPOID as string;
      const confirmations = Array.from({ length: 8 }, (_, i) =>
        send(
          i % 2 === 0 ? a : b,
          '/edi/3pl/inbound/receipt/post-confirmation',
          {
            CompanyID: companyId,
            FacilityID: facilityId,
            SVCPOID: svcpoid,
            ConfirmationNo: `BACK-${i}`,
            Items: [{ ItemNumber: 'BACK', ReceivedQuantity: '5', UOM: 'EA' }],
          },
          adminKey,
        ),
      );
      const orders = Array.from({ length: 60 }, (_, i) =>
        send(i % 2 === 0 ? b : a, '/edi/outbound/order', oneUnitOrder(`BACK-${i}`, 'BACK'), adminKey),
      );
      const answers = await Promise.all([...confirmations, ...orders]);
      expect(answers.map((answer) => answer.status)).toEqual(Array(68).fill(200));

      // Every unit received went to exactly one order line, each line holding at most its one unit:
      // whether an order came before the stock (a backorder filled) or after it (allocated at import).
      const db = database.db;
      const balance = await db
        .selectFrom('inventory_balances')
        .select(['on_hand', 'allocated'])
        .where('company_id', '=', companyId)
        .where('item_id', '=', 'BACK')
        .executeTakeFirstOrThrow();
      expect([Number(balance.on_hand), Number(balance.allocated)]).toEqual([40 * SCALE, 40 * SCALE]);
      const held = await db
        .selectFrom('order_allocations')
        .select(['svcpoid', 'line_no', 'quantity'])
        .where('company_id', '=', companyId)
        .where('item_id', '=', 'BACK')
        .execute();
      expect(held).toHaveLength(40);
      expect(held.every((row) => Number(row.quantity) === SCALE)).toBe(true);
      expect(new Set(held.map((row) => row.svcpoid)).size).toBe(40);
    },
    PROCESS_TEST_MS,
  );
}
