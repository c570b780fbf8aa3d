import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseError } from '../db/dialect.js';
import { invalid, Refusal, type RefusalKind } from '../lib/refusal.js';
import type { AllowedMethods } from './allowed-methods.js';
import { explainFormatFailure } from './formats.js';
import { formatValidationErrors, type ValidationIssue } from '../lib/validation-messages.js';

/**
 * The one place that knows HTTP statuses: a refusal's kind gives its status and the shape of its
 * body (docs/compatibility.md's table), Fastify's own request errors get theirs.
 */

/** One entry of the spec's error array. */
export interface Problem {
  code: string;
  error: string;
}

export function problem(message: string): Problem {
  return { code: `EDI-ERROR-${message}`, error: message };
}

/** What the caller reads: a status and the spec's error body. */
export interface ErrorAnswer {
  statusCode: number;
  body: Problem[] | { error: string };
  /** The messages of the body, for answers in another envelope (the rate engine's). */
  messages: readonly string[];
}

const STATUS_OF: Record<RefusalKind, number> = {
  invalid: 400,
  'unknown-facility': 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'idempotency-key-reused': 422,
  'too-many-requests': 429,
};

/** Kinds answered with the single `{error}` object of the real system; every other kind is the array. */
const ANSWERED_AS_OBJECT = new Set<RefusalKind>(['unknown-facility', 'not-found']);

export function answerOfRefusal(refusal: Refusal): ErrorAnswer {
  const body = ANSWERED_AS_OBJECT.has(refusal.kind) ? { error: refusal.messages[0]! } : refusal.messages.map(problem);
  return { statusCode: STATUS_OF[refusal.kind], body, messages: refusal.messages };
}

function transportError(statusCode: number, message: string): ErrorAnswer {
  return { statusCode, body: [problem(message)], messages: [message] };
}

/** Fastify's own request errors, mapped to what the caller reads. */
const fastifyErrors: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Request body is larger than the limit' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Malformed JSON body' },
};

/**
 * The error of a body refused before its schema ran (http/request-body: texts and numbers that
 * cannot be kept), shaped as Fastify's own validation error so that it takes the same path: the
 * rejected-body handler, and its failure ACK where one is due.
 */
export function rejectedBodyError(issues: ValidationIssue[]): FastifyError {
  return Object.assign(new Error('The body cannot be kept as sent'), {
    code: 'FST_ERR_VALIDATION',
    statusCode: 400,
    validation: issues as unknown as FastifyError['validation'],
    validationContext: 'body' as const,
  });
}

/** A body that failed its route's schema, as a refusal with every problem at once. */
function validationRefusal(error: FastifyError): Refusal | undefined {
  if (!error.validation) return undefined;
  return invalid(...formatValidationErrors(error.validation as ValidationIssue[], error.validationContext, explainFormatFailure));
}

/**
 * The answer a caller sees for `error`: a refusal by its kind, Fastify's request errors
 * (validation, media type, size, JSON) by theirs; undefined for anything else, which is a bug.
 */
export function knownError(error: FastifyError | Error): ErrorAnswer | undefined {
  if (error instanceof Refusal) return answerOfRefusal(error);
  const fastifyError = error as FastifyError;
  const rejected = validationRefusal(fastifyError);
  if (rejected) return answerOfRefusal(rejected);
  const known = fastifyError.code ? fastifyErrors[fastifyError.code] : undefined;
  if (known) return transportError(known.status, known.message);
  // The JSON parser's SyntaxError carries statusCode 400 and no code.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return transportError(400, 'Malformed JSON body');
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return transportError(status, fastifyError.message);
  return undefined;
}

/**
 * Logs what helps to find a bug, never the stack or a database message (it may quote SQL), and
 * answers the message a caller may see. The key is not `err`, whose serializer would add a stack.
 */
export function logInternalError(error: Error, request: FastifyRequest): string {
  const message = isDatabaseError(error) ? undefined : error.message;
  request.log.error({ error: { type: error.name, code: (error as FastifyError).code, message } }, 'request failed');
  return `Internal error (request id ${request.id})`;
}

/**
 * What happens to a body its route's schema refused, before the 400 is sent: an import or cancel
 * records its failure ACK there (see commands/rejected-body.ts). It answers the refusal to send,
 * which is the stored one when an Idempotency-Key replays.
 */
export type RejectedBodyHandler = (request: FastifyRequest, refusal: Refusal) => Promise<Refusal>;

/** The EDI error handler: every error in the spec's shapes, a rejected body handed to `onRejectedBody` first. */
export function createErrorHandler(onRejectedBody: RejectedBodyHandler) {
  return async function replyWithError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
    const fastifyError = error as FastifyError;
    const rejected = fastifyError.validationContext === 'body' ? validationRefusal(fastifyError) : undefined;
    const known = rejected ? answerOfRefusal(await onRejectedBody(request, rejected)) : knownError(error);
    if (!known) return reply.status(500).send([problem(logInternalError(error, request))]);
    return reply.status(known.statusCode).send(known.body);
  };
}

/** What a request no route takes is told: 405 with the methods its path takes, or 404 when no route has its path. */
export function routeNotFound(
  allowed: AllowedMethods,
  request: FastifyRequest,
): { statusCode: 404 | 405; allow?: string; message: string } {
  const path = request.url.split('?')[0]!;
  const methods = allowed.of(path);
  if (methods.length === 0) return { statusCode: 404, message: `Route ${request.method} ${path} not found` };
  const allow = methods.join(', ');
  return { statusCode: 405, allow, message: `Method ${request.method} is not allowed on ${path}; it takes ${allow}` };
}

/** The not-found handler of the spec's routes: routeNotFound in the array shape. */
export function replyRouteNotFound(allowed: AllowedMethods) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const { statusCode, allow, message } = routeNotFound(allowed, request);
    if (allow) reply.header('allow', allow);
    return reply.status(statusCode).send([problem(message)]);
  };
}
