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

export function writeJson(path, report) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
