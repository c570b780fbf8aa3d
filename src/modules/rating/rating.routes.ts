import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyLookup } from '../../http/auth.js';
import { authenticate } from '../../http/auth.js';
import type { AllowedMethods } from '../../http/allowed-methods.js';
import { knownError, logInternalError, routeNotFound } from '../../http/errors.js';
import type { App } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { andThen, type MaybePromise } from '../../lib/maybe-promise.js';
import { failureEnvelope, outcomeOfSeverity, type OutcomeName } from './rating.present.js';
import { RateExplanationResponseSchema, RateRequestSchema, RateResponseSchema } from './rating.schemas.js';
import type { Rater } from './rating.service.js';

/** Where the spec places the rate engine, apart from the EDI base. */
export const RATE_PREFIX = '/api/RateEngine/SVC';

const tags = ['Rate engine'];

const outcomeByStatus: Record<number, OutcomeName> = { 401: 'notAuthorized', 403: 'notAuthorized', 429: 'tooManyRequests' };

/** Every rate answer is the rate envelope, errors included (docs/rating.md). */
async function replyWithRateError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const known = knownError(error);
  if (!known) {
    request.quoteOutcome = 'internal';
    return reply.status(500).send(failureEnvelope('internal', logInternalError(error, request)));
  }
  const outcome = outcomeByStatus[known.statusCode] ?? 'badInput';
  request.quoteOutcome = outcome;
  return reply.status(known.statusCode).send(failureEnvelope(outcome, known.messages.join('; ')));
}

/** Notes a quote's outcome for the metrics, from its envelope's severity. */
function noted<T extends { ErrorSeverity: number }>(request: FastifyRequest, answer: MaybePromise<T>): MaybePromise<T> {
  return andThen(answer, (envelope) => {
    request.quoteOutcome = outcomeOfSeverity(envelope.ErrorSeverity);
    return envelope;
  });
}

const envelopeErrors = (description: string) => ({ ...RateResponseSchema, description });
const errorResponses = {
  400: envelopeErrors('Bad input: Status false, ErrorSeverity 2, ErrorSource RateEngine.Validation, ErrorMsg naming the field.'),
  401: envelopeErrors('No, malformed, unknown or revoked key: ErrorSeverity 4, RateEngine.Auth.'),
  403: envelopeErrors('A role or UserID the key may not use: ErrorSeverity 4, RateEngine.Auth.'),
  408: envelopeErrors('The request did not arrive in time (its headers or its body): ErrorSeverity 2; the connection is closed.'),
  413: envelopeErrors('The body is larger than the limit: ErrorSeverity 2.'),
  415: envelopeErrors('The body is not application/json: ErrorSeverity 2.'),
  429: envelopeErrors("Too many requests for the key's limit a minute: ErrorSeverity 4, RateEngine.RateLimit; Retry-After says when."),
  500: envelopeErrors('An internal error: ErrorSeverity 5, RateEngine.Internal, the request id in ErrorMsg.'),
};

/** The rate engine's routes, in a scope of their own: their own key check and error envelope. */
export function rateRoutes(
  app: App,
  { rater, lookupKey, allowedMethods }: { rater: Rater; lookupKey: KeyLookup; allowedMethods: AllowedMethods },
): void {
  app.decorateRequest('principal');
  app.setErrorHandler(replyWithRateError);
  app.addHook('onRequest', authenticate(lookupKey));
  app.setNotFoundHandler((request, reply) => {
    const { statusCode, allow, message } = routeNotFound(allowedMethods, request);
    if (allow) reply.header('allow', allow);
    return reply.status(statusCode).send(failureEnvelope('badInput', message));
  });

  app.post(
    '/lastmile',
    {
      schema: {
        operationId: 'rateLastMile',
        tags,
        summary: 'Rate last mile: what it costs to deliver a parcel, per service of the rate card in force',
        description:
          'Always answers the envelope. Not serviceable (over the limits, outside the service area, no zone, no card) is 200 with Status false and ErrorSeverity 3.',
        security: apiKeySecurity,
        body: RateRequestSchema,
        response: { 200: RateResponseSchema, ...errorResponses },
      },
    },
    (request) => noted(request, rater.quote(request.principal, request.body)),
  );

  app.post(
    '/lastmile/explain',
    {
      schema: {
        operationId: 'explainLastMileRate',
        tags,
        summary: 'The same quote with its breakdown: the zone and how it was found, the weights, each charge and its rule',
        description:
          'Takes the same body and keys as the quote and answers the same envelope, with Explanation added for people: the card, the zone and how it was found, and per service its weights and every charge with the rule of the card behind it. When some services are refused and others quoted, it says why the others could not go. Explanation is null when no rate card is in force.',
        security: apiKeySecurity,
        body: RateRequestSchema,
        response: { 200: RateExplanationResponseSchema, ...errorResponses },
      },
    },
    (request) => noted(request, rater.explain(request.principal, request.body)),
  );
}
