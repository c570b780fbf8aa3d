import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { insertEvents } from '../src/modules/events/events.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * On SQLite an event's Sequence became its row id (migration 2026-11-29T1100). Every event keeps its
 * Sequence; one an older build left unnumbered gets the next, as the sequencer would have given it;
 * each row's id becomes its Sequence and the deliveries follow their events; the next event is
 * numbered after the highest; and the down step puts back the ids, the counter and the indexes.
 * PostgreSQL is left as it was.
 */

const MIGRATION = '2026-11-29T1100-events-by-row-id';
const BEFORE = migrationBefore(MIGRATION);

describeEachDialect('the events-by-row-id migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);

  const event = (type: string) => ({
    company_id: 'CO',
    event_id: `evt_${type}`,
    type,
    customer_id: 'CU',
    facility_id: null,
    data: `{"Name":"${type}"}`,
    key_id: null,
    created_at: 1,
  });
  const events = async () =>
    (await database.db.selectFrom('events').select(['id', 'sequence', 'type']).orderBy('id').execute()).map((row) => ({
      id: Number(row.id),
      sequence: row.sequence === null ? null : Number(row.sequence),
      type: row.type,
    }));
  const deliveries = async () =>
    (await database.db.selectFrom('webhook_deliveries').select(['delivery_id', 'event_id']).orderBy('delivery_id').execute()).map(
      (row) => ({
        ...row,
        event_id: Number(row.event_id),
      }),
    );
  const delivery = (deliveryId: string, eventId: number, sequence: number) => ({
    company_id: 'CO',
    delivery_id: deliveryId,
    endpoint_id: 1,
    event_id: eventId,
    event_type: 'x',
    sequence,
    status: 'Pending',
    attempt_count: 0,
    retry_step: 0,
    next_attempt_at: 1,
    leased_until: null,
    created_at: 1,
    updated_at: 1,
  });
  const indexes = async (): Promise<string[]> => {
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{ name: string }>`
            select name from sqlite_master where type = 'index' and tbl_name = 'events' and sql is not null order by name`.execute(
            database.db,
          )
        : await sql<{ name: string }>`
            select indexname as name from pg_indexes where tablename = 'events' and indexname <> 'events_pk' order by indexname`.execute(
            database.db,
          );
    return rows.map((row) => row.name);
  };
  const OLD_INDEXES = ['events_search_idx', 'events_sequence_idx', 'events_unsequenced_idx'];

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    // Rows as the older builds could leave them: numbered in another order than their ids, and one
    // not numbered at all (SQLite before its events were numbered as written).
    const sequences: Record<string, number | null> = { a: 1, b: null, c: 3, d: 2 };
    for (const [index, type] of ['a', 'b', 'c', 'd'].entries()) {
      const row = { ...event(type), sequence: sequences[type] };
      await database.db
        .insertInto('events')
        .values(dialect === 'sqlite' ? { ...row, id: index + 1 } : row)
        .execute();
    }
    const ids = Object.fromEntries((await events()).map((row) => [row.type, row.id]));
    await database.db
      .insertInto('webhook_deliveries')
      .values([delivery('dlv_b', ids.b!, 4), delivery('dlv_d', ids.d!, 2)])
      .execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('makes each event row id its Sequence on SQLite, the unnumbered one after the highest, and moves the deliveries with them', async () => {
    const before = await events();
    const deliveriesBefore = await deliveries();
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    if (dialect === 'postgres') {
      expect(await events()).toEqual(before);
      expect(await deliveries()).toEqual(deliveriesBefore);
      expect(await indexes()).toEqual(OLD_INDEXES);
      return;
    }
    expect(await events()).toEqual([
      { id: 1, sequence: 1, type: 'a' },
      { id: 2, sequence: 2, type: 'd' },
      { id: 3, sequence: 3, type: 'c' },
      { id: 4, sequence: 4, type: 'b' },
    ]);
    expect(await deliveries()).toEqual([
      { delivery_id: 'dlv_b', event_id: 4 },
      { delivery_id: 'dlv_d', event_id: 2 },
    ]);
    expect(await indexes()).toEqual(['events_search_idx']);
  });

  it('numbers the next event after the highest Sequence as it is written (SQLite)', async () => {
    await insertEvents(database.db, [event('e'), event('f')]);
    const written = (await events()).filter((row) => row.type === 'e' || row.type === 'f');
    if (dialect === 'postgres') expect(written.map((row) => row.sequence)).toEqual([null, null]);
    else
      expect(written).toEqual([
        { id: 5, sequence: 5, type: 'e' },
        { id: 6, sequence: 6, type: 'f' },
      ]);
  });

  it('goes back down to a Sequence column of its own, keeping ids, Sequences and the counter', async () => {
    const before = await events();
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    expect(await events()).toEqual(before);
    expect(await indexes()).toEqual(OLD_INDEXES);
    await database.db
      .insertInto('events')
      .values({ ...event('g'), sequence: null })
      .execute();
    const [last] = (await events()).slice(-1);
    expect(last).toEqual({ id: before.at(-1)!.id + 1, sequence: null, type: 'g' });
  });
});
