import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { onEventsCommitted } from '../events/events.service.js';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import { createSender } from './sender.js';
import type { WebhookTally } from './webhook-metrics.js';

/**
 * A process's webhook dispatcher (`wharf serve`, `wharf worker`): made from the configuration,
 * woken by the commits of its own process, its errors logged without their SQL, stopped with the
 * process (waiting up to 15 s for attempts in flight).
 */
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
