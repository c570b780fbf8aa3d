import type { Db, Trx } from '../../db/database.js';
import { nextSortableId } from '../../lib/ids.js';
import { purgeInBatches, type PurgeBatches, type Purged } from '../../db/purge.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import { offsetWindow } from '../../http/time.js';
import { conflict, invalid, notFound } from '../../lib/refusal.js';
import { runCommand } from '../commands/commands.service.js';
import * as events from '../events/events.service.js';
import { requireEndpoint, scopeOf } from './endpoints.service.js';
import { endpointKey, shareOut } from './fair-share.js';
import { receiversOf } from './fanout-match.js';
import { presentDelivery } from './webhooks.present.js';
import * as endpointsRepo from './endpoints.repository.js';
import * as deliveriesRepo from './deliveries.repository.js';
import type { DeliveryReplayRequest, DeliveryReplayResult, DeliverySearchRequest, DeliverySearchResult } from './webhooks.schemas.js';

/**
 * Deliveries (docs/webhooks.md): every numbered event becomes one delivery per enabled endpoint that
 * takes it (its customer's, and its company's company-wide ones); the due ones are claimed for
 * the dispatchers, fairly; their log is searched, and a delivery or an endpoint's deliveries since
 * a time can be queued again.
 */

/** Events fanned out per transaction. */
const FANOUT_BATCH = 1000;

/**
 * Makes, in the caller's transaction, the deliveries of the events numbered since the last
 * fan-out, in Sequence order, up to FANOUT_BATCH events; `more` when some were left for the next.
 * Fan-outs take turns on the cursor, so an event is fanned out once; an endpoint disabled
 * meanwhile gets none (the events search has them).
 */
async function fanOutIn(trx: Trx, now: number): Promise<{ more: boolean; toEndpoints: boolean }> {
  const last = await deliveriesRepo.lockFanout(trx);
  if (!(await endpointsRepo.hasEnabledEndpoints(trx))) {
    // No event has a receiver: the cursor moves past them all without reading them. An endpoint
    // enabled later gets what is fanned out after, as one that was disabled meanwhile always has.
    const newest = await events.findLastNumbered(trx);
    if (newest > last) await deliveriesRepo.setFanout(trx, newest);
    return { more: false, toEndpoints: false };
  }
  const numbered = await events.findNumberedAfter(trx, last, FANOUT_BATCH);
  if (numbered.length === 0) return { more: false, toEndpoints: true };
  const receivers = receiversOf(await endpointsRepo.findEnabledEndpoints(trx, [...new Set(numbered.map((event) => event.company_id))]));
  const deliveries = numbered.flatMap((event) =>
    receivers.of(event).map(
      (endpoint): deliveriesRepo.NewDeliveryRow => ({
        company_id: event.company_id,
        delivery_id: `dlv_${nextSortableId(now)}`,
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: event.type,
        sequence: event.sequence,
        status: 'Pending',
        attempt_count: 0,
        retry_step: 0,
        next_attempt_at: now,
        leased_until: null,
        created_at: now,
        updated_at: now,
      }),
    ),
  );
  await deliveriesRepo.insertDeliveries(trx, deliveries);
  await deliveriesRepo.setFanout(trx, numbered.at(-1)!.sequence);
  return { more: numbered.length === FANOUT_BATCH, toEndpoints: receivers.size > 0 };
}

/**
 * Numbers the committed events and fans them out to deliveries, both in one transaction (one
 * commit, where a busy SQLite pays for each). Two reads first find most rounds with nothing to do,
 * and then nothing is written. Answers false when events were fanned out to no endpoint at all
 * (none is enabled): the dispatcher then has no reason to hurry the next round.
 */
export async function fanOut(db: Db, now: number): Promise<boolean> {
  if (!(await events.hasUnsequencedEvents(db)) && (await deliveriesRepo.readFanout(db)) >= (await events.findLastNumbered(db))) return true;
  let toEndpoints = false;
  for (;;) {
    const { more } = await inTransaction(db, async (trx) => {
      const sequenced = await events.sequenceEventsIn(trx);
      const fanned = await fanOutIn(trx, now);
      toEndpoints ||= fanned.toEndpoints;
      return { more: sequenced.more || fanned.more };
    });
    if (!more) return toEndpoints;
  }
}

export interface ClaimRequest {
  now: number;
  /** Until when the claimed deliveries are held (the lease). */
  until: number;
  /** The process's free slots. */
  limit: number;
  /** The most attempts of one company the process may have in flight. */
  share: number;
  /** The process's attempts in flight, by company. */
  heldByCompany: ReadonlyMap<string, number>;
}

/**
 * Takes, in one transaction, up to `limit` due deliveries of enabled endpoints, shared out fairly
 * (fair-share.ts): no endpoint gets more than ENDPOINT_IN_FLIGHT_LIMIT attempts in flight over
 * every process, no company more than `share` of this process's; the free slots go round the
 * companies with deliveries due. Answers them, each held until `until`.
 */
export interface Claim {
  claimed: deliveriesRepo.ClaimedDelivery[];
  /**
   * Whether anything was due when the claim looked. The claim knows only each endpoint's earliest
   * due delivery, so what it took may have left more (an endpoint at its 4, a company at its half):
   * an attempt that ends may make room for them, and the dispatcher then claims again at once.
   */
  heldBack: boolean;
}

export async function claimDue(db: Db, request: ClaimRequest): Promise<Claim> {
  const { now, until, limit, share, heldByCompany } = request;
  if (limit <= 0) return { claimed: [], heldBack: true };
  return inTransaction(db, async (trx) => {
    await deliveriesRepo.lockClaims(trx);
    const due = await deliveriesRepo.findDueEndpoints(trx, now);
    if (due.length === 0) return { claimed: [], heldBack: false };
    const leased = await deliveriesRepo.countLeasedByEndpoint(trx, now);
    const takes = shareOut(
      due.map((endpoint) => ({ companyId: endpoint.company_id, endpointId: endpoint.id, due: endpoint.due })),
      {
        limit,
        share,
        heldByCompany,
        leasedByEndpoint: new Map(leased.map((row) => [endpointKey(row.company_id, row.endpoint_id), row.leased])),
      },
    );
    if (takes.length === 0) return { claimed: [], heldBack: true };
    return { claimed: await deliveriesRepo.takeDue(trx, { now, until, takes }), heldBack: true };
  });
}

/**
 * Purges the deliveries that ended (succeeded, or failed for good) before `cutoff`, with their
 * attempts, in batches (docs/operations.md, "Retention"). Deliveries still to attempt and those
 * under a lease are kept whatever their age; the events have a retention of their own.
 */
export function purgeEndedDeliveriesBefore(db: Db, cutoff: number, batches: PurgeBatches): Promise<Purged> {
  return purgeInBatches(db, batches, (trx, limit) => deliveriesRepo.deleteEndedDeliveries(trx, cutoff, limit));
}

/**
 * The lowest Sequence of the events made before `before` that the webhooks still need, or
 * Infinity: the event of a delivery still to attempt to an enabled endpoint, or an event not fanned
 * out yet that an enabled endpoint takes (its customer's or company-wide, of its facilities and
 * types). An event purge keeps that one and every later one (docs/webhooks.md, "Retention"). A
 * disabled endpoint holds nothing: it is sent nothing until enabled, and the events search is
 * where its owner reads what it missed.
 *
 * The events not fanned out yet are read in Sequence order up to the first made at or after
 * `before`, which the purge keeps too: so few, unless no process has dispatched for a long time.
 */
export async function firstSequenceHeld(db: Db, before: number): Promise<number> {
  const pending = (await deliveriesRepo.findFirstPendingSequence(db)) ?? Infinity;
  if (!(await endpointsRepo.hasEnabledEndpoints(db))) return pending;
  let after = await deliveriesRepo.readFanout(db);
  for (;;) {
    const numbered = await events.findNumberedAfter(db, after, FANOUT_BATCH);
    if (numbered.length === 0) return pending;
    const receivers = receiversOf(await endpointsRepo.findEnabledEndpoints(db, [...new Set(numbered.map((event) => event.company_id))]));
    for (const event of numbered) {
      if (event.sequence >= pending) return pending;
      if (event.created_at >= before || receivers.of(event).length > 0) return event.sequence;
    }
    after = numbered.at(-1)!.sequence;
  }
}

/** Deliveries to the endpoints the request may see, oldest first, each with every attempt. */
export async function searchDeliveries(db: Db, principal: Principal, request: DeliverySearchRequest): Promise<DeliverySearchResult> {
  const scope = scopeOf(principal, request);
  const page = pageRequest(request.Paging);
  const empty = { results: { data: [] }, paging: pagingOf(page, 0, 0) };
  const filter: deliveriesRepo.DeliveryFilter = {
    companyId: scope.companyId,
    customerId: scope.customerId,
    facilityIds: scope.facilityIds,
    eventId: request.EventID,
    status: request.Status,
  };
  if (request.EndpointID !== undefined) {
    // Another customer's endpoint answers as an unknown one: nothing.
    const endpoint = await endpointsRepo.findEndpoint(db, scope.companyId, request.EndpointID);
    if (!endpoint) return empty;
    filter.endpointId = endpoint.id;
  }
  const totalCount = await deliveriesRepo.countDeliveries(db, filter);
  const rows = page.offset < totalCount ? await deliveriesRepo.pageDeliveries(db, filter, page.offset, page.pageSize) : [];
  const attempts = await deliveriesRepo.findAttempts(
    db,
    scope.companyId,
    rows.map((row) => row.id),
  );
  return {
    results: {
      data: rows.map((row) =>
        presentDelivery(
          row,
          attempts.filter((attempt) => attempt.delivery_id === row.id),
        ),
      ),
    },
    paging: pagingOf(page, totalCount, rows.length),
  };
}

/**
 * No dispatcher attempts a disabled endpoint's deliveries: a replay that queued some would answer
 * Replayed and send nothing. Its owner enables it first (which also says the receiver is back).
 */
function requireEnabled(endpoint: endpointsRepo.EndpointRow): void {
  if (endpoint.enabled === 1) return;
  throw conflict(`Endpoint ${endpoint.endpoint_id} is disabled (${endpoint.disabled_reason}): enable it, then replay its deliveries`);
}

/**
 * Queues again one delivery (DeliveryID), or every delivery to an endpoint of an event made at or
 * after Since (EndpointID and Since), each at the start of the retry schedule and due now. Refused
 * when it would queue deliveries of a disabled endpoint; one that finds nothing to queue answers
 * Replayed: 0, true whatever the endpoint's state.
 */
export function replayDeliveries(cx: CommandContext, request: DeliveryReplayRequest): Promise<DeliveryReplayResult> {
  const scope = scopeOf(cx.principal, request);
  const since = offsetWindow(request.Since, undefined).from;
  const byDelivery = request.DeliveryID !== undefined;
  if (byDelivery === (request.EndpointID !== undefined) || byDelivery === (since !== undefined)) {
    throw invalid('Send DeliveryID, or EndpointID and Since');
  }
  return runCommand(cx, {
    run: async (trx) => {
      const now = cx.clock.now();
      if (request.DeliveryID !== undefined) {
        const [delivery] = await deliveriesRepo.pageDeliveries(trx, { ...scope, deliveryId: request.DeliveryID }, 0, 1);
        if (!delivery) throw notFound(`Not found delivery ${request.DeliveryID}`);
        const [endpoint] = await endpointsRepo.findEndpointsByKeys(trx, [{ companyId: delivery.company_id, id: delivery.endpoint_id }]);
        requireEnabled(endpoint!);
        await deliveriesRepo.requeueDelivery(trx, delivery.company_id, delivery.id, now);
        return { Replayed: 1 };
      }
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID!);
      const replayed = await deliveriesRepo.requeueEndpointSince(trx, { companyId: endpoint.company_id, id: endpoint.id }, since!, now);
      // A refusal rolls the requeue back with the command's transaction.
      if (replayed > 0) requireEnabled(endpoint);
      return { Replayed: replayed };
    },
  });
}
