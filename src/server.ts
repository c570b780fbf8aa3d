import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { connectDatabase } from './db/connect.js';
import type { Db } from './db/database.js';
import { databaseExists, databaseLocation } from './db/dialect.js';
import { migrateToLatest, pendingMigrations } from './db/migrate.js';
import type { App } from './http/module.js';
import { systemClock } from './lib/clock.js';
import { invalid, notFound } from './lib/refusal.js';
import { startHousekeeping, type Housekeeping } from './housekeeping.js';
import { WebhookTally } from './modules/webhooks/webhook-metrics.js';
import { requireLeaseLongerThanAttempt, startWebhookWorker, type WebhookWorker } from './modules/webhooks/worker.js';
import { buildWorkerApp } from './worker-app.js';

export interface RunningServer {
  app: App;
  db: Db;
  address: string;
  close(): Promise<void>;
}

export function openDatabase(config: Config): Db {
  return connectDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    preparedStatements: config.postgresPreparedStatements,
  });
}

/** Refuses a database that does not exist, found without creating it (opening SQLite's file would make it). */
export async function requireDatabase(config: Config): Promise<void> {
  if (!(await databaseExists(config.databaseUrl))) throw notFound(`no database at ${databaseLocation(config.databaseUrl)}`);
}

/**
 * Opens the configured database as it is, for what must not change its schema (the commands that
 * only read, `wharf worker`): one that does not exist is refused, not created, and so is one whose
 * schema is behind, which `wharf migrate` (or `wharf serve`) brings up to date.
 */
export async function openExistingDatabase(config: Config): Promise<Db> {
  await requireDatabase(config);
  const db = openDatabase(config);
  try {
    const pending = (await pendingMigrations(db)).length;
    if (pending > 0) {
      throw invalid(
        `the database at ${databaseLocation(config.databaseUrl)} is not up to date (${pending} migration${pending === 1 ? '' : 's'} to run): run wharf migrate`,
      );
    }
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/**
 * Opens the database, migrates it (unless told not to), builds the app, listens, and dispatches
 * webhooks (unless told not to).
 */
export async function startServer(config: Config, options: { migrate?: boolean; webhooks?: boolean } = {}): Promise<RunningServer> {
  // Before the database is opened and the port taken: a refused setting changes nothing.
  if (options.webhooks !== false) requireLeaseLongerThanAttempt(config);
  const db = openDatabase(config);
  let housekeeping: Housekeeping | undefined;
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    const webhookTally = new WebhookTally();
    const app = await buildApp({ config, db, webhookTally });
    // Before listening: the first requests plan with the statistics it gathers.
    housekeeping = await startHousekeeping(db, config, systemClock, app.log);
    const address = await app.listen({ port: config.port, host: config.host });
    const webhooks = options.webhooks === false ? undefined : startWebhookWorker(db, config, systemClock, app.log, webhookTally);
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // A purge in flight ends its batch; requests finish (they may make events); then attempts in flight, up to 15 s.
        await housekeeping?.stop();
        await app.close();
        await webhooks?.stop();
        await db.destroy();
      })());
    return { app, db, address, close };
  } catch (error) {
    await housekeeping?.stop();
    await db.destroy();
    throw error;
  }
}

export interface RunningWorker {
  db: Db;
  log: FastifyBaseLogger;
  close(): Promise<void>;
}

/**
 * `wharf worker`: dispatches webhooks (docs/webhooks.md) without serving the API, on a database that
 * exists and is up to date (it never migrates: the servers do). Logs JSON lines, as the server
 * does. With a metrics port (WORKER_METRICS_PORT), it also answers /healthz, /readyz and /metrics.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  requireLeaseLongerThanAttempt(config);
  const db = await openExistingDatabase(config);
  const log = pino({ level: config.logLevel });
  const tally = new WebhookTally();
  let metrics: FastifyInstance | undefined;
  let metricsAddress: string | undefined;
  let webhooks: WebhookWorker;
  let housekeeping: Housekeeping | undefined;
  try {
    housekeeping = await startHousekeeping(db, config, systemClock, log);
    if (config.workerMetricsPort !== 0) {
      metrics = await buildWorkerApp({ config, db, tally, logger: log });
      metricsAddress = await metrics.listen({ port: config.workerMetricsPort, host: config.host });
    }
    webhooks = startWebhookWorker(db, config, systemClock, log, tally);
  } catch (error) {
    await housekeeping?.stop();
    await metrics?.close();
    await db.destroy();
    throw error;
  }
  log.info(
    {
      database: databaseLocation(config.databaseUrl),
      concurrency: config.webhookConcurrency,
      pollMs: config.webhookPollMs,
      allowPrivate: config.webhookAllowPrivate,
      ...(metricsAddress === undefined ? {} : { metrics: `${metricsAddress}/metrics` }),
    },
    'dispatching webhooks',
  );
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // A purge in flight ends its batch; takes no more deliveries; waits up to 15 s for the
      // attempts in flight, then closes the pool.
      await housekeeping?.stop();
      await webhooks.stop();
      await metrics?.close();
      await db.destroy();
      log.info('stopped');
    })());
  return { db, log, close };
}

/**
 * Stops gracefully on SIGTERM or SIGINT: a server takes no new connections and its in-flight
 * requests finish, attempts of webhooks in flight finish (up to 15 s), the database closes; a
 * shutdown that takes longer than the configured timeout exits hard.
 */
export function closeOnSignals(running: { close(): Promise<void> }, log: FastifyBaseLogger, timeoutMs: number): void {
  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), timeoutMs).unref();
    running.close().then(
      () => process.exit(0),
      (error: Error) => {
        log.error({ err: { message: error.message } }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
