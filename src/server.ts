import { buildApp } from './app.js';
import type { Config } from './config.js';
import { connectDatabase } from './db/connect.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { App } from './http/module.js';
import { systemClock } from './lib/clock.js';
import { forgetExpired } from './modules/commands/commands.service.js';
import { WebhookTally } from './modules/webhooks/webhook-metrics.js';
import { startWebhookWorker } from './modules/webhooks/worker.js';

/** Idempotency answers are kept 48 hours; an hourly sweep forgets older ones. */
const FORGET_EVERY_MS = 60 * 60 * 1000;

export interface RunningServer {
  app: App;
  db: Db;
  address: string;
  close(): Promise<void>;
}

export function openDatabase(config: Config): Db {
  return connectDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
}

/**
 * Opens the database, migrates it (unless told not to), builds the app, listens, and dispatches
 * webhooks (unless told not to).
 */
export async function startServer(config: Config, options: { migrate?: boolean; webhooks?: boolean } = {}): Promise<RunningServer> {
  const db = openDatabase(config);
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    const webhookTally = new WebhookTally();
    const app = await buildApp({ config, db, webhookTally });
    const address = await app.listen({ port: config.port, host: config.host });
    const webhooks = options.webhooks === false ? undefined : startWebhookWorker(db, config, systemClock, app.log, webhookTally);
    const forgetting = setInterval(() => {
      forgetExpired({ db, clock: systemClock }).catch((error: Error) =>
        app.log.warn({ error: { type: error.name } }, 'forgetting expired idempotency records failed'),
      );
    }, FORGET_EVERY_MS);
    forgetting.unref();
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        clearInterval(forgetting);
        // Requests finish first (they may make events); then attempts in flight, up to 15 s.
        await app.close();
        await webhooks?.stop();
        await db.destroy();
      })());
    return { app, db, address, close };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/**
 * Stops gracefully on SIGTERM or SIGINT: no new connections, in-flight requests finish, the
 * database closes; a shutdown that takes longer than the configured timeout exits hard.
 */
export function closeOnSignals(server: RunningServer, timeoutMs: number): void {
  const stop = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), timeoutMs).unref();
    server.close().then(
      () => process.exit(0),
      (error: Error) => {
        server.app.log.error({ err: { message: error.message } }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
