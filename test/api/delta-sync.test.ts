import { beforeAll, expect, it } from 'vitest';
import { formatWithOffset } from '../../src/http/time.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, expectOk, problems, type World } from '../helpers/factories.js';
import * as paths from '../helpers/paths.js';

/**
 * Delta sync (docs/webhooks.md): the item and inventory searches take UpdatedWhenFrom/To, so that a
 * customer's system reads only what changed since its last sync; a balance emptied in the window
 * is one of the changes.
 */

describeEachDialect('delta sync', (dialect) => {
  const ctx = useTestApp(dialect);
  let w: World;
  /** The instants of the two rounds of changes, as UpdatedWhen bounds (UTC offsets work as any). */
  let first: string;
  let second: string;

  const ids = () => ({ CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]!, FacilityID: w.tenant.facilityIds[0]! });
  const items = (list: Record<string, unknown>[]) =>
    expectOk(
      ctx().post(paths.ITEM_IMPORT, { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], Items: list }, w.customer),
    );
  const adjust = (adjustmentNo: string, lines: { ItemNumber: string; Qty: string }[]) =>
    expectOk(
      ctx().post(
        paths.ADJUST_QTY,
        { ...ids(), AdjustmentNo: adjustmentNo, Items: lines.map((line) => ({ ...line, UOM: 'EA' })) },
        w.operator,
      ),
    );

  beforeAll(async () => {
    w = await createWorld(ctx().database.db, ctx().clock);
    const { clock } = ctx();
    first = formatWithOffset(clock.now(), 'UTC');
    await items([{ itemID: 'IT-1' }, { itemID: 'IT-2' }]);
    await adjust('ADJ-1', [
      { ItemNumber: 'SKU-A', Qty: '5' },
      { ItemNumber: 'SKU-B', Qty: '3' },
    ]);
    clock.advance(60_000);
    second = formatWithOffset(clock.now(), 'America/New_York');
    await items([{ itemID: 'IT-1' }, { itemID: 'IT-2', itemDescription: 'Mug' }]);
    await adjust('ADJ-2', [{ ItemNumber: 'SKU-A', Qty: '-5' }]);
  });

  const itemIds = async (window: Record<string, string>) => {
    const answer = await expectOk(
      ctx().post(paths.ITEM_SEARCH, { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0], ...window }, w.customer),
    );
    const { results, paging } = answer.json();
    return { ids: results.data.map((item: { itemID: string }) => item.itemID), total: paging.totalCount };
  };

  it('reads the items created or changed in the window, inclusive', async () => {
    expect(await itemIds({})).toEqual({ ids: ['IT-1', 'IT-2'], total: 2 });
    expect(await itemIds({ UpdatedWhenFrom: second })).toEqual({ ids: ['IT-2'], total: 1 });
    expect(await itemIds({ UpdatedWhenTo: first })).toEqual({ ids: ['IT-1'], total: 1 });
    expect(await itemIds({ UpdatedWhenFrom: first, UpdatedWhenTo: second })).toEqual({ ids: ['IT-1', 'IT-2'], total: 2 });
  });

  it('reads the balances changed in the window, an emptied one included', async () => {
    const balances = async (window: Record<string, string>) => {
      const answer = await expectOk(ctx().post(paths.INVENTORY_SEARCH, { ...ids(), ...window }, w.customer));
      const { results, paging } = answer.json();
      return {
        rows: results.data.map((row: { ItemNumber: string; OnHand: string }) => [row.ItemNumber, row.OnHand]),
        total: paging.totalCount,
      };
    };
    // Without a window, the search shows stock on hand, as always.
    expect(await balances({})).toEqual({ rows: [['SKU-B', '3']], total: 1 });
    expect(await balances({ UpdatedWhenFrom: second })).toEqual({ rows: [['SKU-A', '0']], total: 1 });
    expect(await balances({ UpdatedWhenTo: first })).toEqual({ rows: [['SKU-B', '3']], total: 1 });
  });

  it('refuses a bound without its UTC offset, in the spec’s shape', async () => {
    const message = 'UpdatedWhenFrom must be an ISO 8601 date-time with a UTC offset such as 2024-03-05T14:07:09.123-08:00';
    for (const path of [paths.ITEM_SEARCH, paths.INVENTORY_SEARCH]) {
      const answer = await ctx().post(path, { ...ids(), UpdatedWhenFrom: '2026-03-05T14:07:09' }, w.customer);
      expect({ path, status: answer.statusCode, body: answer.json() }).toEqual({ path, status: 400, body: problems(message) });
    }
  });
});
