import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Trx } from '../src/db/database.js';
import { inTransaction } from '../src/db/transaction.js';
import { recordEvent, sequenceEvents, writeRecordedEvents } from '../src/modules/events/events.service.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * Sequences are given once and grow with the events' commits (docs/webhooks.md). On SQLite they are
 * given as the events are written, after the highest one given, and transactions that run together
 * share one commit as savepoints of it: a member that fails takes its events and their numbers
 * back, and the members after it number on from what is committed.
 */

describeEachDialect('event Sequences', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  /** A change that records one event and writes it; `fail` throws after the write. */
  const change = (n: number, fail = false) =>
    inTransaction(database.db, async (trx: Trx) => {
      recordEvent(trx, { type: 'item.created', data: { CompanyID: 'CO', CustomerID: 'CU', ItemID: `I-${n}` }, keyId: null, at: n });
      await writeRecordedEvents(trx);
      if (fail) throw new Error(`change ${n} fails after writing its event`);
      return n;
    });

  const numbered = async () => {
    await sequenceEvents(database.db);
    const rows = await database.db.selectFrom('events').select(['id', 'sequence', 'data']).orderBy('id').execute();
    return rows.map((row) => ({ item: (JSON.parse(row.data) as { ItemID: string }).ItemID, sequence: Number(row.sequence) }));
  };

  it('numbers the events of changes that run together once each, none for a change that fails, growing with their ids', async () => {
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => change(n, n === 3)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const events = await numbered();
    // On PostgreSQL the changes run on their own connections, so their ids follow whichever
    // inserted first; on SQLite they run one after another in the order they were started.
    const items = events.map((event) => event.item);
    expect([...items].sort()).toEqual(['I-1', 'I-2', 'I-4', 'I-5']);
    if (dialect === 'sqlite') expect(items).toEqual(['I-1', 'I-2', 'I-4', 'I-5']);
    const sequences = events.map((event) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect(new Set(sequences).size).toBe(4);
    // SQLite numbers as it writes, so the failed change's number is given again to the next one.
    if (dialect === 'sqlite') expect(sequences).toEqual([1, 2, 3, 4]);
  });

  it('numbers the events of one change one after another, across the inserts of more than a thousand', async () => {
    const before = Math.max(...(await numbered()).map((event) => event.sequence));
    await inTransaction(database.db, async (trx: Trx) => {
      for (let n = 0; n < 1002; n++)
        recordEvent(trx, { type: 'item.created', data: { CompanyID: 'CO', CustomerID: 'CU', ItemID: `M-${n}` }, keyId: null, at: n });
      await writeRecordedEvents(trx);
    });
    const many = (await numbered()).filter((event) => event.item.startsWith('M-'));
    expect(many.map((event) => event.item)).toEqual(Array.from({ length: 1002 }, (_, n) => `M-${n}`));
    expect(many.map((event) => event.sequence)).toEqual(Array.from({ length: 1002 }, (_, n) => before + 1 + n));
  });

  it('writes a payload of multi-byte text up to 20 KB, and refuses one beyond, writing nothing', async () => {
    // 'é' is one UTF-16 unit and two bytes: three bytes a unit would put both beyond the limit.
    const withText = (text: string) => (trx: Trx) => {
      recordEvent(trx, {
        type: 'item.created',
        data: { CompanyID: 'CO', CustomerID: 'CU', ItemID: 'WIDE', Note: text },
        keyId: null,
        at: 9,
      });
      return writeRecordedEvents(trx);
    };
    const count = async () =>
      Number(
        (
          await database.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    expect(await inTransaction(database.db, withText('é'.repeat(10_000)))).toBe(1);
    expect(await count()).toBe(before + 1);
    const beyond = inTransaction(database.db, withText('é'.repeat(10_200)));
    const bytes = Buffer.byteLength(JSON.stringify({ CompanyID: 'CO', CustomerID: 'CU', ItemID: 'WIDE', Note: 'é'.repeat(10_200) })) + 128;
    await expect(beyond).rejects.toThrow(`a item.created event of ${bytes} bytes is beyond the 20480-byte payload limit`);
    expect(await count()).toBe(before + 1);
  });

  it('numbers later changes after the highest Sequence given', async () => {
    const before = Math.max(...(await numbered()).map((event) => event.sequence));
    await change(6);
    await change(7);
    const later = (await numbered()).filter((event) => event.item === 'I-6' || event.item === 'I-7').map((event) => event.sequence);
    expect(later[0]).toBeGreaterThan(before);
    expect(later[1]).toBeGreaterThan(later[0]!);
    if (dialect === 'sqlite') expect(later).toEqual([before + 1, before + 2]);
  });
});
