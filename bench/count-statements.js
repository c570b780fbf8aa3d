/**
 * `node --import ./bench/count-statements.js dist/cli.js serve …`, with BENCH_STATEMENTS_OUT set to
 * a file: counts every SQL statement the process runs, by its text, with the time from sending it to
 * its answer (pg: a round trip, waiting in the connection's queue included; better-sqlite3: the
 * call, COMMIT's fsync included). On SIGUSR2, and as the process exits, it appends a snapshot of
 * the counts to the file as one JSON line, { at (ms since the epoch), statements: { sql: { count,
 * ms } } }, so that the difference of two snapshots is what a window of the process's life ran.
 * bench/webhook-dispatch.js uses it to count a webhook delivery's statements.
 *
 * It patches the `pg` and `better-sqlite3` that this checkout's node_modules hold, which a build in
 * a worktree made by bench/worktree.js also loads (its node_modules is a link to them).
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const out = process.env.BENCH_STATEMENTS_OUT;
const totals = new Map();

function count(text, started) {
  const total = totals.get(text) ?? { count: 0, ms: 0 };
  total.count += 1;
  total.ms += performance.now() - started;
  totals.set(text, total);
}

try {
  const pg = require('pg');
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, values, callback) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text !== 'string') return original.call(this, config, values, callback);
    const started = performance.now();
    const cb = typeof values === 'function' ? values : callback;
    if (typeof cb === 'function') {
      const done = (...args) => {
        count(text, started);
        return cb(...args);
      };
      return typeof values === 'function' ? original.call(this, config, done) : original.call(this, config, values, done);
    }
    const result = original.call(this, config, values);
    if (result && typeof result.then === 'function') {
      return result.then(
        (answer) => {
          count(text, started);
          return answer;
        },
        (error) => {
          count(text, started);
          throw error;
        },
      );
    }
    return result;
  };
} catch {
  // no pg here
}

try {
  const SqliteDatabase = require('better-sqlite3');
  const statementClass = Object.getPrototypeOf(new SqliteDatabase(':memory:').prepare('select 1'));
  for (const method of ['run', 'all', 'get']) {
    const original = statementClass[method];
    statementClass[method] = function countedStatement(...args) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        count(this.source, started);
      }
    };
  }
} catch {
  // no better-sqlite3 here
}

function snapshot() {
  if (!out) return;
  const statements = Object.fromEntries([...totals].map(([text, { count: n, ms }]) => [text, { count: n, ms }]));
  appendFileSync(out, `${JSON.stringify({ at: Date.now(), statements })}\n`);
}

process.on('SIGUSR2', snapshot);
process.on('exit', snapshot);
