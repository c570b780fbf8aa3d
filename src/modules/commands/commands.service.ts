import type { Db, Trx } from '../../db/database.js';
import { purgeInBatches, type PurgeBatches, type Purged } from '../../db/purge.js';
import { inTransaction } from '../../db/transaction.js';
import type { Authorize, Role } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { conflict, idempotencyKeyReused, Refusal, type RefusalKind } from '../../lib/refusal.js';
import * as acks from '../acks/acks.service.js';
import * as events from '../events/events.service.js';
import * as repo from './idempotency.repository.js';

/**
 * The write path (docs/decisions.md, docs/architecture.md): every state-changing request runs through runCommand, which owns
 * its one transaction, the retry after a lost race, the Idempotency-Key record, the failure ACK
 * written after a refusal rolled back, and the writing of the events the change recorded (docs/webhooks.md). A
 * service describes its command and returns its typed body.
 */

export interface Command<T> {
  /** The change, in the request's one transaction; a refusal throws a Refusal and writes nothing. */
  run(trx: Trx): Promise<T>;
  /**
   * The document a refused import or cancel is acknowledged for (docs/receipts.md, docs/orders.md: one ACK per call); its
   * failure ACK is written in a transaction of its own after the rollback.
   */
  acknowledge?: acks.AckedDocument;
}

/** What a request was answered: its success body, or its refusal. */
type Outcome = { body: unknown } | { refusal: Refusal };

async function storedOutcome(trx: Trx, cx: CommandContext): Promise<Outcome | undefined> {
  const { identity } = cx;
  if (identity.idempotencyKey === undefined) return undefined;
  const record = await repo.findRecord(trx, { ...identity, idempotencyKey: identity.idempotencyKey });
  if (!record) return undefined;
  if (record.request_hash !== identity.requestHash) throw idempotencyKeyReused();
  const stored = JSON.parse(record.response_body);
  return record.refusal_kind === null ? { body: stored } : { refusal: new Refusal(record.refusal_kind as RefusalKind, stored) };
}

async function storeOutcome(trx: Trx, cx: CommandContext, outcome: Outcome): Promise<void> {
  const { identity } = cx;
  if (identity.idempotencyKey === undefined) return;
  const refusal = 'refusal' in outcome ? outcome.refusal : undefined;
  await repo.insertRecord(trx, {
    company_id: identity.companyId,
    key_id: identity.keyId,
    idempotency_key: identity.idempotencyKey,
    request_hash: identity.requestHash,
    refusal_kind: refusal?.kind ?? null,
    response_body: JSON.stringify(refusal ? refusal.messages : (outcome as { body: unknown }).body),
    created_at: cx.clock.now(),
  });
}

/** A stored success is answered again; a stored refusal is thrown again. */
function replay<T>(cx: CommandContext, outcome: Outcome): T {
  cx.onReplay?.();
  if ('refusal' in outcome) throw outcome.refusal;
  return outcome.body as T;
}

/** A document number already applied: what its first request wrote down about it. */
export interface AppliedNumber {
  request_hash: string;
  /** The first answer, as JSON. */
  answer: string;
}

/**
 * A document number applied before (docs/decisions.md: ConfirmationNo, AdjustmentNo): the same request
 * replays the first answer; another request under the number is 409 with `differs`.
 */
export function replayApplied<T>(cx: CommandContext, applied: AppliedNumber, differs: string): T {
  if (applied.request_hash !== cx.identity.requestHash) throw conflict(differs);
  cx.onReplay?.();
  return JSON.parse(applied.answer) as T;
}

/**
 * Runs `command` once for the request of `cx`. With an Idempotency-Key, the same request again
 * replays the stored body or refusal and writes nothing; another request under the same key is
 * refused. Two concurrent requests with one key both try to store their outcome; the loser's
 * transaction fails on the unique key, runs again (inTransaction) and replays the winner's.
 */
export async function runCommand<T>(cx: CommandContext, command: Command<T>): Promise<T> {
  try {
    let wroteEvents = 0;
    const body = await inTransaction(cx.db, async (trx) => {
      const stored = await storedOutcome(trx, cx);
      if (stored) return replay<T>(cx, stored);
      const body = await command.run(trx);
      // What every change entails, in its transaction: backorders filled from stock it freed, and
      // the change of stock told as events.
      await cx.settle(trx, { at: cx.clock.now(), keyId: cx.principal.keyId });
      // The one place where a change's events are written (docs/webhooks.md): committed with it, or never.
      wroteEvents = await events.writeRecordedEvents(trx);
      await storeOutcome(trx, cx, { body });
      return body;
    });
    if (wroteEvents > 0) events.tellEventsCommitted();
    return body;
  } catch (error) {
    if (!(error instanceof Refusal) || error.kind === 'idempotency-key-reused' || !command.acknowledge) throw error;
    throw await acknowledgeRefusal(cx, command.acknowledge, error);
  }
}

/**
 * Records a refused import or cancel once: its failure ACK and the refusal as the answer to its
 * Idempotency-Key, in one transaction. Answers the refusal to send: the stored one when the same
 * request was already answered (its ACK already written).
 */
async function acknowledgeRefusal(cx: CommandContext, document: acks.AckedDocument, refusal: Refusal): Promise<Refusal> {
  const outcome = await inTransaction(cx.db, async (trx) => {
    const stored = await storedOutcome(trx, cx);
    if (stored) return { answer: 'refusal' in stored ? stored.refusal : refusal, acknowledged: false, replayed: 'refusal' in stored };
    await acks.recordFailure(trx, { ...document, keyId: cx.principal.keyId, at: cx.clock.now() }, refusal.messages);
    await events.writeRecordedEvents(trx);
    await storeOutcome(trx, cx, { refusal });
    return { answer: refusal, acknowledged: true, replayed: false };
  });
  if (outcome.acknowledged) events.tellEventsCommitted();
  // Told after the commit: an attempt that ran again or rolled back wrote nothing.
  if (outcome.replayed) cx.onReplay?.();
  if (outcome.acknowledged) cx.onAckFailed?.(document.documentType);
  return outcome.answer;
}

/** How an import or cancel whose body failed its schema is acknowledged: a route's `config.rejectedBody`. */
export interface RejectedBodyRule {
  documentType: acks.DocumentType;
  /** The roles that may call the operation: a key of another role gets no ACK. */
  roles: readonly Role[];
  /** The import's content object (ASNContent, POContent); a cancel carries its numbers at the root. */
  contentKey: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the imports and cancels: a body that fails validation still gets its failure ACK. */
    rejectedBody?: RejectedBodyRule;
  }
}

/**
 * The one flow for a body its schema refused (no service ran): when the route acknowledges its
 * calls and the body's identifiers are valid and in the key's scope, it gets its failure ACK with
 * the numbers that passed their own checks, as a refused command does. Answers the refusal to send
 * (the stored one on a replay, or a reused key's). A body outside the key's scope, or without a
 * customer and a facility, gets no ACK and keeps its refusal.
 */
export async function acknowledgeRejectedBody(
  cx: CommandContext,
  authorize: Authorize,
  rule: RejectedBodyRule | undefined,
  body: unknown,
  refusal: Refusal,
): Promise<Refusal> {
  if (!rule) return refusal;
  try {
    await authorize.check(cx.principal, body, rule.roles);
  } catch (error) {
    // Out of the key's scope: no ACK, the body's own refusal stands. Anything else is a bug.
    if (error instanceof Refusal) return refusal;
    throw error;
  }
  const document = acks.documentNamedBy(rule.documentType, body, rule.contentKey);
  if (!document) return refusal;
  try {
    return await acknowledgeRefusal(cx, document, refusal);
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

/**
 * Purges the stored answers (successes and refusals) made before `cutoff`, in batches
 * (docs/operations.md, "Retention"). Their keys then run afresh; IDEMPOTENCY_RETENTION_HOURS keeps
 * them at least the 24 hours docs/decisions.md promises.
 */
export function purgeIdempotencyRecordsBefore(db: Db, cutoff: number, batches: PurgeBatches): Promise<Purged> {
  return purgeInBatches(db, batches, (trx, limit) => repo.deleteRecordsBefore(trx, cutoff, limit));
}
