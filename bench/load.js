/**
 * Drives one scenario with autocannon: a warm-up that is not counted, then the measured run.
 * Latency percentiles are computed here from every 2xx response time in full precision
 * (autocannon's own histogram keeps whole milliseconds); the request rate is autocannon's mean of
 * its per-second samples.
 */
import autocannon from 'autocannon';

/** The p-th percentile (nearest rank) of ascending `sorted`. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Runs the scenario and returns its figures; throws if any response was not 2xx or any request
 * failed, since such a run measures something else than the scenario.
 *
 * `target`: { url (base, with path), method, headers, body } or { url, headers, requests } for
 * per-request bodies.
 */
export async function measure({ title, target, connections, duration, warmupSeconds }) {
  const latencies = [];
  const instance = autocannon({
    title,
    connections,
    duration,
    method: 'POST',
    ...target,
    warmup: { connections, duration: warmupSeconds },
  });
  // Only the measured run emits on this instance; the warm-up has its own tracker.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;

  const problems = [];
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx responses (${JSON.stringify(result.statusCodeStats)})`);
  if (result.errors > 0) problems.push(`${result.errors} request errors (${result.timeouts} timeouts)`);
  if (result.mismatches > 0) problems.push(`${result.mismatches} body mismatches`);
  if (result.warmup && result.warmup.non2xx > 0) problems.push(`${result.warmup.non2xx} non-2xx responses during the warm-up`);
  if (latencies.length === 0) problems.push('no 2xx responses at all');
  if (problems.length > 0) throw new Error(`scenario "${title}" failed: ${problems.join('; ')}`);

  const sorted = Float64Array.from(latencies).sort();
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return {
    scenario: title,
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    durationSeconds: result.duration,
    connections: result.connections,
    latencyMs: {
      mean: mean,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    },
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    throughputBytesPerSecond: result.throughput.average,
    warmup: result.warmup ? { requestsTotal: result.warmup.requests.total, durationSeconds: result.warmup.duration } : null,
  };
}
