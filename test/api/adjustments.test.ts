import type { LightMyRequestResponse } from 'fastify';
import { sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildApp, EDI_PREFIX } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import type { App } from '../../src/http/module.js';
import { transactionRetries } from '../../src/db/transaction.js';
import { formatDecimal } from '../../src/lib/decimal.js';
import * as inventory from '../../src/modules/inventory/inventory.service.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import {
  createKey,
  createTenant,
  importItems,
  problems,
  stock as openingStock,
  uniqueId,
  type StockLine,
  type Tenant,
} from '../helpers/factories.js';
import { ADJUST_PROPERTY, ADJUST_QTY } from '../helpers/paths.js';

/**
 * The 3PL adjustments (docs/compatibility.md, docs/orders.md): quantity changes and property moves, all lines or none,
 * each AdjustmentNo applied once, exact decimals, and no oversell under concurrent writers.
 */

const ALL = { offset: 0, pageSize: 1000 };

type Line = Record<string, unknown>;

/** An answer's balance entry with the defaults of a line that names only item, lot and quantity. */
const entry = (fields: Line) => ({
  ItemNumber: 'MUG',
  LotNo: null,
  GoodsType: null,
  TitleID: null,
  InventoryStatus: 'Available',
  ExpirationDate: null,
  UOM: 'EA',
  ...fields,
});

describeEachDialect('3PL inventory adjustments', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let customerKey: string;
  let operatorKey: string;
  let adminKey: string;
  let otherOperatorKey: string;
  const db = (): Db => ctx().database.db;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 2 });
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    operatorKey = await createKey(database.db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[0]!] });
    adminKey = await createKey(database.db, clock, tenant, 'admin');
    otherOperatorKey = await createKey(database.db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[1]!] });
    await importItems(ctx(), { tenant, key: customerKey, items: ['MUG', 'LAMP'] });
  });

  const header = (adjustmentNo: string) => ({
    CompanyID: tenant.companyId,
    FacilityID: tenant.facilityIds[0]!,
    CustomerID: tenant.customerIds[0]!,
    AdjustmentNo: adjustmentNo,
  });
  const adjust = (adjustmentNo: string, items: Line[], extra: Line = {}, key = operatorKey, headers: Record<string, string> = {}) =>
    ctx().post(ADJUST_QTY, { ...header(adjustmentNo), Items: items, ...extra }, key, headers);
  const move = (adjustmentNo: string, items: Line[], key = operatorKey) =>
    ctx().post(ADJUST_PROPERTY, { ...header(adjustmentNo), Items: items }, key);
  /** Puts stock on a lot of MUG (or another item) with an adjustment of its own. */
  const stock = (lotNo: string, qty: string, line: Partial<StockLine> = {}) =>
    openingStock(ctx(), { tenant, items: [{ ItemNumber: 'MUG', LotNo: lotNo, UOM: 'EA', Qty: qty, ...line }], key: operatorKey });
  const balances = (lotNo: string, itemId = 'MUG') =>
    inventory.findBalances(
      db(),
      {
        companyId: tenant.companyId,
        customerId: tenant.customerIds[0]!,
        facilityId: tenant.facilityIds[0]!,
        itemId,
        lotNo,
        includeEmpty: true,
      },
      ALL,
    );
  /** The one balance of a lot with the given status, as decimal text. */
  const onHand = async (lotNo: string, inventoryStatus = 'Available') => {
    const found = (await balances(lotNo)).filter((b) => b.inventoryStatus === inventoryStatus);
    expect(found.length).toBeLessThanOrEqual(1);
    return formatDecimal(found[0]?.onHand ?? 0);
  };
  const ledger = (adjustmentNo: string) =>
    inventory.findLedger(db(), {
      companyId: tenant.companyId,
      sourceType: 'adjustment',
      sourceId: adjustmentNo,
      facilityId: tenant.facilityIds[0]!,
    });
  const adjustmentRows = async (adjustmentNo: string) => {
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from inventory_adjustments where adjustment_no = ${adjustmentNo}`.execute(db());
    return Number(rows[0]!.n);
  };

  it('adds and takes stock exactly: 0.1 + 0.2 is 0.3 in the answer and in the balance', async () => {
    const lot = uniqueId('L');
    const first = await adjust('A-1' + lot, [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: 0.1 }], {
      ReasonCode: 'COUNT',
      Note: 'cycle count',
    });
    expect(first.statusCode).toBe(200);
    const second = await adjust('A-2' + lot, [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '0.2' }]);
    expect(second.json()).toEqual({
      Adjustment: {
        AdjustmentNo: 'A-2' + lot,
        Status: 'Success',
        Warnings: [],
        Items: [entry({ LotNo: lot, Qty: '0.2', OnHand: '0.3' })],
      },
    });
    const [balance] = await balances(lot);
    expect(balance!.onHand).toBe(3000);
    expect(formatDecimal(balance!.onHand)).toBe('0.3');

    const take = await adjust('A-3' + lot, [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-0.25' }]);
    expect(take.json().Adjustment.Items).toEqual([entry({ LotNo: lot, Qty: '-0.25', OnHand: '0.05' })]);
    expect(await onHand(lot)).toBe('0.05');

    // Every key field of a line names its own balance; two lines on one balance show its running on-hand.
    const keyed = await adjust('A-4' + lot, [
      { ItemNumber: 'MUG', LotNo: lot, GoodsType: 'NEW', TitleID: 'T1', ExpirationDate: '2027-01-31', UOM: 'CS', Qty: '1.5' },
      { ItemNumber: 'MUG', LotNo: lot, GoodsType: 'NEW', TitleID: 'T1', ExpirationDate: '2027-01-31', UOM: 'CS', Qty: 2 },
      { ItemNumber: 'MUG', LotNo: lot, InventoryStatus: 'Damaged', UOM: 'EA', Qty: '99999999999.9999' },
    ]);
    expect(keyed.json().Adjustment.Items).toEqual([
      entry({ LotNo: lot, GoodsType: 'NEW', TitleID: 'T1', ExpirationDate: '2027-01-31', UOM: 'CS', Qty: '1.5', OnHand: '1.5' }),
      entry({ LotNo: lot, GoodsType: 'NEW', TitleID: 'T1', ExpirationDate: '2027-01-31', UOM: 'CS', Qty: '2', OnHand: '3.5' }),
      entry({ LotNo: lot, InventoryStatus: 'Damaged', Qty: '99999999999.9999', OnHand: '99999999999.9999' }),
    ]);
    const postings = await ledger('A-4' + lot);
    expect(postings.map((p) => [p.sourceLine, formatDecimal(p.quantity), formatDecimal(p.onHandAfter), p.keyId !== null])).toEqual([
      ['1', '1.5', '1.5', true],
      ['2', '2', '3.5', true],
      ['3', '99999999999.9999', '99999999999.9999', true],
    ]);
    const { rows } = await sql<{
      kind: string;
      reason_code: string | null;
      note: string | null;
    }>`select kind, reason_code, note from inventory_adjustments where adjustment_no = ${'A-1' + lot}`.execute(db());
    expect(rows).toEqual([{ kind: 'qty', reason_code: 'COUNT', note: 'cycle count' }]);
  });

  it('refuses a whole adjustment when one line would go below zero: nothing changes, the number stays free', async () => {
    const lot = uniqueId('L');
    await stock(lot, '5');
    const other = uniqueId('L');
    const before = await balances(lot);
    const number = uniqueId('NEG');
    const refused = await adjust(number, [
      { ItemNumber: 'MUG', LotNo: other, UOM: 'EA', Qty: '3' },
      { ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-5.5' },
    ]);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual(problems(`Not enough stock of item MUG, lot ${lot}, UOM EA: 5 available, 5.5 to take`));
    expect(await balances(lot)).toEqual(before);
    expect(await balances(other)).toEqual([]);
    expect(await ledger(number)).toEqual([]);
    expect(await adjustmentRows(number)).toBe(0);

    const missing = await adjust(uniqueId('NEG'), [{ ItemNumber: 'MUG', LotNo: uniqueId('L'), UOM: 'EA', Qty: '-1' }]);
    expect(missing.statusCode).toBe(409);

    const retried = await adjust(number, [
      { ItemNumber: 'MUG', LotNo: other, UOM: 'EA', Qty: '3' },
      { ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-5' },
    ]);
    expect(retried.statusCode).toBe(200);
    expect(await onHand(lot)).toBe('0');
    expect(await onHand(other)).toBe('3');
  });

  it('replays an AdjustmentNo with the same body and refuses it with another', async () => {
    const lot = uniqueId('L');
    const number = uniqueId('REP');
    const body = [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '4' }];
    const first = await adjust(number, body);
    expect(first.statusCode).toBe(200);
    const retriesBefore = transactionRetries.count;
    const again = await adjust(number, body, {}, adminKey);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    // The first attempt writes the number without waiting and fails on its unique key; the second replays.
    expect(transactionRetries.count - retriesBefore).toBe(1);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await ledger(number)).toHaveLength(1);
    expect(await onHand(lot)).toBe('4');

    const different = await adjust(number, [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '5' }]);
    expect(different.statusCode).toBe(409);
    expect(different.json()).toEqual(problems(`AdjustmentNo ${number} was already applied with a different body`));
    expect(different.headers['idempotent-replayed']).toBeUndefined();
    // The number is taken for property moves of that customer and facility too.
    const asMove = await move(number, [{ ItemNumber: 'MUG', UOM: 'EA', Qty: '1', From: { LotNo: lot }, To: { LotNo: 'X' } }]);
    expect(asMove.statusCode).toBe(409);
    expect(await onHand(lot)).toBe('4');
  });

  it('replays an applied AdjustmentNo even when its lines could no longer be posted', async () => {
    const lot = uniqueId('L');
    expect((await adjust(uniqueId('IN'), [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '4' }])).statusCode).toBe(200);
    const number = uniqueId('OUT');
    const body = [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-4' }];
    const first = await adjust(number, body);
    expect(first.statusCode).toBe(200);
    // Nothing is left to take: the number is found applied before the stock is looked at.
    const again = await adjust(number, body);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await onHand(lot)).toBe('0');
    expect(await ledger(number)).toHaveLength(1);
  });

  it('takes an Idempotency-Key: the same request replays, another request under the key is 422', async () => {
    const lot = uniqueId('L');
    const headers = { 'idempotency-key': uniqueId('IK') };
    const line = { ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '2' };
    const first = await adjust(uniqueId('IDEM'), [line], {}, operatorKey, headers);
    const number = first.json().Adjustment.AdjustmentNo;
    const again = await adjust(number, [line], {}, operatorKey, headers);
    expect(again.body).toBe(first.body);
    const other = await adjust(uniqueId('IDEM'), [line], {}, operatorKey, headers);
    expect(other.statusCode).toBe(422);
    expect(await onHand(lot)).toBe('2');
  });

  it('posts once when one adjustment arrives ten times at once, even when it takes the last stock', async () => {
    const lot = uniqueId('L');
    await stock(lot, '2');
    const number = uniqueId('CONC');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => adjust(number, [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-2' }])),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(await onHand(lot)).toBe('0');
    expect(await ledger(number)).toHaveLength(1);
    expect(await adjustmentRows(number)).toBe(1);
  });

  it('accepts an item missing from the item master, with a warning', async () => {
    const lot = uniqueId('L');
    const response = await adjust(uniqueId('UNK'), [
      { ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '1' },
      { ItemNumber: 'GHOST', LotNo: lot, UOM: 'CS', Qty: '2' },
      { ItemNumber: 'GHOST', LotNo: lot, UOM: 'EA', Qty: '3' },
    ]);
    expect(response.statusCode).toBe(200);
    expect(response.json().Adjustment).toMatchObject({ Status: 'Warning', Warnings: ['Items not in the item master: GHOST'] });
    expect((await balances(lot, 'GHOST')).map((b) => [b.uom, formatDecimal(b.onHand)])).toEqual([
      ['CS', '2'],
      ['EA', '3'],
    ]);
  });

  it('reads an item found once never again, and an item imported after a warning counts at once', async () => {
    const itemReads = () => sent.filter((text) => text.startsWith('select "item_id" from "items"')).length;
    const sent: string[] = [];
    const executeQuery = db().executeQuery.bind(db());
    const spy = vi.spyOn(db(), 'executeQuery').mockImplementation((query) => {
      sent.push((query as CompiledQuery).sql);
      return executeQuery(query);
    });
    try {
      const phantom = uniqueId('PH');
      const line = (itemId: string) => ({ ItemNumber: itemId, LotNo: 'L1', UOM: 'EA', Qty: '1' });
      const first = await adjust(uniqueId('KN'), [line('LAMP'), line(phantom)]);
      expect(first.json().Adjustment).toMatchObject({ Status: 'Warning', Warnings: [`Items not in the item master: ${phantom}`] });
      const readsBefore = itemReads();
      const known = await adjust(uniqueId('KN'), [line('LAMP')]);
      expect(known.json().Adjustment).toMatchObject({ Status: 'Success', Warnings: [] });
      expect(itemReads()).toBe(readsBefore);
      await importItems(ctx(), { tenant, key: customerKey, items: [phantom] });
      const imported = await adjust(uniqueId('KN'), [line('LAMP'), line(phantom)]);
      expect(imported.json().Adjustment).toMatchObject({ Status: 'Success', Warnings: [] });
      expect(itemReads()).toBe(readsBefore + 1);
    } finally {
      spy.mockRestore();
    }
  });

  it('moves stock between lots, goods types and statuses; a key missing in To keeps its From value', async () => {
    const lotA = uniqueId('LA');
    const lotB = uniqueId('LB');
    await stock(lotA, '10');
    const lots = await move(uniqueId('MV'), [{ ItemNumber: 'MUG', UOM: 'EA', Qty: '4', From: { LotNo: lotA }, To: { LotNo: lotB } }]);
    expect(lots.statusCode).toBe(200);
    expect(lots.json().Adjustment).toEqual({
      AdjustmentNo: expect.any(String),
      Status: 'Success',
      Warnings: [],
      Items: [entry({ LotNo: lotA, Qty: '-4', OnHand: '6' }), entry({ LotNo: lotB, Qty: '4', OnHand: '4' })],
    });

    // Only GoodsType is named in To: the lot stays lotB.
    const goods = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1.5', From: { LotNo: lotB }, To: { GoodsType: 'DMG' } },
    ]);
    expect(goods.json().Adjustment.Items).toEqual([
      entry({ LotNo: lotB, Qty: '-1.5', OnHand: '2.5' }),
      entry({ LotNo: lotB, GoodsType: 'DMG', Qty: '1.5', OnHand: '1.5' }),
    ]);
    // "" in To sets the empty value; null keeps From's.
    const cleared = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '0.5', From: { LotNo: lotB, GoodsType: 'DMG' }, To: { GoodsType: '', LotNo: null } },
    ]);
    expect(cleared.json().Adjustment.Items).toEqual([
      entry({ LotNo: lotB, GoodsType: 'DMG', Qty: '-0.5', OnHand: '1' }),
      entry({ LotNo: lotB, Qty: '0.5', OnHand: '3' }),
    ]);

    // Available → Hold: the stock stays on hand but is no longer available.
    const hold = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '6', From: { LotNo: lotA }, To: { InventoryStatus: 'Hold', ExpirationDate: '2027-06-30' } },
    ]);
    expect(hold.json().Adjustment.Items).toEqual([
      entry({ LotNo: lotA, Qty: '-6', OnHand: '0' }),
      entry({ LotNo: lotA, InventoryStatus: 'Hold', ExpirationDate: '2027-06-30', Qty: '6', OnHand: '6' }),
    ]);
    const [available, held] = await balances(lotA);
    expect([available!.inventoryStatus, available!.onHand, available!.available]).toEqual(['Available', 0, 0]);
    expect([held!.inventoryStatus, formatDecimal(held!.onHand), held!.available]).toEqual(['Hold', '6', 0]);
    const postings = await inventory.findLedger(db(), {
      companyId: tenant.companyId,
      sourceType: 'property-move',
      sourceId: hold.json().Adjustment.AdjustmentNo,
    });
    expect(postings.map((p) => [p.inventoryStatus, formatDecimal(p.quantity), p.sourceLine])).toEqual([
      ['Available', '-6', '1'],
      ['Hold', '6', '1'],
    ]);
  });

  it('refuses a move of more than there is, of allocated stock, or to the same balance', async () => {
    const lot = uniqueId('L');
    await stock(lot, '10');
    const tooMuch = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '11', From: { LotNo: lot }, To: { LotNo: 'ELSEWHERE' } },
    ]);
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toEqual(problems(`Not enough stock of item MUG, lot ${lot}, UOM EA: 10 available, 11 to take`));

    await db()
      .updateTable('inventory_balances')
      .set({ allocated: 80_000 })
      .where('company_id', '=', tenant.companyId)
      .where('item_id', '=', 'MUG')
      .where('lot_no', '=', lot)
      .execute();
    const allocated = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '3', From: { LotNo: lot }, To: { InventoryStatus: 'Hold' } },
    ]);
    expect(allocated.statusCode).toBe(409);
    expect(allocated.json()).toEqual(
      problems(`Not enough stock of item MUG, lot ${lot}, UOM EA: 2 available (10 on hand, 8 allocated), 3 to take`),
    );
    const taken = await adjust(uniqueId('ADJ'), [{ ItemNumber: 'MUG', LotNo: lot, UOM: 'EA', Qty: '-2.0001' }]);
    expect(taken.statusCode).toBe(409);
    const free = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '2', From: { LotNo: lot }, To: { InventoryStatus: 'Hold' } },
    ]);
    expect(free.statusCode).toBe(200);
    expect(await onHand(lot)).toBe('8');

    const same = await move(uniqueId('MV'), [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1', From: { LotNo: lot }, To: { LotNo: lot, InventoryStatus: 'Available' } },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1', From: { LotNo: lot }, To: { LotNo: 'OTHER' } },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1', From: {}, To: {} },
    ]);
    expect(same.statusCode).toBe(400);
    expect(same.json()).toEqual(
      problems(
        'Items[0].To must change at least one of LotNo, GoodsType, TitleID, InventoryStatus, ExpirationDate',
        'Items[2].To must change at least one of LotNo, GoodsType, TitleID, InventoryStatus, ExpirationDate',
      ),
    );
    expect(await onHand(lot)).toBe('8');
  });

  it('is for operator and admin keys of the facility only', async () => {
    const line = [{ ItemNumber: 'MUG', UOM: 'EA', Qty: '1' }];
    const customer = await adjust(uniqueId('AUTH'), line, {}, customerKey);
    expect(customer.statusCode).toBe(403);
    expect(customer.json()).toEqual(problems('An API key with role customer may not call this operation'));
    const customerMove = await move(uniqueId('AUTH'), [{ ...line[0], From: {}, To: { LotNo: 'X' } }], customerKey);
    expect(customerMove.statusCode).toBe(403);
    const elsewhere = await adjust(uniqueId('AUTH'), line, {}, otherOperatorKey);
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json()).toEqual(problems(`FacilityID ${tenant.facilityIds[0]} is outside this API key's scope`));
    const unknownCustomer = await ctx().post(ADJUST_QTY, { ...header(uniqueId('AUTH')), CustomerID: 'NOBODY', Items: line }, adminKey);
    expect(unknownCustomer.statusCode).toBe(403);
    const admin = await adjust(uniqueId('AUTH'), line, {}, adminKey);
    expect(admin.statusCode).toBe(200);
  });

  it('validates every field at once, naming its path', async () => {
    const response = await adjust('V-1', [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1e3' },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: 0 },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '123456789012' },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1.23456' },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1', InventoryStatus: 'Lost' },
      { ItemNumber: 'MUG', UOM: 'PK', Qty: '1' },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '1', ExpirationDate: '2024-02-30' },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '-0.000' },
      { ItemNumber: '', UOM: 'EA', Qty: 1e21, LotNo: 'L'.repeat(51) },
    ]);
    expect(response.statusCode).toBe(400);
    const decimal = 'must be a decimal with at most 11 integer and 4 fractional digits';
    expect(response.json()).toEqual(
      problems(
        `Items[0].Qty ${decimal}`,
        'Items[1].Qty must not be 0',
        `Items[2].Qty ${decimal}`,
        `Items[3].Qty ${decimal}`,
        'Items[4].InventoryStatus must be one of: Available, Hold, Damaged',
        'Items[5].UOM must be one of: EA, CS',
        'Items[6].ExpirationDate must be a date such as 2026-12-31',
        'Items[7].Qty must not be 0',
        'Items[8].ItemNumber must not be empty',
        'Items[8].LotNo must be at most 50 characters',
        `Items[8].Qty ${decimal}`,
        'Items[8].Qty must be between -9007199254740991 and 9007199254740991 (2^53 - 1)',
      ),
    );

    const empty = await ctx().post(ADJUST_QTY, { ...header(''), ReasonCode: 'R'.repeat(51), Items: [] }, operatorKey);
    expect(empty.json()).toEqual(
      problems('AdjustmentNo must not be empty', 'ReasonCode must be at most 50 characters', 'Items must have at least 1 item'),
    );

    const badMove = await move('V-2', [
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '-1', From: { InventoryStatus: 'Lost' }, To: { ExpirationDate: '2024-02-30' } },
      { ItemNumber: 'MUG', UOM: 'EA', Qty: '0', To: {} },
    ]);
    expect(badMove.statusCode).toBe(400);
    expect(badMove.json()).toEqual(
      problems(
        'Items[0].Qty must be a positive decimal with at most 11 integer and 4 fractional digits',
        'Items[0].From.InventoryStatus must be one of: Available, Hold, Damaged',
        'Items[0].To.ExpirationDate must be a date such as 2026-12-31',
        'Items[1].From is required',
        'Items[1].Qty must be a positive decimal with at most 11 integer and 4 fractional digits',
      ),
    );
  });
});

/**
 * No oversell under concurrent writers (docs/orders.md): 200 adjustments of −1 against a balance of 150.
 * On PostgreSQL two independent apps, each with its own pool, share the database, as two processes
 * would; SQLite is one process's embedded database (its writers take turns on one connection).
 */
describeEachDialect('3PL adjustments under concurrency', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let operatorKey: string;
  let second: { app: App; db: Db } | undefined;
  const apps: App[] = [];

  beforeAll(async () => {
    const { database, clock, app } = ctx();
    tenant = await createTenant(database.db, clock);
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    apps.push(app);
    if (dialect === 'postgres') {
      const db = connectDatabase(database.url, { poolSize: 5 });
      const other = await buildApp({ config: loadConfig({ databaseUrl: database.url }, {}), db, clock, logger: false });
      await other.ready();
      second = { app: other, db };
      apps.push(other);
    }
  });
  afterAll(async () => {
    await second?.app.close();
    await second?.db.destroy();
  });

  const adjust = (app: App, adjustmentNo: string, qty: string): Promise<LightMyRequestResponse> =>
    app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${ADJUST_QTY}`,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${operatorKey}` },
      payload: {
        CompanyID: tenant.companyId,
        FacilityID: tenant.facilityIds[0],
        CustomerID: tenant.customerIds[0],
        AdjustmentNo: adjustmentNo,
        Items: [{ ItemNumber: 'RACE', LotNo: 'R1', UOM: 'EA', Qty: qty }],
      },
    });

  it('200 parallel −1 adjustments against 150: exactly 150 succeed, 50 are 409, the balance is 0', async () => {
    expect((await adjust(apps[0]!, 'SEED', '150')).statusCode).toBe(200);
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => adjust(apps[i % apps.length]!, `TAKE-${i}`, '-1')));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(150);
    expect(statuses.filter((s) => s === 409)).toHaveLength(50);

    const db = ctx().database.db;
    const [balance] = await inventory.findBalances(
      db,
      { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, itemId: 'RACE', includeEmpty: true },
      { offset: 0, pageSize: 10 },
    );
    expect(balance!.onHand).toBe(0);
    const ledger = await db
      .selectFrom('inventory_ledger')
      .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('quantity').as('total')])
      .where('company_id', '=', tenant.companyId)
      .where('item_id', '=', 'RACE')
      .where('lot_no', '=', 'R1')
      .executeTakeFirstOrThrow();
    expect(Number(ledger.rows)).toBe(151);
    expect(Number(ledger.total)).toBe(balance!.onHand);
  });
});
