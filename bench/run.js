/**
 * `npm run bench`: starts Wharf (SQLite, synchronous=FULL) and the two baseline servers, seeds a
 * tenant, drives every scenario with autocannon, prints a table with the ratios to the baselines
 * and writes bench/results/latest.json. Every child process and the temporary directory are
 * removed at the end, on failure and on Ctrl-C too.
 *
 * Settings: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 10).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './load.js';
import { ProcessGroup, choosePinning, freePort } from './processes.js';
import { formatTable, withRatios, writeJson } from './report.js';
import { scenarios } from './scenarios.js';
import { ITEMS_A, ITEMS_B, SEARCH_PATH, TENANT, post, seedItemMaster, seedTenant } from './seed.js';
import { searchBody } from './payload.js';

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

/** Starts Wharf (migrating a fresh database) and the two baselines, each once it answers. */
async function startServers(group, tmp) {
  const env = wharfEnv();
  const dbUrl = `sqlite:${join(tmp, 'wharf.db')}`;
  const wharfPort = await freePort();
  const wharf = `http://127.0.0.1:${wharfPort}`;
  const wharfProcess = group.startServer('wharf', [cliPath, 'serve', '--db', dbUrl, '--port', String(wharfPort)], env);
  await group.waitUntilReady(wharfProcess, async () => (await fetch(`${wharf}/readyz`)).ok);

  const answers = (url) => async () =>
    (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status > 0;
  const b0Port = await freePort();
  const b0 = `http://127.0.0.1:${b0Port}`;
  const b0Process = group.startServer('b0', [join(root, 'bench', 'baseline-b0.js'), String(b0Port)], process.env);
  await group.waitUntilReady(b0Process, answers(`${b0}/b0`));
  const b1Port = await freePort();
  const b1 = `http://127.0.0.1:${b1Port}`;
  const b1Process = group.startServer('b1', [join(root, 'bench', 'baseline-b1.js'), String(b1Port), join(tmp, 'b1.db')], process.env);
  await group.waitUntilReady(b1Process, answers(`${b1}/b1`));
  return { env, dbUrl, wharf, b0, b1 };
}

/** Every import answer must have been a write, and the created items must be in customer A's master. */
async function verifyImports(wharf, apiKey, tally) {
  const answered = tally.Created + tally.Updated + tally.Unchanged + tally.other;
  if (tally.Unchanged > 0 || tally.other > 0 || answered === 0) {
    throw new Error(`the import scenario was not all writes: ${JSON.stringify(tally)}`);
  }
  const after = await post(wharf, SEARCH_PATH, apiKey, searchBody(TENANT.company, TENANT.customerA, 1, 1));
  if (after.json.paging.totalCount < ITEMS_A + tally.Created) {
    throw new Error(`after the import ${TENANT.customerA} has ${after.json.paging.totalCount} items, expected at least ${ITEMS_A + tally.Created}`);
  }
}

async function main(state) {
  const duration = positiveInteger('BENCH_DURATION', 10);
  const connections = positiveInteger('BENCH_CONNECTIONS', 10);
  if (!existsSync(cliPath)) throw new Error('dist/cli.js is missing; run `npm run build` first (npm run bench does)');

  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-bench-'));
  state.group = new ProcessGroup(state.tmp, pinning);
  const { env, dbUrl, wharf, b0, b1 } = await startServers(state.group, state.tmp);

  log('seeding the tenant with the CLI…');
  const apiKey = await seedTenant(cliPath, dbUrl, env);
  log(`seeding ${ITEMS_A} items for ${TENANT.customerA} and ${ITEMS_B} for ${TENANT.customerB} over HTTP…`);
  const seed = await seedItemMaster(wharf, apiKey);
  log(`seeded in ${seed.seconds.toFixed(1)} s`);

  const { list, tally } = scenarios({ b0, b1, wharf, apiKey });
  const results = [];
  for (const scenario of list) {
    const answerBytes = await scenario.check();
    log(`${scenario.title}: ${WARMUP_SECONDS} s warm-up + ${duration} s, ${connections} connections…`);
    const figures = await measure({ title: scenario.title, target: scenario.target, connections, duration, warmupSeconds: WARMUP_SECONDS });
    state.group.assertAlive();
    results.push({ key: scenario.key, kind: scenario.kind, baseline: scenario.baseline, answerBytes, ...figures });
  }

  await verifyImports(wharf, apiKey, tally);

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
    settings: { durationSeconds: duration, warmupSeconds: WARMUP_SECONDS, connections, sqliteSynchronous: 'FULL', logLevel: 'warn' },
    pinning: pinning.description,
    seed: { ...seed, company: TENANT.company },
    importStatuses: tally,
    scenarios: withBase,
    page1LatencyRatio: { p50Of10000ItemsOverP50Of100Items: page1Ratio, limit: 2, withinLimit: page1Ratio <= 2 },
  };
  writeJson(resultsPath, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out();
  out(`Wharf benchmark — ${duration} s per scenario after a ${WARMUP_SECONDS} s warm-up, ${connections} connections, SQLite synchronous=FULL`);
  out(`Node ${process.version}, ${report.machine.cpu}, ${pinning.cores} cores; pinning: ${pinning.description}`);
  if (report.source) out(`Source: commit ${report.source.commit}${report.source.uncommittedChanges ? ' with uncommitted changes in src/' : ''}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  out(formatTable(withBase));
  out();
  out('Reads are compared with B0, writes with B1. "Req/s ÷ baseline" is the share of the baseline\'s rate; "p50 ÷ baseline" its latency multiple.');
  out(`Import answers (warm-up and measured run): ${tally.Created} Created, ${tally.Updated} Updated, ${tally.Unchanged} Unchanged.`);
  out(
    `Page 1 of ${ITEMS_A} items vs page 1 of ${ITEMS_B} items, p50: ${page1Ratio.toFixed(2)}× ` +
      `(DESIGN asks ≤ 2×: ${page1Ratio <= 2 ? 'within' : 'NOT within'})`,
  );
  out(`Results written to ${relative(process.cwd(), resultsPath) || resultsPath}`);
}

/** Stops every child and removes the temporary directory; safe to call more than once. */
function cleanup(state) {
  state.cleaning ??= (async () => {
    if (state.group) await state.group.stopAll();
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
