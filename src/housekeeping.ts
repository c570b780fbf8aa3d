import type { Db } from './db/database.js';
import { startMaintenance, type MaintenanceLog } from './db/maintenance.js';
import type { Clock } from './lib/clock.js';
import { purgeExpired, PURGE_BATCH_SIZE, type RetentionSettings } from './retention.js';

/**
 * The housekeeping of a serving or working process (`wharf serve`, `wharf worker`;
 * docs/operations.md, "Retention" and "Maintenance"): as it starts and then every hour, it purges
 * what is past its retention and keeps the planner's statistics. Every process does it: two passes
 * at once delete different rows, each a batch per short transaction. A pass is not started while
 * the last one still runs; stopping ends the pass in flight after its batch.
 */

const EVERY_MS = 60 * 60 * 1000;

export interface Housekeeping {
  /** Resolves once the pass in flight, if any, has ended. */
  idle(): Promise<void>;
  /** Ends the hourly passes; resolves once the pass in flight, if any, has ended its batch. */
  stop(): Promise<void>;
}

/** Starts a process's housekeeping; its maintenance at start (docs/operations.md) is done when this resolves. */
export async function startHousekeeping(db: Db, retention: RetentionSettings, clock: Clock, log: MaintenanceLog): Promise<Housekeeping> {
  const maintenance = await startMaintenance(db, log);
  const stopping = new AbortController();
  let pass: Promise<void> | undefined;

  async function runPass(): Promise<void> {
    const purged = await purgeExpired(db, retention, clock.now(), { size: PURGE_BATCH_SIZE, signal: stopping.signal });
    const rows = Object.fromEntries(purged.filter((kind) => kind.rows > 0).map((kind) => [kind.kind, kind.rows]));
    if (Object.keys(rows).length > 0) log.info({ purged: rows }, 'purged what is past its retention');
    if (!stopping.signal.aborted) await maintenance.run();
  }

  const tick = () => {
    if (pass) return;
    pass = runPass()
      // Its type only: a database error's message may quote SQL.
      .catch((error: Error) => log.warn({ err: { type: error.name } }, 'housekeeping failed; it runs again in an hour'))
      .finally(() => (pass = undefined));
  };
  tick();
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  const idle = async () => {
    await pass;
  };
  return {
    idle,
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await idle();
    },
  };
}
