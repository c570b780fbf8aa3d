import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { onEventsCommitted } from '../events/events.service.js';
import { forgetEndedDeliveries } from './deliveries.service.js';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import { createSender } from './sender.js';
import type { WebhookTally } from './webhook-metrics.js';

/**
 * A process's webhook dispatcher (`wharf serve`, `wharf worker`): made from the configuration,
 * woken by the commits of its own process, its errors logged without their SQL, stopped with the
 * process (waiting up to 15 s for attempts in flight). Every hour it forgets the deliveries that
 * ended longer ago than WEBHOOK_RETENTION_DAYS.
 */

const FORGET_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
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
  const forgetting = setInterval(() => {
    forgetEndedDeliveries(db, clock.now(), config.webhookRetentionDays * DAY_MS).catch((error: Error) =>
      log.warn({ err: { type: error.name } }, 'forgetting ended webhook deliveries failed'),
    );
  }, FORGET_EVERY_MS);
  forgetting.unref();
  return {
    dispatcher,
    async stop() {
      clearInterval(forgetting);
      stopListening();
      await dispatcher.stop();
      await sender.close();
    },
  };
}
