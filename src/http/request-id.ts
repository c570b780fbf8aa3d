import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** A caller's id is kept when it is safe to log and echo (docs/operations.md). */
const CALLERS_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is one, so that both sides' logs name a
 * request alike; a new uuid otherwise. The id is in the log line and in a 500's body.
 */
export function requestIdOf(raw: IncomingMessage): string {
  const sent = raw.headers['x-request-id'];
  return typeof sent === 'string' && CALLERS_ID.test(sent) ? sent : randomUUID();
}

/** Every answer, refusals and unknown routes included, carries its request's `X-Request-Id`. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}
