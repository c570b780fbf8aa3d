import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { textProblem } from '../lib/json-values.js';
import { invalid } from '../lib/refusal.js';

/**
 * Path parameters and query values are the URL's text, percent-decoded: `%00` makes a NUL, which
 * PostgreSQL refuses in text and SQLite would keep (docs/operations.md: bad input is 400, never 500, and
 * the same on both databases). They are refused before the route's schema sees them, as a JSON
 * body's are (request-body.ts); the message names the part of the URL, never the bad text.
 */
const refuseUnstorableUrlText: preValidationHookHandler = (request, _reply, done) => {
  const parts = [
    ['A path parameter', request.params],
    ['A query parameter', request.query],
  ] as const;
  for (const [part, values] of parts) {
    for (const [name, value] of Object.entries((values ?? {}) as Record<string, unknown>)) {
      for (const text of [name, ...(Array.isArray(value) ? value : [value])]) {
        const problem = typeof text === 'string' ? textProblem(text) : undefined;
        if (problem) return done(invalid(`${part} must not contain ${problem}`));
      }
    }
  }
  done();
};

export function readUrlText(app: FastifyInstance): void {
  app.addHook('preValidation', refuseUnstorableUrlText);
}
