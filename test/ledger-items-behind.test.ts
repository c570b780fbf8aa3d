import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import { indexesLedgerItemsBehind } from '../src/db/dialect.js';
import type { PagePosition } from '../src/db/keyset.js';
import * as repo from '../src/modules/inventory/inquiry.repository.js';
import type { NewLedgerRow } from '../src/modules/inventory/inventory.repository.js';
import { catchUpLedgerItems, LEDGER_ITEMS_BATCH } from '../src/modules/inventory/ledger-items.js';
import { TestClock, useTestApp } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, DIALECTS, type TestDatabase } from './helpers/dialects.js';
import { createKey, createTenant, expectOk, importItems, stock, type Tenant } from './helpers/factories.js';
import { insertLedgerRows, ledgerRow } from './helpers/ledger.js';
import { LEDGER_SEARCH } from './helpers/paths.js';

/**
 * On SQLite the ledger's item index is a table filled behind the writes (migration
 * 2026-11-29T1000, src/modules/inventory/ledger-items.ts): an item search reads that table up to
 * its mark and the ledger after it. Whatever the mark, it must find exactly the postings the
 * ledger holds, in the search's order, and the postings must catch the table up as they go.
 */

/** A small generator of its own, so that a failure replays. */
function numbers(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

describeEachDialect('the ledger search by item, whatever the item index holds', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;
  /** Every row written, with its id, in id order: what the searches are checked against. */
  const written: (NewLedgerRow & { id: number })[] = [];
  const random = numbers(7);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.db, new TestClock(), { customers: 2, facilities: 2 });
  });
  afterAll(async () => {
    await database?.destroy();
  });

  /** Writes `count` postings straight into the ledger: few items, two customers and lots, times that sometimes go back. */
  async function post(count: number) {
    const rows = Array.from({ length: count }, () =>
      ledgerRow({
        company_id: tenant.companyId,
        customer_id: tenant.customerIds[random(2)]!,
        facility_id: tenant.facilityIds[random(2)]!,
        item_id: `I${random(4)}`,
        lot_no: random(2) === 0 ? '' : 'L1',
        source_id: `A-${written.length}`,
        // Ties and a clock that steps back: the order is the time's, then the id's, never the id's alone.
        created_at: 1_700_000_000_000 + random(20) * 1000,
      }),
    );
    const ids = await insertLedgerRows(database.db, rows);
    rows.forEach((row, i) => written.push({ ...row, id: ids[i]! }));
  }

  const filters = (): repo.LedgerSearchFilter[] => {
    const base = { companyId: tenant.companyId, facilityId: tenant.facilityIds[0]! };
    return [
      { ...base, itemId: 'I1' },
      { ...base, itemId: 'I2', customerId: tenant.customerIds[1]! },
      { ...base, itemId: 'I3', lotNo: 'L1' },
      { ...base, itemId: 'I0', createdFrom: 1_700_000_005_000, createdTo: 1_700_000_012_000 },
      { ...base, itemId: 'NONE' },
    ];
  };

  const expected = (filter: repo.LedgerSearchFilter) =>
    written
      .filter(
        (row) =>
          row.facility_id === filter.facilityId &&
          row.item_id === filter.itemId &&
          (filter.customerId === undefined || row.customer_id === filter.customerId) &&
          (filter.lotNo === undefined || row.lot_no === filter.lotNo) &&
          (filter.createdFrom === undefined || row.created_at >= filter.createdFrom) &&
          (filter.createdTo === undefined || row.created_at <= filter.createdTo),
      )
      .sort((a, b) => a.created_at - b.created_at || a.id - b.id)
      .map((row) => `${row.id}@${row.created_at}`);

  /**
   * Every filter's count and its pages of 7 are the ledger's rows, in order: by offset, and after
   * each page's last row (a cursor), whose place the count up to its time and id gives.
   */
  async function expectSearchesFindTheLedger(db: Db) {
    for (const filter of filters()) {
      const rows = expected(filter);
      expect(await repo.countLedger(db, filter), JSON.stringify(filter)).toBe(rows.length);
      const found: string[] = [];
      for (let offset = 0; offset <= rows.length; offset += 7) {
        found.push(...(await repo.pageLedger(db, filter, { offset, limit: 7 })).map((row) => `${row.id}@${row.created_at}`));
      }
      expect(found, JSON.stringify(filter)).toEqual(rows);
      const byCursor: string[] = [];
      for (let after: PagePosition | undefined; ; ) {
        const page = await repo.pageLedger(db, filter, { offset: 0, limit: 7, after });
        if (page.length === 0) break;
        byCursor.push(...page.map((row) => `${row.id}@${row.created_at}`));
        const last = page.at(-1)!;
        after = { at: last.created_at, tie: last.id };
        // The cursor's place: the rows before its time, and those at its time up to its id.
        const before = await repo.countLedger(db, { ...filter, createdTo: last.created_at - 1 });
        const through = await repo.countLedger(db, {
          ...filter,
          createdFrom: last.created_at,
          createdTo: last.created_at,
          idThrough: last.id,
        });
        expect(before + through, JSON.stringify(filter)).toBe(byCursor.length);
      }
      expect(byCursor, JSON.stringify(filter)).toEqual(rows);
    }
  }

  it('finds every posting when the index holds none, some, or all of them', async () => {
    await post(120);
    await expectSearchesFindTheLedger(database.db);
    expect(await catchUpLedgerItems(database.db)).toBe(indexesLedgerItemsBehind(database.db) ? 120 : 0);
    await expectSearchesFindTheLedger(database.db);
    await post(90);
    await expectSearchesFindTheLedger(database.db);
    expect(await catchUpLedgerItems(database.db)).toBe(indexesLedgerItemsBehind(database.db) ? 90 : 0);
    expect(await catchUpLedgerItems(database.db)).toBe(0);
    await post(40);
    await expectSearchesFindTheLedger(database.db);
  });

  if (dialect === 'sqlite') {
    it('holds each posting up to the mark once, with the ledger row’s own keys and time', async () => {
      const mark = await database.db.selectFrom('inventory_ledger_items_mark').selectAll().execute();
      expect(mark).toEqual([{ id: 1, last_ledger_id: 210 }]);
      const items = await database.db.selectFrom('inventory_ledger_items').selectAll().orderBy('ledger_id').execute();
      expect(items).toEqual(
        written
          .filter((row) => row.id <= 210)
          .map((row) => ({
            company_id: row.company_id,
            facility_id: row.facility_id,
            item_id: row.item_id,
            created_at: row.created_at,
            ledger_id: row.id,
          })),
      );
    });
  }
});

describeEachDialect('postings catch the item index up', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let operatorKey: string;
  const ITEMS = ['MUG', 'LAMP', 'CUP', 'BOWL'];

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    const customerKey = await createKey(database.db, clock, tenant, 'customer');
    await importItems(ctx(), { tenant, key: customerKey, items: ITEMS });
  });

  it('copies the rows past the mark once a batch has been posted, and the search finds every posting', async () => {
    // Postings of 500 lines: four items in 125 lots, one of each.
    const LOTS = 125;
    const lines = ITEMS.flatMap((item) => Array.from({ length: LOTS }, (_, lot) => ({ ItemNumber: item, LotNo: `L${lot}`, Qty: '1' })));
    const postings = LEDGER_ITEMS_BATCH / lines.length + 1;
    for (let n = 0; n < postings; n++) {
      ctx().clock.time += 1000;
      await stock(ctx(), { tenant, items: lines });
    }
    const { db } = ctx().database;
    if (indexesLedgerItemsBehind(db)) {
      // The posting that brought the rows after the mark to a batch copied them all; the last one's wait.
      const mark = await db.selectFrom('inventory_ledger_items_mark').selectAll().execute();
      expect(mark).toEqual([{ id: 1, last_ledger_id: LEDGER_ITEMS_BATCH }]);
      const { count } = await db
        .selectFrom('inventory_ledger_items')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(count)).toBe(LEDGER_ITEMS_BATCH);
    }
    const search = (body: Record<string, unknown>) =>
      expectOk(ctx().post(LEDGER_SEARCH, { CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0], ...body }, operatorKey));
    const lot = (await search({ ItemNumber: 'CUP', LotNo: 'L7', Paging: { PageSize: 100 } })).json();
    expect(lot.paging.totalCount).toBe(postings);
    expect(lot.results.data.map((row: { OnHandAfter: string; SourceType: string }) => [row.OnHandAfter, row.SourceType])).toEqual(
      Array.from({ length: postings }, (_, n) => [String(n + 1), 'adjustment']),
    );
    const item = (await search({ ItemNumber: 'BOWL', Paging: { PageSize: 1 } })).json();
    expect(item.paging.totalCount).toBe(postings * LOTS);
  });
});

describe.skipIf(!DIALECTS.find(({ name }) => name === 'sqlite')!.enabled)('a process that opens the database again [sqlite]', () => {
  const ctx = useTestApp('sqlite');

  it('counts the rows it finds after the mark at its first posting, then the rows it posts', async () => {
    const { database, clock } = ctx();
    const tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    const customerKey = await createKey(database.db, clock, tenant, 'customer');
    await importItems(ctx(), { tenant, key: customerKey, items: ['MUG'] });
    // What an earlier process posted and left short of a batch.
    const left = LEDGER_ITEMS_BATCH - 2;
    const earlier = Array.from({ length: left }, (_, n) =>
      ledgerRow({
        company_id: tenant.companyId,
        customer_id: tenant.customerIds[0]!,
        facility_id: tenant.facilityIds[0]!,
        item_id: 'MUG',
        source_id: `EARLIER-${n}`,
        created_at: clock.now(),
      }),
    );
    await insertLedgerRows(database.db, earlier);
    const lastMarked = async () =>
      (await database.db.selectFrom('inventory_ledger_items_mark').select('last_ledger_id').executeTakeFirstOrThrow()).last_ledger_id;

    const reopened = connectDatabase(database.url, { poolSize: 1 });
    try {
      const next = { ...ctx(), database: { ...database, db: reopened } };
      const postOne = () => stock(next, { tenant, items: [{ ItemNumber: 'MUG', Qty: '1' }] });
      await postOne();
      expect(await lastMarked()).toBe(0);
      await postOne();
      expect(await lastMarked()).toBe(LEDGER_ITEMS_BATCH);
    } finally {
      await reopened.destroy();
    }
  });
});
