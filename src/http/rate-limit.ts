import type { onRequestHookHandler } from 'fastify';
import { andThen } from '../lib/maybe-promise.js';
import { tooManyRequests } from '../lib/refusal.js';
import type { Count, RequestCounter } from '../modules/limits/request-counters.js';
import type { Principal } from './auth.js';
import type { App } from './module.js';

/** The limit a minute of the key's requests on these routes; 0 is no limit. */
export type LimitOf = (principal: Principal) => number;

/**
 * Limits every authenticated request of the scope's routes per API key (docs/operations.md), after the key
 * check: every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; past the
 * limit the request is refused (429, Retry-After) in the scope's own error shape. Register it
 * before the scope's routes; the scope's not-found answers are not counted.
 *
 * A hook of Wharf's own rather than @fastify/rate-limit's: the counting was Wharf's already (its
 * store), and the plugin's hook awaits five times a request, which cost a rate quote about a fifth
 * of its throughput (docs/performance.md). This one answers at once when the count is in memory.
 */
export function limitRequests(scope: App, count: RequestCounter, limitOf: LimitOf): void {
  const limitRequest: onRequestHookHandler = (request, reply, done) => {
    const limit = limitOf(request.principal);
    if (limit === 0) return done();
    const answer = ({ current, ttlMs }: Count) => {
      const resetSeconds = Math.ceil(ttlMs / 1000);
      reply.header('ratelimit-limit', limit);
      reply.header('ratelimit-remaining', Math.max(0, limit - current));
      reply.header('ratelimit-reset', resetSeconds);
      if (current <= limit) return done();
      reply.header('retry-after', resetSeconds);
      done(tooManyRequests(limit, resetSeconds));
    };
    const counted = andThen(count(request.principal.keyId, limit), answer);
    if (counted instanceof Promise) counted.catch(done);
  };
  scope.addHook('onRoute', (route) => {
    route.onRequest = [...(route.onRequest === undefined ? [] : [route.onRequest].flat()), limitRequest];
  });
}
