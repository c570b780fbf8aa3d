/**
 * The servers of a run, each started once it answers: Wharf on SQLite and on PostgreSQL (each
 * migrating its fresh database), the read baseline B0, and, when a scenario that writes runs, the
 * write baseline on each database (B1 on SQLite, B1-pg on PostgreSQL). When the limiter's cost is
 * measured, a second Wharf on each database with the limiter off (RATE_LIMIT_EDI=0,
 * RATE_LIMIT_RATE=0: no hook at all), which serves the same tenant and keys. `npm run bench:scale`
 * starts and stops a Wharf of its own at each size (startWharf, stopServerOf).
 */
import { join } from 'node:path';
import { freePort } from './processes.js';

/** Each server started, by its base URL: its process (for its CPU, bench/proc-cpu.js, and restarts) and its readiness probe. */
const servers = new Map();

/** Starts `node <argv(port)>` as `name` on a free port; resolves with its base URL once `probe(url)` is true. */
async function startServer(group, { name, argv, env, probe }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const entry = group.startServer(name, argv(String(port)), env);
  const ready = () => probe(url);
  await group.waitUntilReady(entry, ready);
  servers.set(url, { entry, ready });
  return url;
}

/** The server a target URL goes to. */
function serverOf(targetUrl) {
  for (const [url, server] of servers) if (targetUrl.startsWith(`${url}/`)) return server;
  throw new Error(`no server started for ${targetUrl}`);
}

/** The process id of the server a target URL goes to. */
export function serverPidOf(targetUrl) {
  return serverOf(targetUrl).entry.child.pid;
}

/** Restarts the server a target URL goes to, on the same port (ProcessGroup.restart; see measureLimiterPair in bench/run.js). */
export async function restartServerOf(group, targetUrl) {
  const server = serverOf(targetUrl);
  server.entry = await group.restart(server.entry, server.ready);
}

/** Stops the server a target URL goes to (gracefully, as restartServerOf does) and forgets it. */
export async function stopServerOf(group, targetUrl) {
  const server = serverOf(targetUrl);
  await group.stop(server.entry, 20_000);
  for (const [url, started] of servers) if (started === server) servers.delete(url);
}

const wharfReady = async (url) => (await fetch(`${url}/readyz`)).ok;

/** Starts `wharf serve` on `dbUrl` as `name` (migrating its database); resolves with its base URL once it is ready. */
export function startWharf(group, { name, cliPath, dbUrl, env }) {
  return startServer(group, {
    name,
    argv: (port) => [cliPath, 'serve', '--db', dbUrl, '--port', port],
    env,
    probe: wharfReady,
  });
}

const answersPost = (path) => async (url) =>
  (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status > 0;

/** The environment of the Wharf that runs without the limiter: no limiting on either group of routes. */
const limiterOff = (wharfEnv) => ({ ...wharfEnv, RATE_LIMIT_EDI: '0', RATE_LIMIT_RATE: '0' });

/**
 * Starts every server. `wharfEnv` is Wharf's environment; `postgres` holds the URLs of the two
 * temporary PostgreSQL databases ({ wharf, b1 }; no `b1` without `writeBaselines`). With
 * `limiterBaselines`, each database also gets a Wharf with the limiter off, its URL in the entry's
 * `unlimited`. Returns B0's URL and one entry per database, in the shape bench/scenarios.js takes
 * (without the API keys, which seeding adds; without `b1` unless `writeBaselines`, without
 * `unlimited` unless `limiterBaselines`).
 *
 * The limiter-off Wharf starts once the first has answered, so it finds the schema migrated and
 * its migration is a no-op (on either database migrations take a lock, so even a race would only
 * make it wait). On SQLite both processes open the same file, as the CLI does next to a running
 * server (WAL, BEGIN IMMEDIATE, busy_timeout); the scenarios run one after another, so only one of
 * them is under load at a time. Nothing that must be unique is held in a process's memory: the
 * SVCPOIDs come from a counter in the database.
 */
export async function startServers(group, { root, cliPath, tmp, wharfEnv, postgres, writeBaselines = true, limiterBaselines = false }) {
  const bench = (file) => join(root, 'bench', file);
  const plan = [
    {
      id: 'sqlite',
      label: 'SQLite',
      dbUrl: `sqlite:${join(tmp, 'wharf.db')}`,
      b1: { key: 'B1', script: bench('baseline-b1.js'), store: join(tmp, 'b1.db') },
      items: true,
    },
    {
      id: 'postgres',
      label: 'PostgreSQL',
      dbUrl: postgres.wharf,
      b1: { key: 'B1-pg', script: bench('baseline-b1-postgres.js'), store: postgres.b1 },
      items: false,
    },
  ];

  const databases = [];
  for (const { id, label, dbUrl, b1, items } of plan) {
    const wharf = await startWharf(group, { name: `wharf-${id}`, cliPath, dbUrl, env: wharfEnv });
    const entry = { id, label, dbUrl, wharf, items };
    if (limiterBaselines) {
      entry.unlimited = await startWharf(group, { name: `wharf-${id}-unlimited`, cliPath, dbUrl, env: limiterOff(wharfEnv) });
    }
    if (writeBaselines) {
      const b1Url = await startServer(group, {
        name: b1.key,
        argv: (port) => [b1.script, port, b1.store],
        env: process.env,
        probe: answersPost('/b1'),
      });
      entry.b1 = { key: b1.key, url: b1Url };
    }
    databases.push(entry);
  }
  const b0 = await startServer(group, {
    name: 'B0',
    argv: (port) => [bench('baseline-b0.js'), port],
    env: process.env,
    probe: answersPost('/b0'),
  });
  return { b0, databases };
}
