import type { App } from '../../src/http/module.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text → samples with their labels. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the series `name` with exactly `labels`; 0 when there is none yet. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return (
    samples.find(
      (s) =>
        s.name === name &&
        Object.entries(labels).every(([k, v]) => s.labels[k] === v) &&
        Object.keys(s.labels).length === Object.keys(labels).length,
    )?.value ?? 0
  );
}

/** Reads /metrics once. */
export async function readMetrics(app: App): Promise<Sample[]> {
  const response = await app.inject('/metrics');
  if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}`);
  return parseMetrics(response.body);
}
