#!/usr/bin/env node
/**
 * Where one write scenario's server time goes: runs the built `wharf serve` under `node --cpu-prof`
 * on a scratch database (SQLite with synchronous=FULL, or a temporary PostgreSQL database), seeds
 * what the scenario needs with the CLI and over HTTP, loads it like `npm run bench` does (pinned to
 * core 1, the load from core 0, 10 connections, 2 s warm-up and 10 s), then stops the server and
 * prints the shares of its CPU profile, cut to the measured seconds, by part.
 *
 *   npm run build && node bench/profile.js rn-import sqlite     # or adjust-1, adjust-20, dn-import; postgres
 *   node bench/profile.js rate sqlite                            # the rate quote (the bench's card and parcels)
 *   PROFILE_TOP=30 node bench/profile.js …                      # more of the frames with the most self time
 *   PROFILE_LIMITER=off node bench/profile.js …                 # the server without the rate limiter
 *   PROFILE_OUT=rate.cpuprofile node bench/profile.js …         # also keep the profile (Chrome DevTools opens it)
 *
 * On PostgreSQL it also prints the CPU that the database's backends used a request (from /proc).
 *
 * Each sample goes to the innermost frame that names a part (see PARTS), else to its own frame's
 * package or file. The profiler slows the server somewhat; read shares, not absolute rates.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, vacuumAnalyze } from './postgres.js';
import { adjustmentBody, itemIdOf, orderImportBody, receiptImportBody } from './payload.js';
import { choosePinning, freePort, ProcessGroup, runCli } from './processes.js';
import { backendCpu, backendCpuBetween } from './proc-cpu.js';
import { RATE_CARD_FILE, RATE_PATH, rateBody } from './rate-parcels.js';
import { BENCH_KEY_RATE_LIMIT, seedRating } from './seed.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliPath = join(root, 'dist', 'cli.js');
const TENANT = { company: 'PROF', customer: 'CUSTP', facility: 'FAC1' };
const ITEMS = 1000;
/** The items the DN imports allocate from, five an order in turn. */
const ORDER_ITEMS = 50;
const SECONDS = 10;
const WARMUP = 2;

/** Parts of the server's work, by the innermost frame whose URL or name matches. */
const PARTS = [
  // Native code called from JavaScript has no URL: better-sqlite3 running a statement or COMMIT
  // (the fsync of synchronous=FULL included), or a Node binding (socket writes, crypto).
  [
    'Native calls (SQLite statements and COMMIT, socket writes, hashing)',
    (f) => f.url === '' && !f.functionName.startsWith('(') && f.functionName !== '',
  ],
  [
    'better-sqlite3 (statements, COMMIT)',
    // The driver's run(), whose samples are better-sqlite3's native calls (V8 gives them to their caller).
    (f) => f.url.includes('/better-sqlite3/') || (f.url.endsWith('/dist/db/sqlite-driver.js') && f.functionName === 'run'),
  ],
  ['pg (protocol, socket)', (f) => /\/(pg|pg-protocol|pg-pool|pg-types)\//.test(f.url)],
  ['Kysely (building and compiling SQL)', (f) => f.url.includes('/kysely/')],
  ['Wharf: inventory', (f) => f.url.includes('/dist/modules/inventory/')],
  ['Wharf: receipts', (f) => f.url.includes('/dist/modules/receipts/')],
  ['Wharf: orders', (f) => f.url.includes('/dist/modules/orders/')],
  ['Wharf: commands, ACKs, items, tenants', (f) => /\/dist\/modules\/(commands|acks|items|tenants)\//.test(f.url)],
  ['Wharf: db, http, lib', (f) => /\/dist\/(db|http|lib)\//.test(f.url)],
  ['Validation (ajv)', (f) => f.url.includes('/ajv/') || f.url.includes('/fast-uri/')],
  ['Luxon', (f) => f.url.includes('/luxon/')],
  ['Logging (pino)', (f) => f.url.includes('/pino')],
  ['Metrics (prom-client)', (f) => f.url.includes('/prom-client/')],
  [
    'Fastify (routing, hooks, reply, serialization)',
    (f) => /\/(fastify|fast-json-stringify|find-my-way|avvio|light-my-request|secure-json-parse)\//.test(f.url),
  ],
  ['Node: HTTP and sockets', (f) => /^node:(_http|http|net|stream|internal\/(http|streams|net|stream_base))/.test(f.url)],
  ['Node: other', (f) => f.url.startsWith('node:')],
  ['Garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['Idle', (f) => f.functionName === '(idle)'],
  ['V8 and native code outside JavaScript', (f) => f.functionName === '(program)'],
];

function scenarioOf(name, key) {
  let n = 0;
  const post = (path, body) => ({ method: 'POST', path: `/shared/bam/v1/public${path}`, body });
  const scenarios = {
    rate: () => ({ method: 'POST', path: RATE_PATH, body: rateBody(++n) }),
    'rn-import': () =>
      post(
        '/edi/inbound/receipt',
        receiptImportBody(TENANT, { poNo: `PROF-${++n}-${Date.now()}`, referenceNo: `REF-${n}-${Date.now()}`, n, itemCount: ITEMS }),
      ),
    'adjust-1': () =>
      post(
        '/edi/3pl/adjust/inventory-adjust-qty-incremental',
        adjustmentBody(TENANT, { adjustmentNo: `A1-${++n}-${Date.now()}`, itemIds: [itemIdOf((n % ITEMS) + 1)] }),
      ),
    'dn-import': () =>
      post(
        '/edi/outbound/order',
        orderImportBody(TENANT, {
          poNo: `PROF-D-${++n}-${Date.now()}`,
          referenceNo: `REF-D-${n}-${Date.now()}`,
          n,
          itemIds: Array.from({ length: 5 }, (_, i) => itemIdOf(((n * 5 + i) % ORDER_ITEMS) + 1)),
        }),
      ),
    'adjust-20': () =>
      post(
        '/edi/3pl/adjust/inventory-adjust-qty-incremental',
        adjustmentBody(TENANT, {
          adjustmentNo: `A20-${++n}-${Date.now()}`,
          itemIds: Array.from({ length: 20 }, (_, i) => itemIdOf(((n * 20 + i) % ITEMS) + 1)),
        }),
      ),
  };
  const next = scenarios[name];
  if (!next) throw new Error(`scenario must be one of ${Object.keys(scenarios).join(', ')}`);
  return {
    headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
    setupRequest: (request) => ({ ...request, ...next() }),
  };
}

function load(url, scenario, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, connections: 10, duration: seconds, headers: scenario.headers, requests: [{ setupRequest: scenario.setupRequest }] },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** Calls `visit(nodeId, microseconds)` for every sample taken after `fromUs` (the profile's clock). */
function eachSampleAfter(profile, fromUs, visit) {
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at >= fromUs) visit(id, profile.timeDeltas[i + 1] ?? 0);
  });
}

/** Time per key over the samples after `fromUs`, largest first, as shares of all of it. */
function totalsBy(profile, fromUs, keyOf) {
  const totals = new Map();
  let all = 0;
  eachSampleAfter(profile, fromUs, (id, us) => {
    const key = keyOf(id);
    totals.set(key, (totals.get(key) ?? 0) + us);
    all += us;
  });
  return [...totals].sort((a, b) => b[1] - a[1]).map(([key, us]) => ({ key, share: us / all, seconds: us / 1e6 }));
}

/** Self time per part: each sample goes to the innermost frame that names a part. */
function sharesOf(profile, fromUs) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const partOf = new Map();
  const classify = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const frame = nodes.get(id).callFrame;
    const named = PARTS.find(([, test]) => test(frame));
    const part = named ? named[0] : parents.has(id) ? classify(parents.get(id)) : `other: ${frame.url || frame.functionName}`;
    partOf.set(id, part);
    return part;
  };
  return totalsBy(profile, fromUs, classify);
}

/** The frames with the most self time, each named by its function and file. */
function topFramesOf(profile, fromUs, count) {
  const names = new Map(
    profile.nodes.map((node) => [
      node.id,
      `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`,
    ]),
  );
  return totalsBy(profile, fromUs, (id) => names.get(id)).slice(0, count);
}

async function main() {
  const [scenarioName = 'rn-import', dialect = 'sqlite'] = process.argv.slice(2);
  const tmp = mkdtempSync(join(tmpdir(), 'wharf-profile-'));
  const group = new ProcessGroup(tmp, choosePinning());
  const databases = dialect === 'postgres' ? new TemporaryDatabases(process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL) : undefined;
  try {
    const dbUrl = databases ? await databases.create('profile') : `sqlite:${join(tmp, 'wharf.db')}`;
    const env = { ...process.env, LOG_LEVEL: 'warn', SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? 'FULL' };
    delete env.RATE_LIMIT_EDI;
    delete env.RATE_LIMIT_RATE;
    const serverEnv = process.env.PROFILE_LIMITER === 'off' ? { ...env, RATE_LIMIT_EDI: '0', RATE_LIMIT_RATE: '0' } : env;
    await runCli(cliPath, ['migrate', '--db', dbUrl], env);
    await runCli(cliPath, ['company', 'add', TENANT.company, '--db', dbUrl], env);
    await runCli(cliPath, ['customer', 'add', TENANT.company, TENANT.customer, '--db', dbUrl], env);
    await runCli(cliPath, ['facility', 'add', TENANT.company, TENANT.facility, '--db', dbUrl], env);
    const key =
      scenarioName === 'rate'
        ? (await seedRating(cliPath, dbUrl, env, join(root, RATE_CARD_FILE), TENANT.company)).key
        : await runCli(
            cliPath,
            ['key', 'create', '--role', 'admin', '--company', TENANT.company, '--rate-limit', String(BENCH_KEY_RATE_LIMIT), '--db', dbUrl],
            env,
          );
    const port = await freePort();
    const profileDir = join(tmp, 'profile');
    const url = `http://127.0.0.1:${port}`;
    const server = group.startServer(
      'wharf',
      ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, cliPath, 'serve', '--db', dbUrl, '--port', String(port), '--no-migrate'],
      serverEnv,
    );
    await group.waitUntilReady(server, async () => (await fetch(`${url}/readyz`)).status === 200);
    if (scenarioName !== 'rate') {
      const items = Array.from({ length: ITEMS }, (_, i) => ({ itemID: itemIdOf(i + 1) }));
      const seeded = await fetch(`${url}/shared/bam/v1/public/edi/item-master/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
        body: JSON.stringify({ CompanyID: TENANT.company, CustomerID: TENANT.customer, Items: items }),
      });
      if (seeded.status !== 200) throw new Error(`seeding the item master answered ${seeded.status}`);
      if (scenarioName === 'dn-import') {
        // Stock for every order's lines to allocate from, as bench/statements-in-process.js gives it.
        const stock = await fetch(`${url}/shared/bam/v1/public/edi/3pl/adjust/inventory-adjust-qty-incremental`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
          body: adjustmentBody(TENANT, {
            adjustmentNo: 'OPENING',
            itemIds: Array.from({ length: ORDER_ITEMS }, (_, i) => itemIdOf(i + 1)),
            qty: '1000000',
          }),
        });
        if (stock.status !== 200) throw new Error(`seeding the opening stock answered ${stock.status}`);
      }
    }

    const scenario = scenarioOf(scenarioName, key);
    await load(url, scenario, WARMUP);
    // The statistics the bench gives its seeded tables: without them the plans of the foreign-key
    // checks, made while the tables were empty, scan the company's rows (bench/postgres.js).
    if (databases) await vacuumAnalyze(dbUrl);
    const measuredFrom = Date.now();
    const backendsBefore = databases ? await backendCpu(dbUrl) : undefined;
    const result = await load(url, scenario, SECONDS);
    const backendSeconds = databases ? backendCpuBetween(backendsBefore, await backendCpu(dbUrl)) : undefined;
    // A graceful stop: the profile is written as the process exits.
    await group.stopAll(15_000);
    if (server.exitCode !== 0) throw new Error(`the server stopped with ${server.exitCode}`);
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
    if (process.env.PROFILE_OUT) copyFileSync(join(profileDir, file), process.env.PROFILE_OUT);
    // The profile's clock is microseconds of its own; its end is the server's stop, so count back.
    const fromUs = profile.endTime - (Date.now() - measuredFrom) * 1000;
    // A profile of refusals (429s, 409s) would say nothing about the write path.
    if (result.non2xx > 0) throw new Error(`${result.non2xx} of the measured requests were not answered 2xx`);
    console.log(`${scenarioName} on ${dialect}: ${Math.round(result.requests.average)} req/s with the profiler`);
    if (backendSeconds !== undefined) {
      const answered = result.requests.total;
      console.log(`PostgreSQL's backends: ${((backendSeconds / answered) * 1e6).toFixed(0)} µs of CPU a request (${backendSeconds.toFixed(2)} s for ${answered})`);
    }
    console.log('| Part | Share | CPU seconds |\n|---|---|---|');
    for (const { key, share, seconds } of sharesOf(profile, fromUs).filter((row) => row.share >= 0.005)) {
      console.log(`| ${key} | ${(share * 100).toFixed(1)}% | ${seconds.toFixed(2)} |`);
    }
    console.log('\nThe frames with the most self time:');
    for (const { key, share } of topFramesOf(profile, fromUs, Number(process.env.PROFILE_TOP ?? 15))) {
      console.log(`  ${(share * 100).toFixed(1)}%  ${key}`);
    }
  } finally {
    await group.stopAll();
    await databases?.dropAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
