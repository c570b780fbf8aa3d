/**
 * `npm run bench`: starts Wharf twice — on SQLite (synchronous=FULL) and on a temporary PostgreSQL
 * database — and the baselines (B0; B1 on SQLite, B1-pg on PostgreSQL), seeds a tenant on each,
 * drives every scenario with autocannon (each run on PostgreSQL, B1-pg's included, after an ANALYZE
 * of both its databases and a CHECKPOINT: bench/postgres.js readyForRun), checks that every write
 * scenario wrote what it answered (bench/verify.js), prints a table with the database of each row
 * and the ratios to the baselines, and writes bench/results/latest.json. Every child process, the
 * temporary directory and the temporary PostgreSQL databases are removed at the end, on failure and
 * on Ctrl-C too.
 *
 * With the rate scenarios it also times the rate engine in process (bench/quote-in-process.js, on
 * the servers' core) and prints it next to the table, compared with B0.
 *
 * With the rate or receipts scenarios it also measures what the rate limiter costs: the bench keys
 * carry a limit that is never reached, so the limiter counts every request without refusing one,
 * and a second Wharf on each database runs without the limiter (RATE_LIMIT_EDI=0,
 * RATE_LIMIT_RATE=0). Each rate quote and RN import runs against both in BENCH_LIMITER_ROUNDS
 * rounds, each round a full run on each server (both restarted before every round after the
 * first), the limiter-off one first in rounds 1, 3, … and second in rounds 2, 4, …. For each pair the run prints the
 * median over the rounds of 1 − req/s with the limiter ÷ req/s without it, their range and each
 * round's req/s, against issue 14's targets (under 5% on SQLite, under 10% on PostgreSQL), and
 * writes them as `limiterCost`. Beside it, the same cost in the server's CPU a request (from /proc,
 * warm-up included): 1 − CPU without ÷ CPU with, which the machine's noise moves less than req/s.
 *
 * Settings: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_LIMITER_ROUNDS (the rounds of each limiter pair, default 3), BENCH_POSTGRES_URL (a server
 * and a user that may create databases; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_ONLY (a comma-separated list of the groups of scenarios to run, of items, receipts,
 * adjustments, orders and rate; default all of them). With BENCH_ONLY the run seeds only what those
 * groups need and starts B1 and B1-pg only for groups that write: `BENCH_ONLY=rate npm run bench`
 * takes about three minutes, without the ten minutes of seeding the orders. B0 runs every time, the
 * write checks and the printed lines only for what ran.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './load.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, readyForRun, redact, vacuumAnalyze } from './postgres.js';
import { cpuSecondsOf } from './proc-cpu.js';
import { ProcessGroup, choosePinning, runPinned, wharfEnv } from './processes.js';
import { describeInProcess } from './quote-in-process.js';
import { RATE_CARD_FILE } from './rate-parcels.js';
import { formatTable, limiterCosts, machineOf, withRatios, writeJson } from './report.js';
import {
  ADJUSTMENT_LINES,
  GROUPS,
  LIMITER_GROUPS,
  ORDER_LINES,
  WRITE_GROUPS,
  adjustmentKey,
  limiterOffKey,
  scenarios,
} from './scenarios.js';
import {
  ADJUSTMENTS,
  ADJUSTMENT_ITEMS,
  ITEMS_A,
  ITEMS_B,
  ORDERS,
  ORDERS_SEEDED,
  ORDER_ITEMS,
  RECEIPTS,
  RECEIPTS_SEEDED,
  SEEDED_ORDER_LINES,
  SEED_CONCURRENCY,
  TENANT,
  seedAdjustmentStock,
  seedItemMaster,
  seedOrders,
  seedRating,
  seedReceipts,
  seedTenant,
} from './seed.js';
import { restartServerOf, serverPidOf, startServers } from './servers.js';
import { verifyWrites } from './verify.js';
import { log, positiveInteger, runBench } from './lifecycle.js';

const WARMUP_SECONDS = 2;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliPath = join(root, 'dist', 'cli.js');
const resultsPath = join(root, 'bench', 'results', 'latest.json');
const inProcessScript = join(root, 'bench', 'quote-in-process.js');

/** The groups of scenarios BENCH_ONLY names (see GROUPS in bench/scenarios.js); all of them when it is unset. */
function selectedGroups() {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return [...GROUPS];
  const named = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = named.filter((name) => !GROUPS.includes(name));
  if (unknown.length > 0 || named.length === 0) {
    throw new Error(`BENCH_ONLY must name groups of ${GROUPS.join(', ')} (got ${JSON.stringify(raw)})`);
  }
  // In GROUPS' order, whatever order they were named in.
  return GROUPS.filter((group) => named.includes(group));
}

/**
 * The commit measured, and whether the working tree's src/ differed from it; undefined outside git.
 * Read when the run starts, as the build it serves is: a commit made during a run is not what it measured.
 */
function sourceRevision() {
  const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return undefined;
  return { commit: head.stdout.trim(), uncommittedChanges: git('status', '--porcelain', '--', 'src').stdout.trim() !== '' };
}

const isPostgres = (database) => database.dbUrl.startsWith('postgres');

/**
 * Creates the tenant on each database with the CLI, then seeds over HTTP what the `groups` of
 * scenarios read and write (only that: the orders alone take minutes); adds each API key to its
 * database, and with the rate group the rate card and the rater key (CLI). A PostgreSQL database
 * then gets one VACUUM ANALYZE, as during the order seeding, so that it is measured with the
 * statistics autovacuum would have given it.
 */
async function seed(databases, env, groups) {
  const has = (group) => groups.includes(group);
  const seeded = {};
  for (const database of databases) {
    log(`${database.label}: seeding the tenant with the CLI…`);
    database.apiKey = await seedTenant(cliPath, database.dbUrl, env);
    seeded[database.id] = {};
    if (has('rate')) {
      log(`${database.label}: loading ${RATE_CARD_FILE} as ${TENANT.company}'s rate card and creating a rater key with the CLI…`);
      const { key, seconds } = await seedRating(cliPath, database.dbUrl, env, join(root, RATE_CARD_FILE));
      database.rateKey = key;
      seeded[database.id].rating = { card: RATE_CARD_FILE, seconds };
    }
    if (has('items') && database.items) {
      log(`${database.label}: seeding ${ITEMS_A} items for ${TENANT.customerA} and ${ITEMS_B} for ${TENANT.customerB} over HTTP…`);
      seeded[database.id].items = await seedItemMaster(database.wharf, database.apiKey);
    }
    if (has('receipts')) {
      log(`${database.label}: seeding ${RECEIPTS_SEEDED} receipts with one confirmation each for ${RECEIPTS.customer} over HTTP…`);
      seeded[database.id].receipts = await seedReceipts(database.wharf, database.apiKey);
    }
    if (has('adjustments')) {
      log(`${database.label}: seeding ${ADJUSTMENT_ITEMS} items with opening stock for ${ADJUSTMENTS.customer} over HTTP…`);
      seeded[database.id].adjustments = await seedAdjustmentStock(database.wharf, database.apiKey);
    }
    if (has('orders')) {
      log(
        `${database.label}: seeding ${ORDER_ITEMS} items with opening stock and ${ORDERS_SEEDED} orders of ${SEEDED_ORDER_LINES} ` +
          `line${SEEDED_ORDER_LINES === 1 ? '' : 's'} (DN import, ${SEED_CONCURRENCY} at a time) for ${ORDERS.customer} over HTTP…`,
      );
      seeded[database.id].orders = await seedOrders(database.wharf, database.apiKey, {
        progress: (text) => log(`${database.label}: ${text}`),
        upkeep: isPostgres(database) ? () => vacuumAnalyze(database.dbUrl) : undefined,
      });
    }
    if (isPostgres(database)) {
      log(`${database.label}: VACUUM ANALYZE…`);
      seeded[database.id].vacuumAnalyze = { seconds: await vacuumAnalyze(database.dbUrl) };
    }
    const seconds = Object.values(seeded[database.id]).reduce((sum, part) => sum + part.seconds, 0);
    log(`${database.label}: seeded in ${seconds.toFixed(1)} s`);
  }
  return seeded;
}

/**
 * Times the rate engine in process on the servers' core: bench/quote-in-process.js in a process of
 * its own, under the servers' taskset prefix, so that it runs where the HTTP quotes run.
 */
async function measureEngineInProcess(pinning, { seconds, warmupSeconds }) {
  const figures = JSON.parse(
    await runPinned(pinning, [inProcessScript, '--seconds', String(seconds), '--warmup', String(warmupSeconds), '--json']),
  );
  return { ...figures, pinned: pinning.pinned ? `core ${pinning.serverCore}` : 'no' };
}

/**
 * The in-process figures compared with B0. B0's req/s bounds what one bare Fastify request costs
 * the server's core (1 ÷ req/s, or less when the load generator is the limit), so B0 req/s ÷
 * quotes/s is about how much of that budget one quote takes, and 1 ÷ (1 + that) the most an HTTP
 * quote could reach of B0 if the engine were all that Wharf added to bare Fastify.
 */
function compareWithB0(figures, b0) {
  const engineShareOfB0 = b0.requestsPerSecond / figures.quotesPerSecond;
  return {
    ...figures,
    vsB0: {
      quotesPerSecondOverB0RequestsPerSecond: figures.quotesPerSecond / b0.requestsPerSecond,
      engineShareOfB0Request: engineShareOfB0,
      httpCeilingOverB0: 1 / (1 + engineShareOfB0),
    },
  };
}

async function main(state) {
  const duration = positiveInteger('BENCH_DURATION', 10);
  const connections = positiveInteger('BENCH_CONNECTIONS', 10);
  const roundCount = positiveInteger('BENCH_LIMITER_ROUNDS', 3);
  const postgresAdminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;
  const groups = selectedGroups();
  const source = sourceRevision();
  const has = (group) => groups.includes(group);
  const writeBaselines = groups.some((group) => WRITE_GROUPS.includes(group));
  const limiterBaselines = groups.some((group) => LIMITER_GROUPS.includes(group));
  if (!existsSync(cliPath)) throw new Error('dist/cli.js is missing; run `npm run build` first (npm run bench does)');

  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  log(`scenario groups: ${groups.join(', ')}${groups.length < GROUPS.length ? ' (BENCH_ONLY)' : ''}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-bench-'));
  state.group = new ProcessGroup(state.tmp, pinning);
  state.postgres = new TemporaryDatabases(postgresAdminUrl);
  const postgresServer = await state.postgres.describeServer();
  log(`PostgreSQL ${postgresServer.version} at ${redact(postgresAdminUrl)}: temporary databases ${state.postgres.prefix}_*`);
  const postgres = { wharf: await state.postgres.create('wharf') };
  if (writeBaselines) postgres.b1 = await state.postgres.create('b1');

  // No inherited settings, the rate limits' included: the limiting Wharf runs with the defaults, the limiter-off one sets its own (bench/servers.js).
  const env = wharfEnv();
  const { b0, databases } = await startServers(state.group, {
    root,
    cliPath,
    tmp: state.tmp,
    wharfEnv: env,
    postgres,
    writeBaselines,
    limiterBaselines,
  });
  const seeded = await seed(databases, env, groups);

  const { list, tallies, limiterPairs } = scenarios({ b0, databases, groups });
  // Just before B0, on the same core, while the seeded servers are idle: the closer in time to B0's
  // and the HTTP quotes' figures, the less the machine's other work can come between them.
  let engineFigures = null;
  if (has('rate')) {
    log(`Rate engine in process: ${WARMUP_SECONDS} s warm-up + ${duration} s on the servers' core…`);
    engineFigures = await measureEngineInProcess(pinning, { seconds: duration, warmupSeconds: WARMUP_SECONDS });
  }
  /** One run of `scenario` (its warm-up, then `duration` s); `round` names the limiter's round it is part of. */
  const run = async (scenario, { warmupSeconds, round }) => {
    const on = scenario.database ? ` (${scenario.database})` : '';
    const of = round ? `, round ${round} of ${roundCount}` : '';
    log(`${scenario.title}${on}${of}: ${warmupSeconds} s warm-up + ${duration} s, ${connections} connections…`);
    // As bench/outbox-cost.js: no PostgreSQL run is measured with the seeding's statistics or pays
    // for a checkpoint that an earlier run's writes started.
    if (scenario.database === 'PostgreSQL') for (const url of Object.values(postgres)) await readyForRun(url);
    const figures = await measure({ title: scenario.title, target: scenario.target, connections, duration, warmupSeconds });
    state.group.assertAlive();
    scenario.after?.();
    return figures;
  };
  const row = (scenario, answerBytes, figures) => ({
    key: scenario.key,
    kind: scenario.kind,
    database: scenario.database,
    baseline: scenario.baseline,
    answerBytes,
    ...figures,
  });
  // The req/s of each round of each limiter pair, by the key of its scenario with the limiter.
  const rounds = {};
  /**
   * Measures a scenario with the limiter and its limiter-off twin in `roundCount` rounds, each a run
   * of both, alternately first: the one without the limiter in rounds 1, 3, …, the one with it in
   * rounds 2, 4, …, so that what comes of going first or second (the tables the RN imports grow, the
   * machine's drift) does not always fall on the same side. Before every round after the first both
   * servers are restarted: two processes of the same code differ by up to 5% in req/s for as long as
   * they live (their JIT and memory layout; docs/performance.md), so a pair kept for every round
   * would carry its processes' difference into every round, where fresh pairs draw it anew and the
   * median averages it out. Each run has the usual warm-up and lasts `duration` s. Both scenarios keep their bodies'
   * counters and their tallies from round to round, so every RN import body is new and the write
   * checks count every round. Answers the two table rows, the limiter-off one first; each row shows
   * the figures of that side's median round by req/s (the lower of the middle two with an even
   * number of rounds), so that its ratios to the baseline are those of one real run and, with an
   * odd number of rounds, its req/s is the median that limiterCost gives.
   */
  const measureLimiterPair = async (off, limited) => {
    const sides = [
      { scenario: off, answerBytes: await off.check(), runs: [] },
      { scenario: limited, answerBytes: await limited.check(), runs: [] },
    ];
    const [without, withIt] = sides;
    for (let round = 1; round <= roundCount; round++) {
      if (round > 1) for (const side of sides) await restartServerOf(state.group, side.scenario.target.url);
      for (const side of round % 2 === 1 ? [without, withIt] : [withIt, without]) {
        const pid = serverPidOf(side.scenario.target.url);
        const cpuBefore = cpuSecondsOf(pid);
        const figures = await run(side.scenario, { warmupSeconds: WARMUP_SECONDS, round });
        // The server's CPU a request, the warm-up's requests and CPU included (both counted from before it).
        const requests = figures.requestsTotal + (figures.warmup?.requestsTotal ?? 0);
        figures.cpuMicrosecondsPerRequest = ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / requests;
        side.runs.push(figures);
      }
    }
    rounds[limited.key] = withIt.runs.map((figures, i) => ({
      withLimiter: figures.requestsPerSecond,
      withoutLimiter: without.runs[i].requestsPerSecond,
      cpuWithLimiter: figures.cpuMicrosecondsPerRequest,
      cpuWithoutLimiter: without.runs[i].cpuMicrosecondsPerRequest,
    }));
    return sides.map(({ scenario, answerBytes, runs }) => {
      const byRate = runs.map((_, i) => i).sort((a, b) => runs[a].requestsPerSecond - runs[b].requestsPerSecond);
      const shown = byRate[Math.floor((byRate.length - 1) / 2)];
      return {
        ...row(scenario, answerBytes, runs[shown]),
        limiterRounds: { shown: shown + 1, requestsPerSecond: runs.map((figures) => figures.requestsPerSecond) },
      };
    });
  };

  const pairOf = new Map(limiterPairs.flatMap((pair) => [pair.withLimiter, pair.withoutLimiter].map((key) => [key, pair])));
  const scenarioOf = new Map(list.map((scenario) => [scenario.key, scenario]));
  const results = [];
  for (const scenario of list) {
    const pair = pairOf.get(scenario.key);
    if (pair === undefined) {
      const answerBytes = await scenario.check();
      results.push(row(scenario, answerBytes, await run(scenario, { warmupSeconds: WARMUP_SECONDS })));
    } else if (rounds[pair.withLimiter] === undefined) {
      // The pair's two scenarios are next to each other in the list; both run here, at the first.
      results.push(...(await measureLimiterPair(scenarioOf.get(pair.withoutLimiter), scenarioOf.get(pair.withLimiter))));
    }
  }

  const { adjustments: adjustmentPostings, orders: ordersAfter } = await verifyWrites({ databases, tallies, connections });
  const itemDatabase = databases.find((database) => database.items);

  const withBase = withRatios(results);
  const limiterCost = limiterCosts(limiterPairs, rounds);
  const b0Result = withBase.find((r) => r.key === 'B0');
  const inProcess = engineFigures && compareWithB0(engineFigures, b0Result);
  let page1Ratio = null;
  if (has('items')) {
    const page1Large = withBase.find((r) => r.key === 'search-A-p1');
    const page1Small = withBase.find((r) => r.key === 'search-B-p1');
    page1Ratio = page1Large.latencyMs.p50 / page1Small.latencyMs.p50;
  }

  const report = {
    date: new Date().toISOString(),
    command: groups.length < GROUPS.length ? `BENCH_ONLY=${groups.join(',')} npm run bench` : 'npm run bench',
    groups,
    source,
    machine: machineOf(pinning.cores, loadAtStart),
    settings: {
      durationSeconds: duration,
      warmupSeconds: WARMUP_SECONDS,
      connections,
      limiterRounds: limiterCost.length > 0 ? { rounds: roundCount, serversRestartedEachRound: true } : null,
      sqliteSynchronous: 'FULL',
      postgres: { ...postgresServer, poolSize: 10, pinned: false, beforeEachRun: 'ANALYZE, CHECKPOINT' },
      logLevel: 'warn',
    },
    pinning: pinning.description,
    seed: { company: TENANT.company, ...seeded },
    writeStatuses: tallies,
    adjustmentPostings,
    ordersAfterRun: ordersAfter,
    scenarios: withBase,
    rateEngineInProcess: inProcess,
    limiterCost,
    page1LatencyRatio:
      page1Ratio === null
        ? null
        : {
            database: itemDatabase.label,
            p50Of10000ItemsOverP50Of100Items: page1Ratio,
            limit: 2,
            withinLimit: page1Ratio <= 2,
          },
  };
  writeJson(resultsPath, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out();
  out(`Wharf benchmark — ${duration} s per scenario after a ${WARMUP_SECONDS} s warm-up, ${connections} connections`);
  if (groups.length < GROUPS.length) out(`Only the scenario groups ${groups.join(', ')} (BENCH_ONLY)`);
  out(
    `SQLite synchronous=FULL; PostgreSQL ${postgresServer.version} fsync=${postgresServer.fsync} ` +
      `synchronous_commit=${postgresServer.synchronousCommit} autovacuum=${postgresServer.autovacuum} ` +
      '(not pinned: it shares the cores with everything else)',
  );
  out(`Node ${process.version}, ${report.machine.cpu}, ${pinning.cores} cores; pinning: ${pinning.description}`);
  if (report.source)
    out(`Source: commit ${report.source.commit}${report.source.uncommittedChanges ? ' with uncommitted changes in src/' : ''}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  out(formatTable(withBase));
  out();
  out(
    'Reads are compared with B0, writes with the B1 of their database. "Req/s ÷ baseline" is the share of the baseline\'s rate; "p50 ÷ baseline" its latency multiple. ' +
      "Every PostgreSQL run, B1-pg's included, followed an ANALYZE and a CHECKPOINT.",
  );
  if (limiterCost.length > 0) {
    out(
      'Rows ending "limiter off" ran on a second Wharf on the same database with RATE_LIMIT_EDI=0 RATE_LIMIT_RATE=0 (no limiter at all), ' +
        `in ${roundCount} round${roundCount === 1 ? '' : 's'} with the same scenario on the Wharf that limits, whose keys carry a limit ` +
        'never reached: each round runs both, on a fresh pair of server processes from round 2 on, the limiter-off one first in odd rounds and second in even ones, ' +
        `${duration} s each after a ${WARMUP_SECONDS} s warm-up. ` +
        "Those rows show each side's median round by req/s (the lower middle one with an even number of rounds).",
    );
  }
  if (inProcess) {
    const { vsB0 } = inProcess;
    out();
    out(
      `Rate engine in process (bench/quote-in-process.js, pinned: ${inProcess.pinned}): ${describeInProcess(inProcess)}. ` +
        `Quotes/s ÷ B0 req/s: ${vsB0.quotesPerSecondOverB0RequestsPerSecond.toFixed(2)}, so one quote takes about ` +
        `${vsB0.engineShareOfB0Request.toFixed(2)} of the server time of a whole B0 request: with nothing else added to bare ` +
        `Fastify, an HTTP quote could reach at most ${vsB0.httpCeilingOverB0.toFixed(2)} of B0.`,
    );
  }
  // Each scenario measured both ways has a tally of its own on the limiter-off Wharf too; both
  // count every round.
  const ofRounds = `warm-ups and measured runs of ${roundCount} round${roundCount === 1 ? '' : 's'}`;
  const bothWays = (key) => [
    [key, ''],
    [limiterOffKey(key), ', limiter off'],
  ];
  for (const database of databases) {
    for (const [key, side] of bothWays(`rate-${database.id}`)) {
      const rate = tallies[key];
      if (rate) {
        out(
          `Rate answers on ${database.label}${side} (${ofRounds}): ${rate.quoted} quotes of both services with ` +
            `4-decimal prices, ${rate.other} other.`,
        );
      }
    }
  }
  const itemTally = tallies['import-1'];
  if (itemTally) {
    out(
      `Item import answers (warm-up and measured run): ${itemTally.Created} Created, ${itemTally.Updated} Updated, ${itemTally.Unchanged} Unchanged.`,
    );
  }
  for (const database of databases) {
    for (const [key, side] of bothWays(`rn-import-${database.id}`)) {
      const rn = tallies[key];
      if (rn) {
        out(
          `RN import answers on ${database.label}${side} (check, ${ofRounds}): ${rn.Success} Success, ` +
            `${rn.newReceipts} distinct new SVCPOIDs, ${rn.Warning} Warning.`,
        );
      }
    }
    if (adjustmentPostings[database.id]) {
      const answers = ADJUSTMENT_LINES.map(
        (lines) => `${tallies[adjustmentKey(lines, database.id)].Success} Success of ${lines} line${lines === 1 ? '' : 's'}`,
      );
      out(
        `Adjustment answers on ${database.label} (checks, warm-ups and measured runs): ${answers.join(', ')}; ` +
          `${adjustmentPostings[database.id].postings} adjustment postings in ${ADJUSTMENTS.customer}'s ledger ` +
          `(at least ${adjustmentPostings[database.id].expectedAtLeast} expected, the opening stock's included).`,
      );
    }
    const dn = tallies[`dn-import-${database.id}`];
    if (dn) {
      const orders = ordersAfter[database.id];
      out(
        `DN import answers on ${database.label} (check, warm-up and measured run): ${dn.Success} Success of ${ORDER_LINES} lines, ` +
          `${dn.newOrders} distinct new SVCPOIDs, ${dn.Warning} Warning; ${ORDERS.customer} then held ${orders.orders} orders ` +
          `(at least ${orders.expectedAtLeast} expected, the ${ORDERS_SEEDED} seeded included) and ${orders.allocated} EA allocated, ` +
          `what they ordered.`,
      );
    }
    const seededOrders = seeded[database.id].orders;
    if (seededOrders) {
      out(
        `Seeding on ${database.label}: ${seededOrders.orders} orders of ${seededOrders.linesEach} line${seededOrders.linesEach === 1 ? '' : 's'} ` +
          `in ${seededOrders.ordersSeconds.toFixed(0)} s (${(seededOrders.orders / seededOrders.ordersSeconds).toFixed(0)}/s, ` +
          `${seededOrders.concurrency} at a time` +
          (isPostgres(database) ? `; VACUUM ANALYZE ${seededOrders.upkeepSeconds.toFixed(1)} s during it` : '') +
          ').',
      );
    }
  }
  const percent = (share) => `${(share * 100).toFixed(1)}%`;
  for (const {
    scenario,
    database,
    withLimiter,
    withoutLimiter,
    cost,
    costRange,
    cpuCost,
    cpuCostRange,
    rounds: byRound,
    target,
    withinTarget,
  } of limiterCost) {
    const { scenario: title } = withBase.find((r) => r.key === scenario);
    const roundFigures = byRound.map(
      (round, i) =>
        `round ${i + 1} ${round.withLimiter.toFixed(0)} ÷ ${round.withoutLimiter.toFixed(0)} (${percent(round.cost)}; ` +
        `CPU ${round.cpuWithLimiter.toFixed(1)} vs ${round.cpuWithoutLimiter.toFixed(1)} µs a request)`,
    );
    out(
      `Rate limiter's cost, ${title} (${database}): 1 − with ÷ without = ${percent(cost)}, the median of ${byRound.length} ` +
        `round${byRound.length === 1 ? '' : 's'} (range ${percent(costRange[0])} to ${percent(costRange[1])}; target under ` +
        `${(target * 100).toFixed(0)}%: ${withinTarget ? 'within' : 'NOT within'}); req/s with ÷ without: ` +
        `${roundFigures.join(', ')}; medians ${withLimiter.toFixed(0)} with it, ${withoutLimiter.toFixed(0)} without. ` +
        `In the server's CPU a request: 1 − without ÷ with = ${percent(cpuCost)}, the median of the rounds ` +
        `(range ${percent(cpuCostRange[0])} to ${percent(cpuCostRange[1])})`,
    );
  }
  if (page1Ratio !== null) {
    out(
      `Page 1 of ${ITEMS_A} items vs page 1 of ${ITEMS_B} items (${itemDatabase.label}), p50: ${page1Ratio.toFixed(2)}× ` +
        `(target ≤ 2×: ${page1Ratio <= 2 ? 'within' : 'NOT within'})`,
    );
  }
  out(`Results written to ${relative(process.cwd(), resultsPath) || resultsPath}`);
}

/**
 * Stops every child, then drops the temporary PostgreSQL databases and removes the temporary
 * directory; safe to call more than once.
 */
function cleanup(state) {
  state.cleaning ??= (async () => {
    if (state.group) await state.group.stopAll();
    if (state.postgres) for (const problem of await state.postgres.dropAll()) log(problem);
    if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  })();
  return state.cleaning;
}

await runBench('bench', {
  main,
  cleanup,
  stopping: 'stopping the servers…',
  tails: (state) => (state.group ? state.group.logTails() : []),
});
