import { readFileSync } from 'node:fs';
import { SelectQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLE_RATE_CARD } from '../src/demo.js';
import { createRater, loadRateCard } from '../src/modules/rating/rating.service.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * The rate engine keeps compiled cards in memory bounded by the size of their text, not by their
 * number: a card larger than all that may be kept is compiled again for each choice, never kept.
 */

const EXAMPLE_TEXT = readFileSync(EXAMPLE_RATE_CARD, 'utf8');
const RATER = { keyId: 1, role: 'rater' as const, companyId: 'CARDS', customerIds: [], facilityIds: [], userIds: [1001], rateLimit: null };
const REQUEST = { UserID: 1001, Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' } };

/** Counts the reads of a whole card (`select *` from rate_cards); the choice of a version reads only its columns. */
function countCardReads(): { plugin: KyselyPlugin; reads: () => number } {
  let reads = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      if (
        SelectQueryNode.is(node) &&
        JSON.stringify(node.from).includes('"rate_cards"') &&
        node.selections?.some((selection) => selection.selection.kind === 'SelectAllNode')
      ) {
        reads += 1;
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { plugin, reads: () => reads };
}

describeEachDialect('compiled rate cards kept in memory, in', (dialect) => {
  let database: TestDatabase;
  const clock = new TestClock();
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await tenants.addCompany(database.db, clock, { companyId: 'CARDS' });
    await loadRateCard(database.db, clock, { companyId: 'CARDS', text: EXAMPLE_TEXT });
  });
  afterAll(async () => {
    await database.destroy();
  });

  /** Two quotes, the choice of card forgotten between them (it is kept for a second). */
  async function twoQuotes(keptCardText?: number) {
    const counting = countCardReads();
    const rater = createRater(database.db.withPlugin(counting.plugin), clock, keptCardText);
    const first = await rater.quote(RATER, REQUEST);
    clock.advance(2000);
    const second = await rater.quote(RATER, REQUEST);
    return { prices: [first.Result, second.Result], cardReads: counting.reads() };
  }

  it('reads and compiles a card once while it fits, and for every choice when it is larger than all that may be kept', async () => {
    const kept = await twoQuotes();
    const tooLarge = await twoQuotes(EXAMPLE_TEXT.length / 4);
    expect(kept.prices[0]).toEqual([
      { name: 'Economy', Price: expect.any(String) },
      { name: 'Ground', Price: expect.any(String) },
    ]);
    expect(tooLarge.prices).toEqual(kept.prices);
    expect(kept.prices[1]).toEqual(kept.prices[0]);
    expect({ kept: kept.cardReads, tooLarge: tooLarge.cardReads }).toEqual({ kept: 1, tooLarge: 2 });
  });
});
