import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../lib/clock.js';
import * as events from '../events/events.service.js';
import { claimDue, fanOut } from './deliveries.service.js';
import { companyShare } from './fair-share.js';
import { nextAttemptAt } from './retry-schedule.js';
import type { AttemptOutcome, Sender } from './sender.js';
import { signedHeaders } from './signature.js';
import * as endpointsRepo from './endpoints.repository.js';
import * as deliveriesRepo from './deliveries.repository.js';

/**
 * The webhook dispatcher (docs/webhooks.md): numbers committed events, fans them out to the endpoints
 * that take them, and attempts the due deliveries, each held under a lease while it is attempted;
 * records every attempt and moves the delivery on the retry schedule. The due deliveries are shared
 * out fairly (fair-share.ts): at most 4 attempts in flight to an endpoint, at most half of the
 * slots to a company, so that one company's endpoints that never answer leave the other half to
 * everyone else. Any number of processes may dispatch one PostgreSQL database (each takes other
 * deliveries); one dispatches a SQLite one.
 */

/** The shortest time between two rounds that number and fan out events (see runLoop). */
const PREPARE_GAP_MS = 50;

/**
 * The same while no endpoint takes events: the round only moves the fan-out's cursor on (and, on
 * PostgreSQL, numbers events, which the events search also does before it reads), so it need not
 * cost a busy SQLite a commit every 50 ms. An endpoint created meanwhile waits at most this long.
 */
const IDLE_PREPARE_GAP_MS = 1000;

/** After this long failing every attempt, an endpoint is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3_600_000;

/** What a dispatcher tells the process about its work (the metrics of /metrics). */
export interface DispatchObserver {
  /** An attempt ended: `outcome` is succeeded, failed (to retry), gave-up or disabled; `lagMs` from the event to a success. */
  attempted?(outcome: 'succeeded' | 'retry' | 'failed', lagMs: number | undefined): void;
}

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  sender: Sender;
  /** Attempts in flight at once; a company gets at most half of them. */
  concurrency: number;
  /** How long a taken delivery stays this process's. */
  leaseMs: number;
  /** How often an idle dispatcher looks for work. */
  pollMs: number;
  /** [0, 1): the jitter of the retry schedule. */
  random?: () => number;
  observer?: DispatchObserver;
  /** Told of an error of the dispatcher itself (not of a receiver), which it survives. */
  onError?: (error: unknown) => void;
}

export interface Dispatcher {
  /**
   * Numbers and fans out what is new, then takes the due deliveries one claim may (shared out as
   * always: at most 4 of an endpoint, half the slots to a company), attempts them and waits for
   * them; answers how many.
   */
  runOnce(): Promise<number>;
  /** Dispatches in the background until stopped. */
  start(): void;
  /** Looks for work now (a change of this process committed events). */
  wake(): void;
  /** Stops taking work and waits up to `graceMs` for the attempts in flight. */
  stop(graceMs?: number): Promise<void>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, clock, sender, concurrency, leaseMs, pollMs, random = Math.random, observer, onError } = options;
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  /** A wake that came while the loop was busy: it looks again before it sleeps. */
  let wokenWhileBusy = false;
  /** Ends the loop's pause between two rounds of preparing early (on stop). */
  let endPause: (() => void) | undefined;

  function pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (endPause = undefined));
  }

  /** Writes one attempt and where it leaves the delivery and its endpoint, in one transaction. */
  async function record(
    claimed: deliveriesRepo.ClaimedDelivery,
    endpoint: endpointsRepo.EndpointRow,
    startedAt: number,
    result: AttemptOutcome,
    createdAt: number,
  ) {
    const endedAt = clock.now();
    const attemptNo = claimed.attempt_count + 1;
    const step = claimed.retry_step + 1;
    const gone = result.statusCode === 410;
    const next = result.ok || gone ? undefined : nextAttemptAt(step, endedAt, random, result.retryAfterMs);
    const key = { companyId: endpoint.company_id, id: endpoint.id };
    await inTransaction(db, async (trx) => {
      await deliveriesRepo.insertAttempt(trx, {
        company_id: claimed.company_id,
        delivery_id: claimed.id,
        attempt_no: attemptNo,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        error: result.error,
        response: result.response,
      });
      await deliveriesRepo.settleDelivery(trx, claimed, {
        status: result.ok ? 'Succeeded' : next === undefined ? 'Failed' : 'Pending',
        attempt_count: attemptNo,
        retry_step: result.ok ? claimed.retry_step : step,
        next_attempt_at: next ?? null,
        updated_at: endedAt,
      });
      if (result.ok) {
        if (endpoint.failing_since !== null) await endpointsRepo.clearFailing(trx, key);
        return;
      }
      const failingSince = await endpointsRepo.markFailing(trx, key, startedAt);
      const reason = gone
        ? 'The endpoint answered 410 Gone'
        : endedAt - failingSince >= FAILING_DISABLES_AFTER_MS
          ? 'Every attempt failed for 5 days'
          : undefined;
      if (reason) await endpointsRepo.updateEndpoint(trx, key, { enabled: 0, disabled_reason: reason, updated_at: endedAt });
    });
    observer?.attempted?.(result.ok ? 'succeeded' : next === undefined ? 'failed' : 'retry', result.ok ? endedAt - createdAt : undefined);
  }

  /**
   * Ends, unsent, a delivery whose event was purged (docs/webhooks.md, "Retention"): one of an
   * endpoint that was disabled while its event passed EVENT_RETENTION_DAYS and was enabled again.
   * There is nothing left to send, and attempting it would fail the same way at every lease.
   */
  async function giveUpPurged(claimed: deliveriesRepo.ClaimedDelivery) {
    await deliveriesRepo.settleDelivery(db, claimed, {
      status: 'Failed',
      attempt_count: claimed.attempt_count,
      retry_step: claimed.retry_step,
      next_attempt_at: null,
      updated_at: clock.now(),
    });
  }

  /** This process's attempts in flight, by company: its share of the slots (fair-share.ts). */
  const heldByCompany = new Map<string, number>();
  const share = companyShare(concurrency);
  /** Claims of this process, one after another: each counts the attempts the one before started. */
  let claiming: Promise<unknown> = Promise.resolve();

  function hold(companyId: string, change: 1 | -1) {
    const held = (heldByCompany.get(companyId) ?? 0) + change;
    if (held > 0) heldByCompany.set(companyId, held);
    else heldByCompany.delete(companyId);
  }

  /**
   * Takes up to `limit` due deliveries, shared out fairly, and starts their attempts; answers the
   * attempts, and whether due deliveries may have been left for the caps (see Claim).
   */
  function startDue(limit: number): Promise<{ attempts: Promise<void>[]; heldBack: boolean }> {
    const started = claiming.then(() => claimAndStart(limit));
    claiming = started.catch(() => {});
    return started;
  }

  async function claimAndStart(limit: number): Promise<{ attempts: Promise<void>[]; heldBack: boolean }> {
    const now = clock.now();
    // A delivery replayed during an attempt is due under that attempt's lease: found here, taken by
    // no claim until the attempt ends.
    if (!(await deliveriesRepo.hasDue(db, now))) return { attempts: [], heldBack: false };
    const { claimed, heldBack } = await claimDue(db, {
      now,
      until: now + leaseMs,
      limit: Math.min(limit, concurrency - inFlight.size),
      share,
      heldByCompany,
    });
    if (claimed.length === 0) return { attempts: [], heldBack };
    const messages = await events.findMessages(
      db,
      claimed.map((c) => ({ companyId: c.company_id, id: c.event_id })),
    );
    const endpoints = new Map(
      (
        await endpointsRepo.findEndpointsByKeys(
          db,
          claimed.map((c) => ({ companyId: c.company_id, id: c.endpoint_id })),
        )
      ).map((e) => [e.id, e]),
    );
    const attempts = claimed.map((delivery) => {
      const attempt = (async () => {
        const endpoint = endpoints.get(delivery.endpoint_id)!;
        const message = messages.get(delivery.event_id);
        if (!message) return await giveUpPurged(delivery);
        const startedAt = clock.now();
        const secrets = [endpoint.secret];
        if (endpoint.previous_secret && (endpoint.previous_secret_until ?? 0) > startedAt) secrets.push(endpoint.previous_secret);
        const headers = signedHeaders(secrets, message.eventId, startedAt, message.payload);
        const result = await sender.send({ url: endpoint.url, body: message.payload, headers });
        await record(delivery, endpoint, startedAt, result, message.createdAt);
      })().catch((error: unknown) => onError?.(error));
      inFlight.add(attempt);
      hold(delivery.company_id, 1);
      void attempt.finally(() => {
        inFlight.delete(attempt);
        hold(delivery.company_id, -1);
      });
      return attempt;
    });
    return { attempts, heldBack };
  }

  /** Numbers and fans out what has committed since the last look. */
  const prepare = () => fanOut(db, clock.now());

  async function runLoop(): Promise<void> {
    let preparedAt = -Infinity;
    let needsPrepare = true;
    /** The loop was woken by an attempt's end, which made room for what the caps held back. */
    let roomMade = false;
    let gap = PREPARE_GAP_MS;
    while (running) {
      let started = 0;
      let heldBack = false;
      wokenWhileBusy = false;
      try {
        // Room an attempt made is taken at once; events are numbered and fanned out meanwhile only
        // when their round is due, so that a busy endpoint's next delivery never waits for one.
        const prepareNow = needsPrepare && !(roomMade && performance.now() - preparedAt < gap);
        if (prepareNow) {
          // Every commit of a busy process wakes the dispatcher: one round every PREPARE_GAP_MS
          // numbers and fans out many changes' events at once instead of each change's alone.
          const wait = preparedAt + gap - performance.now();
          if (wait > 0) await pause(wait);
          if (!running) break;
          preparedAt = performance.now();
          gap = (await prepare()) ? PREPARE_GAP_MS : IDLE_PREPARE_GAP_MS;
        }
        const free = concurrency - inFlight.size;
        if (free > 0) {
          const taken = await startDue(free);
          started = taken.attempts.length;
          heldBack = taken.heldBack;
        }
      } catch (error) {
        onError?.(error);
      }
      if (!running) break;
      const full = inFlight.size >= concurrency;
      // A take that filled the free slots may leave more due: take again, without preparing.
      needsPrepare = !(started > 0 && !full);
      roomMade = false;
      if (!needsPrepare || (wokenWhileBusy && !full)) continue;
      // Wait for the next look, a change of this process, or an attempt's end when the slots are
      // full or the caps held due deliveries back (an endpoint at its 4 attempts, a company at its half).
      const waitForRoom = (full || heldBack) && inFlight.size > 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        wakeUp = wake;
        if (waitForRoom)
          void Promise.race(inFlight).then(() => {
            // Only while this wait lasts: an attempt that ends later is seen by a later wait.
            if (wakeUp !== wake) return;
            roomMade = true;
            wake();
          });
      });
      wakeUp = undefined;
    }
  }

  return {
    async runOnce() {
      await prepare();
      const { attempts } = await startDue(concurrency);
      await Promise.all(attempts);
      return attempts.length;
    },
    start() {
      if (running) return;
      running = true;
      loop = runLoop();
    },
    wake() {
      if (wakeUp) wakeUp();
      else wokenWhileBusy = true;
    },
    async stop(graceMs = 15_000) {
      running = false;
      wakeUp?.();
      endPause?.();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(inFlight), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
}
