import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseError } from '../db/dialect.js';
import { formatValidationErrors, type ValidationIssue } from '../lib/validation-messages.js';

/** One entry of the spec's error array. */
export interface Problem {
  code: string;
  error: string;
}

export function problem(message: string): Problem {
  return { code: `EDI-ERROR-${message}`, error: message };
}

/** An error with the exact status and body a caller sees. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Problem[] | { error: string },
  ) {
    super(Array.isArray(body) ? body.map((p) => p.error).join('; ') : body.error);
  }
}

export const badRequest = (...messages: string[]) => new AppError(400, messages.map(problem));
export const unauthorized = (message: string) => new AppError(401, [problem(message)]);
export const forbidden = (message: string) => new AppError(403, [problem(message)]);
export const notFound = (message: string) => new AppError(404, { error: message });
export const conflict = (...messages: string[]) => new AppError(409, messages.map(problem));
/** The real system's answer to a FacilityID the company does not have. */
export const notFoundFacility = () => new AppError(400, { error: 'Not found facility' });

/** A stored or fresh answer: status and body. */
export interface Answer {
  statusCode: number;
  body: unknown;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Called when the body fails validation, before the 400 is sent: an import records its failure
     * ACK here. It may return the stored answer of an Idempotency-Key replay instead.
     */
    onRejectedBody?: (request: FastifyRequest, refusal: AppError) => Promise<Answer | undefined>;
  }
}

/** Fastify's own request errors, mapped to what the caller reads. */
const fastifyErrors: Record<string, { status: number; message: (error: FastifyError) => string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: () => 'Content-Type must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: () => 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: () => 'Request body is larger than the limit' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: () => 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: () => 'Malformed JSON body' },
};

/**
 * The error a caller sees for `error`: an AppError as it is, Fastify's request errors (validation,
 * media type, size, JSON) mapped to theirs; undefined for anything else, which is a bug.
 */
export function knownError(error: FastifyError | AppError | Error): AppError | undefined {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const messages = formatValidationErrors(fastifyError.validation as ValidationIssue[], fastifyError.validationContext);
    return new AppError(400, messages.map(problem));
  }
  const known = fastifyError.code ? fastifyErrors[fastifyError.code] : undefined;
  if (known) return new AppError(known.status, [problem(known.message(fastifyError))]);
  // The JSON parser's SyntaxError carries statusCode 400 and no code.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return new AppError(400, [problem('Malformed JSON body')]);
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return new AppError(status, [problem(fastifyError.message)]);
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

export async function replyWithError(error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) {
  const known = knownError(error);
  if (!known) return reply.status(500).send([problem(logInternalError(error, request))]);
  const answer =
    (error as FastifyError).validation && (error as FastifyError).validationContext === 'body'
      ? await recordRejectedBody(request, known)
      : { statusCode: known.statusCode, body: known.body };
  return reply.status(answer.statusCode).send(answer.body);
}

/** Lets the route record a rejected body (its failure ACK); the caller still gets the 400. */
async function recordRejectedBody(request: FastifyRequest, refusal: AppError): Promise<Answer> {
  const hook = request.routeOptions.config.onRejectedBody;
  const fresh = { statusCode: refusal.statusCode, body: refusal.body };
  if (!hook || !request.principal) return fresh;
  try {
    return (await hook(request, refusal)) ?? fresh;
  } catch (error) {
    // An Idempotency-Key reused for another request is 422 here too; a body whose identifiers are
    // outside the key's scope gets no ACK, and still the 400.
    if (error instanceof AppError) return error.statusCode === 422 ? { statusCode: 422, body: error.body } : fresh;
    request.log.error(
      { error: { type: (error as Error).name, message: isDatabaseError(error) ? undefined : (error as Error).message } },
      'recording a rejected body failed',
    );
    return fresh;
  }
}

export function replyRouteNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply.status(404).send([problem(`Route ${request.method} ${request.url.split('?')[0]} not found`)]);
}
