import type { Insertable, Selectable } from 'kysely';
import { boundOnce, compiledOnce } from '../../db/compiled-queries.js';
import type { Db, Trx } from '../../db/database.js';
import { forUpdate, numbersEventsByRowId } from '../../db/dialect.js';
import { writeRowsLater } from '../../db/trailing-writes.js';
import type { EventTable } from './events.tables.js';

/** All SQL of the outbox: writing events, numbering them, and reading them back. */

export type EventRow = Selectable<EventTable>;
/** An event to write: its Sequence is its row id (SQLite) or given later by the sequencer (PostgreSQL). */
export type NewEventRow = Omit<Insertable<EventTable>, 'sequence'>;

/** Rows per insert: 8 parameters a row keeps the largest far below either database's limit. */
export const EVENT_INSERT_CHUNK = 1000;

const insertEventsQuery = boundOnce((db: Db, { rows }: { rows: NewEventRow[] }) => db.insertInto('events').values(rows));

/** The inserts of events, in order, in as many statements as chunks of EVENT_INSERT_CHUNK. */
const insertEventsStatements = (db: Db, rows: NewEventRow[]) => {
  const statements = [];
  for (let start = 0; start < rows.length; start += EVENT_INSERT_CHUNK) {
    statements.push(insertEventsQuery(db, { rows: rows.slice(start, start + EVENT_INSERT_CHUNK) }));
  }
  return statements;
};

/**
 * Inserts events in order. Nothing later in the transaction reads them, so they are written late
 * (db/trailing-writes.ts): on SQLite with the commit, together with the events of every transaction
 * that shares it; on PostgreSQL sent without waiting for the answer.
 */
export async function insertEvents(db: Db, rows: NewEventRow[]): Promise<void> {
  await writeRowsLater(db, insertEventsStatements, rows);
}

/**
 * The column whose index orders the events by Sequence: on SQLite the row id, which the Sequence
 * is (`sequence` reads it but has no index of its own), elsewhere the Sequence's own.
 */
const sequenceOrder = (db: Db) => (numbersEventsByRowId(db) ? 'id' : 'sequence');

const lockLastSequenceQuery = compiledOnce((trx: Db, _: object) =>
  forUpdate(trx, trx.selectFrom('event_sequencer').select('last_sequence').where('id', '=', 1)),
);

/** The last Sequence given, locked until the transaction ends: sequencers take turns on it. */
export async function lockLastSequence(trx: Trx): Promise<number> {
  const { rows } = await lockLastSequenceQuery(trx, {});
  return Number(rows[0]!.last_sequence);
}

/**
 * The lowest and highest id of the events without a Sequence that this transaction sees. None where
 * the Sequence is the row id: the column is never null there, and has no index to find it by.
 */
export async function findUnsequencedRange(db: Db): Promise<{ first: number; last: number } | undefined> {
  if (numbersEventsByRowId(db)) return undefined;
  const row = await db
    .selectFrom('events')
    .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
    .where('sequence', 'is', null)
    .executeTakeFirstOrThrow();
  return row.first === null || row.last === null ? undefined : { first: Number(row.first), last: Number(row.last) };
}

/**
 * Numbers the unnumbered events with ids from `first` to `last`: each gets `base + (id − first)`,
 * so that numbers follow ids and never repeat. An event of that range still uncommitted is not
 * seen, keeps no number, and gets a higher one later.
 */
export async function numberEvents(trx: Trx, range: { first: number; last: number; base: number }): Promise<number> {
  const result = await trx
    .updateTable('events')
    .set((eb) => ({ sequence: eb(eb.val(range.base), '+', eb(eb.ref('id'), '-', range.first)) }))
    .where('sequence', 'is', null)
    .where('id', '>=', range.first)
    .where('id', '<=', range.last)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const setLastSequenceQuery = compiledOnce((trx: Db, { lastSequence }: { lastSequence: number }) =>
  trx.updateTable('event_sequencer').set({ last_sequence: lastSequence }).where('id', '=', 1),
);

export async function setLastSequence(trx: Trx, lastSequence: number): Promise<void> {
  await setLastSequenceQuery(trx, { lastSequence });
}

export interface EventFilter {
  companyId: string;
  customerId: string;
  /** Only these facilities' events, and events of no facility (absent: every facility). */
  facilityIds?: string[];
  types?: string[];
  afterSequence?: number;
  createdFrom?: number;
  createdTo?: number;
}

function filtered(db: Db, filter: EventFilter) {
  return db
    .selectFrom('events')
    .where('company_id', '=', filter.companyId)
    .where('customer_id', '=', filter.customerId)
    .where('sequence', 'is not', null)
    .$if(filter.facilityIds !== undefined, (q) =>
      q.where((eb) => eb.or([eb('facility_id', 'in', filter.facilityIds!), eb('facility_id', 'is', null)])),
    )
    .$if(filter.types !== undefined, (q) => q.where('type', 'in', filter.types!))
    .$if(filter.afterSequence !== undefined, (q) => q.where('sequence', '>', filter.afterSequence!))
    .$if(filter.createdFrom !== undefined, (q) => q.where('created_at', '>=', filter.createdFrom!))
    .$if(filter.createdTo !== undefined, (q) => q.where('created_at', '<=', filter.createdTo!));
}

export async function countEvents(db: Db, filter: EventFilter): Promise<number> {
  const { count } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** In Sequence order: the order receivers apply events in. */
export async function pageEvents(db: Db, filter: EventFilter, offset: number, limit: number): Promise<EventRow[]> {
  return filtered(db, filter).selectAll().orderBy('sequence').limit(limit).offset(offset).execute();
}

/** What fan-out needs of an event: whose it is (its facility too) and what type. */
export type NumberedEventRow = Pick<EventRow, 'id' | 'company_id' | 'customer_id' | 'facility_id' | 'type' | 'created_at'> & {
  sequence: number;
};

/** Numbered events after `sequence`, in Sequence order, at most `limit`. */
export async function findNumberedAfter(db: Db, sequence: number, limit: number): Promise<NumberedEventRow[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'company_id', 'customer_id', 'facility_id', 'type', 'sequence', 'created_at'])
    .where(sequenceOrder(db), '>', sequence)
    .orderBy(sequenceOrder(db))
    .limit(limit)
    .execute();
  return rows as NumberedEventRow[];
}

/** Events by key; the company ids let PostgreSQL find each row by its primary key. */
export async function findEventsByKeys(db: Db, keys: { companyId: string; id: number }[]): Promise<EventRow[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('events')
    .selectAll()
    .where('company_id', 'in', [...new Set(keys.map((key) => key.companyId))])
    .where('id', 'in', [...new Set(keys.map((key) => key.id))])
    .execute();
}

const findLastNumberedQuery = compiledOnce((db: Db, _: object) =>
  db
    .selectFrom('events')
    .select((eb) => eb.fn.max(sequenceOrder(db)).as('last'))
    .$if(!numbersEventsByRowId(db), (q) => q.where('sequence', 'is not', null)),
);

/** The highest Sequence given and visible, or 0: one seek to the end of the row ids or of events_sequence_idx. */
export async function findLastNumbered(db: Db): Promise<number> {
  const last = (await findLastNumberedQuery(db, {})).rows[0]!.last;
  return last === null ? 0 : Number(last);
}

/**
 * The numbered events below `belowSequence`, the lowest Sequence first, at most `limit`: their
 * Sequences and times. Read in Sequence order (the row ids on SQLite, events_sequence_idx
 * elsewhere) without a condition on the time, which the planner could not know goes with the
 * Sequence: the events older than a retention are the first ones, and the events table needs no
 * index of its times.
 */
export async function findFirstNumbered(db: Db, belowSequence: number, limit: number): Promise<{ sequence: number; created_at: number }[]> {
  const order = sequenceOrder(db);
  const rows = await db
    .selectFrom('events')
    .select([`${order} as sequence`, 'created_at'])
    .$if(!numbersEventsByRowId(db), (q) => q.where('sequence', 'is not', null))
    .where(order, '<', belowSequence)
    .orderBy(order)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ sequence: Number(row.sequence), created_at: Number(row.created_at) }));
}

/** Deletes the numbered events from Sequence `first` to `last`, a range of the Sequence's index; answers how many. */
export async function deleteNumbered(trx: Trx, { first, last }: { first: number; last: number }): Promise<number> {
  const order = sequenceOrder(trx);
  const result = await trx
    .deleteFrom('events')
    .$if(!numbersEventsByRowId(trx), (q) => q.where('sequence', 'is not', null))
    .where(order, '>=', first)
    .where(order, '<=', last)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
