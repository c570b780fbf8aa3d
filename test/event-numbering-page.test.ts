import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as events from '../src/modules/events/events.repository.js';
import { sequenceEvents } from '../src/modules/events/events.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';

/**
 * On PostgreSQL the sequencer numbers every committed event with an update of its row. The update
 * cannot be HOT (the Sequence is indexed), but a new version that fits on its old one's page is
 * logged as the bytes that changed, where one on another page carries the whole row, payload and
 * all, into the WAL a second time. The events' pages keep that room (migration 2026-11-30T0900):
 * every numbered event is still on the page it was inserted on. (SQLite numbers an event as it is
 * written; there is no second write to place.)
 */

const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;

/** About the size of a DN import's inventory.changed: five balances. */
const PAYLOAD = JSON.stringify({ CompanyID: 'CO', CustomerID: 'CU', FacilityID: 'F1', Balances: 'x'.repeat(1000) });
const EVENTS = 60;

describe.skipIf(!postgresEnabled)('the sequencer’s update of an event [postgres]', () => {
  let database: TestDatabase;

  /** Each event's page, by id. */
  const pagesOf = async () => {
    const { rows } = await sql<{ id: number; page: string }>`select id, split_part(trim(both '()' from ctid::text), ',', 1) as page
      from events order by id`.execute(database.db);
    return rows.map((row) => [Number(row.id), Number(row.page)]);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One change's events at a time, as imports write them.
    for (let n = 0; n < EVENTS; n++) {
      await events.insertEvents(database.db, [
        {
          company_id: 'CO',
          event_id: `evt_${n}`,
          type: 'inventory.changed',
          customer_id: 'CU',
          facility_id: 'F1',
          data: PAYLOAD,
          key_id: null,
          created_at: n,
        },
      ]);
    }
  });

  afterAll(() => database.destroy());

  it('numbers each event on the page it was inserted on', async () => {
    const inserted = await pagesOf();
    // The events take several pages: the test would see an update move to another.
    expect(new Set(inserted.map(([, page]) => page)).size).toBeGreaterThan(3);
    expect(await sequenceEvents(database.db)).toBe(EVENTS);
    expect(await pagesOf()).toEqual(inserted);
    const numbered = await database.db.selectFrom('events').select('sequence').orderBy('id').execute();
    expect(numbered.map((row) => Number(row.sequence))).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
  });
});
