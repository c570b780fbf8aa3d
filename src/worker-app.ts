import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { limitConnections } from './http/connection-limit.js';
import { registerHealthChecks } from './http/health.js';
import { registerMetrics } from './http/metrics.js';
import { echoRequestId, requestIdOf } from './http/request-id.js';
import type { WebhookTally } from './modules/webhooks/webhook-metrics.js';

/**
 * The HTTP side of `wharf worker --metrics-port`: `/healthz`, `/readyz` and `/metrics` (the
 * webhook queue, this process's attempts and lag, its pool and runtime), so that a dispatcher
 * running apart from the servers is watched as they are (docs/operations.md, docs/webhooks.md). Nothing else: no API.
 */
export async function buildWorkerApp({
  config,
  db,
  tally,
  logger,
}: {
  config: Config;
  db: Db;
  tally: WebhookTally;
  logger: FastifyBaseLogger;
}): Promise<FastifyInstance> {
  // A scrape every few seconds is not worth a log line; errors are still logged.
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    // The same limits against idle and slow sockets as the API's server: this port is open too.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: config.connectionsCheckingIntervalMs },
  });
  limitConnections(app, config.maxConnections);
  echoRequestId(app);
  registerMetrics(app, db, () => tally.asMetricsJson(db));
  registerHealthChecks(app, db);
  await app.ready();
  return app;
}
