import Router, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Which methods a path takes, for the answer to a request with another method: 405 with `Allow`
 * (RFC 9110 §15.5.6) rather than a 404 that says the path does not exist. Fastify's router finds a
 * route only by its method, so the routes are kept in a router of their own, matched as Fastify
 * matches them.
 */
export interface AllowedMethods {
  /** The methods of the routes that match `path`, sorted; none when no route does. */
  of(path: string): string[];
}

export function trackAllowedMethods(app: FastifyInstance): AllowedMethods {
  const router = Router();
  const methods = new Set<HTTPMethod>();
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      methods.add(method);
      // A route reported twice (Fastify's HEAD twin of a GET) is one route.
      if (!router.hasRoute(method, route.url)) router.on(method, route.url, () => {});
    }
  });
  return {
    of: (path) => [...methods].filter((method) => router.find(method, path) !== null).sort(),
  };
}
