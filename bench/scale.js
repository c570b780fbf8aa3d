#!/usr/bin/env node
/**
 * `npm run bench:scale`: whether every search page costs the same at any size
 * (docs/performance.md, "Pages at scale"). On each database (a temporary SQLite file with
 * synchronous=FULL, a temporary PostgreSQL database) the bench tenant is made with the CLI
 * (bench/seed.js), with an X12 partner for customer O; then, size after size, customer O's year is
 * seeded through the services up to that many orders (bench/scale-seed.js: sizes accumulate, the
 * next size carries on), `wharf serve` is started (pinned like `npm run bench`), the webhook
 * deliveries the seeding made are let through to a receiver in this process, and every page of
 * every search is measured over HTTP (bench/scale-searches.js), --runs times, each run on a newly
 * started server (PostgreSQL ANALYZEd and CHECKPOINTed before it), while the server's resident
 * memory is sampled. Each page's median and range over the runs, and its ratio to the same page at
 * the first size, are printed as Markdown tables (bench/scale-report.js) with the seeding's times,
 * the database's size on disk and the server's memory, and everything goes to --out.
 *
 *   npm run bench:scale                                         # 10,000, 100,000 and 1,000,000 orders, both databases, 3 runs
 *   npm run bench:scale -- --sizes 1000,5000 --runs 1 --db sqlite
 *
 * Flags: --sizes (comma-separated, increasing; default 10000,100000,1000000), --db (sqlite,
 * postgres or both; default both), --runs (default 3), --out (default bench/results/scale.json),
 * --seconds (a page's measured time, default 3), --connections (default 4). BENCH_POSTGRES_URL as
 * for `npm run bench`. Every child process, the temporary directory and the temporary databases
 * are removed at the end, on failure and on Ctrl-C too.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, runBench } from './lifecycle.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, databaseBytes, readyForRun, redact } from './postgres.js';
import { peakResidentBytesOf, sampleResidentMemory } from './proc-memory.js';
import { ProcessGroup, choosePinning, runCli, wharfEnv } from './processes.js';
import { machineOf, writeJson } from './report.js';
import {
  P50_RATIO_TARGET,
  RSS_TARGET_BYTES,
  formatPagesTable,
  formatSeedingTable,
  formatTargets,
  summarize,
  withRatios,
} from './scale-report.js';
import { checkPage, measurePage, pageFacts, pagesOf } from './scale-searches.js';
import { BATCH_ORDERS, ORDER_INTERVAL_MS, SCALE_TENANT, ScaleSeeder, WEBHOOK_EVENT_TYPES } from './scale-seed.js';
import { post, seedTenant } from './seed.js';
import { restartServerOf, serverPidOf, startWharf, stopServerOf } from './servers.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliPath = join(root, 'dist', 'cli.js');
const WARMUP_SECONDS = 1;
/** Waiting for the deliveries fails when none arrives for this long while some are pending. */
const DELIVERY_STALL_MS = 60_000;
const DATABASES = {
  sqlite: { id: 'sqlite', label: 'SQLite' },
  postgres: { id: 'postgres', label: 'PostgreSQL' },
};

/** The flags, with their defaults. */
function readFlags(argv) {
  const flags = {
    sizes: '10000,100000,1000000',
    db: 'both',
    runs: '3',
    out: join(root, 'bench', 'results', 'scale.json'),
    seconds: '3',
    connections: '4',
  };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=', 2);
    const key = name.replace(/^--/, '');
    if (!name.startsWith('--') || !(key in flags))
      throw new Error(
        `unknown argument ${argv[i]} (flags: ${Object.keys(flags)
          .map((f) => `--${f}`)
          .join(', ')})`,
      );
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    flags[key] = value;
  }
  const whole = (name, text) => {
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`--${name} must be a positive whole number (got ${text})`);
    return Number(text);
  };
  const sizes = flags.sizes.split(',').map((text) => whole('sizes', text.trim()));
  if (sizes.some((size, i) => i > 0 && size <= sizes[i - 1])) throw new Error('--sizes must increase');
  if (!['sqlite', 'postgres', 'both'].includes(flags.db)) throw new Error('--db must be sqlite, postgres or both');
  return {
    sizes,
    databases: flags.db === 'both' ? ['sqlite', 'postgres'] : [flags.db],
    runs: whole('runs', flags.runs),
    out: resolve(flags.out),
    seconds: whole('seconds', flags.seconds),
    connections: whole('connections', flags.connections),
  };
}

/** The database's files (SQLite: the file and its WAL) or PostgreSQL's own count, in bytes. */
async function diskBytes(dbUrl) {
  if (dbUrl.startsWith('postgres')) return databaseBytes(dbUrl);
  const file = dbUrl.slice('sqlite:'.length);
  return ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (existsSync(file + suffix) ? statSync(file + suffix).size : 0), 0);
}

const EDI = '/shared/bam/v1/public';

/** How many deliveries the customer's endpoint has, and how many of them wait (the delivery search). */
async function deliveryCounts(wharf, key) {
  const countOf = async (filter) => {
    const body = JSON.stringify({ CompanyID: SCALE_TENANT.company, ...filter, Paging: { PageNo: 1, PageSize: 1 } });
    return (await post(wharf, `${EDI}/edi/webhook/delivery/search-by-paging`, key, body)).json.paging.totalCount;
  };
  return { total: await countOf({}), pending: await countOf({ Status: 'Pending' }) };
}

/** Waits until the server has attempted every delivery the seeding made and the receiver has them all. */
async function awaitDeliveries(wharf, key, receiver) {
  const started = performance.now();
  let progressAt = Date.now();
  let seen = -1;
  for (;;) {
    const { total, pending } = await deliveryCounts(wharf, key);
    const delivered = receiver.delivered();
    if (pending === 0 && delivered >= total) return { total, seconds: (performance.now() - started) / 1000, repeats: receiver.repeats() };
    if (delivered !== seen) {
      seen = delivered;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > DELIVERY_STALL_MS) {
      throw new Error(
        `${delivered} of ${total} webhook deliveries arrived (${pending} pending), then none for ${DELIVERY_STALL_MS / 1000} s`,
      );
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

/**
 * Measures every page at this size, `runs` times, each run on a newly started server (the first is
 * the one already running): checks each page once a run, then drives it. Answers the pages with
 * their checks and runs, and the server's memory over all runs.
 */
async function measureSize(state, { database, wharf, key, pages, settings }) {
  const pidOf = () => serverPidOf(`${wharf}/`);
  const byKey = new Map(pages.map((page) => [page.key, { ...page, checks: [], runs: [] }]));
  const memory = sampleResidentMemory(pidOf);
  let peakBytes = 0;
  for (let run = 1; run <= settings.runs; run++) {
    if (run > 1) {
      peakBytes = Math.max(peakBytes, peakResidentBytesOf(pidOf()));
      await restartServerOf(state.group, `${wharf}/`);
    }
    if (database.id === 'postgres') await readyForRun(database.dbUrl);
    log(`${database.label}: run ${run} of ${settings.runs}, ${pages.length} pages of ${settings.seconds} s…`);
    for (const page of byKey.values()) {
      page.checks.push(await checkPage(wharf, key, page));
      page.runs.push(await measurePage(wharf, key, page, { ...settings, warmupSeconds: WARMUP_SECONDS }));
      state.group.assertAlive();
    }
  }
  peakBytes = Math.max(peakBytes, peakResidentBytesOf(pidOf()));
  const sampled = memory.stop();
  const measured = [...byKey.values()].map(({ body, path, pageNo, expectFound, ...page }) => ({
    ...page,
    path,
    body: JSON.parse(body),
    summary: summarize(page.runs),
  }));
  return { pages: measured, memory: { ...sampled, peakBytes } };
}

/** Seeds and measures every size on one database. */
async function benchDatabase(state, { kind, settings, start, env }) {
  const database = { ...DATABASES[kind], sizes: [] };
  database.dbUrl = kind === 'sqlite' ? `sqlite:${join(state.tmp, 'scale.db')}` : await state.postgres.create('scale');
  log(`${database.label}: the tenant and an X12 partner with the CLI…`);
  await runCli(cliPath, ['migrate', '--db', database.dbUrl], env);
  const key = await seedTenant(cliPath, database.dbUrl, env);
  const { company, customer } = SCALE_TENANT;
  await runCli(
    cliPath,
    ['x12', 'partner', 'add', '--company', company, '--customer', customer, '--id', 'BENCHX12', '--db', database.dbUrl],
    env,
  );
  const seeder = await ScaleSeeder.create(root, { dbUrl: database.dbUrl, env, start });
  await seeder.prepare(key, state.receiver.url);
  for (const size of settings.sizes) {
    log(`${database.label}: seeding up to ${size.toLocaleString('en-US')} orders through the services…`);
    const seeding = await seeder.seedTo(size, { progress: (text) => log(`${database.label}: ${text}`) });
    const wharf = await startWharf(state.group, { name: `wharf-${kind}-${size}`, cliPath, dbUrl: database.dbUrl, env });
    log(`${database.label}: letting the webhook deliveries through…`);
    const deliveries = await awaitDeliveries(wharf, key, state.receiver);
    const facts = await pageFacts(wharf, key, seeder.facts());
    const pages = pagesOf(facts);
    const measured = await measureSize(state, { database, wharf, key, pages, settings });
    await stopServerOf(state.group, `${wharf}/`);
    database.sizes.push({ size, seeding, deliveries, facts, diskBytes: await diskBytes(database.dbUrl), ...measured });
  }
  database.sizes = withRatios(database.sizes);
  database.dbUrl = redact(database.dbUrl);
  return database;
}

async function main(state) {
  const settings = readFlags(process.argv.slice(2));
  if (!existsSync(cliPath)) throw new Error('dist/cli.js is missing; run `npm run build` first (npm run bench:scale does)');
  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  log(`sizes ${settings.sizes.join(', ')} on ${settings.databases.join(' and ')}, ${settings.runs} run(s) a size`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-scale-'));
  state.group = new ProcessGroup(state.tmp, pinning);
  state.receiver = await startWebhookReceiver();
  let postgresServer = null;
  if (settings.databases.includes('postgres')) {
    const adminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;
    state.postgres = new TemporaryDatabases(adminUrl);
    postgresServer = await state.postgres.describeServer();
    log(`PostgreSQL ${postgresServer.version} at ${redact(adminUrl)}: temporary database ${state.postgres.prefix}_scale`);
  }
  // The largest size ends about now: the seeded year is the year before the run.
  const start = Date.now() - settings.sizes.at(-1) * ORDER_INTERVAL_MS - 3600_000;
  // The receiver is on 127.0.0.1; no other webhook setting is inherited.
  const env = wharfEnv({ prefixes: ['WEBHOOK_'], set: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const databases = [];
  for (const kind of settings.databases) databases.push(await benchDatabase(state, { kind, settings, start, env }));

  const report = {
    date: new Date().toISOString(),
    command: `npm run bench:scale -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machineOf(pinning.cores, loadAtStart),
    settings: {
      ...settings,
      out: relative(root, settings.out),
      warmupSeconds: WARMUP_SECONDS,
      batchOrders: BATCH_ORDERS,
      orderIntervalMs: ORDER_INTERVAL_MS,
      webhookEventTypes: WEBHOOK_EVENT_TYPES,
      sqliteSynchronous: 'FULL',
      postgres: postgresServer,
      pinning: pinning.description,
      p50RatioTarget: P50_RATIO_TARGET,
      rssTargetBytes: RSS_TARGET_BYTES,
    },
    databases,
  };
  writeJson(settings.out, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out();
  out(`Pages at scale: ${settings.sizes.map((size) => size.toLocaleString('en-US')).join(' / ')} orders of one customer`);
  out(
    `${settings.runs} run(s) a size, each on a newly started server; a page ${WARMUP_SECONDS} s warm-up + ${settings.seconds} s, ` +
      `${settings.connections} connections; p50 the median over the runs [its range]`,
  );
  out(`SQLite synchronous=FULL${postgresServer ? `; PostgreSQL ${postgresServer.version} fsync=${postgresServer.fsync}` : ''}`);
  out(`Node ${process.version}, ${report.machine.cpu}, ${pinning.cores} cores; pinning: ${pinning.description}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  out(formatPagesTable(databases));
  out();
  out(formatSeedingTable(databases));
  out();
  for (const line of formatTargets(databases)) out(line);
  out(`Results written to ${relative(process.cwd(), settings.out) || settings.out}`);
}

/** Stops the servers and the receiver, drops the temporary database, removes the temporary directory; safe to call twice. */
function cleanup(state) {
  state.cleaning ??= (async () => {
    if (state.group) await state.group.stopAll();
    await state.receiver?.close();
    if (state.postgres) for (const problem of await state.postgres.dropAll()) log(problem);
    if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  })();
  return state.cleaning;
}

await runBench('bench:scale', {
  main,
  cleanup,
  stopping: 'stopping the servers…',
  tails: (state) => (state.group ? state.group.logTails() : []),
});
