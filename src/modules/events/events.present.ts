import type { EventRow } from './events.repository.js';
import type { EventRecord } from './events.schemas.js';

/** Outbox rows → what a receiver and the events search see (docs/webhooks.md). */

type NumberedEvent = Pick<EventRow, 'type' | 'data' | 'created_at'> & { sequence: number };

/** An event's data as sent: what its module recorded, then its Sequence. */
function dataOf(row: NumberedEvent): Record<string, unknown> {
  return { ...(JSON.parse(row.data) as Record<string, unknown>), Sequence: row.sequence };
}

/** The Standard Webhooks payload: `{type, timestamp (UTC ISO), data}`. */
export function webhookPayloadOf(row: NumberedEvent) {
  return { type: row.type, timestamp: new Date(row.created_at).toISOString(), data: dataOf(row) };
}

/** A row of the events search; only numbered events are read. */
export function presentEvent(row: EventRow): EventRecord {
  const numbered = { ...row, sequence: row.sequence! };
  return {
    EventID: row.event_id,
    Type: row.type as EventRecord['Type'],
    Sequence: numbered.sequence,
    CreatedWhen: new Date(row.created_at).toISOString(),
    Data: dataOf(numbered),
  };
}
