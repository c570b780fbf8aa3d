import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db, Trx } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { FacilityRef, Principal } from './auth.js';
import { requestIdentity, type RequestIdentity } from './request-identity.js';

/**
 * What every command service takes first (docs/architecture.md): the database, the clock, who is calling and
 * which request this is. An HTTP route builds it from its request; the CLI or an X12 interchange
 * build their own.
 */
export interface CommandContext {
  db: Db;
  clock: Clock;
  principal: Principal;
  identity: RequestIdentity;
  /** The facility the request names, as its scope check found it (absent: none named, or not an HTTP request). */
  facility?: FacilityRef;
  /** What every change does last, in its own transaction (app.ts says what: backorders). */
  settle: Settle;
  /** Told when the answer is a replay of an earlier one (HTTP then sends `Idempotent-Replayed: true`). */
  onReplay?: () => void;
  /** Told when the request wrote a failure ACK (HTTP counts it in its metrics). */
  onAckFailed?: (documentType: string) => void;
}

/**
 * The consequences every change has, whatever changed: run by runCommand after the command, in its
 * transaction. It is handed in rather than imported, because the modules it calls sit above the
 * ones whose commands trigger it.
 */
export type Settle = (trx: Trx, change: { at: number; keyId: number }) => Promise<void>;

/** Builds a request's CommandContext; app.ts makes one per application and hands it to the routes. */
export type ContextOf = (request: FastifyRequest) => CommandContext;

export function commandContexts(db: Db, clock: Clock, settle: Settle): ContextOf {
  return (request) => ({
    db,
    clock,
    principal: request.principal,
    identity: requestIdentity(request),
    facility: request.facility,
    settle,
    onReplay: () => {
      request.replayed = true;
    },
    onAckFailed: (documentType) => {
      request.ackFailed = documentType;
    },
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer is a replay of an earlier one (an Idempotency-Key or a document number seen before). */
    replayed: boolean;
  }
}

/** Marks every replayed answer, success or refusal, with `Idempotent-Replayed: true` (docs/operations.md). */
export function markReplays(app: FastifyInstance): void {
  app.decorateRequest('replayed', false);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.replayed) reply.header('idempotent-replayed', 'true');
    done(null, payload);
  });
}
