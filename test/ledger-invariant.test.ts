import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { inTransaction } from '../src/db/transaction.js';
import { Refusal } from '../src/lib/refusal.js';
import { formatDecimal, parseDecimal, type Scaled } from '../src/lib/decimal.js';
import { searchInventory, searchLedger } from '../src/modules/inventory/inquiry.service.js';
import {
  compareBalanceKeys,
  normalizeBalanceKey,
  postStock,
  type BalanceKey,
  type StockPostingLine,
} from '../src/modules/inventory/inventory.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { createTenant, type Tenant } from './helpers/factories.js';

/**
 * The ledger invariant (docs/orders.md) as a property: after any sequence of postings, some refused
 * (409), every balance's on-hand is the sum of its ledger quantities, each posting's on-hand-after
 * is the running sum, no balance is negative, and the inventory and ledger searches read the same.
 */

/** A few balance keys: two share an item and UOM and differ by lot, one is Hold stock in cases. */
const KEYS: Omit<StockPostingLine, 'quantity'>[] = [
  { itemId: 'A', uom: 'EA' },
  { itemId: 'A', uom: 'EA', lotNo: 'L1', expirationDate: '2027-01-31' },
  { itemId: 'B', uom: 'CS', inventoryStatus: 'Hold', goodsType: 'NEW' },
];
const NORMALISED = KEYS.map(normalizeBalanceKey);
const keyText = (key: BalanceKey) =>
  JSON.stringify([key.itemId, key.uom, key.lotNo, key.goodsType, key.titleId, key.inventoryStatus, key.expirationDate]);

/** A line: one of the keys and a signed quantity of up to ±5 with up to 4 decimals (0 now and then). */
const lineArb = fc.record({ key: fc.nat({ max: KEYS.length - 1 }), quantity: fc.integer({ min: -50_000, max: 50_000 }) });
const postingArb = fc.array(lineArb, { minLength: 1, maxLength: 3 });
const stepsArb = fc.array(postingArb, { minLength: 1, maxLength: 30 });

/** What postStock must do: lines in key order (then line order), all or nothing, never below zero. */
function applyToModel(model: Map<number, number>, lines: { key: number; quantity: number }[]): boolean {
  const next = new Map(model);
  const ordered = lines
    .map((line, index) => ({ ...line, index }))
    .sort((a, b) => compareBalanceKeys(NORMALISED[a.key]!, NORMALISED[b.key]!) || a.index - b.index);
  for (const { key, quantity } of ordered) {
    const onHand = (next.get(key) ?? 0) + quantity;
    if (onHand < 0) return false;
    next.set(key, onHand);
  }
  for (const [key, onHand] of next) model.set(key, onHand);
  return true;
}

describeEachDialect('ledger invariant', (dialect) => {
  let database: TestDatabase;
  let db: Db;
  const clock = new TestClock();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    db = database.db;
  });
  afterAll(async () => {
    await database?.destroy();
  });

  async function check(tenant: Tenant, model: Map<number, number>) {
    const companyId = tenant.companyId;
    const balances = await db.selectFrom('inventory_balances').selectAll().where('company_id', '=', companyId).execute();
    const ledger = await db.selectFrom('inventory_ledger').selectAll().where('company_id', '=', companyId).orderBy('id').execute();

    const sums = new Map<string, number>();
    for (const row of ledger) {
      const key = keyText({
        itemId: row.item_id,
        uom: row.uom,
        lotNo: row.lot_no,
        goodsType: row.goods_type,
        titleId: row.title_id,
        inventoryStatus: row.inventory_status,
        expirationDate: row.expiration_date,
      });
      const sum = (sums.get(key) ?? 0) + row.quantity;
      sums.set(key, sum);
      expect(row.quantity).not.toBe(0);
      expect(row.on_hand_after, 'each posting records the running sum').toBe(sum);
    }
    const onHands = new Map<string, number>();
    for (const row of balances) {
      const key = keyText({
        itemId: row.item_id,
        uom: row.uom,
        lotNo: row.lot_no,
        goodsType: row.goods_type,
        titleId: row.title_id,
        inventoryStatus: row.inventory_status,
        expirationDate: row.expiration_date,
      });
      expect(row.on_hand).toBeGreaterThanOrEqual(0);
      expect(row.on_hand, `on hand of ${key} is the sum of its ledger`).toBe(sums.get(key) ?? 0);
      onHands.set(key, row.on_hand);
    }
    // Every posted key has its balance, and each is what the model says.
    expect([...sums.keys()].every((key) => onHands.has(key))).toBe(true);
    NORMALISED.forEach((key, index) => expect(onHands.get(keyText(key)) ?? 0).toBe(model.get(index) ?? 0));

    // The reads agree: the inventory search lists the non-zero balances with their on-hand, and the
    // ledger search's quantities of each key sum to it.
    const identifiers = { CompanyID: companyId, FacilityID: tenant.facilityIds[0]!, CustomerID: tenant.customerIds[0]! };
    const listed = (await searchInventory(db, { ...identifiers, Paging: { PageSize: 1000 } })).results.data;
    const expected = NORMALISED.map((key, index) => ({ key, onHand: model.get(index) ?? 0 })).filter(({ onHand }) => onHand > 0);
    expect(listed.map((row) => [row.ItemNumber, row.LotNo ?? '', row.InventoryStatus, row.OnHand]).sort()).toEqual(
      expected.map(({ key, onHand }) => [key.itemId, key.lotNo, key.inventoryStatus, formatDecimal(onHand)]).sort(),
    );
    const postings = (await searchLedger(db, { ...identifiers, Paging: { PageSize: 1000 } })).results.data;
    expect(postings).toHaveLength(ledger.length);
    for (const row of listed) {
      const total = postings
        .filter(
          (p) => p.ItemNumber === row.ItemNumber && p.LotNo === row.LotNo && p.InventoryStatus === row.InventoryStatus && p.UOM === row.UOM,
        )
        .reduce((sum, p) => sum + parseDecimal(p.Qty), 0);
      expect(formatDecimal(total)).toBe(row.OnHand);
    }
  }

  it('keeps every balance equal to the sum of its ledger quantities, never negative, whatever the postings', async () => {
    let refusals = 0;
    let postings = 0;
    await fc.assert(
      fc.asyncProperty(stepsArb, async (steps) => {
        // A fresh customer per run, so that runs (and shrinking) do not see each other's stock.
        const tenant = await createTenant(db, clock);
        const model = new Map<number, number>();
        for (const [step, lines] of steps.entries()) {
          clock.advance(1);
          const accepted = applyToModel(model, lines);
          const outcome = await inTransaction(db, (trx) =>
            postStock(trx, {
              companyId: tenant.companyId,
              customerId: tenant.customerIds[0]!,
              facilityId: tenant.facilityIds[0]!,
              keyId: null,
              sourceType: 'adjustment',
              sourceId: `ADJ-${step}`,
              at: clock.now(),
              lines: lines.map(({ key, quantity }) => ({ ...KEYS[key]!, quantity: quantity as Scaled })),
            }),
          ).then(
            () => 'posted',
            (error: unknown) => {
              if (error instanceof Refusal && error.kind === 'conflict') return 'refused';
              throw error;
            },
          );
          postings++;
          if (outcome === 'refused') refusals++;
          expect(outcome, `step ${step}: ${JSON.stringify(lines)}`).toBe(accepted ? 'posted' : 'refused');
        }
        await check(tenant, model);
      }),
      { numRuns: 25 },
    );
    // The generator exercises both outcomes.
    expect(refusals).toBeGreaterThan(0);
    expect(refusals).toBeLessThan(postings);
  });
});
