import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestLine } from './request-log.js';

/**
 * Slow and broken clients (docs/operations.md). Node itself watches every connection: a request whose
 * headers or body do not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, checked every
 * CONNECTIONS_CHECKING_INTERVAL_MS) and a request it cannot parse reach the server's `clientError`
 * event, outside every route. This answers them in the error shape of the operation the request
 * was for, as far as its URL was read, and closes the connection, which frees the socket.
 */

/** The body an operation answers an error with: the EDI array or the rate engine's envelope. */
export type ErrorBodyFor = (url: string | undefined, statusCode: number, message: string) => unknown;

/** The request a connection is serving, once its headers were read (the latest, on a kept-alive one). */
const inFlight = new WeakMap<Socket, { request: FastifyRequest; reply: FastifyReply }>();

const MESSAGES: Record<number, string> = {
  400: 'Malformed HTTP request',
  408: 'Request timed out: its headers or its body did not arrive in time',
  431: 'Request headers are larger than the limit',
};

function statusOf(error: NodeJS.ErrnoException): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/**
 * Registers the hook that remembers each connection's request and answers client errors. Pass
 * the handler to Fastify as `clientErrorHandler`; call `track` on the root instance.
 */
export function clientErrors(errorBodyFor: ErrorBodyFor) {
  function track(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      inFlight.set(request.raw.socket, { request, reply });
      done();
    });
  }

  function handle(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const current = inFlight.get(socket);
    // An answer already begun on this connection must not be followed by another: it is only closed.
    const answered = current?.reply.raw.headersSent ?? false;
    const statusCode = statusOf(error);
    if (socket.writable && !answered) {
      const body = JSON.stringify(errorBodyFor(current?.request.url, statusCode, MESSAGES[statusCode]!));
      socket.write(
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
    if (current && !answered) {
      // The request's one log line (http/request-log.ts): it never reaches the end of its route.
      const { request, reply } = current;
      request.log.info({ ...requestLine(request, reply, statusCode), error: { code: error.code } }, 'request');
    } else {
      (current?.request.log ?? this.log).info(
        { error: { code: error.code }, statusCode: answered ? undefined : statusCode },
        'client error',
      );
    }
  }

  return { track, handle };
}
