import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyInstance } from 'fastify';

/**
 * Prometheus metrics at /metrics: request counts and latency by route and status, plus the
 * process's own. Each app has its own registry, so several apps in one process do not collide.
 */
export function registerMetrics(app: FastifyInstance): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'wharf_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'wharf_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  // The labelled series, found once: every request then counts without hashing its labels again.
  const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched paths share one label, so that probing random URLs cannot grow the series.
    const route = request.routeOptions.url ?? '(unmatched)';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      series.set(key, (found = { count: requests.labels(labels), time: duration.labels(labels) }));
    }
    found.count.inc();
    found.time.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
