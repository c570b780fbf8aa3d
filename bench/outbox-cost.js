#!/usr/bin/env node
/**
 * `npm run bench:outbox`: what the outbox of events (docs/webhooks.md) costs an RN import and a DN
 * import, on SQLite (synchronous=FULL) and on PostgreSQL. There is no switch that turns the outbox
 * off, and there must be none in the product (events are never lost), so the run builds one commit
 * (OUTBOX_HEAD, default HEAD) twice, each in a `git worktree add --detach` of its own with this
 * checkout's node_modules linked and tsc into its own dist/:
 *
 * - **no outbox**: the commit with its outbox cut out before the build (withoutOutbox below): the
 *   one place that writes a change's events (events.writeRecordedEvents, called by runCommand)
 *   writes nothing, and settle no longer builds the inventory.changed events of the balances a
 *   change touched. The documents' own events are still recorded in memory, because the X12 bridge
 *   reads them in the same transaction; that costs a few objects a request. Served with
 *   `--no-webhooks`: there is nothing to dispatch.
 * - **HEAD, no dispatcher**: the commit as it is, `wharf serve --no-webhooks`: it writes the events
 *   but nothing numbers them (on PostgreSQL) or fans them out in the background.
 * - **HEAD**: the commit as it serves, its webhook dispatcher included (no endpoint is configured:
 *   it numbers the events and fans them out to nothing).
 *
 * So every difference between the sides is the outbox's: 1 − HEAD ÷ no outbox is its whole cost
 * (the target, ≤ 10%), 1 − no dispatcher ÷ no outbox what writing the events costs, and 1 − HEAD ÷
 * no dispatcher what the dispatcher adds. (Until 2026-11-28 the base was an older commit, the one
 * before the outbox, with two later driver commits patched in; the write path's other changes since
 * made that comparison meaningless.)
 *
 * On each database each server runs `node dist/cli.js serve`, pinned like `npm run bench`, on a
 * database of its own (a temporary file; a temporary PostgreSQL database), seeded alike with its
 * own CLI and over HTTP: the bench tenant, customer R's 100 items and 100 receipts with their
 * confirmations (bench/seed.js), and customer O's 100 items with 10,000,000 EA of each (one
 * adjustment), so that every DN import line allocates in full. No 100,000 orders: the comparison
 * needs none.
 *
 * The scenarios are those of `npm run bench` (bench/scenarios.js): the RN import of a new receipt
 * of 10 lines and the DN import of a new order of 5 allocating lines. Each runs against every server
 * in OUTBOX_ROUNDS rounds (default 3), each round a full run on each (no outbox, no dispatcher,
 * HEAD in odd rounds; the reverse in even ones; before every round after the first each server is
 * restarted on its port and database, a new process with its own JIT and memory layout, unless the
 * statement counter or the profiler, tied to a process, runs; each run with a 2 s warm-up (later
 * rounds 1 s when the processes stay); on
 * PostgreSQL each run after an ANALYZE and a CHECKPOINT, so that none has stale plans or a
 * checkpoint's cycle alone). The run
 * prints the median and range of the rounds per database and scenario against the target, and
 * writes everything to bench/results/outbox-cost.json.
 *
 * Every answer must be Success with an SVCPOID of its own; afterwards each customer must hold what
 * the answers account for (receipts; orders and their allocations), the events search of the two
 * HEAD servers must find the events written, and that of the server without the outbox none. Every
 * server, worktree, temporary file and database is removed at the end, on failure and on Ctrl-C
 * too. Beside req/s the run prints the CPU a request took in Wharf's process and, on PostgreSQL,
 * in its database's backends (from /proc): what each side spends, whatever the rate the machine
 * let it reach, which on a noisy machine is the steadier figure.
 *
 * Settings: BENCH_DURATION (seconds a run, default 10), BENCH_CONNECTIONS (default 10),
 * OUTBOX_ROUNDS (default 3), OUTBOX_SPLIT (default 1; 0: no server without the dispatcher),
 * OUTBOX_DATABASES (sqlite, postgres or both comma-separated; default both), OUTBOX_HEAD (above),
 * BENCH_POSTGRES_URL (as for `npm run bench`), OUTBOX_STATEMENTS=1 (every server runs with
 * bench/count-statements.js, and the run prints the statements, COMMITs and their time a request
 * of each, and what HEAD runs that the server without the outbox does not; the counter costs every
 * server alike, a little, so measure the costs without it), OUTBOX_PROFILE=1 (every server runs
 * under `node --cpu-prof`, and the run prints each one's busy CPU a request by part over the
 * measured seconds, and the frames with more self time than without the outbox; the profiler slows
 * every server too, so read shares, not rates), OUTBOX_TOGETHER=1 (in each round the sides run at
 * once, each with its own load, their servers sharing their core: each gets about an equal share
 * of it, so the ratio of their rates is the ratio of what a request costs each, measured on the
 * same machine at the same moment; on a machine whose speed drifts from one run to the next this is
 * the steadier comparison. Every rate is about a half of a run alone, the costs are what to read).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharesOf, topFramesOf } from './cpu-profile.js';
import { measure } from './load.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, readyForRun, redact, vacuumAnalyze } from './postgres.js';
import { backendCpu, backendCpuBetween, cpuSecondsOf } from './proc-cpu.js';
import { ProcessGroup, choosePinning, freePort, wharfEnv } from './processes.js';
import { machineOf, median, writeJson } from './report.js';
import { statementsBetween, takeSnapshot } from './statement-counts.js';
import { ORDER_LINES, orderImportScenario, rnImportScenario } from './scenarios.js';
import {
  ORDERS,
  RECEIPTS,
  RECEIPTS_SEEDED,
  TENANT,
  allocatedStock,
  countOrders,
  countReceipts,
  post,
  seedReceipts,
  seedOrderStock,
  seedTenant,
} from './seed.js';
import { buildCommit, describeCommit, removeBuild, stopBuilding } from './worktree.js';
import { log, positiveInteger, runBench } from './lifecycle.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const resultsPath = join(root, 'bench', 'results', 'outbox-cost.json');
const WARMUP_SECONDS = 2;
const LATER_ROUND_WARMUP_SECONDS = 1;
/** The outbox may cost each scenario at most this share of its req/s (issue 15, point 6). */
export const OUTBOX_COST_TARGET = 0.1;
const EVENTS_SEARCH_PATH = '/shared/bam/v1/public/edi/events/search-by-paging';
const DATABASE_KINDS = ['sqlite', 'postgres'];

/**
 * Cuts the outbox out of the worktree at `dir` (see above): each edit must find its text exactly,
 * so that a change of those functions fails the run instead of measuring something else. The early
 * return sits under an always-true `if`, so that tsc still type-checks the code after it.
 */
function withoutOutbox(dir) {
  const edits = [
    {
      file: 'src/modules/events/events.service.ts',
      find: 'export async function writeRecordedEvents(trx: Trx): Promise<number> {\n',
      add: '  if (trx) {\n    recorded.delete(trx);\n    return 0;\n  }\n',
    },
    {
      file: 'src/modules/inventory/stock-events.ts',
      find: 'export function recordStockChanges(trx: Trx, change: { keyId: number; at: number }): void {\n',
      add: '  if (trx) {\n    takeChangedBalances(trx);\n    return;\n  }\n',
    },
  ];
  for (const { file, find, add } of edits) {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    if (text.split(find).length !== 2) throw new Error(`cutting the outbox out: ${file} no longer has ${JSON.stringify(find)} once`);
    writeFileSync(path, text.replace(find, find + add));
  }
}

/**
 * The servers compared, in the order of the odd rounds (the even ones run them in reverse): HEAD
 * without its outbox, HEAD without its dispatcher (unless OUTBOX_SPLIT=0), HEAD as it serves.
 */
const SIDES = {
  base: { build: 'base', label: 'no outbox', serveArgs: ['--no-webhooks'] },
  noDispatcher: { build: 'head', label: 'HEAD, no dispatcher', serveArgs: ['--no-webhooks'] },
  head: { build: 'head', label: 'HEAD', serveArgs: [] },
};

function selectedDatabases() {
  const raw = process.env.OUTBOX_DATABASES;
  if (raw === undefined || raw.trim() === '') return DATABASE_KINDS;
  const named = raw.split(',').map((name) => name.trim());
  if (named.length === 0 || named.some((name) => !DATABASE_KINDS.includes(name))) {
    throw new Error(`OUTBOX_DATABASES must name ${DATABASE_KINDS.join(' and/or ')} (got ${JSON.stringify(raw)})`);
  }
  return DATABASE_KINDS.filter((kind) => named.includes(kind));
}

/** How many events of `customer` the events search finds (of `types` when given): HEAD only. */
async function countEvents(wharf, apiKey, customer, types) {
  const body = JSON.stringify({ CompanyID: TENANT.company, CustomerID: customer, Types: types, Paging: { PageNo: 1, PageSize: 1 } });
  const { json } = await post(wharf, EVENTS_SEARCH_PATH, apiKey, body);
  return json.paging.totalCount;
}

/**
 * Starts one build's `wharf serve` on its own database and seeds it; answers the server's entry in
 * the shape bench/scenarios.js takes ({ id, label, wharf, apiKey, b1 }), with its build and database.
 */
async function startSide(state, { kind, side, build, env }) {
  const { label: sideLabel, serveArgs } = SIDES[side];
  const statementsFile = state.countStatements ? join(state.tmp, `${side}-${kind}-statements.jsonl`) : undefined;
  const counter = statementsFile ? ['--import', join(root, 'bench', 'count-statements.js')] : [];
  const profileDir = state.profile ? join(state.tmp, `${side}-${kind}-cpuprofile`) : undefined;
  if (profileDir) counter.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const serverEnv = statementsFile ? { ...env, BENCH_STATEMENTS_OUT: statementsFile } : env;
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const dbUrl = kind === 'sqlite' ? `sqlite:${join(state.tmp, `${side}.db`)}` : await state.postgres.create(side);
  const port = await freePort();
  const wharf = `http://127.0.0.1:${port}`;
  const argv = [...counter, build.cliPath, 'serve', ...serveArgs, '--db', dbUrl, '--port', String(port)];
  const entry = state.group.startServer(`${side}-${kind}`, argv, serverEnv);
  await state.group.waitUntilReady(entry, async () => (await fetch(`${wharf}/readyz`)).ok);
  log(
    `${label}, ${sideLabel} (${build.short}): seeding the tenant with its CLI, ${RECEIPTS_SEEDED} receipts and ${ORDERS.customer}'s stock over HTTP…`,
  );
  const apiKey = await seedTenant(build.cliPath, dbUrl, env);
  const seeded = { receipts: await seedReceipts(wharf, apiKey), orderStock: await seedOrderStock(wharf, apiKey) };
  if (kind === 'postgres') seeded.vacuumAnalyze = { seconds: await vacuumAnalyze(dbUrl) };
  return {
    id: `${kind}-${side}`,
    label,
    kind,
    side,
    sideLabel,
    build: build.short,
    dbUrl,
    wharf,
    apiKey,
    b1: {},
    seeded,
    pid: entry.child.pid,
    statementsFile,
    profileDir,
    entry,
  };
}

/** Restarts a side's server on its port and database (ProcessGroup.restart). */
async function restartSide(state, server) {
  server.entry = await state.group.restart(server.entry, async () => (await fetch(`${server.wharf}/readyz`)).ok);
  server.pid = server.entry.child.pid;
}

/**
 * Where a server's CPU went during `runs` (their measured seconds, not the warm-ups), from the
 * profile it wrote at its stop (`endMs`, ms since the epoch, its end): by part and by frame, in µs
 * a request answered, the idle time left out.
 */
function profileOf(profileDir, endMs, runs) {
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${profileDir}`);
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  const usOf = (ms) => profile.endTime - (endMs - ms) * 1000;
  const requests = runs.reduce((sum, run) => sum + run.requestsTotal, 0);
  const add = (into, rows) => {
    for (const { key, seconds } of rows) into.set(key, (into.get(key) ?? 0) + seconds);
  };
  const parts = new Map();
  const frames = new Map();
  for (const { window } of runs) {
    add(parts, sharesOf(profile, usOf(window.from), usOf(window.to)));
    add(frames, topFramesOf(profile, usOf(window.from), usOf(window.to), 40));
  }
  const perRequest = (map) =>
    [...map]
      .filter(([key]) => !key.startsWith('(idle)') && key !== 'Idle')
      .map(([key, seconds]) => ({ key, microseconds: (seconds * 1e6) / requests }))
      .sort((a, b) => b.microseconds - a.microseconds);
  const byPart = perRequest(parts);
  return { requests, busyMicroseconds: byPart.reduce((sum, row) => sum + row.microseconds, 0), parts: byPart, frames: perRequest(frames) };
}

/**
 * Runs the scenario of each side (`scenarios`, by side, of bench/scenarios.js) in `roundCount`
 * rounds, `sides` in order in odd rounds and in reverse in even ones (no outbox first, then HEAD
 * first); answers each side's runs, in round order. With the statement counter (`servers`, by
 * side, hold each server's pid and counter file), `counted` gets each side's statements by text,
 * summed over its warm-ups and runs, and the requests they answered.
 */
async function measureRounds(state, scenarios, sides, { roundCount, duration, connections, title, servers, counted }) {
  const runs = Object.fromEntries(sides.map((side) => [side, []]));
  for (const side of sides) await scenarios[side].check();
  for (let round = 1; round <= roundCount; round++) {
    if (state.restartsEachRound && round > 1) for (const side of sides) await restartSide(state, servers[side]);
    const warmupSeconds = round === 1 || state.restartsEachRound ? WARMUP_SECONDS : LATER_ROUND_WARMUP_SECONDS;
    const runSide = async (side) => {
      const scenario = scenarios[side];
      log(
        `${title} (${scenario.database}, ${SIDES[side].label}), round ${round} of ${roundCount}: ` +
          `${warmupSeconds} s warm-up + ${duration} s, ${connections} connections${state.together ? ', the sides at once' : ''}…`,
      );
      const { pid, statementsFile, kind, dbUrl } = servers[side];
      // Each run of a side on PostgreSQL starts from fresh statistics and a checkpoint done
      // (readyForRun): either, left to chance, slowed whichever side it fell on (docs/performance.md).
      if (kind === 'postgres') await readyForRun(dbUrl);
      const before = statementsFile && (await takeSnapshot(pid, statementsFile));
      const cpuBefore = { server: cpuSecondsOf(pid), postgres: kind === 'postgres' ? await backendCpu(dbUrl) : null };
      const startedAt = Date.now();
      const figures = await measure({
        title: `${scenario.title} (${side})`,
        target: scenario.target,
        connections,
        duration,
        warmupSeconds,
      });
      // CPU a request, the warm-up's requests and CPU included (both counted from before it).
      const requests = figures.requestsTotal + (figures.warmup?.requestsTotal ?? 0);
      figures.cpuMicrosecondsPerRequest = {
        server: ((cpuSecondsOf(pid) - cpuBefore.server) * 1e6) / requests,
        postgres: kind === 'postgres' ? (backendCpuBetween(cpuBefore.postgres, await backendCpu(dbUrl)) * 1e6) / requests : null,
      };
      // The measured seconds (after the warm-up), for the CPU profile's cut.
      figures.window = { from: startedAt + warmupSeconds * 1000, to: Date.now() };
      state.group.assertAlive();
      if (statementsFile) {
        const after = await takeSnapshot(pid, statementsFile);
        const sum = (counted[side] ??= { requests: 0, statements: {} });
        sum.requests += figures.requestsTotal + (figures.warmup?.requestsTotal ?? 0);
        for (const [sql, { count, ms }] of Object.entries(after.statements)) {
          const was = before.statements[sql] ?? { count: 0, ms: 0 };
          const total = (sum.statements[sql] ??= { count: 0, ms: 0 });
          total.count += count - was.count;
          total.ms += ms - was.ms;
        }
      }
      return figures;
    };
    if (state.together) {
      const figures = await Promise.all(sides.map(runSide));
      sides.forEach((side, i) => runs[side].push(figures[i]));
    } else {
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) runs[side].push(await runSide(side));
    }
  }
  return runs;
}

/**
 * 1 − `of` ÷ `against` in each round, with the median and range of those; `runs` by side. The
 * median req/s of each side too (so `cost` need not be 1 − their ratio).
 */
function costOf(runs, of, against) {
  const rounds = runs[against].map((run, i) => ({
    [against]: run.requestsPerSecond,
    [of]: runs[of][i].requestsPerSecond,
    cost: 1 - runs[of][i].requestsPerSecond / run.requestsPerSecond,
  }));
  const costs = rounds.map((round) => round.cost);
  return { rounds, cost: median(costs), costRange: [Math.min(...costs), Math.max(...costs)] };
}

/** Every RN import answer a clean create, and customer R holding at least the seeded receipts plus one per answer. */
async function verifyReceipts(database, tally) {
  if (tally.Warning > 0 || tally.other > 0 || tally.Success === 0 || tally.newReceipts !== tally.Success) {
    throw new Error(`the RN import on ${database.id} was not all clean creates: ${JSON.stringify(tally)}`);
  }
  const receipts = await countReceipts(database.wharf, database.apiKey);
  if (receipts < RECEIPTS_SEEDED + tally.Success) {
    throw new Error(
      `after the RN imports ${database.id} holds ${receipts} receipts of ${RECEIPTS.customer}, expected at least ${RECEIPTS_SEEDED + tally.Success}`,
    );
  }
  return { receipts, answered: tally.Success };
}

/**
 * Every DN import answer a clean create; customer O holding one order per answer, plus at most the
 * requests in flight as each warm-up and run stopped, and exactly ORDER_LINES EA allocated per order.
 */
async function verifyOrders(database, tally, slack) {
  if (tally.Warning > 0 || tally.other > 0 || tally.Success === 0 || tally.newOrders !== tally.Success) {
    throw new Error(`the DN import on ${database.id} was not all clean creates: ${JSON.stringify(tally)}`);
  }
  // A request autocannon gave up on as a run ended may still be committing: read once it must be done.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const orders = await countOrders(database.wharf, database.apiKey);
  if (orders < tally.Success || orders > tally.Success + slack) {
    throw new Error(
      `after the DN imports ${database.id} holds ${orders} orders of ${ORDERS.customer}, expected ${tally.Success} to ${tally.Success + slack}`,
    );
  }
  const allocated = await allocatedStock(database.wharf, database.apiKey);
  if (allocated !== orders * ORDER_LINES) {
    throw new Error(
      `after the DN imports ${database.id} has ${allocated} EA allocated, its ${orders} orders ordered ${orders * ORDER_LINES}`,
    );
  }
  return { orders, answered: tally.Success, allocated };
}

const percent = (share) => `${(share * 100).toFixed(1)}%`;

async function main(state) {
  const duration = positiveInteger('BENCH_DURATION', 10);
  const connections = positiveInteger('BENCH_CONNECTIONS', 10);
  const roundCount = positiveInteger('OUTBOX_ROUNDS', 3);
  const kinds = selectedDatabases();
  const headRev = process.env.OUTBOX_HEAD || 'HEAD';
  const postgresAdminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;
  const split = process.env.OUTBOX_SPLIT !== '0';
  state.countStatements = process.env.OUTBOX_STATEMENTS === '1';
  state.profile = process.env.OUTBOX_PROFILE === '1';
  // A counter's snapshots and a CPU profile belong to one process: with either, the processes stay.
  state.restartsEachRound = !state.countStatements && !state.profile;
  state.together = process.env.OUTBOX_TOGETHER === '1';
  const { restartsEachRound } = state;
  const sideNames = split ? ['base', 'noDispatcher', 'head'] : ['base', 'head'];

  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-outbox-'));

  const builds = {};
  const head = describeCommit(root, headRev);
  log(`building ${head.short} ${head.subject}, without its outbox and as it is, in two worktrees…`);
  builds.base = await buildCommit(root, head.commit, join(state.tmp, 'base'), state, { prepare: withoutOutbox });
  builds.base.short += ' without its outbox';
  builds.head = await buildCommit(root, head.commit, join(state.tmp, 'head'), state);
  log(`built in ${(builds.base.seconds + builds.head.seconds).toFixed(0)} s`);

  let postgresServer = null;
  if (kinds.includes('postgres')) {
    state.postgres = new TemporaryDatabases(postgresAdminUrl);
    postgresServer = await state.postgres.describeServer();
    log(`PostgreSQL ${postgresServer.version} at ${redact(postgresAdminUrl)}: temporary databases ${state.postgres.prefix}_*`);
  }

  const env = wharfEnv({ prefixes: ['WEBHOOK_'] });
  const results = [];
  const checks = {};
  for (const kind of kinds) {
    // A group of its own for each database's two servers, stopped once that database is done.
    state.group = new ProcessGroup(state.tmp, pinning);
    (state.groups ??= []).push(state.group);
    const sides = {};
    for (const side of sideNames) sides[side] = await startSide(state, { kind, side, build: builds[SIDES[side].build], env });
    const tallies = {};
    const scenarioPairs = [
      {
        key: 'rn-import',
        title: 'RN import, 10 lines',
        make: (database) => {
          const tally = (tallies[`rn-${database.side}`] = { Success: 0, Warning: 0, other: 0, newReceipts: 0 });
          return rnImportScenario(database, tally, new Set());
        },
      },
      {
        key: 'dn-import',
        title: `DN import, ${ORDER_LINES} allocating lines`,
        make: (database) => {
          const tally = (tallies[`dn-${database.side}`] = { Success: 0, Warning: 0, other: 0, newOrders: 0 });
          return orderImportScenario(database, tally);
        },
      },
    ];
    for (const { key, title, make } of scenarioPairs) {
      const scenarios = Object.fromEntries(sideNames.map((side) => [side, make(sides[side])]));
      const counted = {};
      const runs = await measureRounds(state, scenarios, sideNames, { roundCount, duration, connections, title, servers: sides, counted });
      const outbox = costOf(runs, 'head', 'base');
      results.push({
        database: sides.base.label,
        scenario: key,
        title,
        requestsPerSecond: Object.fromEntries(sideNames.map((side) => [side, runs[side].map((run) => run.requestsPerSecond)])),
        p50Ms: Object.fromEntries(sideNames.map((side) => [side, runs[side].map((run) => run.latencyMs.p50)])),
        cpuMicrosecondsPerRequest: Object.fromEntries(
          sideNames.map((side) => [
            side,
            {
              server: median(runs[side].map((run) => run.cpuMicrosecondsPerRequest.server)),
              postgres: kind === 'postgres' ? median(runs[side].map((run) => run.cpuMicrosecondsPerRequest.postgres)) : null,
            },
          ]),
        ),
        outbox: { ...outbox, target: OUTBOX_COST_TARGET, withinTarget: outbox.cost <= OUTBOX_COST_TARGET },
        writingEvents: split ? costOf(runs, 'noDispatcher', 'base') : null,
        dispatcher: split ? costOf(runs, 'head', 'noDispatcher') : null,
        statements: state.countStatements
          ? Object.fromEntries(
              sideNames.map((side) => [side, statementsBetween({ statements: {} }, counted[side], counted[side].requests)]),
            )
          : null,
        runs,
      });
    }
    // The check's request, each round's warm-up and run: those in flight as one stopped committed unanswered.
    const slack = connections * 2 * roundCount + 1;
    checks[kind] = {};
    for (const side of sideNames) {
      const database = sides[side];
      checks[kind][side] = {
        build: database.build,
        seeded: database.seeded,
        receipts: await verifyReceipts(database, tallies[`rn-${side}`]),
        orders: await verifyOrders(database, tallies[`dn-${side}`], slack),
      };
    }
    // HEAD's builds wrote the events of every change: one receipt.imported a receipt, and for each
    // order an order.imported and the inventory.changed of its allocation (the seeding's included);
    // without its outbox the same changes wrote none. The events search numbers what no dispatcher
    // numbered before it reads.
    for (const side of sideNames) {
      const { wharf, apiKey } = sides[side];
      const events = {
        'receipt.imported': await countEvents(wharf, apiKey, RECEIPTS.customer, ['receipt.imported']),
        'order.imported': await countEvents(wharf, apiKey, ORDERS.customer, ['order.imported']),
        'inventory.changed': await countEvents(wharf, apiKey, ORDERS.customer, ['inventory.changed']),
      };
      const { receipts } = checks[kind][side].receipts;
      const { orders } = checks[kind][side].orders;
      const written = SIDES[side].build === 'head';
      const accounted = written
        ? events['receipt.imported'] === receipts && events['order.imported'] === orders && events['inventory.changed'] >= orders
        : Object.values(events).every((count) => count === 0);
      if (!accounted) {
        throw new Error(
          `the events of ${SIDES[side].label} (${kind}) do not account for its ${receipts} receipts and ${orders} orders: ${JSON.stringify(events)}`,
        );
      }
      checks[kind][side].events = events;
    }
    const stopping = Date.now();
    await state.group.stopAll(20_000);
    if (state.profile) {
      const endMs = (stopping + Date.now()) / 2;
      for (const result of results.filter((r) => r.database === sides.base.label)) {
        result.profile = Object.fromEntries(sideNames.map((side) => [side, profileOf(sides[side].profileDir, endMs, result.runs[side])]));
      }
    }
  }

  const report = {
    date: new Date().toISOString(),
    command: 'npm run bench:outbox',
    head: { rev: headRev, commit: builds.head.commit, subject: builds.head.subject },
    machine: machineOf(pinning.cores, loadAtStart),
    sides: sideNames.map((side) => ({
      side,
      label: SIDES[side].label,
      build: builds[SIDES[side].build].short,
      serveArgs: SIDES[side].serveArgs,
    })),
    settings: {
      durationSeconds: duration,
      warmupSeconds: WARMUP_SECONDS,
      laterRoundWarmupSeconds: restartsEachRound ? WARMUP_SECONDS : LATER_ROUND_WARMUP_SECONDS,
      serversRestartedEachRound: restartsEachRound,
      sidesAtOnce: state.together,
      rounds: roundCount,
      connections,
      sqliteSynchronous: 'FULL',
      postgres: postgresServer && { ...postgresServer, poolSize: 10, pinned: false },
      pinning: pinning.description,
    },
    results,
    checks,
  };
  writeJson(resultsPath, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out();
  out(`The outbox's cost — ${builds.head.short} ${builds.head.subject}, without its outbox and as it is`);
  out(
    (restartsEachRound
      ? `${roundCount} rounds of ${duration} s a side, on new server processes each round, each after a ${WARMUP_SECONDS} s warm-up, `
      : `${roundCount} rounds of ${duration} s a side (warm-up ${WARMUP_SECONDS} s in round 1, ${LATER_ROUND_WARMUP_SECONDS} s later), `) +
      `${connections} connections; ${state.together ? 'the sides at once, sharing their core' : 'no outbox first in odd rounds, HEAD first in even ones'}`,
  );
  out(
    `SQLite synchronous=FULL${postgresServer ? `; PostgreSQL ${postgresServer.version} fsync=${postgresServer.fsync} synchronous_commit=${postgresServer.synchronousCommit}` : ''}`,
  );
  out(`Node ${process.version}, ${report.machine.cpu}, ${pinning.cores} cores; pinning: ${pinning.description}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  const range = ({ cost, costRange }) => `**${percent(cost)}** [${percent(costRange[0])} – ${percent(costRange[1])}]`;
  const byRound = (values, format) => values.map(format).join(', ');
  const header = ['Scenario', 'Database', ...sideNames.map((side) => `${SIDES[side].label}, req/s by round`), 'Outbox cost by round'];
  header.push('Outbox cost (1 − HEAD ÷ no outbox)', 'Target');
  if (split) header.push('Writing the events (1 − no dispatcher ÷ no outbox)', 'The dispatcher (1 − HEAD ÷ no dispatcher)');
  out(`| ${header.join(' | ')} |`);
  out(`|${header.map(() => '---').join('|')}|`);
  for (const r of results) {
    const cells = [r.title, r.database, ...sideNames.map((side) => byRound(r.requestsPerSecond[side], (value) => value.toFixed(0)))];
    cells.push(
      byRound(r.outbox.rounds, (round) => percent(round.cost)),
      range(r.outbox),
    );
    cells.push(`≤ ${percent(r.outbox.target)}: ${r.outbox.withinTarget ? 'within' : 'NOT within'}`);
    if (split) cells.push(range(r.writingEvents), range(r.dispatcher));
    out(`| ${cells.join(' | ')} |`);
  }
  out();
  out("Each cost is the median of the rounds' 1 − req/s ÷ req/s, the range of the rounds in brackets.");
  out();
  out(
    "CPU a request, the median of the rounds (from /proc, warm-ups included): Wharf's process, and on PostgreSQL the " +
      'backends of its database (not the WAL writer, checkpointer or autovacuum):',
  );
  out(`| Scenario | Database | ${sideNames.map((side) => `${SIDES[side].label}, µs`).join(' | ')} |`);
  out(`|---|---|${sideNames.map(() => '---').join('|')}|`);
  for (const r of results) {
    const cells = sideNames.map((side) => {
      const { server, postgres } = r.cpuMicrosecondsPerRequest[side];
      return postgres === null ? server.toFixed(0) : `${server.toFixed(0)} + ${postgres.toFixed(0)} in PostgreSQL`;
    });
    out(`| ${r.title} | ${r.database} | ${cells.join(' | ')} |`);
  }
  if (state.countStatements) {
    out();
    out('Statements a request (bench/count-statements.js in every server; warm-ups and runs of every round), and their time:');
    out('| Scenario | Database | Server | Statements | COMMITs | ms in statements (send to answer) |');
    out('|---|---|---|---|---|---|');
    for (const r of results) {
      for (const side of sideNames) {
        const c = r.statements[side];
        out(
          `| ${r.title} | ${r.database} | ${SIDES[side].label} | ${c.perUnit.toFixed(2)} | ${c.commitsPerUnit.toFixed(2)} | ${c.msPerUnit.toFixed(2)} |`,
        );
      }
    }
    out();
    out('What HEAD runs a request that it does not without its outbox, or more often (the difference of the counts):');
    for (const r of results) {
      const base = new Map(r.statements.base.rows.map((row) => [row.sql, row]));
      const more = r.statements.head.rows
        .map((row) => ({ ...row, more: row.perUnit - (base.get(row.sql)?.perUnit ?? 0) }))
        .filter((row) => row.more >= 0.01)
        .sort((a, b) => b.more - a.more);
      out(`- ${r.title}, ${r.database}:`);
      for (const row of more) out(`  +${row.more.toFixed(2)}  ${row.sql.length > 140 ? `${row.sql.slice(0, 140)}…` : row.sql}`);
    }
  }
  for (const kind of kinds) {
    const answers = sideNames.map(
      (side) =>
        `${SIDES[side].label}: ${checks[kind][side].receipts.answered} RN imports, ${checks[kind][side].orders.answered} DN imports ` +
        `(${checks[kind][side].orders.orders} orders held, ${checks[kind][side].orders.allocated} EA allocated)`,
    );
    const events = sideNames
      .filter((side) => checks[kind][side].events)
      .map((side) => {
        const counted = checks[kind][side].events;
        return `${SIDES[side].label}: ${counted['receipt.imported']} receipt.imported, ${counted['order.imported']} order.imported, ${counted['inventory.changed']} inventory.changed`;
      });
    out(
      `${kind}: every answer Success with an SVCPOID of its own — ${answers.join('; ')}. Events found by the events search — ${events.join('; ')}.`,
    );
  }
  if (state.profile) {
    out();
    out('CPU profiles (node --cpu-prof in every server; the measured seconds of every round), µs of busy CPU a request answered:');
    for (const r of results) {
      out();
      out(
        `${r.title}, ${r.database}: ${sideNames.map((side) => `${SIDES[side].label} ${r.profile[side].busyMicroseconds.toFixed(0)} µs`).join(', ')}`,
      );
      const keys = [
        ...new Set(sideNames.flatMap((side) => r.profile[side].parts.filter((row) => row.microseconds >= 10).map((row) => row.key))),
      ];
      out(`| Part | ${sideNames.map((side) => SIDES[side].label).join(' | ')} |`);
      out(`|---|${sideNames.map(() => '---').join('|')}|`);
      for (const key of keys) {
        const cells = sideNames.map((side) => (r.profile[side].parts.find((row) => row.key === key)?.microseconds ?? 0).toFixed(0));
        out(`| ${key} | ${cells.join(' | ')} |`);
      }
      const base = new Map(r.profile.base.frames.map((row) => [row.key, row.microseconds]));
      for (const side of sideNames.filter((name) => name !== 'base')) {
        const more = r.profile[side].frames
          .map((row) => ({ key: row.key, more: row.microseconds - (base.get(row.key) ?? 0) }))
          .filter((row) => row.more >= 10)
          .sort((a, b) => b.more - a.more)
          .slice(0, 12);
        out(
          `Frames with more self time on ${SIDES[side].label} than without the outbox (µs a request): ${more.map((row) => `${row.key.trim()} +${row.more.toFixed(0)}`).join('; ') || 'none'}`,
        );
      }
    }
  }
  out(`Results written to ${relative(process.cwd(), resultsPath) || resultsPath}`);
}

/** Stops every server, drops the temporary databases, removes the worktrees and the temporary directory; safe to call twice. */
function cleanup(state) {
  state.cleaning ??= (async () => {
    for (const group of state.groups ?? []) await group.stopAll();
    if (state.postgres) for (const problem of await state.postgres.dropAll()) log(problem);
    await stopBuilding(state);
    for (const dir of state.worktrees ?? []) for (const problem of removeBuild(root, dir)) log(problem);
    if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  })();
  return state.cleaning;
}

await runBench('bench:outbox', {
  main,
  cleanup,
  stopping: 'stopping the servers, removing the worktrees…',
  tails: (state) => (state.groups ?? []).flatMap((group) => group.logTails()),
});
