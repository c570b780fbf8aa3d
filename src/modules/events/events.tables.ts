import type { Generated } from 'kysely';

/**
 * The outbox (docs/webhooks.md): one row per event, written in the transaction of the change it tells
 * about. On SQLite `sequence` is the row id (a generated column); on PostgreSQL it is null until
 * the sequencer numbers the committed events (events.service.ts).
 */
export interface EventTable {
  company_id: string;
  id: Generated<number>;
  /** `evt_<ULID>`: the id a receiver sees in `webhook-id` and the events search. */
  event_id: string;
  /** Grows with every event of the database, in the order the events became visible; null until numbered (PostgreSQL). */
  sequence: number | null;
  type: string;
  customer_id: string;
  /** Null for an event of no facility (the item master's). */
  facility_id: string | null;
  /** The payload's `data` without its Sequence, as JSON. */
  data: string;
  /** The API key whose request made the change (null for the CLI). */
  key_id: number | null;
  created_at: number;
}

/** The last Sequence given: one row, taken by the one sequencer that runs at a time. */
export interface EventSequencerTable {
  id: number;
  last_sequence: number;
}

export interface EventTables {
  events: EventTable;
  event_sequencer: EventSequencerTable;
}
