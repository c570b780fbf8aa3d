import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { dropBlankOptionalFields } from '../lib/blank-fields.js';
import { oversizedArrays } from '../lib/array-sizes.js';
import { inspectJson, MAX_JSON_DEPTH } from '../lib/json-values.js';
import { invalid } from '../lib/refusal.js';
import type { ValidationIssue } from '../lib/validation-messages.js';
import { rejectedBodyError } from './errors.js';

/**
 * How a JSON body becomes what a route's schema checks (docs/operations.md: bad input is 400, never 500).
 * The parser is Fastify's own (prototype poisoning refused), followed by one walk of the parsed
 * value: a body nested deeper than 64 levels is refused at once, like malformed JSON (nothing may
 * serialize it, so it gets no ACK); numbers and texts that cannot be kept as sent are refused
 * with the schema's problems, as a rejected body (an import still gets its failure ACK). Arrays
 * are held to their sizes before anything reads their elements; on an import, blank optional
 * fields are absent before the schema sees them.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An import: `""` and white space are absent on every optional field (lib/blank-fields). */
    blankMeansAbsent?: boolean;
  }
}

/** What the walk of a parsed body found, for the preValidation hook of the same request. */
const problemsOf = new WeakMap<FastifyRequest, ValidationIssue[]>();

type ParseDone = (error: Error | null, body?: unknown) => void;

/** Replaces the application/json parser and adds the hook that settles a body before validation. */
export function readJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error') as (request: FastifyRequest, text: string, done: ParseDone) => void;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done: ParseDone) => {
    parseJson(request, text as string, (error, body) => {
      if (error) return done(error);
      // A NUL or a lone surrogate can only come through a \u escape: without one, texts are fine.
      const { tooDeep, problems } = inspectJson(body, { texts: (text as string).includes('\\u') });
      if (tooDeep) return done(invalid(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
      if (problems.length > 0) problemsOf.set(request, problems);
      done(null, body);
    });
  });
  app.addHook('preValidation', settleBody);
}

/**
 * Settles a body before its schema's validator runs. Array sizes come first (lib/array-sizes): a
 * body with an array over its `maxItems` is refused with those problems and any its walk found,
 * the arrays' elements unread. Then an import's blank optional fields are dropped, and a body whose
 * walk found problems is refused together with everything its schema finds wrong (all problems at
 * once).
 */
const settleBody: preValidationHookHandler = (request, _reply, done) => {
  const schema = request.routeOptions.schema?.body;
  const problems = problemsOf.get(request) ?? [];
  if (schema && request.body !== undefined) {
    const oversized = oversizedArrays(schema, request.body);
    if (oversized.length > 0) return done(rejectedBodyError([...oversized, ...problems]));
    if (request.routeOptions.config.blankMeansAbsent) dropBlankOptionalFields(schema, request.body);
  }
  if (problems.length === 0) return done();
  const validate = request.getValidationFunction('body');
  const schemaIssues = validate && !validate(request.body) ? ((validate.errors ?? []) as ValidationIssue[]) : [];
  done(rejectedBodyError([...schemaIssues, ...problems]));
};
