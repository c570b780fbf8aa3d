import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { PurgeBatches } from './db/purge.js';
import { purgeIdempotencyRecordsBefore } from './modules/commands/commands.service.js';
import { purgeEventsBefore, sequenceEvents } from './modules/events/events.service.js';
import { firstSequenceHeld, purgeEndedDeliveriesBefore } from './modules/webhooks/deliveries.service.js';
import { purgeInterchangesBefore } from './modules/x12/interchanges.service.js';
import { purgeTakenAdvicesBefore } from './modules/x12/outbox.service.js';

/**
 * Retention (docs/operations.md, "Retention"): what is kept for a while is purged once its time is
 * past, each kind by its own module, a batch per transaction. The books (documents, ACKs,
 * confirmations, the ledger) are kept for ever and are not among them.
 */

/** Rows a purge deletes per transaction: each transaction a few milliseconds. */
export const PURGE_BATCH_SIZE = 1000;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export type RetentionSettings = Pick<
  Config,
  'idempotencyRetentionHours' | 'webhookRetentionDays' | 'eventRetentionDays' | 'x12RetentionDays'
>;

/** What one kind's purge did. */
export interface PurgedKind {
  kind: string;
  /** Which rows went: `older than 90 days`. */
  rule: string;
  rows: number;
  transactions: number;
}

/**
 * Purges every kind of row whose retention has passed at `now`, one kind after another, and
 * answers what went of each. Once `batches.signal` is aborted the purge in flight ends after its
 * batch and no other kind starts (those not reached are left out of the answer).
 */
export async function purgeExpired(db: Db, retention: RetentionSettings, now: number, batches: PurgeBatches): Promise<PurgedKind[]> {
  const days = (count: number) => `${count} day${count === 1 ? '' : 's'}`;
  const kinds: { kind: string; rule: string; purge: () => Promise<{ rows: number; transactions: number }> }[] = [
    {
      kind: 'idempotency records',
      rule: `older than ${retention.idempotencyRetentionHours} hours`,
      purge: () => purgeIdempotencyRecordsBefore(db, now - retention.idempotencyRetentionHours * HOUR_MS, batches),
    },
    {
      kind: 'webhook deliveries',
      rule: `ended more than ${days(retention.webhookRetentionDays)} ago`,
      purge: () => purgeEndedDeliveriesBefore(db, now - retention.webhookRetentionDays * DAY_MS, batches),
    },
    {
      kind: 'events',
      rule: `older than ${days(retention.eventRetentionDays)}`,
      purge: async () => {
        const cutoff = now - retention.eventRetentionDays * DAY_MS;
        // Numbered first, as the events search does, so that the webhooks judge every committed
        // event by its Sequence; one numbered after is younger than the cutoff and ends the range.
        await sequenceEvents(db);
        return purgeEventsBefore(db, cutoff, batches, await firstSequenceHeld(db, cutoff));
      },
    },
    {
      kind: 'x12 interchanges',
      rule: `older than ${days(retention.x12RetentionDays)}`,
      purge: () => purgeInterchangesBefore(db, now - retention.x12RetentionDays * DAY_MS, batches),
    },
    {
      kind: 'x12 advices',
      rule: `taken more than ${days(retention.x12RetentionDays)} ago`,
      purge: () => purgeTakenAdvicesBefore(db, now - retention.x12RetentionDays * DAY_MS, batches),
    },
  ];
  const purged: PurgedKind[] = [];
  for (const { kind, rule, purge } of kinds) {
    if (batches.signal?.aborted) break;
    purged.push({ kind, rule, ...(await purge()) });
  }
  return purged;
}
