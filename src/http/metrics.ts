import { AggregatorRegistry, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { poolStats } from '../db/dialect.js';
import { transactionRetries } from '../db/transaction.js';
import { VERSION } from '../lib/version.js';

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

/** What a state-changing operation does to a document, for the business counters (a route's `config.document`). */
export interface DocumentOperation {
  /** RN, DN, item, inventory. */
  type: string;
  /** import, cancel, receive, ship, open, adjust, move… */
  action: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every state-changing route: its answers are counted by outcome in wharf_documents_total. */
    document?: DocumentOperation;
  }
  interface FastifyRequest {
    /** The failure ACK this request wrote (RN, DN), counted in wharf_ack_failures_total. */
    ackFailed?: string;
    /** The rate engine's outcome of a quote (quoted, warned, notServiceable…), counted in wharf_rate_quotes_total. */
    quoteOutcome?: string;
  }
}

/** Counts by label values, seen by prom-client only when /metrics is read (as RequestTally). */
class CounterTally {
  private readonly counts = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    private readonly name: string,
    private readonly help: string,
  ) {}

  add(labels: Record<string, string>): void {
    const key = Object.values(labels).join(' ');
    const count = this.counts.get(key);
    if (count) count.value += 1;
    else this.counts.set(key, { labels, value: 1 });
  }

  asMetricJson(): object {
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values: [...this.counts.values()] };
  }
}

/** An answer's outcome for the business counters: a replay is not a second change. */
function documentOutcome(request: FastifyRequest, status: number): string {
  if (request.replayed) return 'replayed';
  if (status < 300) return 'accepted';
  return status < 500 ? 'refused' : 'failed';
}

/**
 * Prometheus metrics at /metrics (docs/operations.md): request counts and latency by route and status; the
 * business counters (documents by type, action and outcome; failure ACKs; rate quotes by outcome);
 * the database pool and the transactions retried; the build; the process's own; and what the caller
 * adds (the webhook queue). Each app has its own registry, so several apps in one process do not collide.
 */
export function registerMetrics(app: FastifyInstance, db: Db, moreMetrics: () => Promise<object[]> = async () => []): void {
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  new Gauge({
    name: 'wharf_build_info',
    help: 'The running build: 1, labelled with its version',
    labelNames: ['version'],
    registers: [processMetrics],
  })
    .labels(VERSION)
    .set(1);
  new Gauge({
    name: 'wharf_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting: requests waiting for one)',
    labelNames: ['state'],
    registers: [processMetrics],
    collect() {
      const stats = poolStats(db);
      if (!stats) return;
      for (const [state, value] of Object.entries(stats)) this.labels(state).set(value);
    },
  });
  app.decorateRequest('ackFailed', undefined);
  app.decorateRequest('quoteOutcome', undefined);
  const tally = new RequestTally();
  const documents = new CounterTally('wharf_documents_total', 'State-changing requests by document type, action and outcome');
  const ackFailures = new CounterTally('wharf_ack_failures_total', 'Failure ACKs written, by document type');
  const quotes = new CounterTally('wharf_rate_quotes_total', "Rate-engine answers by the envelope's outcome");

  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched paths share one label, so that probing random URLs cannot grow the series.
    tally.record(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime / 1000);
    const document = request.routeOptions.config.document;
    if (document) documents.add({ type: document.type, action: document.action, outcome: documentOutcome(request, reply.statusCode) });
    if (request.ackFailed) ackFailures.add({ document: request.ackFailed });
    if (request.quoteOutcome) quotes.add({ outcome: request.quoteOutcome });
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const retries = {
      name: 'wharf_db_transaction_retries_total',
      help: 'Transactions run again after losing a race (serialization failure, deadlock, busy database), in this process',
      type: 'counter',
      aggregator: 'sum',
      values: [{ labels: {}, value: transactionRetries.count }],
    };
    const counted = [
      ...tally.asMetricsJson(),
      ...[documents, ackFailures, quotes].map((counter) => counter.asMetricJson()),
      retries,
      ...(await moreMetrics()),
    ];
    const all = Registry.merge([processMetrics, AggregatorRegistry.aggregate([counted])]);
    reply.type(all.contentType);
    return all.metrics();
  });
}
