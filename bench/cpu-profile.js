/**
 * Reading a V8 CPU profile (`node --cpu-prof`) of a window of a server's life: the shares of its
 * samples by part of the server, and the frames with the most self time. bench/profile.js does the
 * same for the write scenarios; this one also names the parts of the webhook dispatcher.
 */

/** Parts of a server's work, by the innermost frame whose URL or name matches (first match wins). */
export const PARTS = [
  // Native code called from JavaScript has no URL: better-sqlite3 running a statement or COMMIT
  // (the fsync of synchronous=FULL included), or a Node binding (socket writes, crypto).
  [
    'Native calls (SQLite statements and COMMIT, socket writes, hashing)',
    (f) => f.url === '' && !f.functionName.startsWith('(') && f.functionName !== '',
  ],
  ['better-sqlite3 (statements, COMMIT)', (f) => f.url.includes('/better-sqlite3/')],
  ['pg (protocol, socket)', (f) => /\/(pg|pg-protocol|pg-pool|pg-types)\//.test(f.url)],
  ['Kysely (building and compiling SQL)', (f) => f.url.includes('/kysely/')],
  ['undici (the webhook attempts)', (f) => f.url.includes('/undici/')],
  ['Signing (standardwebhooks, fast-sha256, base64)', (f) => /\/(standardwebhooks|fast-sha256|@stablelib)\//.test(f.url)],
  ['Wharf: webhooks (dispatcher, fan-out, sender)', (f) => f.url.includes('/dist/modules/webhooks/')],
  ['Wharf: events (sequencer, payloads)', (f) => f.url.includes('/dist/modules/events/')],
  ['Wharf: items', (f) => f.url.includes('/dist/modules/items/')],
  ['Wharf: commands, ACKs, tenants', (f) => /\/dist\/modules\/(commands|acks|tenants)\//.test(f.url)],
  ['Wharf: other modules', (f) => f.url.includes('/dist/modules/')],
  ['Wharf: db, http, lib', (f) => /\/dist\/(db|http|lib)\//.test(f.url)],
  ["The bench's statement counter", (f) => f.url.includes('/bench/count-statements.js')],
  ['Validation (ajv)', (f) => f.url.includes('/ajv/') || f.url.includes('/fast-uri/')],
  ['ULIDs', (f) => f.url.includes('/ulid/')],
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

/** Calls `visit(nodeId, microseconds)` for every sample from `fromUs` to `toUs` (the profile's clock). */
function eachSampleBetween(profile, fromUs, toUs, visit) {
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at >= fromUs && at <= toUs) visit(id, profile.timeDeltas[i + 1] ?? 0);
  });
}

/** Time per key over the window, largest first, as shares of all of it and in seconds. */
function totalsBy(profile, fromUs, toUs, keyOf) {
  const totals = new Map();
  let all = 0;
  eachSampleBetween(profile, fromUs, toUs, (id, us) => {
    const key = keyOf(id);
    totals.set(key, (totals.get(key) ?? 0) + us);
    all += us;
  });
  return [...totals].sort((a, b) => b[1] - a[1]).map(([key, us]) => ({ key, share: us / all, seconds: us / 1e6 }));
}

/** Self time per part over the window: each sample goes to the innermost frame that names a part. */
export function sharesOf(profile, fromUs, toUs, parts = PARTS) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const partOf = new Map();
  const classify = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const frame = nodes.get(id).callFrame;
    const named = parts.find(([, test]) => test(frame));
    const part = named ? named[0] : parents.has(id) ? classify(parents.get(id)) : `other: ${frame.url || frame.functionName}`;
    partOf.set(id, part);
    return part;
  };
  return totalsBy(profile, fromUs, toUs, classify);
}

/** The `count` frames with the most self time over the window, each named by its function and file. */
export function topFramesOf(profile, fromUs, toUs, count) {
  const names = new Map(
    profile.nodes.map((node) => [
      node.id,
      `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`,
    ]),
  );
  return totalsBy(profile, fromUs, toUs, (id) => names.get(id)).slice(0, count);
}

/**
 * Total time (self and below) under the frames whose URL matches `test`, over the window, as a
 * share of all samples: e.g. everything a file's functions caused, the SQL they ran included.
 */
export function inclusiveShareOf(profile, fromUs, toUs, test) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const under = new Map();
  const isUnder = (id) => {
    if (under.has(id)) return under.get(id);
    const result = test(nodes.get(id).callFrame) || (parents.has(id) && isUnder(parents.get(id)));
    under.set(id, result);
    return result;
  };
  let all = 0;
  let matched = 0;
  eachSampleBetween(profile, fromUs, toUs, (id, us) => {
    all += us;
    if (isUnder(id)) matched += us;
  });
  return all === 0 ? 0 : matched / all;
}
