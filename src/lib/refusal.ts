/**
 * Why a request was refused, in the words its caller reads. Services throw these; each entry point
 * turns a kind into its own answer (http/errors.ts: status and body shape; the rate engine: its
 * envelope; the CLI: its exit code), so no service knows a status code.
 */
export type RefusalKind =
  /** The input breaks a rule (a field, a combination of fields). */
  | 'invalid'
  /** No usable API key. */
  | 'unauthenticated'
  /** The key may not do this, or not for these identifiers. */
  | 'forbidden'
  /** The body names a FacilityID its company does not have (the real system's own answer). */
  | 'unknown-facility'
  /** The document or record looked up does not exist where the request says. */
  | 'not-found'
  /** The state forbids the move, or a document number was reused with another body. */
  | 'conflict'
  /** An Idempotency-Key reused for another request. */
  | 'idempotency-key-reused'
  /** The API key made more requests than its limit allows in the current window. */
  | 'too-many-requests';

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly messages: readonly string[],
  ) {
    super(messages.join('; '));
    this.name = 'Refusal';
  }
}

export const invalid = (...messages: string[]) => new Refusal('invalid', messages);
export const unauthenticated = (message: string) => new Refusal('unauthenticated', [message]);
export const forbidden = (message: string) => new Refusal('forbidden', [message]);
export const unknownFacility = () => new Refusal('unknown-facility', ['Not found facility']);
export const notFound = (message: string) => new Refusal('not-found', [message]);
export const conflict = (...messages: string[]) => new Refusal('conflict', messages);
export const idempotencyKeyReused = () =>
  new Refusal('idempotency-key-reused', ['Idempotency-Key was already used with a different request']);
export const tooManyRequests = (limit: number, retryAfterSeconds: number) =>
  new Refusal('too-many-requests', [`Too many requests: this API key may make ${limit} a minute; retry in ${retryAfterSeconds} s`]);
