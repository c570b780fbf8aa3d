import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import { tooManyRequests } from '../lib/refusal.js';
import { WINDOW_MS, type RequestCounter } from '../modules/limits/request-counters.js';
import type { Principal } from './auth.js';
import type { App } from './module.js';

/** The limit a minute of the key's requests on these routes; 0 is no limit. */
export type LimitOf = (principal: Principal) => number;

/** @fastify/rate-limit's store, over a counter of Wharf's (shared across processes on PostgreSQL). */
function storeOf(count: RequestCounter) {
  return class CounterStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, _window: number, max: number) {
      const counted = count(Number(key), max);
      const answer = ({ current, ttlMs }: { current: number; ttlMs: number }) => callback(null, { current, ttl: ttlMs });
      if (counted instanceof Promise) counted.then(answer, (error: Error) => callback(error));
      else answer(counted);
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Limits every authenticated request of the scope's routes per API key (DESIGN §12), after the key
 * check: every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; past the
 * limit the request is refused (429, Retry-After) in the scope's own error shape. Register it
 * before the scope's routes.
 */
export async function limitRequests(scope: App, count: RequestCounter, limitOf: LimitOf): Promise<void> {
  await scope.register(rateLimit, {
    hook: 'onRequest',
    enableDraftSpec: true,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => request.principal.keyId,
    max: (request) => limitOf(request.principal),
    allowList: (request) => limitOf(request.principal) === 0,
    store: storeOf(count),
    errorResponseBuilder: (_request, context) => tooManyRequests(context.max, Math.ceil(context.ttl / 1000)),
  });
}
