/**
 * `npm run bench`: starts Wharf twice — on SQLite (synchronous=FULL) and on a temporary PostgreSQL
 * database — and the baselines (B0; B1 on SQLite, B1-pg on PostgreSQL), seeds a tenant on each,
 * drives every scenario with autocannon, checks that every write scenario wrote what it answered
 * (bench/verify.js), prints a table with the database of each row and the ratios to the baselines,
 * and writes bench/results/latest.json. Every child process, the temporary
 * directory and the temporary PostgreSQL databases are removed at the end, on failure and on
 * Ctrl-C too.
 *
 * Settings: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_POSTGRES_URL (a server and a user that may create databases; default
 * postgres://postgres@127.0.0.1:5432/postgres).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './load.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, redact, vacuumAnalyze } from './postgres.js';
import { ProcessGroup, choosePinning } from './processes.js';
import { formatTable, withRatios, writeJson } from './report.js';
import { ADJUSTMENT_LINES, ORDER_LINES, adjustmentKey, scenarios } from './scenarios.js';
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
  seedReceipts,
  seedTenant,
} from './seed.js';
import { startServers } from './servers.js';
import { verifyWrites } from './verify.js';

const WARMUP_SECONDS = 2;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliPath = join(root, 'dist', 'cli.js');
const resultsPath = join(root, 'bench', 'results', 'latest.json');

function positiveInteger(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/** The environment of Wharf and its CLI: the default durability, quiet logs, no inherited settings. */
function wharfEnv() {
  const env = { ...process.env, LOG_LEVEL: 'warn', SQLITE_SYNCHRONOUS: 'FULL' };
  for (const name of ['DATABASE_URL', 'PORT', 'HOST', 'WHARF_ONLY', 'BODY_LIMIT', 'SHUTDOWN_TIMEOUT_MS']) delete env[name];
  return env;
}

const log = (text) => process.stderr.write(`${text}\n`);

/** The commit measured, and whether the working tree differed from it; undefined outside git. */
function sourceRevision() {
  const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return undefined;
  return { commit: head.stdout.trim(), uncommittedChanges: git('status', '--porcelain', '--', 'src').stdout.trim() !== '' };
}

const isPostgres = (database) => database.dbUrl.startsWith('postgres');

/**
 * Creates the tenant on each database with the CLI, then seeds it over HTTP; adds each API key to
 * its database. A PostgreSQL database then gets one VACUUM ANALYZE, as during the order seeding, so
 * that it is measured with the statistics autovacuum would have given it.
 */
async function seed(databases, env) {
  const seeded = {};
  for (const database of databases) {
    log(`${database.label}: seeding the tenant with the CLI…`);
    database.apiKey = await seedTenant(cliPath, database.dbUrl, env);
    seeded[database.id] = {};
    if (database.items) {
      log(`${database.label}: seeding ${ITEMS_A} items for ${TENANT.customerA} and ${ITEMS_B} for ${TENANT.customerB} over HTTP…`);
      seeded[database.id].items = await seedItemMaster(database.wharf, database.apiKey);
    }
    log(`${database.label}: seeding ${RECEIPTS_SEEDED} receipts with one confirmation each for ${RECEIPTS.customer} over HTTP…`);
    seeded[database.id].receipts = await seedReceipts(database.wharf, database.apiKey);
    log(`${database.label}: seeding ${ADJUSTMENT_ITEMS} items with opening stock for ${ADJUSTMENTS.customer} over HTTP…`);
    seeded[database.id].adjustments = await seedAdjustmentStock(database.wharf, database.apiKey);
    log(
      `${database.label}: seeding ${ORDER_ITEMS} items with opening stock and ${ORDERS_SEEDED} orders of ${SEEDED_ORDER_LINES} ` +
        `line${SEEDED_ORDER_LINES === 1 ? '' : 's'} (DN import, ${SEED_CONCURRENCY} at a time) for ${ORDERS.customer} over HTTP…`,
    );
    seeded[database.id].orders = await seedOrders(database.wharf, database.apiKey, {
      progress: (text) => log(`${database.label}: ${text}`),
      upkeep: isPostgres(database) ? () => vacuumAnalyze(database.dbUrl) : undefined,
    });
    if (isPostgres(database)) {
      log(`${database.label}: VACUUM ANALYZE…`);
      seeded[database.id].vacuumAnalyze = { seconds: await vacuumAnalyze(database.dbUrl) };
    }
    const seconds = Object.values(seeded[database.id]).reduce((sum, part) => sum + part.seconds, 0);
    log(`${database.label}: seeded in ${seconds.toFixed(1)} s`);
  }
  return seeded;
}

async function main(state) {
  const duration = positiveInteger('BENCH_DURATION', 10);
  const connections = positiveInteger('BENCH_CONNECTIONS', 10);
  const postgresAdminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;
  if (!existsSync(cliPath)) throw new Error('dist/cli.js is missing; run `npm run build` first (npm run bench does)');

  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-bench-'));
  state.group = new ProcessGroup(state.tmp, pinning);
  state.postgres = new TemporaryDatabases(postgresAdminUrl);
  const postgresServer = await state.postgres.describeServer();
  log(`PostgreSQL ${postgresServer.version} at ${redact(postgresAdminUrl)}: temporary databases ${state.postgres.prefix}_*`);
  const postgres = { wharf: await state.postgres.create('wharf'), b1: await state.postgres.create('b1') };

  const env = wharfEnv();
  const { b0, databases } = await startServers(state.group, { root, cliPath, tmp: state.tmp, wharfEnv: env, postgres });
  const seeded = await seed(databases, env);

  const { list, tallies } = scenarios({ b0, databases });
  const results = [];
  for (const scenario of list) {
    const answerBytes = await scenario.check();
    const on = scenario.database ? ` (${scenario.database})` : '';
    log(`${scenario.title}${on}: ${WARMUP_SECONDS} s warm-up + ${duration} s, ${connections} connections…`);
    const figures = await measure({ title: scenario.title, target: scenario.target, connections, duration, warmupSeconds: WARMUP_SECONDS });
    state.group.assertAlive();
    results.push({
      key: scenario.key,
      kind: scenario.kind,
      database: scenario.database,
      baseline: scenario.baseline,
      answerBytes,
      ...figures,
    });
  }

  const { adjustments: adjustmentPostings, orders: ordersAfter } = await verifyWrites({ databases, tallies, connections });
  const itemDatabase = databases.find((database) => database.items);

  const withBase = withRatios(results);
  const page1Large = withBase.find((r) => r.key === 'search-A-p1');
  const page1Small = withBase.find((r) => r.key === 'search-B-p1');
  const page1Ratio = page1Large.latencyMs.p50 / page1Small.latencyMs.p50;

  const report = {
    date: new Date().toISOString(),
    command: 'npm run bench',
    source: sourceRevision(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: pinning.cores,
      memoryBytes: totalmem(),
      node: process.version,
      platform: process.platform,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))),
    },
    settings: {
      durationSeconds: duration,
      warmupSeconds: WARMUP_SECONDS,
      connections,
      sqliteSynchronous: 'FULL',
      postgres: { ...postgresServer, poolSize: 10, pinned: false },
      logLevel: 'warn',
    },
    pinning: pinning.description,
    seed: { company: TENANT.company, ...seeded },
    writeStatuses: tallies,
    adjustmentPostings,
    ordersAfterRun: ordersAfter,
    scenarios: withBase,
    page1LatencyRatio: {
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
    'Reads are compared with B0, writes with the B1 of their database. "Req/s ÷ baseline" is the share of the baseline\'s rate; "p50 ÷ baseline" its latency multiple.',
  );
  const itemTally = tallies['import-1'];
  out(
    `Item import answers (warm-up and measured run): ${itemTally.Created} Created, ${itemTally.Updated} Updated, ${itemTally.Unchanged} Unchanged.`,
  );
  for (const database of databases) {
    const rn = tallies[`rn-import-${database.id}`];
    out(
      `RN import answers on ${database.label} (check, warm-up and measured run): ${rn.Success} Success, ` +
        `${rn.newReceipts} distinct new SVCPOIDs, ${rn.Warning} Warning.`,
    );
    const answers = ADJUSTMENT_LINES.map(
      (lines) => `${tallies[adjustmentKey(lines, database.id)].Success} Success of ${lines} line${lines === 1 ? '' : 's'}`,
    );
    out(
      `Adjustment answers on ${database.label} (checks, warm-ups and measured runs): ${answers.join(', ')}; ` +
        `${adjustmentPostings[database.id].postings} adjustment postings in ${ADJUSTMENTS.customer}'s ledger ` +
        `(at least ${adjustmentPostings[database.id].expectedAtLeast} expected, the opening stock's included).`,
    );
    const dn = tallies[`dn-import-${database.id}`];
    const orders = ordersAfter[database.id];
    out(
      `DN import answers on ${database.label} (check, warm-up and measured run): ${dn.Success} Success of ${ORDER_LINES} lines, ` +
        `${dn.newOrders} distinct new SVCPOIDs, ${dn.Warning} Warning; ${ORDERS.customer} then held ${orders.orders} orders ` +
        `(at least ${orders.expectedAtLeast} expected, the ${ORDERS_SEEDED} seeded included) and ${orders.allocated} EA allocated, ` +
        `what they ordered.`,
    );
    const seededOrders = seeded[database.id].orders;
    out(
      `Seeding on ${database.label}: ${seededOrders.orders} orders of ${seededOrders.linesEach} line${seededOrders.linesEach === 1 ? '' : 's'} ` +
        `in ${seededOrders.ordersSeconds.toFixed(0)} s (${(seededOrders.orders / seededOrders.ordersSeconds).toFixed(0)}/s, ` +
        `${seededOrders.concurrency} at a time` +
        (isPostgres(database) ? `; VACUUM ANALYZE ${seededOrders.upkeepSeconds.toFixed(1)} s during it` : '') +
        ').',
    );
  }
  out(
    `Page 1 of ${ITEMS_A} items vs page 1 of ${ITEMS_B} items (${itemDatabase.label}), p50: ${page1Ratio.toFixed(2)}× ` +
      `(DESIGN asks ≤ 2×: ${page1Ratio <= 2 ? 'within' : 'NOT within'})`,
  );
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

const state = {};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the servers…`);
    cleanup(state).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

let exitCode = 0;
try {
  await main(state);
} catch (error) {
  exitCode = 1;
  log(`bench failed: ${error.message}`);
  if (state.group) for (const tail of state.group.logTails()) log(tail);
} finally {
  await cleanup(state);
}
process.exit(exitCode);
