/**
 * The benchmark's output: ratios of each scenario to its baseline, a Markdown table on stdout and
 * the whole result as JSON in bench/results/latest.json.
 */
import { cpus, loadavg, totalmem } from 'node:os';
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

/** The median of `values` (the mean of the two middle ones when there is an even number of them). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * What the rate limiter costs each scenario measured both ways (bench/scenarios.js's
 * `limiterPairs`), from its rounds: `rounds` maps the key of the scenario with the limiter to one
 * entry per round, { withLimiter, withoutLimiter } (the mean req/s of the round's two runs). Each
 * round's cost is 1 − with ÷ without; the pair's `cost` is the median of those, `costRange` their
 * least and greatest, `withLimiter` and `withoutLimiter` the medians of the rounds' req/s (so `cost`
 * need not be 1 − `withLimiter` ÷ `withoutLimiter`), and `withinTarget` whether the median cost is
 * under the target of its database. Pairs without rounds (a side did not run) are left out.
 */
export function limiterCosts(pairs, rounds) {
  return pairs
    .filter((pair) => rounds[pair.withLimiter]?.length > 0)
    .map(({ databaseId, database, withLimiter }) => {
      const measured = rounds[withLimiter].map((round) => ({
        ...round,
        cost: 1 - round.withLimiter / round.withoutLimiter,
        cpuCost: 1 - round.cpuWithoutLimiter / round.cpuWithLimiter,
      }));
      const costs = measured.map((round) => round.cost);
      const cost = median(costs);
      const cpuCosts = measured.map((round) => round.cpuCost);
      const target = LIMITER_COST_TARGETS[databaseId];
      return {
        scenario: withLimiter,
        database,
        withLimiter: median(measured.map((round) => round.withLimiter)),
        withoutLimiter: median(measured.map((round) => round.withoutLimiter)),
        cost,
        costRange: [Math.min(...costs), Math.max(...costs)],
        // The same cost in the server's CPU a request, which the machine's noise moves less than req/s.
        cpuCost: median(cpuCosts),
        cpuCostRange: [Math.min(...cpuCosts), Math.max(...cpuCosts)],
        rounds: measured,
        target,
        withinTarget: cost < target,
      };
    });
}

export function writeJson(path, report) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** The machine a run measured on, for its JSON report: the load average at its start and now. */
export function machineOf(cores, loadAverageAtStart) {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores,
    memoryBytes: totalmem(),
    node: process.version,
    platform: process.platform,
    loadAverageAtStart,
    loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))),
  };
}
