#!/usr/bin/env node
/**
 * `npm run bench:x12`: what an order costs when it comes as an X12 940 (POST /edi/x12, docs/x12.md)
 * rather than as the JSON DN import it stands for, on SQLite (synchronous=FULL) and on PostgreSQL.
 * It runs this checkout's dist/ as `npm run build` left it (uncommitted changes included): run
 * `npm run build && npm run bench:x12`.
 *
 * On each database one `wharf serve --no-webhooks` runs, pinned like `npm run bench`, on a database
 * of its own (a temporary file; a temporary PostgreSQL database). Both imports write the same events
 * (order.imported, inventory.changed); without the dispatcher nothing numbers or fans them out in
 * the background, so the rates are those of the requests alone. The server is seeded as
 * bench/outbox-cost.js seeds it for its DN import: the bench tenant with its CLI, then over HTTP
 * customer O's 100 items with 10,000,000 EA of each (one adjustment), so that every line allocates
 * in full (no receipts, no seeded orders: neither import needs them). Then, with the CLI, an X12
 * trading partner of customer O (ZZ/BENCHX12) and a customer key of customer O, with the bench
 * keys' rate limit (never reached): both scenarios post with that key, so that only the format
 * differs.
 *
 * The scenarios, on the same server one after the other:
 * - JSON: the DN import of a new order of 5 allocating lines (bench/scenarios.js, as `npm run
 *   bench` and bench/outbox-cost.js run it);
 * - X12: the same order as a 940 posted to /edi/x12 (application/edi-x12), one interchange of one
 *   group (OW) and one set: W05 N with a new ReferenceNo and PONo, N1 WH naming the FacilityID, the
 *   ship-to in N1 ST, N3 and N4, the JSON body's ship dates in G62 37/38 and its freight terms,
 *   method, carrier and SCAC in W66, an LX and W01 (1 EA, qualifier VN) per line, W76. Every request
 *   has an ISA13, GS06 and ST02 of its own (a repeated ISA13 would replay the first 997 and apply
 *   nothing); the 997 must be 200 with the AK1 and AK2 of that interchange and AK5 A (or E: applied
 *   with a warning), not replayed. Anything else fails the run: it is an error, never throughput.
 *   What the JSON body has and no 940 element maps (OrderType, the label note, DeliveryService) is
 *   left out.
 *
 * Each runs in X12_ROUNDS rounds (default 3), JSON first in rounds 1, 3, … and X12 first in 2, 4, …
 * (round 1 with a 2 s warm-up, later ones 1 s): both add orders to the same tables, so the one that
 * runs second always finds a few thousand more. The run prints per database the req/s of each (the
 * median and range of the rounds), the ratio X12 ÷ JSON of each round (median and range), and the
 * CPU a request took in Wharf's process and, on PostgreSQL, in its database's backends (from /proc,
 * warm-ups included); it writes everything to bench/results/x12-import.json.
 *
 * Afterwards customer O's orders are listed in full: no ReferenceNo may be held twice, every import
 * answered (JSON Success or Warning, 940 AK5 A or E) must be held, nothing but the bench's own
 * orders may be, and the orders held must be exactly the seeded ones (none) plus every import
 * answered plus the requests in flight as a warm-up or run stopped that committed unanswered (each
 * found by its ReferenceNo among those sent and not answered); customer O's stock must hold 5 EA
 * allocated an order. Every server, temporary file and database is removed at the end, on failure
 * and on Ctrl-C too.
 *
 * Settings: BENCH_DURATION (seconds a run, default 10), BENCH_CONNECTIONS (default 10), X12_ROUNDS
 * (default 3), X12_DATABASES (sqlite, postgres or both comma-separated; default both),
 * BENCH_POSTGRES_URL (as for `npm run bench`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, positiveInteger, runBench } from './lifecycle.js';
import { measure } from './load.js';
import { orderPageBody } from './payload.js';
import { DEFAULT_ADMIN_URL, TemporaryDatabases, redact, vacuumAnalyze } from './postgres.js';
import { backendCpu, backendCpuBetween, cpuSecondsOf } from './proc-cpu.js';
import { ProcessGroup, choosePinning, freePort, runCli, wharfEnv } from './processes.js';
import { machineOf, median, writeJson } from './report.js';
import { ORDER_LINES, orderImportScenario } from './scenarios.js';
import {
  BENCH_KEY_RATE_LIMIT,
  ORDERS,
  ORDER_LIST_PATH,
  TENANT,
  allocatedStock,
  countOrders,
  documentNumbers,
  orderItemIds,
  post,
  seedOrderStock,
  seedTenant,
} from './seed.js';
import { describeCommit } from './worktree.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliPath = join(root, 'dist', 'cli.js');
const resultsPath = join(root, 'bench', 'results', 'x12-import.json');
const WARMUP_SECONDS = 2;
const LATER_ROUND_WARMUP_SECONDS = 1;
const DATABASE_KINDS = ['sqlite', 'postgres'];
const X12_PATH = '/shared/bam/v1/public/edi/x12';
const X12_MEDIA_TYPE = 'application/edi-x12';
/** Customer O's trading partner: ISA05/ISA06 of every interchange the bench sends. */
const PARTNER = { qualifier: 'ZZ', id: 'BENCHX12' };
/** The largest page of the 3PL order list. */
const LIST_PAGE_SIZE = 1000;
/** The two scenarios, in the order of the odd rounds (the even ones run them in reverse). */
const SIDE_NAMES = ['json', 'x12'];
const SIDE_LABELS = { json: 'JSON DN import', x12: 'X12 940' };

function selectedDatabases() {
  const raw = process.env.X12_DATABASES;
  if (raw === undefined || raw.trim() === '') return DATABASE_KINDS;
  const named = raw.split(',').map((name) => name.trim());
  if (named.some((name) => !DATABASE_KINDS.includes(name))) {
    throw new Error(`X12_DATABASES must name ${DATABASE_KINDS.join(' and/or ')} (got ${JSON.stringify(raw)})`);
  }
  return DATABASE_KINDS.filter((kind) => named.includes(kind));
}

/**
 * The interchange of the n-th 940 (n from 1): ISA13 n (9 digits), GS06 n, ST02 n (at least 4
 * digits), one segment a line; the order is the JSON DN import's n-th as far as 940 elements map it
 * (bench/payload.js's orderImportBody), with ReferenceNo and PONo of the X12 series. `at` dates the
 * envelope.
 */
function shippingOrderInterchange(n, at) {
  const { poNo, referenceNo } = documentNumbers('X12', n);
  const isa13 = String(n).padStart(9, '0');
  const st02 = String(n).padStart(4, '0');
  const lines = orderItemIds(n, ORDER_LINES).flatMap((itemId, i) => [`LX*${i + 1}`, `W01*1*EA**VN*${itemId}`]);
  const set = [
    `ST*940*${st02}`,
    `W05*N*${referenceNo}*${poNo}`,
    `N1*WH*Bench Warehouse*91*${ORDERS.facility}`,
    `N1*ST*Bench Store ${n % 500}`,
    `N3*${(n % 9000) + 100} Commerce Way`,
    'N4*Reno*NV*89501',
    'G62*37*20240305*1*0800',
    'G62*38*20240307*2*1700',
    'W66*PP*U***Bench Parcel*****BNCP',
    ...lines,
    `W76*${ORDER_LINES}`,
  ];
  set.push(`SE*${set.length + 1}*${st02}`);
  const party = (id) => id.padEnd(15, ' ');
  const segments = [
    `ISA*00*          *00*          *${PARTNER.qualifier}*${party(PARTNER.id)}*ZZ*${party(TENANT.company)}*${at.yymmdd}*${at.hhmm}*U*00401*${isa13}*0*P*>`,
    `GS*OW*${PARTNER.id}*${TENANT.company}*20${at.yymmdd}*${at.hhmm}*${n}*X*004010`,
    ...set,
    `GE*1*${n}`,
    `IEA*1*${isa13}`,
  ];
  return { body: segments.map((segment) => `${segment}~\n`).join(''), group: String(n), set: st02 };
}

/** What is wrong with the answer to the 940 `sent` (its GS06 and ST02), if anything: it must be its 997, applying the set. */
function x12AnswerProblem(status, text, headers, sent) {
  if (status !== 200) return `answered ${status}: ${text.slice(0, 300)}`;
  const replayed = Object.entries(headers).some(([name, value]) => name.toLowerCase() === 'idempotent-replayed' && value === 'true');
  if (replayed) return `replayed an earlier 997 (ISA13 used before): ${text.slice(0, 300)}`;
  if (!text.includes(`AK1*OW*${sent.group}~`) || !text.includes(`AK2*940*${sent.set}~`)) {
    return `not the 997 of GS06 ${sent.group}, ST02 ${sent.set}: ${text.slice(0, 300)}`;
  }
  const ak5 = /AK5\*([^*~]*)/.exec(text)?.[1];
  if (ak5 !== 'A' && ak5 !== 'E') return `AK5 ${ak5 ?? 'missing'}, the set was not applied: ${text.slice(0, 500)}`;
  return undefined;
}

/**
 * The 940 of a new order of ORDER_LINES lines on `server`, with its customer key: a new ISA13,
 * GS06, ST02, ReferenceNo and PONo on every request. `tally` counts the 997s that applied the set
 * (`accepted`, AK5 A; `acceptedWithErrors`, AK5 E) and the rest (`other`, with the first problem).
 */
function x12ImportScenario(server, tally) {
  const now = new Date().toISOString();
  const at = { yymmdd: `${now.slice(2, 4)}${now.slice(5, 7)}${now.slice(8, 10)}`, hhmm: `${now.slice(11, 13)}${now.slice(14, 16)}` };
  let n = 0;
  return {
    title: `Wharf X12 940, 1 new order of ${ORDER_LINES} lines (allocating)`,
    database: server.label,
    target: {
      url: `${server.wharf}${X12_PATH}`,
      headers: { 'content-type': X12_MEDIA_TYPE, authorization: `APIKey ${server.customerKey}` },
      requests: [
        {
          method: 'POST',
          setupRequest: (request, context) => {
            n += 1;
            const { body, ...sent } = shippingOrderInterchange(n, at);
            context.sent = sent;
            return { ...request, body };
          },
          onResponse: (status, text, context, headers) => {
            const problem = x12AnswerProblem(status, text, headers, context.sent);
            if (problem === undefined) tally[/AK5\*E/.test(text) ? 'acceptedWithErrors' : 'accepted'] += 1;
            else {
              tally.other += 1;
              tally.firstProblem ??= problem;
            }
          },
        },
      ],
    },
  };
}

/**
 * Wraps the one request of `scenario` so that `refs` learns the ReferenceNo of every request built
 * (`sent`) and of every one answered 2xx (`answered`), by `referenceOf(body)`: what the orders held
 * are checked against afterwards.
 */
function tracked(scenario, referenceOf) {
  const [request] = scenario.target.requests;
  const refs = { sent: new Set(), answered: new Set() };
  const wrapped = {
    ...request,
    setupRequest: (base, context) => {
      const built = request.setupRequest(base, context);
      context.referenceNo = referenceOf(built.body);
      refs.sent.add(context.referenceNo);
      return built;
    },
    onResponse: (status, text, context, headers) => {
      request.onResponse(status, text, context, headers);
      if (status >= 200 && status < 300) refs.answered.add(context.referenceNo);
    },
  };
  return { ...scenario, target: { ...scenario.target, requests: [wrapped] }, refs };
}

/** The scenario of `side` on `server`, tracked, with its tally and what makes its answers so far a failure. */
function makeSide(side, server) {
  if (side === 'json') {
    const tally = { Success: 0, Warning: 0, other: 0, newOrders: 0 };
    const scenario = orderImportScenario({ ...server, apiKey: server.customerKey }, tally);
    return {
      tally,
      scenario: tracked(scenario, (body) => /"ReferenceNo":"([^"]*)"/.exec(body)[1]),
      applied: () => tally.Success + tally.Warning,
      failure: () =>
        tally.other > 0 || tally.newOrders !== tally.Success + tally.Warning
          ? `not every answer a new order (Success or Warning with an SVCPOID of its own): ${JSON.stringify(tally)}`
          : undefined,
    };
  }
  const tally = { accepted: 0, acceptedWithErrors: 0, other: 0, firstProblem: undefined };
  return {
    tally,
    scenario: tracked(x12ImportScenario(server, tally), (body) => /\nW05\*N\*([^*~]*)/.exec(body)[1]),
    applied: () => tally.accepted + tally.acceptedWithErrors,
    failure: () => (tally.other > 0 ? `${tally.other} 940s not applied; the first: ${tally.firstProblem}` : undefined),
  };
}

/**
 * One request of the scenario as autocannon would send it (its setupRequest and onResponse), before
 * the load: it must be applied. Answers the sizes of the request's body and of its answer.
 */
async function checkOne(side, { scenario, failure, applied }) {
  const [request] = scenario.target.requests;
  const context = {};
  const { body } = request.setupRequest({}, context);
  const response = await fetch(scenario.target.url, { method: 'POST', headers: scenario.target.headers, body });
  const text = await response.text();
  request.onResponse(response.status, text, context, Object.fromEntries(response.headers));
  const problem = response.ok ? failure() : `answered ${response.status}: ${text.slice(0, 500)}`;
  if (problem || applied() !== 1)
    throw new Error(`pre-check of the ${SIDE_LABELS[side]} on ${scenario.database} failed: ${problem ?? text}`);
  return { requestBytes: Buffer.byteLength(body), answerBytes: Buffer.byteLength(text) };
}

/**
 * Throws once a cleanup has begun (Ctrl-C): runBench runs the cleanup while main goes on, so main
 * must start no server or CLI call after it, or they would outlive it.
 */
function stillRunning(state) {
  if (state.stopping) throw new Error('stopped');
}

/** Runs `step`, CLI calls that write to the database (its directory), so that a cleanup begun meanwhile waits for them. */
async function cliStep(state, step) {
  stillRunning(state);
  state.cliStep = step();
  try {
    return await state.cliStep;
  } finally {
    state.cliStep = undefined;
    stillRunning(state);
  }
}

/** Starts `wharf serve --no-webhooks` on a database of its own and seeds it; answers what the scenarios need of it. */
async function startServer(state, kind, env) {
  stillRunning(state);
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const dbUrl = kind === 'sqlite' ? `sqlite:${join(state.tmp, 'x12.db')}` : await state.postgres.create('x12');
  const port = await freePort();
  const wharf = `http://127.0.0.1:${port}`;
  const entry = state.group.startServer(`wharf-${kind}`, [cliPath, 'serve', '--no-webhooks', '--db', dbUrl, '--port', String(port)], env);
  await state.group.waitUntilReady(entry, async () => (await fetch(`${wharf}/readyz`)).ok);
  stillRunning(state);
  log(`${label}: seeding the tenant and ${ORDERS.customer}'s trading partner and key with the CLI, its items and stock over HTTP…`);
  const db = ['--db', dbUrl];
  const apiKey = await cliStep(state, () => seedTenant(cliPath, dbUrl, env));
  const seeded = { orderStock: await seedOrderStock(wharf, apiKey) };
  stillRunning(state);
  const { company } = TENANT;
  const { customer } = ORDERS;
  const partnerArgs = ['--company', company, '--customer', customer, '--id', PARTNER.id, '--qualifier', PARTNER.qualifier];
  seeded.partner = await cliStep(state, () => runCli(cliPath, ['x12', 'partner', 'add', ...partnerArgs, ...db], env));
  const keyArgs = ['--role', 'customer', '--company', company, '--customer', customer, '--label', 'bench-x12'];
  const limit = ['--rate-limit', String(BENCH_KEY_RATE_LIMIT)];
  const customerKey = await cliStep(state, () => runCli(cliPath, ['key', 'create', ...keyArgs, ...limit, ...db], env));
  if (!/^\S+$/.test(customerKey)) throw new Error('key create did not print a key alone');
  seeded.orders = await countOrders(wharf, apiKey);
  if (kind === 'postgres') seeded.vacuumAnalyze = { seconds: await vacuumAnalyze(dbUrl) };
  return { id: kind, label, kind, dbUrl, wharf, apiKey, customerKey, b1: {}, seeded, pid: entry.child.pid };
}

/**
 * Runs both scenarios (`sides`, by name, of makeSide) on `server` in `roundCount` rounds, JSON first
 * in odd rounds and X12 first in even ones; answers each side's runs in round order, each with the
 * CPU a request took (warm-up included). A side whose answers are not all applied fails the run.
 */
async function measureRounds(state, server, sides, { roundCount, duration, connections }) {
  const runs = { json: [], x12: [] };
  for (let round = 1; round <= roundCount; round++) {
    const warmupSeconds = round === 1 ? WARMUP_SECONDS : LATER_ROUND_WARMUP_SECONDS;
    for (const side of round % 2 === 1 ? SIDE_NAMES : [...SIDE_NAMES].reverse()) {
      stillRunning(state);
      const { scenario, failure } = sides[side];
      log(
        `${SIDE_LABELS[side]} (${server.label}), round ${round} of ${roundCount}: ${warmupSeconds} s warm-up + ${duration} s, ${connections} connections…`,
      );
      const { pid, kind, dbUrl } = server;
      const cpuBefore = { server: cpuSecondsOf(pid), postgres: kind === 'postgres' ? await backendCpu(dbUrl) : null };
      const figures = await measure({
        title: `${scenario.title} (${server.label})`,
        target: scenario.target,
        connections,
        duration,
        warmupSeconds,
      });
      const requests = figures.requestsTotal + (figures.warmup?.requestsTotal ?? 0);
      figures.cpuMicrosecondsPerRequest = {
        server: ((cpuSecondsOf(pid) - cpuBefore.server) * 1e6) / requests,
        postgres: kind === 'postgres' ? (backendCpuBetween(cpuBefore.postgres, await backendCpu(dbUrl)) * 1e6) / requests : null,
      };
      state.group.assertAlive();
      const problem = failure();
      if (problem) throw new Error(`${SIDE_LABELS[side]} on ${server.label}, round ${round}: ${problem}`);
      runs[side].push({ round, ...figures });
    }
  }
  return runs;
}

/** The median and the least and greatest of `values`. */
const spread = (values) => ({ median: median(values), range: [Math.min(...values), Math.max(...values)] });

/**
 * Customer O's orders against the answers: each ReferenceNo held once, every import answered held,
 * none but the bench's own, and as many as the seeded ones plus every import answered plus those in
 * flight as a run stopped that committed unanswered; ORDER_LINES EA allocated an order.
 */
async function verifyOrders(server, sides) {
  // A request autocannon gave up on as a run ended may still be committing: read once it must be done.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const held = new Map();
  let totalCount = 0;
  for (let pageNo = 1; ; pageNo++) {
    const { json } = await post(server.wharf, ORDER_LIST_PATH, server.apiKey, orderPageBody(ORDERS, pageNo, LIST_PAGE_SIZE));
    for (const row of json.results.data) held.set(String(row.ReferenceNo), (held.get(String(row.ReferenceNo)) ?? 0) + 1);
    totalCount = json.paging.totalCount;
    if (pageNo >= json.paging.totalPage) break;
  }
  const listed = [...held.values()].reduce((sum, count) => sum + count, 0);
  const fail = (what) => {
    throw new Error(`after the imports ${server.label} ${what}`);
  };
  if (listed !== totalCount) fail(`listed ${listed} orders of ${ORDERS.customer}, its totalCount is ${totalCount}`);
  const twice = [...held].filter(([, count]) => count > 1);
  if (twice.length > 0) fail(`holds ${twice.length} ReferenceNos more than once, e.g. ${twice[0][0]} ×${twice[0][1]}`);
  const bySide = {};
  for (const side of SIDE_NAMES) {
    const { scenario, applied, tally } = sides[side];
    const { sent, answered } = scenario.refs;
    if (answered.size !== applied()) fail(`— the ${SIDE_LABELS[side]}s: ${applied()} answers applied for ${answered.size} ReferenceNos`);
    const missing = [...answered].filter((ref) => !held.has(ref));
    if (missing.length > 0) fail(`lacks ${missing.length} orders of the ${SIDE_LABELS[side]}s answered, e.g. ${missing[0]}`);
    const inFlight = [...sent].filter((ref) => !answered.has(ref) && held.has(ref)).length;
    bySide[side] = { sent: sent.size, answered: answered.size, inFlightCommitted: inFlight, tally };
  }
  const ours = (ref) => SIDE_NAMES.some((side) => sides[side].scenario.refs.sent.has(ref));
  const others = [...held.keys()].filter((ref) => !ours(ref)).length;
  if (others !== server.seeded.orders) fail(`holds ${others} orders the bench did not send, ${server.seeded.orders} seeded`);
  const expected = server.seeded.orders + SIDE_NAMES.reduce((sum, side) => sum + bySide[side].answered + bySide[side].inFlightCommitted, 0);
  if (totalCount !== expected) fail(`holds ${totalCount} orders of ${ORDERS.customer}, expected ${expected}`);
  const allocated = await allocatedStock(server.wharf, server.apiKey);
  if (allocated !== totalCount * ORDER_LINES)
    fail(`has ${allocated} EA allocated, its ${totalCount} orders ordered ${totalCount * ORDER_LINES}`);
  return { orders: totalCount, seeded: server.seeded.orders, allocated, ...bySide };
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

async function main(state) {
  const duration = positiveInteger('BENCH_DURATION', 10);
  const connections = positiveInteger('BENCH_CONNECTIONS', 10);
  const roundCount = positiveInteger('X12_ROUNDS', 3);
  const kinds = selectedDatabases();
  const postgresAdminUrl = process.env.BENCH_POSTGRES_URL || DEFAULT_ADMIN_URL;
  if (!existsSync(cliPath)) throw new Error(`${relative(process.cwd(), cliPath)} is missing: run npm run build first`);
  const head = describeCommit(root, 'HEAD');
  log(`Wharf: this checkout's dist/ (HEAD ${head.short}, with whatever is uncommitted as last built)`);

  const pinning = choosePinning();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log(`pinning: ${pinning.description}; load average at start ${loadAtStart.join(' ')}`);
  state.tmp = mkdtempSync(join(tmpdir(), 'wharf-x12-'));

  let postgresServer = null;
  if (kinds.includes('postgres')) {
    state.postgres = new TemporaryDatabases(postgresAdminUrl);
    postgresServer = await state.postgres.describeServer();
    log(`PostgreSQL ${postgresServer.version} at ${redact(postgresAdminUrl)}: temporary database ${state.postgres.prefix}_x12`);
  }

  const env = wharfEnv({ prefixes: ['WEBHOOK_', 'X12_'] });
  const results = [];
  for (const kind of kinds) {
    stillRunning(state);
    // A group of its own for each database's server, stopped once that database is done.
    state.group = new ProcessGroup(state.tmp, pinning);
    (state.groups ??= []).push(state.group);
    const server = await startServer(state, kind, env);
    const sides = Object.fromEntries(SIDE_NAMES.map((side) => [side, makeSide(side, server)]));
    const sizes = {};
    for (const side of SIDE_NAMES) sizes[side] = await checkOne(side, sides[side]);
    const runs = await measureRounds(state, server, sides, { roundCount, duration, connections });
    const rates = (side) => runs[side].map((run) => run.requestsPerSecond);
    const ratios = runs.x12.map((run, i) => run.requestsPerSecond / runs.json[i].requestsPerSecond);
    const check = await verifyOrders(server, sides);
    results.push({
      database: server.label,
      seeded: server.seeded,
      bytes: sizes,
      requestsPerSecond: Object.fromEntries(SIDE_NAMES.map((side) => [side, { rounds: rates(side), ...spread(rates(side)) }])),
      ratio: { rounds: ratios, ...spread(ratios) },
      p50Ms: Object.fromEntries(SIDE_NAMES.map((side) => [side, median(runs[side].map((run) => run.latencyMs.p50))])),
      cpuMicrosecondsPerRequest: Object.fromEntries(
        SIDE_NAMES.map((side) => [
          side,
          {
            server: median(runs[side].map((run) => run.cpuMicrosecondsPerRequest.server)),
            postgres: kind === 'postgres' ? median(runs[side].map((run) => run.cpuMicrosecondsPerRequest.postgres)) : null,
          },
        ]),
      ),
      check,
      runs,
    });
    await state.group.stopAll(20_000);
  }

  const report = {
    date: new Date().toISOString(),
    command: 'npm run bench:x12',
    head: { commit: head.commit, subject: head.subject, checkout: true },
    machine: machineOf(pinning.cores, loadAtStart),
    settings: {
      durationSeconds: duration,
      warmupSeconds: WARMUP_SECONDS,
      laterRoundWarmupSeconds: LATER_ROUND_WARMUP_SECONDS,
      rounds: roundCount,
      connections,
      orderLines: ORDER_LINES,
      serve: 'wharf serve --no-webhooks',
      partner: `${PARTNER.qualifier}/${PARTNER.id}`,
      sqliteSynchronous: 'FULL',
      postgres: postgresServer && { ...postgresServer, poolSize: 10, pinned: false },
      pinning: pinning.description,
    },
    results,
  };
  writeJson(resultsPath, report);

  const out = (text = '') => process.stdout.write(`${text}\n`);
  const rate = ({ median: middle, range }, digits = 0) =>
    `**${fixed(middle, digits)}** [${fixed(range[0], digits)} – ${fixed(range[1], digits)}]`;
  out();
  out(`X12 940 against the JSON DN import, ${ORDER_LINES} allocating lines an order — this checkout's dist/ (HEAD ${head.short})`);
  out(
    `${roundCount} round${roundCount === 1 ? '' : 's'} of ${duration} s a scenario (warm-up ${WARMUP_SECONDS} s in round 1, ${LATER_ROUND_WARMUP_SECONDS} s later), ` +
      `${connections} connections; JSON first in odd rounds, X12 first in even ones; one wharf serve --no-webhooks a database`,
  );
  out(
    `SQLite synchronous=FULL${postgresServer ? `; PostgreSQL ${postgresServer.version} fsync=${postgresServer.fsync} synchronous_commit=${postgresServer.synchronousCommit}` : ''}`,
  );
  out(`Node ${process.version}, ${report.machine.cpu}, ${pinning.cores} cores; pinning: ${pinning.description}`);
  out(`Load average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${report.machine.loadAverageAtEnd.join(' ')}`);
  out();
  out(
    '| Database | JSON DN import, req/s | X12 940, req/s | X12 ÷ JSON | JSON, p50 ms | X12, p50 ms | JSON, CPU µs a request | X12, CPU µs a request |',
  );
  out('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const cpu = (side) => {
      const { server, postgres } = r.cpuMicrosecondsPerRequest[side];
      return postgres === null ? fixed(server, 0) : `${fixed(server, 0)} + ${fixed(postgres, 0)} in PostgreSQL`;
    };
    out(
      `| ${r.database} | ${rate(r.requestsPerSecond.json)} | ${rate(r.requestsPerSecond.x12)} | ${rate(r.ratio, 3)} | ` +
        `${fixed(r.p50Ms.json, 2)} | ${fixed(r.p50Ms.x12, 2)} | ${cpu('json')} | ${cpu('x12')} |`,
    );
  }
  out();
  out(
    'Req/s and X12 ÷ JSON: the median of the rounds, their range in brackets (the ratio is taken in each round). p50 and CPU: ' +
      "the median of the rounds; CPU from /proc, warm-ups included: Wharf's process, and on PostgreSQL its database's backends.",
  );
  for (const r of results) {
    const { json, x12, orders, seeded, allocated } = r.check;
    out(
      `${r.database}: ${json.answered} JSON imports Success or Warning (${json.tally.Warning} Warning), each a new SVCPOID; ` +
        `${x12.answered} 940s answered 200 with their 997, AK5 A (${x12.tally.acceptedWithErrors} E); ` +
        `${orders} orders held = ${seeded} seeded + ${json.answered} + ${x12.answered} answered + ${json.inFlightCommitted + x12.inFlightCommitted} ` +
        `in flight at a run's end, committed unanswered; no ReferenceNo twice; ${allocated} EA allocated. ` +
        `Bodies: JSON ${r.bytes.json.requestBytes} B (answer ${r.bytes.json.answerBytes} B), 940 ${r.bytes.x12.requestBytes} B (997 ${r.bytes.x12.answerBytes} B).`,
    );
  }
  out(`Results written to ${relative(process.cwd(), resultsPath) || resultsPath}`);
}

/**
 * Stops every server, drops the temporary database and removes the temporary directory; safe to
 * call twice. On Ctrl-C main is still running: it starts nothing more (stillRunning), and the CLI
 * calls it has in flight are waited for (cliStep), so that none writes to the directory after it
 * is removed.
 */
function cleanup(state) {
  state.cleaning ??= (async () => {
    state.stopping = true;
    for (const group of state.groups ?? []) await group.stopAll();
    await state.cliStep?.catch(() => {});
    if (state.postgres) for (const problem of await state.postgres.dropAll()) log(problem);
    if (state.tmp) rmSync(state.tmp, { recursive: true, force: true });
  })();
  return state.cleaning;
}

await runBench('bench:x12', {
  main,
  cleanup,
  stopping: 'stopping the servers, dropping the database…',
  tails: (state) => (state.groups ?? []).flatMap((group) => group.logTails()),
});
