import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { inTransaction } from '../src/db/transaction.js';
import { Refusal } from '../src/lib/refusal.js';
import { allocateFromBalances } from '../src/modules/inventory/inventory.repository.js';
import { MAX_SCALED, asScaled, formatDecimal, parseDecimal, type Scaled } from '../src/lib/decimal.js';
import { balanceKeyOf, compareBalanceColumns } from '../src/modules/inventory/balance-keys.js';
import {
  balanceColumnsOf,
  compareBalanceKeys,
  countBalances,
  findBalances,
  findLedger,
  normalizeBalanceKey,
  postStock,
  type BalanceFilter,
  type StockPosting,
  type StockPostingLine,
} from '../src/modules/inventory/inventory.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { createTenant, uniqueId, type Tenant } from './helpers/factories.js';

const q = (text: string): Scaled => parseDecimal(text);
const ALL = { offset: 0, pageSize: 1000 };

describe('balance keys', () => {
  it('normalise absent values to empty text and the status to Available', () => {
    expect(normalizeBalanceKey({ itemId: 'A', uom: 'EA', lotNo: null, inventoryStatus: '' })).toEqual({
      itemId: 'A',
      uom: 'EA',
      lotNo: '',
      goodsType: '',
      titleId: '',
      inventoryStatus: 'Available',
      expirationDate: '',
    });
    expect(() => normalizeBalanceKey({ itemId: 'A', uom: 'EA', expirationDate: '3/5/2026' })).toThrow(/yyyy-MM-dd/);
  });

  it('sort in one total order, field by field, by code units', () => {
    const keys = [
      { itemId: 'b', uom: 'EA' },
      { itemId: 'a', uom: 'EA', lotNo: 'L2' },
      { itemId: 'a', uom: 'CS' },
      { itemId: 'a', uom: 'EA', lotNo: 'L1', expirationDate: '2026-01-01' },
      { itemId: 'a', uom: 'EA', lotNo: 'L1' },
      { itemId: 'B', uom: 'EA' },
    ].map(normalizeBalanceKey);
    const sorted = [...keys].sort(compareBalanceKeys);
    expect(sorted.map((k) => [k.itemId, k.uom, k.lotNo, k.expirationDate])).toEqual([
      ['B', 'EA', '', ''],
      ['a', 'CS', '', ''],
      ['a', 'EA', 'L1', ''],
      ['a', 'EA', 'L1', '2026-01-01'],
      ['a', 'EA', 'L2', ''],
      ['b', 'EA', '', ''],
    ]);
    expect([...keys].reverse().sort(compareBalanceKeys)).toEqual(sorted);
  });

  it('sort rows by their scope, then in that same order when read off their columns (the order inventory.changed lists them)', () => {
    const scopeA = { companyId: 'C1', customerId: 'U1', facilityId: 'F2' };
    const scopeB = { companyId: 'C1', customerId: 'U1', facilityId: 'F1' };
    const rows = [
      balanceColumnsOf(scopeA, normalizeBalanceKey({ itemId: 'a', uom: 'EA', titleId: 'T2' })),
      balanceColumnsOf(scopeB, normalizeBalanceKey({ itemId: 'b', uom: 'EA' })),
      balanceColumnsOf(scopeA, normalizeBalanceKey({ itemId: 'a', uom: 'EA', titleId: 'T1', inventoryStatus: 'Damaged' })),
      balanceColumnsOf(scopeA, normalizeBalanceKey({ itemId: 'a', uom: 'EA', goodsType: 'G', expirationDate: '2026-01-01' })),
      balanceColumnsOf(scopeB, normalizeBalanceKey({ itemId: 'B', uom: 'CS', lotNo: 'L1' })),
      balanceColumnsOf(scopeA, normalizeBalanceKey({ itemId: 'a', uom: 'EA', titleId: 'T1' })),
    ];
    const sorted = [...rows].sort(compareBalanceColumns);
    expect(
      sorted.map((row) => [row.facility_id, row.item_id, row.uom, row.lot_no, row.goods_type, row.title_id, row.inventory_status]),
    ).toEqual([
      ['F1', 'B', 'CS', 'L1', '', '', 'Available'],
      ['F1', 'b', 'EA', '', '', '', 'Available'],
      ['F2', 'a', 'EA', '', '', 'T1', 'Available'],
      ['F2', 'a', 'EA', '', '', 'T1', 'Damaged'],
      ['F2', 'a', 'EA', '', '', 'T2', 'Available'],
      ['F2', 'a', 'EA', '', 'G', '', 'Available'],
    ]);
    // Within a scope, exactly the order in which every writer changes balances.
    for (const scope of ['F1', 'F2']) {
      const ofScope = sorted.filter((row) => row.facility_id === scope).map(balanceKeyOf);
      expect([...ofScope].sort(compareBalanceKeys)).toEqual(ofScope);
    }
  });
});

describeEachDialect('inventory postings', (dialect) => {
  let database: TestDatabase;
  let db: Db;
  let tenant: Tenant;
  const clock = new TestClock();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    db = database.db;
    tenant = await createTenant(db, clock, { customers: 2, facilities: 2 });
  });
  afterAll(async () => {
    await database?.destroy();
  });

  const base = (): Omit<StockPosting, 'lines'> => ({
    companyId: tenant.companyId,
    customerId: tenant.customerIds[0]!,
    facilityId: tenant.facilityIds[0]!,
    keyId: 42,
    sourceType: 'receipt',
    sourceId: uniqueId('RN-'),
    sourceLine: 'CONF-1',
    at: clock.now(),
  });

  const post = (lines: StockPostingLine[], overrides: Partial<StockPosting> = {}) =>
    inTransaction(db, (trx) => postStock(trx, { ...base(), ...overrides, lines }));

  const balances = (filter: Partial<BalanceFilter> = {}) =>
    findBalances(
      db,
      {
        companyId: tenant.companyId,
        customerId: tenant.customerIds[0]!,
        facilityId: tenant.facilityIds[0]!,
        includeEmpty: true,
        ...filter,
      },
      ALL,
    );

  const onHandOf = async (itemId: string, filter: Partial<BalanceFilter> = {}) => {
    const found = await balances({ itemId, ...filter });
    return found.length === 0 ? undefined : found.map((b) => formatDecimal(b.onHand));
  };

  const conflictOf = async (promise: Promise<unknown>): Promise<string> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).kind).toBe('conflict');
    return (error as Refusal).message;
  };

  it('creates balances and adds to them exactly, at the smallest and the largest quantity', async () => {
    const item = uniqueId('IT');
    const big = uniqueId('IT');
    const first = clock.now();
    const created = await post([{ itemId: item, uom: 'EA', quantity: q('0.0001') }], { at: first });
    expect(created).toEqual([
      {
        itemId: item,
        uom: 'EA',
        lotNo: '',
        goodsType: '',
        titleId: '',
        inventoryStatus: 'Available',
        expirationDate: '',
        quantity: 1,
        onHand: 1,
        allocated: 0,
      },
    ]);
    const added = await post([{ itemId: item, uom: 'EA', quantity: q('12.3456') }], { at: first + 1000 });
    expect(formatDecimal(added[0]!.onHand)).toBe('12.3457');
    await post([{ itemId: item, uom: 'EA', quantity: q('99999999987.6542') }], { at: first + 2000 });
    expect(await onHandOf(item)).toEqual(['99999999999.9999']);

    const [full] = await post([{ itemId: big, uom: 'CS', quantity: MAX_SCALED }]);
    expect(full!.onHand).toBe(MAX_SCALED);

    const [row] = await balances({ itemId: item });
    expect(row).toMatchObject({
      companyId: tenant.companyId,
      customerId: tenant.customerIds[0],
      facilityId: tenant.facilityIds[0],
      onHand: MAX_SCALED,
      allocated: 0,
      available: MAX_SCALED,
      firstReceivedAt: first,
      updatedAt: first + 2000,
    });
  });

  it('keeps the time a balance first received stock across later increases and decreases', async () => {
    const item = uniqueId('IT');
    const at = clock.now() + 10_000;
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('2') }], { at });
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('-2') }], { at: at + 1, sourceType: 'adjustment' });
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('1') }], { at: at + 2 });
    const [row] = await balances({ itemId: item });
    expect(row).toMatchObject({ onHand: q('1'), firstReceivedAt: at, updatedAt: at + 2 });
  });

  it('writes one ledger row per line, in line order, naming its source, key and the balance after it', async () => {
    const item = uniqueId('IT');
    const posting = { ...base(), keyId: 7, sourceLine: 'CONF-9' };
    const lines: StockPostingLine[] = [
      { itemId: item, uom: 'EA', lotNo: 'L2', quantity: q('3') },
      { itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('1.5'), sourceLine: '2' },
      { itemId: item, uom: 'EA', lotNo: 'L2', quantity: q('0.25'), expirationDate: '2027-01-31' },
      { itemId: item, uom: 'EA', lotNo: 'L2', quantity: q('4') },
    ];
    const posted = await inTransaction(db, (trx) => postStock(trx, { ...posting, lines }));
    expect(posted.map((p) => [p.lotNo, formatDecimal(p.onHand)])).toEqual([
      ['L2', '3'],
      ['L1', '1.5'],
      ['L2', '0.25'],
      ['L2', '7'],
    ]);

    const ledger = await findLedger(db, { companyId: tenant.companyId, sourceType: 'receipt', sourceId: posting.sourceId });
    expect(ledger.map((e) => [e.lotNo, e.expirationDate, formatDecimal(e.quantity), formatDecimal(e.onHandAfter), e.sourceLine])).toEqual([
      ['L2', '', '3', '3', 'CONF-9'],
      ['L1', '', '1.5', '1.5', '2'],
      ['L2', '2027-01-31', '0.25', '0.25', 'CONF-9'],
      ['L2', '', '4', '7', 'CONF-9'],
    ]);
    for (const entry of ledger) {
      expect(entry).toMatchObject({
        companyId: tenant.companyId,
        customerId: tenant.customerIds[0],
        facilityId: tenant.facilityIds[0],
        itemId: item,
        uom: 'EA',
        inventoryStatus: 'Available',
        sourceType: 'receipt',
        sourceId: posting.sourceId,
        keyId: 7,
        createdAt: posting.at,
      });
    }
    expect(ledger.map((e) => e.id)).toEqual([...ledger.map((e) => e.id)].sort((a, b) => a - b));
    // another source type with the same id is another document
    expect(await findLedger(db, { companyId: tenant.companyId, sourceType: 'adjustment', sourceId: posting.sourceId })).toEqual([]);
    // and another company sees none of it
    expect(await findLedger(db, { companyId: 'OTHER', sourceType: 'receipt', sourceId: posting.sourceId })).toEqual([]);
  });

  it("matches absent key values and '' to one balance", async () => {
    const item = uniqueId('IT');
    await post([
      { itemId: item, uom: 'EA', quantity: q('1') },
      { itemId: item, uom: 'EA', lotNo: '', goodsType: '', titleId: '', expirationDate: '', quantity: q('2') },
      {
        itemId: item,
        uom: 'EA',
        lotNo: null,
        goodsType: null,
        titleId: null,
        inventoryStatus: null,
        expirationDate: null,
        quantity: q('3'),
      },
      { itemId: item, uom: 'EA', inventoryStatus: 'Available', quantity: q('4') },
    ]);
    expect(await onHandOf(item)).toEqual(['10']);
    expect(await countBalances(db, { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, itemId: item })).toBe(1);
    // while each other key value is a balance of its own
    await post([
      { itemId: item, uom: 'CS', quantity: q('1') },
      { itemId: item, uom: 'EA', lotNo: 'L', quantity: q('1') },
      { itemId: item, uom: 'EA', goodsType: 'G', quantity: q('1') },
      { itemId: item, uom: 'EA', titleId: 'T', quantity: q('1') },
      { itemId: item, uom: 'EA', inventoryStatus: 'Hold', quantity: q('1') },
      { itemId: item, uom: 'EA', expirationDate: '2026-12-31', quantity: q('1') },
    ]);
    expect(await countBalances(db, { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, itemId: item })).toBe(7);
  });

  it('takes stock down to the allocation and refuses more with 409, naming the item, lot and what is available', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('5') }]);
    // nothing allocates yet: set an allocation directly
    await db
      .updateTable('inventory_balances')
      .set({ allocated: q('2') })
      .where('item_id', '=', item)
      .execute();

    const message = await conflictOf(
      post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('-3.0001') }], { sourceType: 'adjustment' }),
    );
    expect(message).toBe(`Not enough stock of item ${item}, lot L1, UOM EA: 3 available (5 on hand, 2 allocated), 3.0001 to take`);
    expect(await onHandOf(item)).toEqual(['5']);

    const [taken] = await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('-3') }], { sourceType: 'adjustment' });
    expect(taken).toMatchObject({ onHand: q('2'), allocated: q('2') });
    await conflictOf(post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('-0.0001') }], { sourceType: 'adjustment' }));
  });

  it('takes a decrease partly out of the allocation in one change and one ledger row; only the rest must be Available', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('10') }]);
    await db
      .updateTable('inventory_balances')
      .set({ allocated: q('6') })
      .where('item_id', '=', item)
      .execute();
    const take = (quantity: string, fromAllocated: string) =>
      post([{ itemId: item, uom: 'EA', quantity: q(quantity), fromAllocated: q(fromAllocated) }], { sourceType: 'shipment' });

    // 2 of the allocation and 5 more: only 4 are Available.
    const message = await conflictOf(take('-7', '2'));
    expect(message).toBe(`Not enough stock of item ${item}, no lot, UOM EA: 4 available (10 on hand, 6 allocated), 5 to take`);
    // More out of the allocation than the balance holds allocated is the caller's bug, not a 409.
    await expect(take('-8', '7')).rejects.toThrow(/more allocated stock/);
    // So is a fromAllocated beyond the decrease, or on an increase.
    await expect(take('-1', '2')).rejects.toThrow(/fromAllocated/);
    await expect(take('1', '1')).rejects.toThrow(/fromAllocated/);
    const [unchanged] = await balances({ itemId: item });
    expect([unchanged!.onHand, unchanged!.allocated]).toEqual([q('10'), q('6')]);

    const posting = { ...base(), sourceType: 'shipment' as const };
    const [taken] = await inTransaction(db, (trx) =>
      postStock(trx, { ...posting, lines: [{ itemId: item, uom: 'EA', quantity: q('-6'), fromAllocated: q('2') }] }),
    );
    expect(taken).toMatchObject({ onHand: q('4'), allocated: q('4') });
    const ledger = await findLedger(db, { companyId: tenant.companyId, sourceType: 'shipment', sourceId: posting.sourceId });
    expect(ledger.map((e) => [formatDecimal(e.quantity), formatDecimal(e.onHandAfter)])).toEqual([['-6', '4']]);
  });

  it('refuses to take below zero, and to take from a balance that does not exist', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('1.25') }]);
    const message = await conflictOf(post([{ itemId: item, uom: 'EA', quantity: q('-1.2501') }]));
    expect(message).toBe(`Not enough stock of item ${item}, no lot, UOM EA: 1.25 available, 1.2501 to take`);
    const [zero] = await post([{ itemId: item, uom: 'EA', quantity: q('-1.25') }]);
    expect(zero!.onHand).toBe(0);

    const missing = await conflictOf(post([{ itemId: item, uom: 'EA', lotNo: 'NOPE', inventoryStatus: 'Hold', quantity: q('-1') }]));
    expect(missing).toBe(`Not enough stock of item ${item}, lot NOPE, UOM EA, status Hold: 0 available, 1 to take`);
    expect(await balances({ itemId: item, lotNo: 'NOPE' })).toEqual([]);
  });

  it('rolls a refused posting back whole: no balance or ledger row of any line, the earlier ones included', async () => {
    const prefix = uniqueId('IT');
    const [a, b, c] = [`${prefix}-A`, `${prefix}-B`, `${prefix}-C`];
    await post([{ itemId: c, uom: 'EA', quantity: q('1') }]);
    const before = await balances({ itemId: c });
    const posting = base();
    // in key order A (new balance) and B (added to) come before C, which is short
    const refused = inTransaction(db, (trx) =>
      postStock(trx, {
        ...posting,
        lines: [
          { itemId: c, uom: 'EA', quantity: q('-2') },
          { itemId: b, uom: 'EA', quantity: q('7') },
          { itemId: a, uom: 'EA', quantity: q('3') },
        ],
      }),
    );
    expect(await conflictOf(refused)).toContain(`item ${c}`);
    expect(await balances({ itemId: a })).toEqual([]);
    expect(await balances({ itemId: b })).toEqual([]);
    expect(await balances({ itemId: c })).toEqual(before);
    expect(await findLedger(db, { companyId: tenant.companyId, sourceType: 'receipt', sourceId: posting.sourceId })).toEqual([]);
  });

  it('posts several lines of one balance, in both directions and with lines of 0, as one line after another', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('5') }]);
    await db
      .updateTable('inventory_balances')
      .set({ allocated: q('2') })
      .where('item_id', '=', item)
      .execute();
    const posting = { ...base(), sourceType: 'shipment' as const };
    const posted = await inTransaction(db, (trx) =>
      postStock(trx, {
        ...posting,
        lines: [
          { itemId: item, uom: 'EA', quantity: q('0') },
          { itemId: item, uom: 'EA', quantity: q('-1'), fromAllocated: q('1') },
          { itemId: `${item}-B`, uom: 'EA', quantity: q('4') },
          { itemId: item, uom: 'EA', quantity: q('-2.5'), fromAllocated: q('0.5') },
          { itemId: item, uom: 'EA', quantity: q('0') },
          { itemId: item, uom: 'EA', quantity: q('10') },
          { itemId: item, uom: 'EA', quantity: q('0.5') },
          { itemId: item, uom: 'EA', quantity: q('-3') },
          { itemId: `${item}-B`, uom: 'EA', quantity: q('-1') },
        ],
      }),
    );
    expect(posted.map((p) => [p.itemId === item ? 'A' : 'B', formatDecimal(p.onHand), formatDecimal(p.allocated)])).toEqual([
      ['A', '5', '2'],
      ['A', '4', '1'],
      ['B', '4', '0'],
      ['A', '1.5', '0.5'],
      ['A', '1.5', '0.5'],
      ['A', '11.5', '0.5'],
      ['A', '12', '0.5'],
      ['A', '9', '0.5'],
      ['B', '3', '0'],
    ]);
    const ledger = await findLedger(db, { companyId: tenant.companyId, sourceType: 'shipment', sourceId: posting.sourceId });
    expect(ledger.map((e) => [e.itemId === item ? 'A' : 'B', formatDecimal(e.quantity), formatDecimal(e.onHandAfter)])).toEqual([
      ['A', '-1', '4'],
      ['B', '4', '4'],
      ['A', '-2.5', '1.5'],
      ['A', '10', '11.5'],
      ['A', '0.5', '12'],
      ['A', '-3', '9'],
      ['B', '-1', '3'],
    ]);
    const [after] = await balances({ itemId: item });
    expect([after!.onHand, after!.allocated]).toEqual([q('9'), q('0.5')]);
  });

  it('judges the lines of one balance one after another, not by their sum', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('5') }]);
    // two decreases that fit alone: the second is refused with what the first left
    const second = await conflictOf(
      post([
        { itemId: item, uom: 'EA', quantity: q('-3') },
        { itemId: item, uom: 'EA', quantity: q('-3') },
      ]),
    );
    expect(second).toBe(`Not enough stock of item ${item}, no lot, UOM EA: 2 available, 3 to take`);
    // a decrease before the increase that would cover it is refused, though the sum is 0
    const fresh = uniqueId('IT');
    const early = await conflictOf(
      post([
        { itemId: fresh, uom: 'EA', quantity: q('-1') },
        { itemId: fresh, uom: 'EA', quantity: q('1') },
      ]),
    );
    expect(early).toBe(`Not enough stock of item ${fresh}, no lot, UOM EA: 0 available, 1 to take`);
    // increases that fit alone but not together: the one that passes the cap is named
    const full = await conflictOf(
      post([
        { itemId: item, uom: 'EA', quantity: q('99999999990') },
        { itemId: item, uom: 'EA', quantity: q('5') },
      ]),
    );
    expect(full).toBe(`Stock of item ${item}, no lot, UOM EA would exceed 99999999999.9999: 99999999995 on hand, 5 to add`);
    // and an increase that follows the decrease making room for it is taken
    const [, , last] = await post([
      { itemId: item, uom: 'EA', quantity: q('99999999990') },
      { itemId: item, uom: 'EA', quantity: q('-5') },
      { itemId: item, uom: 'EA', quantity: q('9.9999') },
    ]);
    expect(formatDecimal(last!.onHand)).toBe('99999999999.9999');
    expect(await onHandOf(fresh)).toBeUndefined();
  });

  it('refuses a multi-line posting at its short line, in key order, and changes nothing', async () => {
    const prefix = uniqueId('IT');
    const [a, b, c, d] = [`${prefix}-A`, `${prefix}-B`, `${prefix}-C`, `${prefix}-D`];
    await post([a, b, c, d].map((itemId) => ({ itemId, uom: 'EA', quantity: q('2') })));
    const before = await balances({});
    const posting = { ...base(), sourceType: 'adjustment' as const };
    // one statement takes A, B, C and D; B and D are short, and B comes first in key order
    const message = await conflictOf(
      inTransaction(db, (trx) =>
        postStock(trx, {
          ...posting,
          lines: [
            { itemId: d, uom: 'EA', quantity: q('-3') },
            { itemId: c, uom: 'EA', quantity: q('-1') },
            { itemId: b, uom: 'EA', quantity: q('-2.0001') },
            { itemId: a, uom: 'EA', quantity: q('-2') },
          ],
        }),
      ),
    );
    expect(message).toBe(`Not enough stock of item ${b}, no lot, UOM EA: 2 available, 2.0001 to take`);
    expect(await balances({})).toEqual(before);
    expect(await findLedger(db, { companyId: tenant.companyId, sourceType: 'adjustment', sourceId: posting.sourceId })).toEqual([]);

    // the same with increases: C would pass the cap, A and B come before it and are undone
    const capped = await conflictOf(
      post([
        { itemId: c, uom: 'EA', quantity: q('99999999998') },
        { itemId: a, uom: 'EA', quantity: q('1') },
        { itemId: `${prefix}-NEW`, uom: 'EA', quantity: q('1') },
        { itemId: b, uom: 'EA', quantity: q('1') },
      ]),
    );
    expect(capped).toBe(`Stock of item ${c}, no lot, UOM EA would exceed 99999999999.9999: 2 on hand, 99999999998 to add`);
    expect(await balances({})).toEqual(before);
  });

  it('posts more balances than one statement takes, in chunks, with every line answered', async () => {
    const prefix = uniqueId('I');
    const count = 1001;
    const itemIds = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
    const received = await post(itemIds.map((itemId, i) => ({ itemId, uom: 'EA', quantity: asScaled((i + 2) * 10_000) })));
    expect(received.map((p) => p.onHand)).toEqual(itemIds.map((_, i) => (i + 2) * 10_000));
    const taken = await post(
      itemIds.map((itemId) => ({ itemId, uom: 'EA', quantity: q('-1') })),
      { sourceType: 'adjustment' },
    );
    expect(taken.map((p) => p.onHand)).toEqual(itemIds.map((_, i) => (i + 1) * 10_000));
    // the last line is short: nothing of the 1,001 is taken
    const refused = await conflictOf(
      post(
        itemIds.map((itemId, i) => ({ itemId, uom: 'EA', quantity: asScaled(i === count - 1 ? -(count + 1) * 10_000 : -10_000) })),
        { sourceType: 'adjustment' },
      ),
    );
    expect(refused).toContain(`item ${itemIds[count - 1]}`);
    const after = await findBalances(
      db,
      { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, includeEmpty: true },
      { offset: 0, pageSize: 5000 },
    );
    const ours = after.filter((balance) => balance.itemId.startsWith(`${prefix}-`));
    expect(ours.map((balance) => balance.onHand).sort((x, y) => x - y)).toEqual(itemIds.map((_, i) => (i + 1) * 10_000));
  });

  it('sends one balance statement per run of increases or decreases in key order, and one ledger insert', async () => {
    let sent = 0;
    // Counted as each statement answers: a statement compiled once (compiledOnce) is not compiled again.
    const counting = db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        sent++;
        return args.result;
      },
    });
    const statementsOf = async (lines: StockPostingLine[]) => {
      sent = 0;
      await inTransaction(counting, (trx) => postStock(trx, { ...base(), sourceType: 'adjustment', lines }));
      return sent;
    };
    const prefix = uniqueId('IT');
    const tenLines = (quantity: string) =>
      Array.from({ length: 10 }, (_, i) => ({ itemId: `${prefix}-${i}`, uom: 'EA', lotNo: i % 2 ? 'L1' : '', quantity: q(quantity) }));
    // On PostgreSQL one more, before the balances: the items' advisory locks, all in one (lockItems).
    const locks = dialect === 'postgres' ? 1 : 0;
    // A posting that makes stock Available sends the backorder fill's read of waiting lines with its
    // statements (registered by app.ts, which the test helpers import): one for all its items.
    const readAhead = 1;
    // And the ledger's kept count, written just before the commit: one statement (docs/paging.md).
    const counted = 1;
    expect(await statementsOf(tenLines('3'))).toBe(2 + locks + readAhead + counted);
    expect(await statementsOf(tenLines('-1'))).toBe(2 + locks + counted);
    // +1, −1, +1 in key order (whatever the line order) are three runs
    expect(
      await statementsOf([
        { itemId: `${prefix}-2`, uom: 'EA', quantity: q('1') },
        { itemId: `${prefix}-0`, uom: 'EA', quantity: q('1') },
        { itemId: `${prefix}-1`, uom: 'EA', lotNo: 'L1', quantity: q('-1') },
      ]),
    ).toBe(4 + locks + readAhead + counted);
  });

  it('refuses with 409 a balance or a line beyond 11 integer digits', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('99999999999') }]);
    const message = await conflictOf(post([{ itemId: item, uom: 'EA', quantity: q('1') }]));
    expect(message).toBe(`Stock of item ${item}, no lot, UOM EA would exceed 99999999999.9999: 99999999999 on hand, 1 to add`);
    expect(await onHandOf(item)).toEqual(['99999999999']);
    // up to the limit itself is fine
    await post([{ itemId: item, uom: 'EA', quantity: q('0.9999') }]);
    expect(await onHandOf(item)).toEqual(['99999999999.9999']);

    const other = uniqueId('IT');
    await conflictOf(post([{ itemId: other, uom: 'EA', quantity: asScaled(MAX_SCALED + 1) }]));
    expect(await balances({ itemId: other })).toEqual([]);
  });

  it('answers a line of quantity 0 with the balance as it stands and writes no ledger row', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('2') }]);
    const posting = base();
    const posted = await inTransaction(db, (trx) =>
      postStock(trx, {
        ...posting,
        lines: [
          { itemId: item, uom: 'EA', quantity: q('0') },
          { itemId: item, uom: 'EA', lotNo: 'NONE', quantity: q('0') },
        ],
      }),
    );
    expect(posted.map((p) => [p.onHand, p.allocated])).toEqual([
      [q('2'), 0],
      [0, 0],
    ]);
    expect(await findLedger(db, { companyId: tenant.companyId, sourceType: 'receipt', sourceId: posting.sourceId })).toEqual([]);
    expect(await balances({ itemId: item, lotNo: 'NONE' })).toEqual([]);
  });

  it('has CHECK constraints that refuse a negative or over-allocated balance written around the service', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('1') }]);
    const where = () => db.updateTable('inventory_balances').where('company_id', '=', tenant.companyId).where('item_id', '=', item);
    await expect(where().set({ on_hand: -1 }).execute()).rejects.toThrow();
    await expect(where().set({ allocated: -1 }).execute()).rejects.toThrow();
    await expect(
      where()
        .set({ allocated: q('1.0001') })
        .execute(),
    ).rejects.toThrow();
    await expect(
      where()
        .set({ on_hand: MAX_SCALED + 1 })
        .execute(),
    ).rejects.toThrow();
    await expect(
      db
        .insertInto('inventory_balances')
        .values({
          company_id: tenant.companyId,
          customer_id: tenant.customerIds[0]!,
          facility_id: tenant.facilityIds[0]!,
          item_id: uniqueId('IT'),
          uom: 'EA',
          lot_no: '',
          goods_type: '',
          title_id: '',
          inventory_status: 'Available',
          expiration_date: '',
          on_hand: -5,
          updated_at: 1,
        })
        .execute(),
    ).rejects.toThrow();
    expect(await onHandOf(item)).toEqual(['1']);
  });

  it('keeps balances per customer and facility, and reads them filtered, in key order, a page at a time', async () => {
    const item = uniqueId('IT');
    const [f1, f2] = tenant.facilityIds as [string, string];
    const [c1, c2] = tenant.customerIds as [string, string];
    await post([
      { itemId: item, uom: 'EA', lotNo: 'L2', quantity: q('2') },
      { itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('1') },
      { itemId: item, uom: 'EA', lotNo: 'L3', inventoryStatus: 'Hold', quantity: q('3') },
    ]);
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('10') }], { facilityId: f2 });
    await post([{ itemId: item, uom: 'EA', lotNo: 'L1', quantity: q('100') }], { customerId: c2 });
    await post([{ itemId: item, uom: 'EA', lotNo: 'L4', quantity: q('1') }]);
    await post([{ itemId: item, uom: 'EA', lotNo: 'L4', quantity: q('-1') }]);

    const filter = { companyId: tenant.companyId, customerId: c1, itemId: item };
    const inF1 = await findBalances(db, { ...filter, facilityId: f1 }, ALL);
    expect(inF1.map((b) => [b.lotNo, b.inventoryStatus, formatDecimal(b.onHand), formatDecimal(b.available)])).toEqual([
      ['L1', 'Available', '1', '1'],
      ['L2', 'Available', '2', '2'],
      ['L3', 'Hold', '3', '0'],
    ]);
    expect(await countBalances(db, { ...filter, facilityId: f1 })).toBe(3);
    expect(await countBalances(db, { ...filter, facilityId: f1, includeEmpty: true })).toBe(4);

    const everywhere = await findBalances(db, filter, ALL);
    expect(everywhere.map((b) => [b.facilityId, b.lotNo])).toEqual(
      [
        [f1, 'L1'],
        [f1, 'L2'],
        [f1, 'L3'],
        [f2, 'L1'],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : x[0]! > y[0]! ? 1 : 0)),
    );
    expect((await findBalances(db, { ...filter, lotNo: 'L1' }, ALL)).map((b) => b.onHand)).toEqual(
      [f1, f2].sort().map((f) => (f === f1 ? q('1') : q('10'))),
    );
    expect((await findBalances(db, { ...filter, inventoryStatus: 'Hold' }, ALL)).map((b) => b.lotNo)).toEqual(['L3']);
    expect(await findBalances(db, { ...filter, facilityId: f1, lotNo: '' }, ALL)).toEqual([]);

    const pages = [
      await findBalances(db, { ...filter, facilityId: f1 }, { offset: 0, pageSize: 2 }),
      await findBalances(db, { ...filter, facilityId: f1 }, { offset: 2, pageSize: 2 }),
    ];
    expect(pages.map((p) => p.map((b) => b.lotNo))).toEqual([['L1', 'L2'], ['L3']]);

    const otherCustomer = await findBalances(db, { companyId: tenant.companyId, customerId: c2, itemId: item }, ALL);
    expect(otherCustomer.map((b) => [b.facilityId, b.lotNo, b.onHand])).toEqual([[f1, 'L1', q('100')]]);
    expect(await findBalances(db, { companyId: 'OTHER', customerId: c1, itemId: item }, ALL)).toEqual([]);
  });

  it('loses no update: 20 concurrent postings of +1 to one balance end at exactly 20, with 20 ledger rows', async () => {
    const item = uniqueId('IT');
    const sourceId = uniqueId('RN-');
    let attempts = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        inTransaction(db, (trx) => {
          attempts++;
          return postStock(trx, { ...base(), sourceId, sourceLine: String(i), lines: [{ itemId: item, uom: 'EA', quantity: q('1') }] });
        }),
      ),
    );
    expect(await onHandOf(item)).toEqual(['20']);
    // the upsert queues concurrent writers on the row: nobody lost a race and had to run again
    expect(attempts).toBe(20);
    // every posting saw a different balance after it: they ran one after another on the row
    expect(results.map((r) => r[0]!.onHand).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 10_000));
    const ledger = await findLedger(db, { companyId: tenant.companyId, sourceType: 'receipt', sourceId });
    expect(ledger).toHaveLength(20);
    expect(ledger.map((e) => e.onHandAfter).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 10_000));
  });

  it('never oversells: 10 concurrent takes of 1 from a balance of 5 give 5 successes, 5 refusals and 0 on hand', async () => {
    const item = uniqueId('IT');
    await post([{ itemId: item, uom: 'EA', quantity: q('5') }]);
    const sourceId = uniqueId('ADJ-');
    let attempts = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        inTransaction(db, (trx) => {
          attempts++;
          return postStock(trx, { ...base(), sourceType: 'adjustment', sourceId, lines: [{ itemId: item, uom: 'EA', quantity: q('-1') }] });
        }),
      ),
    );
    expect(attempts).toBe(10);
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(fulfilled).toHaveLength(5);
    expect(rejected).toHaveLength(5);
    for (const { reason } of rejected) {
      expect(reason).toBeInstanceOf(Refusal);
      expect((reason as Refusal).kind).toBe('conflict');
      expect((reason as Refusal).message).toContain('0 available');
    }
    expect(await onHandOf(item)).toEqual(['0']);
    const ledger = await findLedger(db, { companyId: tenant.companyId, sourceType: 'adjustment', sourceId });
    expect(ledger.map((e) => e.onHandAfter).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4].map((n) => n * 10_000));
  });

  it('runs concurrent multi-line postings that name the same balances in opposite orders to completion', async () => {
    const prefix = uniqueId('IT');
    const items = [`${prefix}-A`, `${prefix}-B`, `${prefix}-C`];
    const forward = items.map((itemId) => ({ itemId, uom: 'EA', quantity: q('1') }));
    let attempts = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        inTransaction(db, (trx) => {
          attempts++;
          return postStock(trx, { ...base(), lines: i % 2 === 0 ? forward : [...forward].reverse() });
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    // rows are locked in key order whatever the line order, so no deadlock had to be retried
    expect(attempts).toBe(12);
    for (const itemId of items) expect(await onHandOf(itemId)).toEqual(['12']);
  });

  it('runs concurrent multi-line decreases and mixed postings over the same balances, in any line order, to completion', async () => {
    const prefix = uniqueId('IT');
    const items = [`${prefix}-A`, `${prefix}-B`, `${prefix}-C`, `${prefix}-D`];
    await post(items.map((itemId) => ({ itemId, uom: 'EA', quantity: q('100') })));
    const takes = items.map((itemId) => ({ itemId, uom: 'EA', quantity: q('-1') }));
    // +1 and −1 alternate in key order: one statement per run, each run's rows locked in key order
    const mixed = items.map((itemId, i) => ({ itemId, uom: 'EA', quantity: q(i % 2 === 0 ? '1' : '-1') }));
    let attempts = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) =>
        inTransaction(db, (trx) => {
          attempts++;
          const lines = i % 4 < 2 ? takes : mixed;
          return postStock(trx, { ...base(), sourceType: 'adjustment', lines: i % 2 === 0 ? lines : [...lines].reverse() });
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(attempts).toBe(16);
    // 8 postings took 1 of each; 8 added 1 to A and C and took 1 of B and D
    expect(await Promise.all(items.map((itemId) => onHandOf(itemId)))).toEqual([['100'], ['84'], ['100'], ['84']]);
  });

  it("fails the transaction on the balances' CHECK when an allocation sent without waiting takes more than is free, and keeps nothing", async () => {
    const itemId = uniqueId('IT');
    await post([{ itemId, uom: 'EA', quantity: q('5') }]);
    const key = balanceColumnsOf(
      { companyId: tenant.companyId, customerId: tenant.customerIds[0]!, facilityId: tenant.facilityIds[0]! },
      normalizeBalanceKey({ itemId, uom: 'EA' }),
    );
    await inTransaction(db, (trx) => allocateFromBalances(trx, [{ key, quantity: q('2') }], clock.now()));
    const [balance] = await balances({ itemId });
    expect([formatDecimal(balance!.onHand), formatDecimal(balance!.allocated)]).toEqual(['5', '2']);
    await expect(
      inTransaction(db, async (trx) => {
        await allocateFromBalances(trx, [{ key, quantity: q('1') }], clock.now());
        await allocateFromBalances(trx, [{ key, quantity: q('3') }], clock.now());
      }),
    ).rejects.toMatchObject({ code: dialect === 'postgres' ? '23514' : 'SQLITE_CONSTRAINT_CHECK' });
    const [after] = await balances({ itemId });
    expect([formatDecimal(after!.onHand), formatDecimal(after!.allocated)]).toEqual(['5', '2']);
  });
});
