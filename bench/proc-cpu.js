/**
 * CPU time from /proc (Linux): of one process, and of the PostgreSQL backends serving one database,
 * so that a run can say how much CPU a request or a delivery took on each side, whatever its rate
 * (PostgreSQL runs on the same machine; other users' sessions on the server are not counted).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** user + system seconds of /proc/<pid>/stat's process (its threads included); NaN if it is gone. */
function statSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** user + system CPU seconds the process `pid` has used so far; NaN if it is gone (or not on Linux). */
export function cpuSecondsOf(pid) {
  return statSeconds(pid);
}

/**
 * The CPU seconds so far of each PostgreSQL backend connected to the database at `url` (its
 * pg_stat_activity rows, this query's own left out), by pid: the work of that database's clients
 * alone, whoever else uses the server.
 */
export async function backendCpu(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rows } = await client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return new Map(rows.map(({ pid }) => [pid, statSeconds(pid)]).filter(([, seconds]) => Number.isFinite(seconds)));
  } finally {
    await client.end();
  }
}

/**
 * The CPU seconds the backends used from `before` to `after` (two answers of backendCpu): the
 * difference for a backend in both, the whole of a backend that started in between; a backend that
 * ended in between is lost, so the sum is a lower bound.
 */
export function backendCpuBetween(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
