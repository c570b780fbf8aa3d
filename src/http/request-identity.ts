import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../lib/ids.js';

/** Which request this is, for the Idempotency-Key contract (docs/decisions.md). */
export interface RequestIdentity {
  companyId: string;
  keyId: number;
  idempotencyKey?: string;
  /** SHA-256 of method, path and body: "the same request". */
  requestHash: string;
}

/** The optional header every state-changing operation takes; its schema documents it. */
export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Send the same key again to replay the first answer instead of repeating the change (kept 48 hours unless the operator chose otherwise, never less than 24).',
    }),
  ),
});

export function requestIdentity(request: FastifyRequest): RequestIdentity {
  const header = request.headers['idempotency-key'];
  return {
    companyId: request.principal.companyId,
    keyId: request.principal.keyId,
    idempotencyKey: typeof header === 'string' ? header : undefined,
    requestHash: sha256Hex(`${request.method} ${request.url.split('?')[0]}\n${JSON.stringify(request.body ?? null)}`),
  };
}
