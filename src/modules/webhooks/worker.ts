import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, type Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { onEventsCommitted } from '../events/events.service.js';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import { ATTEMPT_TIMEOUT_MS, createSender } from './sender.js';
import type { WebhookTally } from './webhook-metrics.js';

/**
 * A process's webhook dispatcher (`wharf serve`, `wharf worker`): made from the configuration,
 * woken by the commits of its own process, its errors logged without their SQL, stopped with the
 * process (waiting up to 15 s for attempts in flight). The deliveries that ended are purged with
 * the process's other housekeeping (housekeeping.ts).
 */

/**
 * The shortest WEBHOOK_LEASE_MS a dispatching process accepts: an attempt may take
 * ATTEMPT_TIMEOUT_MS, and taking, signing and recording it take a little more. A lease that ends
 * sooner lets another process take the delivery while the attempt still runs and attempt it too.
 */
export const MIN_WEBHOOK_LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;

/**
 * Refuses a lease that an attempt could outlast. The process that dispatches checks it before it
 * opens anything; one that only serves (`--no-webhooks`) or runs a command holds no lease.
 */
export function requireLeaseLongerThanAttempt(config: Pick<Config, 'webhookLeaseMs'>): void {
  if (config.webhookLeaseMs >= MIN_WEBHOOK_LEASE_MS) return;
  throw new ConfigError([
    `WEBHOOK_LEASE_MS must be at least ${MIN_WEBHOOK_LEASE_MS}, above the ${ATTEMPT_TIMEOUT_MS / 1000} s a webhook attempt may take: a shorter lease lets another process attempt the same delivery at once (got ${config.webhookLeaseMs})`,
  ]);
}
export interface WebhookWorker {
  dispatcher: Dispatcher;
  stop(): Promise<void>;
}

export function startWebhookWorker(db: Db, config: Config, clock: Clock, log: FastifyBaseLogger, tally?: WebhookTally): WebhookWorker {
  const sender = createSender({ allowPrivate: config.webhookAllowPrivate });
  const dispatcher = createDispatcher({
    db,
    clock,
    sender,
    concurrency: config.webhookConcurrency,
    leaseMs: config.webhookLeaseMs,
    pollMs: config.webhookPollMs,
    observer: tally,
    onError: (error) => log.error({ err: { type: (error as Error).name } }, 'webhook dispatcher error'),
  });
  const stopListening = onEventsCommitted(() => dispatcher.wake());
  dispatcher.start();
  return {
    dispatcher,
    async stop() {
      stopListening();
      await dispatcher.stop();
      await sender.close();
    },
  };
}
