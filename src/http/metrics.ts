import { AggregatorRegistry, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyInstance } from 'fastify';

const REQUESTS = 'wharf_http_requests_total';
const DURATIONS = 'wharf_http_request_duration_seconds';
/** Upper bounds of the duration buckets, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type Labels = { method: string; route: string; status: string };

/** The answers of one method, route and status. */
interface Series {
  labels: Labels;
  /** Seconds. */
  sum: number;
  /** Answers per bucket, not cumulative; the last is beyond the last bound, so they add up to the count. */
  perBucket: number[];
}

/**
 * Request counts and durations, counted in plain numbers. prom-client's labelled metrics check and
 * hash their labels on every observation, which cost a small request (a rate quote) a few percent
 * of its time; here a request adds to a series found by one Map lookup, and prom-client sees the
 * series only when /metrics is read.
 */
class RequestTally {
  private readonly series = new Map<string, Series>();

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { labels, sum: 0, perBucket: new Array<number>(BUCKETS.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.sum += seconds;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket += 1;
    series.perBucket[bucket]! += 1;
  }

  /**
   * The counter and the histogram as prom-client's getMetricsAsJSON() writes them, which
   * AggregatorRegistry.aggregate() turns back into a registry.
   */
  asMetricsJson(): object[] {
    const requests: object[] = [];
    const durations: object[] = [];
    for (const { labels, sum, perBucket } of this.series.values()) {
      let count = 0;
      perBucket.forEach((answers, i) => {
        count += answers;
        durations.push({ metricName: `${DURATIONS}_bucket`, labels: { ...labels, le: BUCKETS[i] ?? '+Inf' }, value: count });
      });
      durations.push({ metricName: `${DURATIONS}_sum`, labels, value: sum });
      durations.push({ metricName: `${DURATIONS}_count`, labels, value: count });
      requests.push({ labels, value: count });
    }
    return [
      { name: REQUESTS, help: 'HTTP requests answered, by method, route and status', type: 'counter', aggregator: 'sum', values: requests },
      {
        name: DURATIONS,
        help: 'Time to answer an HTTP request, by method, route and status',
        type: 'histogram',
        aggregator: 'sum',
        values: durations,
      },
    ];
  }
}

/**
 * Prometheus metrics at /metrics: request counts and latency by route and status, plus the
 * process's own. Each app has its own registry, so several apps in one process do not collide.
 */
export function registerMetrics(app: FastifyInstance): void {
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  const tally = new RequestTally();

  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched paths share one label, so that probing random URLs cannot grow the series.
    tally.record(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const all = Registry.merge([processMetrics, AggregatorRegistry.aggregate([tally.asMetricsJson()])]);
    reply.type(all.contentType);
    return all.metrics();
  });
}
