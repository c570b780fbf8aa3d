import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** A CustomerID as the spec allows one (at most 15 characters); anything else a body sends is not logged. */
const LOGGABLE_ID = /^[\x21-\x7e]{1,15}$/;

/** pino's levels, lowest first; `silent` writes nothing. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * One log line per request, written when it completes (docs/operations.md): request id (pino's reqId),
 * method, path, route, status, time, and who asked: the API key's id, its company and the customer
 * the body names. Never the key, the body or the query.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    // Below the configured level there is no line to write, and none to build.
    if (LEVELS.indexOf(level) < LEVELS.indexOf(request.log.level)) return;
    request.log[level](requestLine(request, reply, reply.statusCode), 'request');
  }
}

/** The fields of a request's one log line, answered with `statusCode` (also by http/client-errors.ts). */
export function requestLine(request: FastifyRequest, reply: FastifyReply, statusCode: number) {
  const customerId = (request.body as { CustomerID?: unknown } | undefined)?.CustomerID;
  return {
    method: request.method,
    url: request.url.split('?')[0],
    route: request.routeOptions.url,
    statusCode,
    responseTime: Math.round(reply.elapsedTime * 100) / 100,
    keyId: request.principal?.keyId,
    companyId: request.principal?.companyId,
    customerId: typeof customerId === 'string' && LOGGABLE_ID.test(customerId) ? customerId : undefined,
  };
}
