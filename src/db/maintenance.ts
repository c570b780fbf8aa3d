import type { Db } from './database.js';
import { autovacuumIsOff, dialectNameOfDb, refreshStatistics } from './dialect.js';

/**
 * Keeps the query planner's statistics current (docs/operations.md, "Maintenance"). Without them
 * the planner picks plans made for empty tables, and a busy database slows down as it grows:
 * SQLite is never analysed unless someone asks, and PostgreSQL only by its autovacuum.
 */

export interface Maintenance {
  /** One periodic pass (hourly); answers the tables whose statistics it gathered. */
  run(): Promise<string[]>;
}

/** What the maintenance logs to: a process's pino logger. */
export interface MaintenanceLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Starts a process's maintenance, just after the migrations: on SQLite it gathers what statistics
 * are missing; on PostgreSQL it finds out whether autovacuum runs, and where it does not, warns and
 * does its analyses itself (an analysis on the spot, then every pass).
 */
export async function startMaintenance(db: Db, log: MaintenanceLog): Promise<Maintenance> {
  const autovacuumOff = await autovacuumIsOff(db);
  if (autovacuumOff) {
    log.warn(
      { autovacuum: 'off' },
      "PostgreSQL's autovacuum is off: Wharf analyses the tables that changed by a tenth every hour, but nothing vacuums them; turn autovacuum on, or run vacuumdb on a schedule (docs/operations.md)",
    );
  }
  const gathersStatistics = autovacuumOff || dialectNameOfDb(db) === 'sqlite';
  const gather = async () => {
    const analysed = gathersStatistics ? await refreshStatistics(db) : [];
    if (analysed.length > 0) log.info({ analysed }, 'planner statistics gathered');
    return analysed;
  };
  try {
    await gather();
  } catch (error) {
    // A busy SQLite (a command writing) or a failed analysis: the hourly pass tries again.
    log.warn({ err: { type: (error as Error).name } }, 'gathering planner statistics at start failed');
  }
  return { run: gather };
}
