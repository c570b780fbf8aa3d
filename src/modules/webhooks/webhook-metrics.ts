import type { Db } from '../../db/database.js';
import type { DispatchObserver } from './dispatcher.js';
import * as deliveriesRepo from './deliveries.repository.js';

/**
 * What /metrics shows of webhooks (docs/webhooks.md): the deliveries waiting in the queue, the attempts
 * of this process by outcome, and the lag from an event to its delivery, as prom-client's metric
 * JSON (the form http/metrics merges).
 */

/** Upper bounds of the lag buckets, in seconds. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];

export class WebhookTally implements DispatchObserver {
  private readonly outcomes = new Map<string, number>();
  private readonly lagPerBucket = new Array<number>(LAG_BUCKETS.length + 1).fill(0);
  private lagSum = 0;

  attempted(outcome: 'succeeded' | 'retry' | 'failed', lagMs: number | undefined): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    if (lagMs === undefined) return;
    const seconds = lagMs / 1000;
    this.lagSum += seconds;
    let bucket = 0;
    while (bucket < LAG_BUCKETS.length && seconds > LAG_BUCKETS[bucket]!) bucket += 1;
    this.lagPerBucket[bucket]! += 1;
  }

  async asMetricsJson(db: Db): Promise<object[]> {
    const lag: object[] = [];
    let count = 0;
    this.lagPerBucket.forEach((deliveries, i) => {
      count += deliveries;
      lag.push({ metricName: 'wharf_webhook_lag_seconds_bucket', labels: { le: LAG_BUCKETS[i] ?? '+Inf' }, value: count });
    });
    lag.push({ metricName: 'wharf_webhook_lag_seconds_sum', labels: {}, value: this.lagSum });
    lag.push({ metricName: 'wharf_webhook_lag_seconds_count', labels: {}, value: count });
    return [
      {
        name: 'wharf_webhook_queue_depth',
        help: 'Webhook deliveries waiting for an attempt (due now or later) to enabled endpoints, in the whole database',
        type: 'gauge',
        aggregator: 'sum',
        values: [{ labels: {}, value: await deliveriesRepo.countPending(db) }],
      },
      {
        name: 'wharf_webhook_attempts_total',
        help: 'Webhook attempts of this process by outcome: succeeded, retry (failed, tried again later), failed (given up)',
        type: 'counter',
        aggregator: 'sum',
        values: [...this.outcomes].map(([outcome, value]) => ({ labels: { outcome }, value })),
      },
      {
        name: 'wharf_webhook_lag_seconds',
        help: 'From an event to its successful delivery by this process',
        type: 'histogram',
        aggregator: 'sum',
        values: lag,
      },
    ];
  }
}
