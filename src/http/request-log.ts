import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** pino's levels, lowest first; `silent` writes nothing. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * One log line per request, written when it completes: request id (pino's reqId), method, path,
 * status, time and the id of the API key that made it; never the key, the body or the query.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    // Below the configured level there is no line to write, and none to build.
    if (LEVELS.indexOf(level) < LEVELS.indexOf(request.log.level)) return;
    const line = {
      method: request.method,
      url: request.url.split('?')[0],
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
      keyId: request.principal?.keyId,
    };
    request.log[level](line, 'request');
  }
}
