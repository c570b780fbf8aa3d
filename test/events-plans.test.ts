import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import * as events from '../src/modules/events/events.repository.js';
import { sequenceEvents } from '../src/modules/events/events.service.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * The events are read in Sequence order by the webhook fan-out (after its cursor), by its check for
 * anything new (the highest Sequence) and by the events search (one customer's, after a Sequence).
 * Each must seek an index, whatever the number of events: on SQLite, where the Sequence is the row
 * id (migration 2026-11-29T1100), the table itself and the search index; on PostgreSQL the
 * Sequence's index, and for the search whichever index its planner finds cheaper. The sequencer's
 * search for unnumbered events seeks its own index on PostgreSQL and is not made on SQLite, which
 * has neither such events nor such an index.
 */

const EVENTS = 2000;

describeEachDialect('the events read in Sequence order', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const rows = Array.from({ length: EVENTS }, (_, i) => ({
      company_id: 'CO',
      event_id: `evt_${i + 1}`,
      type: 'item.created',
      customer_id: `CU${i % 10}`,
      facility_id: null,
      data: '{}',
      key_id: null,
      created_at: i,
    }));
    await events.insertEvents(database.db, rows);
    await sequenceEvents(database.db);
    await sql`analyze`.execute(database.db);
  });

  afterAll(() => database.destroy());

  const planOf = async (run: (db: Db) => Promise<unknown>) => {
    const [sent] = await sentBy(dialect, (db) => run(db).catch(() => undefined));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
    return rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
  };

  it('answers the events after a Sequence in order, and the highest Sequence', async () => {
    const after = await events.findNumberedAfter(database.db, EVENTS - 3, 10);
    expect(after.map((event) => [Number(event.sequence), event.customer_id])).toEqual([
      [EVENTS - 2, 'CU7'],
      [EVENTS - 1, 'CU8'],
      [EVENTS, 'CU9'],
    ]);
    expect(await events.findLastNumbered(database.db)).toBe(EVENTS);
  });

  it('seeks an index for the fan-out, the highest Sequence and the search, and sorts nothing', async () => {
    const fanOut = await planOf((db) => events.findNumberedAfter(db, EVENTS - 10, 100));
    const last = await planOf((db) => events.findLastNumbered(db));
    const search = await planOf((db) => events.pageEvents(db, { companyId: 'CO', customerId: 'CU3', afterSequence: EVENTS - 100 }, 0, 10));
    if (dialect === 'sqlite') {
      expect(fanOut).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>?)');
      expect(last).toBe('SEARCH events');
      expect(search).toBe('SEARCH events USING INDEX events_search_idx (company_id=? AND customer_id=? AND sequence>?)');
    } else {
      expect(fanOut).toContain('events_sequence_idx');
      expect(last).toContain('events_sequence_idx');
      for (const plan of [fanOut, last, search]) expect(plan).not.toMatch(/Seq Scan|Sort/);
    }
  });

  it('looks for unnumbered events only where they can be: on PostgreSQL in their own index, on SQLite not at all', async () => {
    const sent = await sentBy(dialect, (db) => events.findUnsequencedRange(db).catch(() => undefined));
    if (dialect === 'sqlite') {
      expect(sent).toEqual([]);
      expect(await events.findUnsequencedRange(database.db)).toBeUndefined();
    } else {
      const plan = await planOf((db) => events.findUnsequencedRange(db));
      expect(plan).toContain('events_unsequenced_idx');
      expect(plan).not.toMatch(/Seq Scan/);
    }
  });
});
