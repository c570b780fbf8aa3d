import type { FastifyInstance } from 'fastify';

/**
 * Bounds the connections the server holds open (MAX_CONNECTIONS). Node closes a connection beyond
 * the bound as soon as it is accepted, before a byte is read, so a flood of idle sockets costs one
 * file descriptor each up to the bound and nothing past it. Connections that send nothing are closed
 * after HEADERS_TIMEOUT_MS by Node's own check of every connection (see client-errors.ts).
 *
 * Refused connections are logged as a warning with how many there were, at most once a minute: a
 * flood must not become a flood of log lines.
 */

const LOG_EVERY_MS = 60_000;

export function limitConnections(app: FastifyInstance, maxConnections: number, now: () => number = Date.now): void {
  app.server.maxConnections = maxConnections;
  let refused = 0;
  let loggedAt = Number.NEGATIVE_INFINITY;
  app.server.on('drop', () => {
    refused += 1;
    if (now() - loggedAt < LOG_EVERY_MS) return;
    app.log.warn({ refused, maxConnections }, 'connections refused: MAX_CONNECTIONS are open');
    refused = 0;
    loggedAt = now();
  });
}
