/**
 * Reading what bench/count-statements.js counted in a server: its snapshots (one JSON line each,
 * appended on SIGUSR2 and at exit), the difference of two of them, by the shape of each statement.
 */
import { readFileSync } from 'node:fs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A statement's text with its lists of parameters folded, so that one statement of any length counts as one. */
export function shapeOf(sql) {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\(\$\d+(?:, \$\d+)+\)/g, '($…)')
    .replace(/values \(\$…\)(?:, \(\$…\))+/g, 'values ($…), …');
}

/** Every snapshot of the counter's file, oldest first. */
export function readSnapshots(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * Asks the server `pid` for a snapshot (SIGUSR2) after `settleMs` (so that what was in flight is
 * counted), and answers it once it is in `file`.
 */
export async function takeSnapshot(pid, file, settleMs = 300) {
  await sleep(settleMs);
  const before = readSnapshots(file).length;
  process.kill(pid, 'SIGUSR2');
  for (let tries = 0; tries < 100; tries++) {
    const snapshots = readSnapshots(file);
    if (snapshots.length > before) return snapshots.at(-1);
    await sleep(20);
  }
  throw new Error(`the statement counter of process ${pid} wrote no snapshot`);
}

/**
 * What ran between two snapshots, by shape, per `per` (deliveries, requests): answers the rows
 * { sql, perUnit, msPerUnit }, most frequent first, and their sums.
 */
export function statementsBetween(atStart, atEnd, per) {
  const byShape = new Map();
  for (const [sql, { count, ms }] of Object.entries(atEnd.statements)) {
    const before = atStart.statements[sql] ?? { count: 0, ms: 0 };
    if (count === before.count) continue;
    const shape = shapeOf(sql);
    const total = byShape.get(shape) ?? { count: 0, ms: 0 };
    total.count += count - before.count;
    total.ms += ms - before.ms;
    byShape.set(shape, total);
  }
  const rows = [...byShape]
    .map(([sql, { count, ms }]) => ({ sql, perUnit: count / per, msPerUnit: ms / per }))
    .sort((a, b) => b.perUnit - a.perUnit || b.msPerUnit - a.msPerUnit);
  return {
    rows,
    perUnit: rows.reduce((sum, row) => sum + row.perUnit, 0),
    msPerUnit: rows.reduce((sum, row) => sum + row.msPerUnit, 0),
    commitsPerUnit: rows.filter((row) => /^commit\b/i.test(row.sql)).reduce((sum, row) => sum + row.perUnit, 0),
  };
}
