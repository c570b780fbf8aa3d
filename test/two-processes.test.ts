import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { EDI_PREFIX } from '../src/app.js';
import { quoteParcel, type Parcel } from '../src/modules/rating/engine.js';
import { compileRateCard } from '../src/modules/rating/rate-card.compile.js';
import { presentQuotation } from '../src/modules/rating/rating.present.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';
import { freePorts, runWharf, startWharf, stopWharf, waitReady, type Wharf } from './helpers/processes.js';

/**
 * The promise of DESIGN §5, taken literally: two Wharf processes — the real `wharf serve`, compiled
 * from src/ for this run — share one PostgreSQL database. 200 parallel −1 adjustments against 150
 * units, alternating between them: exactly 150 succeed, 50 get 409, the balance is 0 and the ledger
 * sums to it; one AdjustmentNo sent ten times at once to both posts once; 150 one-unit orders against
 * 100 units allocate exactly 100; a rate card loaded with the CLI prices the next quotes of both
 * processes within the second they may remember the card they chose, and a third started with
 * `--only rate` serves the rate engine alone. All stop cleanly on SIGTERM.
 */

const ROOT = realpathSync(join(dirname(fileURLToPath(import.meta.url)), '..'));
/** A bound that only ends a hang: process-level tests must pass on a machine busy with other work. */
const PROCESS_TEST_MS = 180_000;
const QTY = '/edi/3pl/adjust/inventory-adjust-qty-incremental';
const INVENTORY = '/edi/inventory/search-by-paging';
/** Quantities are stored as value × 10⁴ (src/lib/decimal.ts). */
const SCALE = 10_000;
const PARCEL: Parcel = { originZip: '90001', destZip: '10001', length: '12', width: '10', height: '8', weight: '5.2' };
const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;

interface Answer {
  status: number;
  body: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresEnabled)('two Wharf processes on one PostgreSQL database', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-two-processes-'));
  const env = { ...process.env, LOG_LEVEL: 'warn' };
  let database: TestDatabase | undefined;
  const wharfs: Wharf[] = [];
  let companyId: string;
  let customerId: string;
  let facilityId: string;
  let operatorKey: string;
  let adminKey: string;

  /** Runs a `wharf` command against the test database and answers what it printed. */
  const cli = (...args: string[]): Promise<string> => runWharf([...args, '--db', database!.url], env);

  const serve = (name: string, port: number, ...flags: string[]): Wharf => startWharf(name, database!.url, port, flags, env);

  beforeAll(async () => {
    database = await createTestDatabase('postgres');

    companyId = uniqueId('CO');
    customerId = uniqueId('CU');
    facilityId = uniqueId('FA');
    await cli('company', 'add', companyId);
    const [, , key, admin] = await Promise.all([
      cli('customer', 'add', companyId, customerId),
      cli('facility', 'add', companyId, facilityId),
      // The load keys carry no rate limit: this file proves what the processes keep exact under load.
      cli('key', 'create', '--role', 'operator', '--company', companyId, '--label', 'two processes', '--rate-limit', '0'),
      cli('key', 'create', '--role', 'admin', '--company', companyId, '--label', 'two processes, orders', '--rate-limit', '0'),
    ]);
    expect(key).toMatch(/^wk_[A-Za-z0-9_-]{43,}$/);
    operatorKey = key;
    adminKey = admin;

    const [portA, portB] = await freePorts(2);
    wharfs.push(serve('wharf A', portA!), serve('wharf B', portB!));
    await Promise.all(wharfs.map(waitReady));
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    try {
      // Graceful shutdown: SIGTERM, in-flight work finishes, the pool closes, exit code 0.
      const running = wharfs.filter((wharf) => !wharf.exited);
      const exits = await Promise.all(running.map(stopWharf));
      for (const [i, exit] of exits.entries()) {
        expect(exit, `${running[i]!.name} on SIGTERM; its output:\n${running[i]!.output.join('')}`).toEqual({ code: 0, signal: null });
      }
    } finally {
      for (const wharf of wharfs) if (!wharf.exited) wharf.child.kill('SIGKILL');
      await database?.destroy();
      rmSync(workDir, { recursive: true, force: true });
    }
  }, PROCESS_TEST_MS);

  const post = async (wharf: Wharf, path: string, body: unknown, key = operatorKey): Promise<Answer> => {
    const response = await fetch(`${wharf.base}${EDI_PREFIX}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  };
  /** A DN import of one unit of `itemId`. */
  const oneUnitOrder = (referenceNo: string, itemId: string) => ({
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
  });
  const adjust = (wharf: Wharf, adjustmentNo: string, lotNo: string, qty: string) =>
    post(wharf, QTY, {
      CompanyID: companyId,
      FacilityID: facilityId,
      CustomerID: customerId,
      AdjustmentNo: adjustmentNo,
      Items: [{ ItemNumber: 'RACE', LotNo: lotNo, UOM: 'EA', Qty: qty }],
    });
  /** The inventory inquiry as one process answers it: OnHand per lot of RACE (lots with nothing on hand are left out). */
  const inquire = async (wharf: Wharf, lotNo: string) => (await inquireRows(wharf, 'RACE', lotNo)).map((row) => row.OnHand);
  const inquireRows = async (wharf: Wharf, itemNumber: string, lotNo: string) => {
    const answer = await post(wharf, INVENTORY, {
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
    const db = database!.db;
    const balances = await db
      .selectFrom('inventory_balances')
      .select(['on_hand', 'allocated'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .where('facility_id', '=', facilityId)
      .where('item_id', '=', 'RACE')
      .where('lot_no', '=', lotNo)
      .execute();
    expect(balances).toHaveLength(1);
    const ledger = await db
      .selectFrom('inventory_ledger')
      .select(['quantity', 'on_hand_after', 'source_id'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .where('facility_id', '=', facilityId)
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
      const limited = await cli('key', 'create', '--role', 'operator', '--company', companyId, '--label', 'limited', '--rate-limit', '40');
      const send = (wharf: Wharf) =>
        fetch(`${wharf.base}${EDI_PREFIX}${INVENTORY}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `APIKey ${limited}` },
          body: JSON.stringify({ CompanyID: companyId, FacilityID: facilityId, CustomerID: customerId }),
        });
      const answers = await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const response = await send(wharfs[i % 2]!);
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

  it('the compiled CLI and both processes report the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runWharf(['--version'], env)).toBe(version);
    for (const wharf of wharfs) {
      const response = await fetch(`${wharf.base}/healthz`);
      expect(await response.json()).toEqual({ status: 'ok', version });
    }
  });

  it(
    '200 parallel −1 adjustments against 150, alternating between the processes: 150 succeed, 50 are 409, the balance is 0',
    async () => {
      const [a, b] = wharfs as [Wharf, Wharf];
      const seed = await adjust(a, 'SEED-150', 'R1', '150');
      expect(seed.status, seed.body).toBe(200);
      // The other process sees the stock at once: there is no per-process state.
      expect(await inquire(b, 'R1')).toEqual(['150']);

      const numbers = Array.from({ length: 200 }, (_, i) => `TAKE-${i}`);
      const answers = await Promise.all(numbers.map((number, i) => adjust(wharfs[i % 2]!, number, 'R1', '-1')));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(150);
      expect(statuses.filter((status) => status === 409)).toHaveLength(50);
      // Both processes took part in the race and both refused some: each saw the other's writes.
      for (const parity of [0, 1]) {
        const own = statuses.filter((_, i) => i % 2 === parity);
        expect(own.filter((status) => status === 200).length).toBeGreaterThan(0);
        expect(own.filter((status) => status === 409).length).toBeGreaterThan(0);
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
      const add = uniqueId('ADD');
      const adds = await Promise.all(Array.from({ length: 10 }, (_, i) => adjust(wharfs[i % 2]!, add, 'R2', '3')));
      expect(adds.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      expect(new Set(adds.map((answer) => answer.body)).size).toBe(1);
      let balance = await balanceOf('R2');
      expect(balance.onHand).toBe(3 * SCALE);
      expect(balance.ledger).toEqual([{ quantity: 3 * SCALE, onHandAfter: 3 * SCALE, sourceId: add }]);
      expect(await inquire(wharfs[1]!, 'R2')).toEqual(['3']);

      const take = uniqueId('TAKE');
      const takes = await Promise.all(Array.from({ length: 10 }, (_, i) => adjust(wharfs[i % 2]!, take, 'R2', '-3')));
      expect(takes.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      expect(new Set(takes.map((answer) => answer.body)).size).toBe(1);
      balance = await balanceOf('R2');
      expect(balance.onHand).toBe(0);
      expect(balance.ledger.filter((row) => row.sourceId === take)).toEqual([{ quantity: -3 * SCALE, onHandAfter: 0, sourceId: take }]);
      expect(balance.ledger.reduce((sum, row) => sum + row.quantity, 0)).toBe(balance.onHand);
      const adjustments = await database!.db
        .selectFrom('inventory_adjustments')
        .select('adjustment_no')
        .where('company_id', '=', companyId)
        .where('adjustment_no', 'in', [add, take])
        .execute();
      expect(adjustments.map((row) => row.adjustment_no).sort()).toEqual([add, take].sort());
    },
    PROCESS_TEST_MS,
  );

  /** A quote for UserID 7 by the admin key: the PARCEL, through the rate engine of one process. */
  const quote = async (wharf: Wharf) => {
    const response = await fetch(`${wharf.base}/api/RateEngine/SVC/lastmile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `APIKey ${adminKey}` },
      body: JSON.stringify({
        UserID: 7,
        Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' },
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { Result: { name: string; Price: string }[]; ErrorSeverity: number };
  };

  it(
    'a rate card loaded with the CLI is in force on both processes within a second; a refused one changes nothing',
    async () => {
      const [a, b] = wharfs as [Wharf, Wharf];
      const example = readFileSync(join(ROOT, 'examples/rate-card.json'), 'utf8');
      const cardFile = (name: string, text: string) => {
        const file = join(workDir, name);
        writeFileSync(file, text);
        return file;
      };

      expect(await cli('ratecard', 'load', cardFile('v1.json', example), '--company', companyId)).toMatch(
        /as version 1, effective 2026-01-01$/,
      );
      const before = await Promise.all([quote(a), quote(b)]);
      expect(before[0]).toEqual(before[1]);
      expect(before[0]!.Result.map((entry) => entry.name)).toEqual(['Economy', 'Ground']);

      // Version 2 marks every line up by 100 %: both processes quote what the engine makes of it.
      const marked = JSON.parse(example);
      marked.markup = { percent: '100' };
      expect(await cli('ratecard', 'load', cardFile('v2.json', JSON.stringify(marked)), '--company', companyId)).toMatch(/as version 2,/);
      await sleep(1100);
      const after = await Promise.all([quote(a), quote(b)]);
      expect(after[0]).toEqual(after[1]);
      const today = DateTime.now().setZone(marked.timeZone).toISODate()!;
      const expected = presentQuotation(compileRateCard(marked), quoteParcel(compileRateCard(marked), PARCEL, { date: today, userId: 7 }));
      expect(after[0]).toEqual(expected);
      expect(after[0]).not.toEqual(before[0]);

      // A card with a mistake is refused whole; both processes keep quoting version 2.
      await expect(cli('ratecard', 'load', cardFile('bad.json', '{"name":"broken"}'), '--company', companyId)).rejects.toThrow();
      await sleep(1100);
      expect(await Promise.all([quote(a), quote(b)])).toEqual(after);
    },
    PROCESS_TEST_MS,
  );

  it(
    'wharf serve --only rate serves the rate engine alone, with the card in force, and stops cleanly',
    async () => {
      const [port] = await freePorts(1);
      const rateOnly = serve('wharf rate-only', port!, '--only', 'rate');
      try {
        await waitReady(rateOnly);
        // The card the previous test left in force prices this process's quotes as it does A's.
        expect(await quote(rateOnly)).toEqual(await quote(wharfs[0]!));
        const edi = await post(rateOnly, INVENTORY, { CompanyID: companyId, FacilityID: facilityId, CustomerID: customerId });
        expect(edi.status).toBe(404);
      } finally {
        expect(await stopWharf(rateOnly), rateOnly.output.join('')).toEqual({ code: 0, signal: null });
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    '150 orders of 1 against 100 units, imported at once through both processes: 100 allocated, 50 Warnings, Available 0',
    async () => {
      const [a, b] = wharfs as [Wharf, Wharf];
      const seed = await post(a, QTY, {
        CompanyID: companyId,
        FacilityID: facilityId,
        CustomerID: customerId,
        AdjustmentNo: 'SEED-ALLOC',
        Items: [{ ItemNumber: 'ALLOC', LotNo: 'A1', UOM: 'EA', Qty: '100' }],
      });
      expect(seed.status, seed.body).toBe(200);

      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          post(i % 2 === 0 ? a : b, '/edi/outbound/order', oneUnitOrder(`RACE-${i}`, 'ALLOC'), adminKey),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(150).fill(200));
      const orders = answers.map((answer) => JSON.parse(answer.body).Order as { Status: string; Error: unknown; SVCPOID: string });
      expect(orders.filter((o) => o.Status === 'Success')).toHaveLength(100);
      const warnings = orders.filter((o) => o.Status === 'Warning');
      expect(warnings).toHaveLength(50);
      for (const warning of warnings) expect(warning.Error).toBe('ALLOC: ordered 1, allocated 0, short 1');
      expect(new Set(orders.map((o) => o.SVCPOID)).size).toBe(150);
      // Both processes allocated and both came up short: each saw the other's allocations.
      for (const parity of [0, 1]) {
        const own = orders.filter((_, i) => i % 2 === parity).map((o) => o.Status);
        expect(own).toContain('Success');
        expect(own).toContain('Warning');
      }

      expect(await inquireRows(b, 'ALLOC', 'A1')).toMatchObject([{ OnHand: '100', Allocated: '100', Available: '0' }]);
      const db = database!.db;
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
      const [a, b] = wharfs as [Wharf, Wharf];
      const ids = { CompanyID: companyId, CustomerID: customerId, FacilityID: facilityId };
      const receipt = await post(
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
        post(
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
        post(i % 2 === 0 ? b : a, '/edi/outbound/order', oneUnitOrder(`BACK-${i}`, 'BACK'), adminKey),
      );
      const answers = await Promise.all([...confirmations, ...orders]);
      expect(answers.map((answer) => answer.status)).toEqual(Array(68).fill(200));

      // Every unit received went to exactly one order line, each line holding at most its one unit:
      // whether an order came before the stock (a backorder filled) or after it (allocated at import).
      const db = database!.db;
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
});
