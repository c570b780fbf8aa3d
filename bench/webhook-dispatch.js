#!/usr/bin/env node
/**
 * `npm run bench:webhooks`: the webhook dispatcher's throughput to a local receiver and its lag
 * under a steady load (docs/webhooks.md; issue 15 asks ≥ 500 deliveries a second on PostgreSQL with one
 * process). Measures HEAD as committed: a detached worktree of WEBHOOK_BENCH_SOURCE (default HEAD;
 * `checkout` takes this checkout's dist/ as `npm run build` left it) built into its own dist/ (see
 * bench/worktree.js), so that edits in progress in this checkout change nothing; an absolute path
 * takes the build in that directory (its dist/cli.js), e.g. a worktree with a change to try.
 *
 * Each run, on a fresh database (a temporary PostgreSQL database, or a temporary SQLite file with
 * synchronous=FULL):
 * - `wharf serve` (one process, pinned to core 1 like `npm run bench`; WEBHOOK_ALLOW_PRIVATE=true,
 *   the other WEBHOOK_* settings at their defaults: 64 attempts at once, 500 ms poll) with the
 *   bench tenant (bench/seed.js) and one company-wide endpoint made with the admin key, pointing at
 *   a receiver in this process (node:http, on core 0 with the rest of the bench): it answers 204 as
 *   soon as a request's body has arrived, and keeps each `webhook-id`'s arrival time and payload
 *   timestamp.
 * - Throughput. WEBHOOK_BENCH_EVENTS events (default 20,000) are made as fast as the server takes
 *   them: item imports of 1,000 new items each, one after another (each item is an `item.created`
 *   event of about 200 bytes, as small as a receipt's or an order's). The endpoint exists first, so
 *   every event fans out to it; the imports make events several times faster than they are
 *   delivered, so when the last import has answered most of the events are still waiting. From
 *   then on the server does nothing but dispatch, with the queue full: the throughput is the
 *   deliveries that arrived after the last import answered ÷ the time from then to the last
 *   arrival. (Making the events with no dispatcher running and starting it afterwards would be
 *   cleaner, but HEAD's `wharf serve` cannot run without its dispatcher; and an endpoint that is
 *   disabled while the events are made gets no deliveries of them at all.) The rate from the first
 *   arrival to the last is printed too; it includes the imports' share of the server.
 * - Lag. Once every event has arrived, events are made at WEBHOOK_BENCH_LAG_SHARE (default 0.6) of
 *   the run's throughput for WEBHOOK_BENCH_LAG_SECONDS (default 20): an item import of
 *   WEBHOOK_BENCH_LAG_BATCH (default 10) new items at even intervals. The lag of each of their
 *   deliveries is its arrival at the receiver − the payload's `timestamp` (the time the change was
 *   made, on the same machine's clock); the run prints its p50, p90, p99 and max.
 * - Checks: every event arrived (none missing; duplicates counted), and /metrics shows as many
 *   successful attempts and an empty queue.
 * - PostgreSQL's upkeep (WEBHOOK_BENCH_UPKEEP=vacuum, the default): before the throughput phase
 *   2,000 events are delivered and the database gets a VACUUM ANALYZE, and another before the lag
 *   phase; what autovacuum gives a database in use (the bench's server may run without it, and it
 *   comes round once a minute at most), as `npm run bench` does after its seeding. Without
 *   statistics the planner takes the deliveries table for an empty one and the claim reads every
 *   delivery the endpoint ever had (webhook_deliveries_endpoint_idx) instead of the due ones:
 *   WEBHOOK_BENCH_UPKEEP=none measures that.
 *
 * WEBHOOK_BENCH_RUNS runs on PostgreSQL (default 3) and WEBHOOK_BENCH_SQLITE_RUNS on SQLite
 * (default 1) give the median and range. When PostgreSQL's median is below the target (or with
 * WEBHOOK_BENCH_PROFILE=always; never with =never) one more throughput run on PostgreSQL runs the
 * server under `node --cpu-prof` with bench/count-statements.js, and prints where its time goes
 * while it only dispatches (the profile's parts and top frames, cut to that window) and the
 * statements it ran per delivery. Everything goes to bench/results/webhook-dispatch.json; every
 * server, worktree, temporary file and database is removed at the end, on failure and on Ctrl-C.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { topFramesOf, sharesOf } from './cpu-profile.js';
import { importBody, makeItem } from './payload.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, redact, vacuumAnalyze } from './postgres.js';
import { backendCpu, backendCpuBetween, cpuSecondsOf } from './proc-cpu.js';
import { ProcessGroup, choosePinning, freePort, wharfEnv } from './processes.js';
import { machineOf, median, writeJson } from './report.js';
import { readSnapshots, statementsBetween, takeSnapshot } from './statement-counts.js';
import { IMPORT_PATH, TENANT, post, seedTenant } from './seed.js';
import { buildCommit, describeCommit, removeBuild, stopBuilding } from './worktree.js';
import { log, positiveInteger, runBench } from './lifecycle.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const resultsPath = join(root, 'bench', 'results', 'webhook-dispatch.json');
const EDI = '/shared/bam/v1/public';
const ENDPOINT_CREATE_PATH = `${EDI}/edi/webhook/endpoint/create`;
/** Issue 15: deliveries a second of one process on PostgreSQL. */
export const THROUGHPUT_TARGET = 500;
/** Items (events) per import of the throughput phase: the most an import takes. */
const THROUGHPUT_BATCH = 1000;
/** Events delivered before the measured ones on PostgreSQL, so that VACUUM ANALYZE finds a table in use. */
const WARM_EVENTS = 2000;
/** A run fails when no delivery arrives for this long while some are missing. */
const STALL_MS = 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function share(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0 && value < 1)) throw new Error(`${name} must be between 0 and 1 (got ${JSON.stringify(raw)})`);
  return value;
}

/** The p-th percentile (nearest rank) of ascending `sorted`. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

// ---- the receiver ----------------------------------------------------------------------------------

/**
 * The receiver: answers 204 once a request's body has arrived, and keeps, by `webhook-id`, the first
 * arrival (ms since the epoch), the payload's timestamp and its item; counts repeats.
 */
function startReceiver() {
  const receiver = {
    arrivals: new Map(),
    repeats: 0,
    requests: 0,
    lastArrival: 0,
    reset() {
      this.arrivals = new Map();
      this.repeats = 0;
      this.requests = 0;
      this.lastArrival = 0;
    },
  };
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      response.writeHead(204);
      response.end();
      receiver.requests += 1;
      receiver.lastArrival = at;
      const id = request.headers['webhook-id'];
      if (receiver.arrivals.has(id)) {
        receiver.repeats += 1;
        return;
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      receiver.arrivals.set(id, { at, timestamp: Date.parse(payload.timestamp), item: payload.data?.ItemID, type: payload.type });
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      receiver.url = `http://127.0.0.1:${server.address().port}/hook`;
      receiver.close = () =>
        new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      resolve(receiver);
    });
  });
}

/** Waits until `count` arrivals whose item starts with `prefix` are in; fails if none comes for STALL_MS. */
async function waitForArrivals(receiver, prefix, count, label) {
  let seen = -1;
  let progressAt = Date.now();
  for (;;) {
    let arrived = 0;
    for (const arrival of receiver.arrivals.values()) if (arrival.item?.startsWith(prefix)) arrived += 1;
    if (arrived >= count) return;
    if (arrived !== seen) {
      seen = arrived;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > STALL_MS) {
      throw new Error(`${label}: ${arrived} of ${count} deliveries arrived, then none for ${STALL_MS / 1000} s`);
    }
    await sleep(50);
  }
}

// ---- a run -----------------------------------------------------------------------------------------

/** An item import of `count` new items of customer A, `prefix-<n>`, `first` the number of the first. */
function itemsBody(prefix, first, count) {
  const items = Array.from({ length: count }, (_, i) => makeItem(`${prefix}-${first + i}`, first + i));
  return importBody(TENANT.company, TENANT.customerA, items);
}

async function importItems(wharf, apiKey, prefix, first, count) {
  const { json } = await post(wharf, IMPORT_PATH, apiKey, itemsBody(prefix, first, count));
  if (json.Items.length !== count || json.Items.some((item) => item.Status !== 'Created')) {
    throw new Error(`an item import of ${count} did not create them all: ${JSON.stringify(json).slice(0, 300)}`);
  }
}

/** The webhook lines of /metrics: succeeded attempts of this process and the queue's depth. */
async function webhookMetrics(wharf) {
  const text = await (await fetch(`${wharf}/metrics`)).text();
  const value = (pattern) => {
    const match = text.match(pattern);
    return match ? Number(match[1]) : null;
  };
  return {
    succeeded: value(/^wharf_webhook_attempts_total\{outcome="succeeded"\} (\S+)$/m),
    retried: value(/^wharf_webhook_attempts_total\{outcome="retry"\} (\S+)$/m) ?? 0,
    failed: value(/^wharf_webhook_attempts_total\{outcome="failed"\} (\S+)$/m) ?? 0,
    queueDepth: value(/^wharf_webhook_queue_depth (\S+)$/m),
  };
}

/**
 * The throughput phase: `events` events made by item imports of THROUGHPUT_BATCH, then every
 * delivery awaited. Answers the figures, and `createdEnd`/`lastArrival` (ms since the epoch) for
 * the profile's window.
 */
async function throughputPhase(run, { events }) {
  const { receiver, wharf, apiKey, pid } = run;
  receiver.reset();
  const started = Date.now();
  for (let first = 1; first <= events; first += THROUGHPUT_BATCH) {
    await importItems(wharf, apiKey, 'TP', first, Math.min(THROUGHPUT_BATCH, events - first + 1));
  }
  const createdEnd = Date.now();
  const arrivedByThen = receiver.arrivals.size;
  const cpuAtCreatedEnd = { server: cpuSecondsOf(pid), postgres: run.kind === 'postgres' ? await backendCpu(run.dbUrl) : null };
  run.onCreated?.();
  await waitForArrivals(receiver, 'TP-', events, 'throughput');
  const lastArrival = Math.max(...[...receiver.arrivals.values()].map((arrival) => arrival.at));
  const cpuAtEnd = { server: cpuSecondsOf(pid), postgres: run.kind === 'postgres' ? await backendCpu(run.dbUrl) : null };
  const arrivals = [...receiver.arrivals.values()].map((arrival) => arrival.at).sort((a, b) => a - b);
  const afterCreated = arrivals.filter((at) => at > createdEnd).length;
  const windowSeconds = (lastArrival - createdEnd) / 1000;
  return {
    events,
    makingSeconds: (createdEnd - started) / 1000,
    arrivedWhileMaking: arrivedByThen,
    deliveredAfterMaking: afterCreated,
    windowSeconds,
    deliveriesPerSecond: afterCreated / windowSeconds,
    firstToLastPerSecond: (arrivals.length - 1) / ((arrivals.at(-1) - arrivals[0]) / 1000),
    serverCpuShare: (cpuAtEnd.server - cpuAtCreatedEnd.server) / windowSeconds,
    postgresCpuShare: run.kind === 'postgres' ? backendCpuBetween(cpuAtCreatedEnd.postgres, cpuAtEnd.postgres) / windowSeconds : null,
    repeats: receiver.repeats,
    createdEnd,
    lastArrival,
  };
}

/**
 * The lag phase: imports of `batch` new items at even intervals, `rate` events a second for
 * `seconds`; then every delivery awaited and each one's lag taken.
 */
async function lagPhase(run, { rate, seconds, batch }) {
  const { receiver, wharf, apiKey } = run;
  receiver.reset();
  const intervalMs = (1000 * batch) / rate;
  const imports = Math.max(1, Math.round((seconds * 1000) / intervalMs));
  const started = performance.now();
  const pending = [];
  let late = 0;
  for (let i = 0; i < imports; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -intervalMs) late += 1;
    pending.push(importItems(wharf, apiKey, 'LAG', i * batch + 1, batch));
  }
  await Promise.all(pending);
  const madeSeconds = (performance.now() - started) / 1000;
  await waitForArrivals(receiver, 'LAG-', imports * batch, 'lag');
  const lags = Float64Array.from([...receiver.arrivals.values()].map((arrival) => arrival.at - arrival.timestamp)).sort();
  return {
    rate,
    batch,
    events: imports * batch,
    madeSeconds,
    importsLate: late,
    lagMs: { p50: percentile(lags, 50), p90: percentile(lags, 90), p99: percentile(lags, 99), max: lags.at(-1) },
    repeats: receiver.repeats,
  };
}

/**
 * One run on a fresh database: the server, the tenant, the endpoint, the throughput phase and the
 * lag phase (at `lagRate` events a second when given, else at the share of the run's throughput).
 * With `profile` the server runs under --cpu-prof and the statement counter, and the run answers
 * their findings over two windows: the throughput phase's, from the last import's answer to the last
 * delivery (the server only dispatched), and the lag phase's.
 */
async function oneRun(state, { kind, index, build, env, receiver, settings, profile = false, lagRate }) {
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const name = `${kind}-${profile ? 'profile' : index}`;
  const dbUrl = kind === 'sqlite' ? `sqlite:${join(state.tmp, `${name}.db`)}` : await state.postgres.create(name.replace('-', '_'));
  const group = new ProcessGroup(state.tmp, state.pinning);
  state.groups.push(group);
  const port = await freePort();
  const wharf = `http://127.0.0.1:${port}`;
  const profileDir = join(state.tmp, `${name}-cpuprofile`);
  const statementsFile = join(state.tmp, `${name}-statements.jsonl`);
  const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', join(root, 'bench', 'count-statements.js')] : [];
  const serverEnv = profile ? { ...env, BENCH_STATEMENTS_OUT: statementsFile } : env;
  const entry = group.startServer(`wharf-${name}`, [...nodeArgs, build.cliPath, 'serve', '--db', dbUrl, '--port', String(port)], serverEnv);
  await group.waitUntilReady(entry, async () => (await fetch(`${wharf}/readyz`)).ok);
  const apiKey = await seedTenant(build.cliPath, dbUrl, env);
  const { json: created } = await post(
    wharf,
    ENDPOINT_CREATE_PATH,
    apiKey,
    JSON.stringify({ CompanyID: TENANT.company, Url: receiver.url }),
  );
  if (!created.Endpoint?.Enabled || created.Endpoint.CustomerID !== null) {
    throw new Error(`the endpoint was not made company-wide and enabled: ${JSON.stringify(created)}`);
  }
  const run = { kind, dbUrl, receiver, wharf, apiKey, pid: entry.child.pid };
  // The statement counter's snapshots: as the last event is made, after the last delivery, after the lag phase.
  // (The last attempts' records are written just after their answers: takeSnapshot waits a moment.)
  const snapshot = () => takeSnapshot(entry.child.pid, statementsFile);
  if (profile) run.onCreated = () => entry.child.kill('SIGUSR2');

  // PostgreSQL's upkeep (autovacuum is off on a CI server, and takes up to a minute to come round
  // anyway): a database in use has statistics, so first some deliveries, then VACUUM ANALYZE.
  const upkeep = kind === 'postgres' && settings.upkeep === 'vacuum';
  let warm = 0;
  if (upkeep) {
    warm = WARM_EVENTS;
    log(`${label}: ${warm} events delivered first, then VACUUM ANALYZE…`);
    for (let first = 1; first <= warm; first += THROUGHPUT_BATCH) {
      await importItems(wharf, apiKey, 'WARM', first, Math.min(THROUGHPUT_BATCH, warm - first + 1));
    }
    await waitForArrivals(receiver, 'WARM-', warm, 'warm-up');
    await sleep(500);
    await vacuumAnalyze(dbUrl);
  }
  log(`${label}, ${profile ? 'profile run' : `run ${index}`}: making ${settings.events} events (item imports of ${THROUGHPUT_BATCH})…`);
  const throughput = await throughputPhase(run, { events: settings.events });
  group.assertAlive();
  log(
    `${label}: ${throughput.deliveriesPerSecond.toFixed(0)} deliveries/s with the queue full ` +
      `(${throughput.deliveredAfterMaking} in ${throughput.windowSeconds.toFixed(1)} s after the last event was made)`,
  );
  if (profile) await snapshot();
  if (upkeep) {
    // What autovacuum would do after 20,000 changed rows, at a fixed point.
    await sleep(500);
    await vacuumAnalyze(dbUrl);
  }
  const rate = lagRate ?? Math.max(1, Math.round(settings.lagShare * throughput.deliveriesPerSecond));
  const of = lagRate ? "the unprofiled runs' median rate" : `${settings.lagShare} of that`;
  log(`${label}: lag at ${rate} events/s (${of}) for ${settings.lagSeconds} s, imports of ${settings.lagBatch}…`);
  const lagStarted = Date.now();
  const lag = await lagPhase(run, { rate, seconds: settings.lagSeconds, batch: settings.lagBatch });
  const lagEnded = Date.now();
  group.assertAlive();
  log(`${label}: lag p50 ${lag.lagMs.p50} ms, p99 ${lag.lagMs.p99} ms`);
  if (profile) await snapshot();
  // An attempt is recorded after its answer arrived: give the last ones a moment to be written.
  const expected = warm + settings.events + (lag?.events ?? 0);
  let metrics = await webhookMetrics(wharf);
  for (let tries = 0; tries < 50 && (metrics.succeeded !== expected || metrics.queueDepth !== 0); tries++) {
    await sleep(100);
    metrics = await webhookMetrics(wharf);
  }
  if (metrics.succeeded !== expected || metrics.queueDepth !== 0 || metrics.retried > 0 || metrics.failed > 0) {
    throw new Error(`/metrics after the run does not show ${expected} succeeded attempts and an empty queue: ${JSON.stringify(metrics)}`);
  }
  const stopping = Date.now();
  await group.stopAll(20_000);
  const stoppedAt = Date.now();
  const result = { database: label, run: profile ? 'profile' : index, throughput, lag, metrics };
  if (profile) {
    result.profile = readProfile({
      profileDir,
      statementsFile,
      stopping,
      stoppedAt,
      windows: [
        { name: 'throughput', from: throughput.createdEnd, to: throughput.lastArrival, deliveries: throughput.deliveredAfterMaking },
        { name: 'lag', from: lagStarted, to: lagEnded, deliveries: lag.events },
      ],
    });
  }
  if (kind === 'postgres') await state.postgres.dropAll();
  return result;
}

/**
 * For each window ({ name, from, to (ms since the epoch), deliveries }): the profile's parts and top
 * frames over it, and the statements the counter counted in it (the difference of the snapshots
 * taken at its ends: the first at the throughput window's start, one after each window) per
 * delivery, by shape.
 */
function readProfile({ profileDir, statementsFile, stopping, stoppedAt, windows }) {
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the profiled server wrote no .cpuprofile');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  // The profile's clock is microseconds of its own and ends as the process exits: count back from
  // then (the middle of the stop, ± half its length).
  const endMs = (stopping + stoppedAt) / 2;
  const usOf = (ms) => profile.endTime - (endMs - ms) * 1000;
  const snapshots = readSnapshots(statementsFile);
  if (snapshots.length < windows.length + 1) throw new Error(`the statement counter left ${snapshots.length} snapshots`);
  const top = Number(process.env.PROFILE_TOP ?? 20);
  return Object.fromEntries(
    windows.map((window, i) => {
      const counted = statementsBetween(snapshots[i], snapshots[i + 1], window.deliveries);
      const statements = counted.rows.map(({ sql, perUnit, msPerUnit }) => ({ sql, perDelivery: perUnit, msPerDelivery: msPerUnit }));
      const [fromUs, toUs] = [usOf(window.from), usOf(window.to)];
      return [
        window.name,
        {
          windowSeconds: (window.to - window.from) / 1000,
          deliveries: window.deliveries,
          parts: sharesOf(profile, fromUs, toUs).filter((row) => row.share >= 0.005),
          topFrames: topFramesOf(profile, fromUs, toUs, top),
          statements,
          statementsPerDelivery: counted.perUnit,
          commitsPerDelivery: counted.commitsPerUnit,
        },
      ];
    }),
  );
}

// ---- the whole ---------------------------------------------------------------------------------------

function summary(values) {
  return { median: median(values), range: [Math.min(...values), Math.max(...values)] };
}

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const medianRange = ({ median: m, range }, digits = 0) => `**${fixed(m, digits)}** [${fixed(range[0], digits)}–${fixed(range[1], digits)}]`;

async function main(state) {
  const settings = {
    events: positiveInteger('WEBHOOK_BENCH_EVENTS', 20_000),
    postgresRuns: positiveInteger('WEBHOOK_BENCH_RUNS', 3, { zero: true }),
    sqliteRuns: positiveInteger('WEBHOOK_BENCH_SQLITE_RUNS', 1, { zero: true }),
    lagSeconds: positiveInteger('WEBHOOK_BENCH_LAG_SECONDS', 20),
    lagShare: share('WEBHOOK_BENCH_LAG_SHARE', 0.6),
    lagBatch: positiveInteger('WEBHOOK_BENCH_LAG_BATCH', 10),
    profile: process.env.WEBHOOK_BENCH_PROFILE || 'auto',
    upkeep: process.env.WEBHOOK_BENCH_UPKEEP || 'vacuum',
  };
  if (!['auto', 'always', 'never'].includes(settings.profile)) throw new Error('WEBHOOK_BENCH_PROFILE must be auto, always or never');
  if (!['vacuum', 'none'].includes(settings.upkeep)) throw new Error('WEBHOOK_BENCH_UPKEEP must be vacuum or none');
  const source = process.env.WEBHOOK_BENCH_SOURCE || 'HEAD';
  const postgresAdminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;

  state.pinning = choosePinning();
  state.groups = [];
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${state.pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-webhooks-bench-'));
  let build;
  if (source === 'checkout') {
    const head = describeCommit(root, 'HEAD');
    build = { ...head, short: `${head.short}+checkout`, cliPath: join(root, 'dist', 'cli.js') };
    log(`this checkout's dist/ (HEAD ${head.short}, with whatever is uncommitted as last built)`);
  } else if (source.startsWith('/') && existsSync(join(source, 'dist', 'cli.js'))) {
    // A build elsewhere (a worktree with a change to try): its own HEAD names it.
    const head = describeCommit(source, 'HEAD');
    build = { ...head, short: `${head.short}+${source}`, cliPath: join(source, 'dist', 'cli.js') };
    log(`the build in ${source} (its HEAD ${head.short}, with whatever is uncommitted there)`);
  } else {
    log(`building ${source} in a worktree…`);
    build = await buildCommit(root, source, join(state.tmp, 'build'), state);
    log(`${build.short} ${build.subject} (${build.seconds.toFixed(0)} s)`);
  }
  state.postgres = new TemporaryDatabases(postgresAdminUrl);
  const postgresServer = await state.postgres.describeServer();
  log(`PostgreSQL ${postgresServer.version} at ${redact(postgresAdminUrl)}: temporary databases ${state.postgres.prefix}_*`);
  state.receiver = await startReceiver();

  const env = wharfEnv({ prefixes: ['WEBHOOK_'], set: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const runs = [];
  const plan = [
    ...Array.from({ length: settings.postgresRuns }, (_, i) => ({ kind: 'postgres', index: i + 1 })),
    ...Array.from({ length: settings.sqliteRuns }, (_, i) => ({ kind: 'sqlite', index: i + 1 })),
  ];
  for (const { kind, index } of plan) runs.push(await oneRun(state, { kind, index, build, env, receiver: state.receiver, settings }));

  const of = (database) => runs.filter((run) => run.database === database);
  const summarize = (database) => {
    const list = of(database);
    if (list.length === 0) return null;
    return {
      runs: list.length,
      deliveriesPerSecond: summary(list.map((run) => run.throughput.deliveriesPerSecond)),
      firstToLastPerSecond: summary(list.map((run) => run.throughput.firstToLastPerSecond)),
      lagRate: summary(list.map((run) => run.lag.rate)),
      lagP50Ms: summary(list.map((run) => run.lag.lagMs.p50)),
      lagP90Ms: summary(list.map((run) => run.lag.lagMs.p90)),
      lagP99Ms: summary(list.map((run) => run.lag.lagMs.p99)),
      lagMaxMs: summary(list.map((run) => run.lag.lagMs.max)),
    };
  };
  const summaries = { postgres: summarize('PostgreSQL'), sqlite: summarize('SQLite') };
  const belowTarget = summaries.postgres && summaries.postgres.deliveriesPerSecond.median < THROUGHPUT_TARGET;
  let profiled = null;
  if (settings.profile === 'always' || (settings.profile === 'auto' && belowTarget)) {
    log('PostgreSQL: one more throughput run under --cpu-prof and the statement counter…');
    const lagRate = summaries.postgres ? Math.round(summaries.postgres.lagRate.median) : undefined;
    profiled = await oneRun(state, { kind: 'postgres', index: 0, build, env, receiver: state.receiver, settings, profile: true, lagRate });
  }

  const report = {
    date: new Date().toISOString(),
    command: 'npm run bench:webhooks',
    source: { rev: source, commit: build.commit, subject: build.subject },
    machine: machineOf(state.pinning.cores, loadAtStart),
    settings: {
      ...settings,
      throughputBatch: THROUGHPUT_BATCH,
      warmEvents: settings.upkeep === 'vacuum' ? WARM_EVENTS : 0,
      webhook: { concurrency: 64, leaseMs: 60_000, pollMs: 500, allowPrivate: true },
      sqliteSynchronous: 'FULL',
      postgres: { ...postgresServer, poolSize: 10, pinned: false },
      pinning: state.pinning.description,
    },
    target: { deliveriesPerSecond: THROUGHPUT_TARGET, database: 'PostgreSQL', processes: 1 },
    summaries,
    runs,
    profile: profiled && { throughput: profiled.throughput, lag: profiled.lag, windows: profiled.profile },
  };
  writeJson(resultsPath, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out();
  out(`The webhook dispatcher — ${build.short}, one \`wharf serve\`, WEBHOOK_CONCURRENCY 64 (default), a receiver in the bench process`);
  out(
    `${settings.events} events a run (item imports of ${THROUGHPUT_BATCH}); lag at ${settings.lagShare} of the run's throughput for ` +
      `${settings.lagSeconds} s (imports of ${settings.lagBatch})`,
  );
  out(
    settings.upkeep === 'vacuum'
      ? `PostgreSQL: ${WARM_EVENTS} events delivered and VACUUM ANALYZE before the throughput phase, VACUUM ANALYZE before the lag phase`
      : 'PostgreSQL: no VACUUM ANALYZE (WEBHOOK_BENCH_UPKEEP=none): the tables as the run left them, without statistics unless autovacuum made some',
  );
  out(
    `SQLite synchronous=FULL; PostgreSQL ${postgresServer.version} fsync=${postgresServer.fsync} synchronous_commit=${postgresServer.synchronousCommit}`,
  );
  out(`Node ${process.version}, ${report.machine.cpu}, ${state.pinning.cores} cores; pinning: ${state.pinning.description}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  out(
    '| Database | Run | Events made in | Delivered meanwhile | Deliveries/s, queue full | Deliveries/s, first to last | ' +
      "Server CPU (cores) | Its PostgreSQL backends' CPU (cores) | Lag load, events/s | Lag p50 / p90 / p99 / max, ms |",
  );
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const run of profiled ? [...runs, profiled] : runs) {
    const { throughput: t, lag } = run;
    out(
      `| ${run.database} | ${run.run} | ${t.makingSeconds.toFixed(1)} s | ${t.arrivedWhileMaking} | ${t.deliveriesPerSecond.toFixed(0)} | ` +
        `${t.firstToLastPerSecond.toFixed(0)} | ${fixed(t.serverCpuShare, 2)} | ${fixed(t.postgresCpuShare, 2)} | ` +
        `${lag.rate} | ${lag.lagMs.p50} / ${lag.lagMs.p90} / ${lag.lagMs.p99} / ${lag.lagMs.max} |`,
    );
  }
  out();
  for (const [database, s] of [
    ['PostgreSQL', summaries.postgres],
    ['SQLite', summaries.sqlite],
  ]) {
    if (!s) continue;
    const target =
      database === 'PostgreSQL'
        ? ` (target ≥ ${THROUGHPUT_TARGET}: ${s.deliveriesPerSecond.median >= THROUGHPUT_TARGET ? 'met' : 'NOT met'})`
        : '';
    out(
      `${database}, ${s.runs} run${s.runs === 1 ? '' : 's'}, median [range]: ${medianRange(s.deliveriesPerSecond)} deliveries/s with the queue full${target}; ` +
        `lag at ${medianRange(s.lagRate)} events/s: p50 ${medianRange(s.lagP50Ms)} ms, p99 ${medianRange(s.lagP99Ms)} ms.`,
    );
  }
  const repeats = runs.reduce((sum, run) => sum + run.throughput.repeats + (run.lag?.repeats ?? 0), 0);
  out(`Every event arrived; ${repeats} arrived more than once. /metrics showed every attempt succeeded and an empty queue after each run.`);
  if (profiled) {
    out();
    out('The profiled run (PostgreSQL, under --cpu-prof and bench/count-statements.js, so somewhat slower) is the last row above.');
    for (const [name, p] of Object.entries(profiled.profile)) {
      const what =
        name === 'throughput'
          ? `while the server only dispatched with the queue full (${p.deliveries} deliveries in ${p.windowSeconds.toFixed(1)} s; ` +
            `server CPU ${fixed(profiled.throughput.serverCpuShare, 2)} of a core)`
          : `during the lag phase (${p.deliveries} events made and delivered at ${profiled.lag.rate}/s; item imports of ${settings.lagBatch} included)`;
      out();
      out(`Profile ${what}:`);
      out('| Part | Share | CPU seconds |\n|---|---|---|');
      for (const { key, share: part, seconds } of p.parts) out(`| ${key} | ${(part * 100).toFixed(1)}% | ${seconds.toFixed(2)} |`);
      out('\nThe frames with the most self time:');
      for (const { key, share: part } of p.topFrames) out(`  ${(part * 100).toFixed(1)}%  ${key}`);
      out(
        `\nStatements per delivery: ${p.statementsPerDelivery.toFixed(2)} (each a round trip to PostgreSQL), of them ` +
          `${p.commitsPerDelivery.toFixed(2)} COMMITs; by statement:`,
      );
      out('| Per delivery | ms per delivery (send to answer) | Statement |\n|---|---|---|');
      for (const row of p.statements.filter((r) => r.perDelivery >= 0.005)) {
        out(
          `| ${row.perDelivery.toFixed(3)} | ${row.msPerDelivery.toFixed(2)} | ${row.sql.length > 150 ? `${row.sql.slice(0, 150)}…` : row.sql} |`,
        );
      }
    }
  }
  out(`Results written to ${relative(process.cwd(), resultsPath) || resultsPath}`);
}

/** Stops every server, closes the receiver, drops the databases, removes the worktree and the temporary directory. */
function cleanup(state) {
  state.cleaning ??= (async () => {
    for (const group of state.groups ?? []) await group.stopAll();
    if (state.receiver) await state.receiver.close();
    if (state.postgres) for (const problem of await state.postgres.dropAll()) log(problem);
    await stopBuilding(state);
    for (const dir of state.worktrees ?? []) for (const problem of removeBuild(root, dir)) log(problem);
    if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  })();
  return state.cleaning;
}

await runBench('bench:webhooks', {
  main,
  cleanup,
  stopping: 'stopping the servers, removing the worktree…',
  tails: (state) => (state.groups ?? []).flatMap((group) => group.logTails()),
});
