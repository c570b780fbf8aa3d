import type { Db, Trx } from '../../db/database.js';
import { nextSortableId } from '../../lib/ids.js';
import { purgeInBatches, type PurgeBatches, type Purged } from '../../db/purge.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal } from '../../http/auth.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import { offsetWindow } from '../../http/time.js';
import { presentEvent, webhookPayloadOf } from './events.present.js';
import * as repo from './events.repository.js';
import type { EventSearchRequest, EventSearchResult, EventType } from './events.schemas.js';

/**
 * Events (docs/webhooks.md): what every change tells subscribers, written to the outbox in the change's
 * own transaction, numbered once committed, and read back by the events search (the pull
 * fallback of webhooks). A module records its events as it changes things; runCommand writes what
 * the transaction recorded, in one statement, just before it commits.
 */

/** Whose an event is, first in its data: the company, the customer and, for a document or stock, the facility. */
export interface EventData {
  CompanyID: string;
  CustomerID: string;
  FacilityID?: string;
  [key: string]: unknown;
}

export interface NewEvent {
  type: EventType;
  data: EventData;
  /** `data` as JSON, when its maker already wrote it so (to size it): not written twice. */
  json?: string;
  /** The API key whose request made the change (null for the CLI). */
  keyId: number | null;
  at: number;
}

/** docs/webhooks.md: a payload (type, timestamp, data with its Sequence) stays within 20 KB. */
export const MAX_PAYLOAD_BYTES = 20 * 1024;

/**
 * What a payload adds to its data, at most: `{"type":…,"timestamp":…,"data":{…,"Sequence":…}}` with
 * a type of up to 30 characters, a 24-character time and a Sequence of up to 16 digits (115 bytes).
 */
const ENVELOPE_BYTES = 128;

/**
 * Whether `text` takes at most `max` bytes of UTF-8. A UTF-16 code unit takes at most three, so
 * most payloads, far below the limit, are answered by their length without being encoded.
 */
export function utf8LengthAtMost(text: string, max: number): boolean {
  return text.length * 3 <= max || Buffer.byteLength(text) <= max;
}

/** Events recorded by each open transaction, not yet written (a retry is a new transaction). */
const recorded = new WeakMap<Trx, NewEvent[]>();

/** Records an event of the transaction's change; runCommand writes it before the commit. */
export function recordEvent(trx: Trx, event: NewEvent): void {
  const events = recorded.get(trx);
  if (events) events.push(event);
  else recorded.set(trx, [event]);
}

/** What the transaction has recorded so far and not yet written: what a change's later steps react to. */
export function recordedEvents(trx: Trx): readonly NewEvent[] {
  return recorded.get(trx) ?? [];
}

/**
 * Writes the events the transaction recorded, in the order recorded, as a late write of its
 * transaction (repo.insertEvents); answers how many. A payload beyond 20 KB is a bug of the module
 * that made it: the change fails rather than a receiver getting what it cannot take.
 *
 * Where writers take turns (SQLite), the events go in with the commit, after those of the
 * transactions that ended before in the same commit, and an event's Sequence is the row id the
 * insert gives it, one above the highest: nothing else writes meanwhile, so no lower one can be
 * committed after it, and the sequencer's second write of every event is not needed. (A
 * transaction that rolls back never wrote its events. A purge of old events must keep the newest,
 * or Sequences would start again.) Elsewhere the sequencer numbers them once committed.
 */
export async function writeRecordedEvents(trx: Trx): Promise<number> {
  const events = recorded.get(trx);
  if (!events) return 0;
  recorded.delete(trx);
  const rows = events.map(
    ({ type, data, json, keyId, at }): repo.NewEventRow => ({
      company_id: data.CompanyID,
      event_id: `evt_${nextSortableId(at)}`,
      type,
      customer_id: data.CustomerID,
      facility_id: data.FacilityID ?? null,
      data: json ?? JSON.stringify(data),
      key_id: keyId,
      created_at: at,
    }),
  );
  for (const row of rows) {
    if (!utf8LengthAtMost(row.data, MAX_PAYLOAD_BYTES - ENVELOPE_BYTES)) {
      const size = Buffer.byteLength(row.data) + ENVELOPE_BYTES;
      throw new Error(`a ${row.type} event of ${size} bytes is beyond the ${MAX_PAYLOAD_BYTES}-byte payload limit`);
    }
  }
  await repo.insertEvents(trx, rows);
  return rows.length;
}

/** Who wants to know at once that this process committed events (its webhook dispatcher). */
const committedListeners = new Set<() => void>();

/** Calls `listener` after every commit of this process that wrote events; answers how to stop. */
export function onEventsCommitted(listener: () => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}

/** Tells the listeners that events were committed (runCommand, after the commit). */
export function tellEventsCommitted(): void {
  for (const listener of committedListeners) listener();
}

/** Events numbered per transaction of the sequencer. */
const SEQUENCE_BATCH = 10_000;

/** Whether committed events wait for their Sequence: one read of a small index, no lock (none on SQLite). */
export async function hasUnsequencedEvents(db: Db): Promise<boolean> {
  return (await repo.findUnsequencedRange(db)) !== undefined;
}

/**
 * Numbers, in the caller's transaction, committed events that have no Sequence yet, in id order,
 * after the last Sequence given: up to SEQUENCE_BATCH ids' worth; `more` when some were left for
 * the next. Sequencers take turns on one row, so a Sequence is given only once and only to an event
 * already visible: a reader that saw Sequence n will never find a newer event numbered below n.
 */
export async function sequenceEventsIn(trx: Trx): Promise<{ numbered: number; more: boolean }> {
  const lastSequence = await repo.lockLastSequence(trx);
  const range = await repo.findUnsequencedRange(trx);
  if (!range) return { numbered: 0, more: false };
  const last = Math.min(range.last, range.first + SEQUENCE_BATCH - 1);
  const numbered = await repo.numberEvents(trx, { first: range.first, last, base: lastSequence + 1 });
  await repo.setLastSequence(trx, lastSequence + 1 + (last - range.first));
  return { numbered, more: last < range.last };
}

/** Numbers every committed event still without a Sequence (the events search, before it reads); answers how many. */
export async function sequenceEvents(db: Db): Promise<number> {
  // Most calls find nothing to number: they read one small index and take no lock.
  if (!(await hasUnsequencedEvents(db))) return 0;
  let numbered = 0;
  for (;;) {
    const done = await inTransaction(db, (trx) => sequenceEventsIn(trx));
    numbered += done.numbered;
    if (!done.more) return numbered;
  }
}

/**
 * Purges, in batches, the events made before `cutoff` (docs/webhooks.md, "Retention"), in Sequence
 * order up to the first one made since (an older one after it waits for the next pass: PostgreSQL
 * numbers events as they commit, not as they were made). It keeps every event from `heldFrom` on
 * (what the webhooks still need: the caller asks them) and always the newest: on SQLite a new
 * event's Sequence is one above the highest row id left, so deleting the newest would give its
 * Sequence again. An event without its Sequence yet (PostgreSQL) is never purged, and the
 * sequencer's count is left alone, so numbering goes on from where it was.
 */
export function purgeEventsBefore(db: Db, cutoff: number, batches: PurgeBatches, heldFrom = Infinity): Promise<Purged> {
  return purgeInBatches(db, batches, async (trx, limit) => {
    const newest = await repo.findLastNumbered(trx);
    const first = await repo.findFirstNumbered(trx, Math.min(heldFrom, newest), limit);
    // Up to the first made since the cutoff: the events go in Sequence order, the oldest first.
    const young = first.findIndex((event) => event.created_at >= cutoff);
    const purgeable = young === -1 ? first : first.slice(0, young);
    if (purgeable.length === 0) return 0;
    return repo.deleteNumbered(trx, { first: purgeable[0]!.sequence, last: purgeable.at(-1)!.sequence });
  });
}

export type NumberedEvent = repo.NumberedEventRow;

/** The highest Sequence visible (0 before the first): whether a fan-out has anything to read. */
export function findLastNumbered(db: Db): Promise<number> {
  return repo.findLastNumbered(db);
}

/** Numbered events after a Sequence, oldest first: what the webhook fan-out reads. */
export function findNumberedAfter(db: Db, sequence: number, limit: number): Promise<NumberedEvent[]> {
  return repo.findNumberedAfter(db, sequence, limit);
}

/** An event as a receiver gets it: its `evt_` id, its time and the JSON payload to sign and send. */
export interface EventMessage {
  eventId: string;
  createdAt: number;
  payload: string;
}

/** The messages of the numbered events with these keys, by id. */
export async function findMessages(db: Db, keys: { companyId: string; id: number }[]): Promise<Map<number, EventMessage>> {
  const rows = await repo.findEventsByKeys(db, keys);
  return new Map(
    rows.map((row) => [
      row.id,
      { eventId: row.event_id, createdAt: row.created_at, payload: JSON.stringify(webhookPayloadOf({ ...row, sequence: row.sequence! })) },
    ]),
  );
}

/**
 * POST /edi/events/search-by-paging: a customer's events, oldest first (by Sequence), after a
 * Sequence and within a time window when given; a key limited to facilities sees their events and
 * those of no facility (the item master's). Numbers what has committed first, so an answer shows
 * every change made before it.
 */
export async function searchEvents(db: Db, principal: Principal, request: EventSearchRequest): Promise<EventSearchResult> {
  await sequenceEvents(db);
  const created = offsetWindow(request.CreatedWhenFrom, request.CreatedWhenTo);
  const facilityIds = request.FacilityID ? [request.FacilityID] : principal.facilityIds.length > 0 ? principal.facilityIds : undefined;
  const filter: repo.EventFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityIds,
    types: request.Types === undefined || request.Types === null || request.Types.length === 0 ? undefined : request.Types,
    afterSequence: request.AfterSequence ?? undefined,
    createdFrom: created.from,
    createdTo: created.to,
  };
  const page = pageRequest(request.Paging);
  const totalCount = await repo.countEvents(db, filter);
  const rows = page.offset < totalCount ? await repo.pageEvents(db, filter, page.offset, page.pageSize) : [];
  return { results: { data: rows.map(presentEvent) }, paging: pagingOf(page, totalCount, rows.length) };
}
