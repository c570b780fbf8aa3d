import type { Db, Trx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, problem, type Answer } from '../../http/errors.js';
import type { RequestIdentity } from '../../http/request-identity.js';
import type { Clock } from '../../lib/clock.js';
import * as repo from './idempotency.repository.js';

/**
 * Commands that change state, run once: one transaction per request, the answer stored with its
 * effect under the caller's Idempotency-Key, and a refusal recorded (its failure ACK) after the
 * rollback. DESIGN §7.
 */

export interface Command {
  /** The effect, in the request's transaction; a refusal throws an AppError and writes nothing. */
  run(trx: Trx): Promise<Answer>;
  /** Written in its own transaction after a refusal rolled back (the failure ACK). */
  recordRefusal?(trx: Trx, refusal: AppError): Promise<void>;
}

/** Kept at least this long (DESIGN §7: at least 24 hours). */
export const RETENTION_MS = 48 * 60 * 60 * 1000;

function replay(record: repo.IdempotencyRecord, requestHash: string): Answer {
  if (record.request_hash !== requestHash) {
    throw new AppError(422, [problem('Idempotency-Key was already used with a different request')]);
  }
  return { statusCode: record.status_code, body: JSON.parse(record.response_body) };
}

function storeAnswer(trx: Trx, clock: Clock, identity: RequestIdentity, answer: Answer): Promise<void> {
  if (identity.idempotencyKey === undefined) return Promise.resolve();
  return repo.insertRecord(trx, {
    company_id: identity.companyId,
    key_id: identity.keyId,
    idempotency_key: identity.idempotencyKey,
    request_hash: identity.requestHash,
    status_code: answer.statusCode,
    response_body: JSON.stringify(answer.body),
    created_at: clock.now(),
  });
}

async function storedAnswer(trx: Trx, identity: RequestIdentity): Promise<Answer | undefined> {
  if (identity.idempotencyKey === undefined) return undefined;
  const stored = await repo.findRecord(trx, { ...identity, idempotencyKey: identity.idempotencyKey });
  return stored && replay(stored, identity.requestHash);
}

/**
 * Runs `command` for one request. With an Idempotency-Key, the same request again replays the
 * stored answer and writes nothing; another request under the same key is 422. Two concurrent
 * requests with one key both try to store the answer; the loser's transaction fails on the unique
 * key, runs again and replays the winner's answer.
 */
export async function runCommand(db: Db, clock: Clock, identity: RequestIdentity, command: Command): Promise<Answer> {
  try {
    return await inTransaction(db, async (trx) => {
      const stored = await storedAnswer(trx, identity);
      if (stored) return stored;
      const answer = await command.run(trx);
      await storeAnswer(trx, clock, identity, answer);
      return answer;
    });
  } catch (error) {
    if (!(error instanceof AppError) || error.statusCode === 422 || !command.recordRefusal) throw error;
    const replayed = await recordRefusal(db, clock, identity, error, command.recordRefusal);
    if (replayed) return replayed;
    throw error;
  }
}

/**
 * Records a refused request once: writes what a refusal writes (its failure ACK) and stores the
 * refusal as the answer to its Idempotency-Key, in one transaction. Returns the stored answer
 * instead when the same request was already answered.
 */
export async function recordRefusal(
  db: Db,
  clock: Clock,
  identity: RequestIdentity,
  refusal: AppError,
  write: (trx: Trx, refusal: AppError) => Promise<void>,
): Promise<Answer | undefined> {
  return inTransaction(db, async (trx) => {
    const stored = await storedAnswer(trx, identity);
    if (stored) return stored;
    await write(trx, refusal);
    await storeAnswer(trx, clock, identity, { statusCode: refusal.statusCode, body: refusal.body });
    return undefined;
  });
}

/** Forgets answers older than the retention period; returns how many. */
export async function forgetExpired(db: Db, clock: Clock): Promise<number> {
  return repo.deleteRecordsBefore(db, clock.now() - RETENTION_MS);
}
