/**
 * The benchmark's output: ratios of each scenario to its baseline, a Markdown table on stdout and
 * the whole result as JSON in bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** Adds to each scenario its ratios to its baseline: throughput share and p50 latency multiple. */
export function withRatios(results) {
  const byKey = new Map(results.map((r) => [r.key, r]));
  return results.map((r) => {
    const base = r.baseline ? byKey.get(r.baseline) : undefined;
    if (!base) return { ...r, vsBaseline: null };
    return {
      ...r,
      vsBaseline: {
        baseline: base.key,
        requestsPerSecond: r.requestsPerSecond / base.requestsPerSecond,
        p50: r.latencyMs.p50 / base.latencyMs.p50,
        p99: r.latencyMs.p99 / base.latencyMs.p99,
      },
    };
  });
}

/** The results as a Markdown table, one row a scenario, with the database it ran on ('—' for B0). */
export function formatTable(results) {
  const header = [
    'Scenario',
    'Database',
    'Baseline',
    'Req/s (mean)',
    'p50 ms',
    'p99 ms',
    'Answer bytes',
    'Req/s ÷ baseline',
    'p50 ÷ baseline',
  ];
  const rows = results.map((r) => [
    r.scenario,
    r.database ?? '—',
    r.vsBaseline ? r.vsBaseline.baseline : '—',
    fixed(r.requestsPerSecond, 0),
    fixed(r.latencyMs.p50, 2),
    fixed(r.latencyMs.p99, 2),
    String(r.answerBytes),
    r.vsBaseline ? fixed(r.vsBaseline.requestsPerSecond, 3) : '—',
    r.vsBaseline ? `${fixed(r.vsBaseline.p50, 1)}×` : '—',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/**
 * The most the rate limiter may cost a scenario, by database id: a share of the req/s of the same
 * scenario on a Wharf without the limiter.
 */
export const LIMITER_COST_TARGETS = { sqlite: 0.05, postgres: 0.1 };

/**
 * What the rate limiter costs each scenario measured both ways (bench/scenarios.js's
 * `limiterPairs`): 1 − the mean req/s with it ÷ that without it, and whether that is under the
 * target of its database. Pairs of which a side did not run are left out.
 */
export function limiterCosts(results, pairs) {
  const byKey = new Map(results.map((r) => [r.key, r]));
  return pairs
    .filter((pair) => byKey.has(pair.withLimiter) && byKey.has(pair.withoutLimiter))
    .map(({ databaseId, database, withLimiter, withoutLimiter }) => {
      const withIt = byKey.get(withLimiter).requestsPerSecond;
      const without = byKey.get(withoutLimiter).requestsPerSecond;
      const cost = 1 - withIt / without;
      const target = LIMITER_COST_TARGETS[databaseId];
      return { scenario: withLimiter, database, withLimiter: withIt, withoutLimiter: without, cost, target, withinTarget: cost < target };
    });
}

export function writeJson(path, report) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
