import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Database, Db, Trx } from '../../db/database.js';
import { forUpdate, lockNames, takeUnlocked } from '../../db/dialect.js';
import { limitedWithin, type EndpointKey } from './endpoints.repository.js';
import type { WebhookAttemptTable, WebhookDeliveryTable } from './webhooks.tables.js';

/** All SQL of webhook deliveries: the fan-out cursor, the queue and its claims, the attempts and the delivery log. */

export type DeliveryRow = Selectable<WebhookDeliveryTable>;
export type NewDeliveryRow = Insertable<WebhookDeliveryTable>;
export type AttemptRow = Selectable<WebhookAttemptTable>;

// ---- fan-out --------------------------------------------------------------------------------------

/** The last Sequence fanned out, locked until the transaction ends: fan-outs take turns on it. */
export async function lockFanout(trx: Trx): Promise<number> {
  const row = await forUpdate(trx, trx.selectFrom('webhook_fanout').select('last_sequence').where('id', '=', 1)).executeTakeFirstOrThrow();
  return Number(row.last_sequence);
}

/** The last Sequence fanned out, as committed (no lock): whether a fan-out has anything to do. */
export async function readFanout(db: Db): Promise<number> {
  const row = await db.selectFrom('webhook_fanout').select('last_sequence').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.last_sequence);
}

export async function setFanout(trx: Trx, lastSequence: number): Promise<void> {
  await trx.updateTable('webhook_fanout').set({ last_sequence: lastSequence }).where('id', '=', 1).execute();
}

/** Rows per insert: 12 parameters a row. */
const DELIVERY_INSERT_CHUNK = 1000;

export async function insertDeliveries(trx: Trx, rows: NewDeliveryRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += DELIVERY_INSERT_CHUNK) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + DELIVERY_INSERT_CHUNK))
      .execute();
  }
}

// ---- the queue --------------------------------------------------------------------------------------

/**
 * Takes, until the transaction ends, the lock every claim takes on PostgreSQL, so that claims run
 * one at a time over every process: each counts the attempts in flight to an endpoint with the
 * leases the claims before it committed, and two never both take an endpoint's last room. Claims
 * are a few short statements.
 */
export async function lockClaims(trx: Trx): Promise<void> {
  await lockNames(trx, ['webhook-deliveries-claim']);
}

/** A delivery a dispatcher took, and until when it holds it. */
export type ClaimedDelivery = Pick<
  DeliveryRow,
  'id' | 'company_id' | 'delivery_id' | 'endpoint_id' | 'event_id' | 'attempt_count' | 'retry_step' | 'leased_until'
>;

/** Whether any delivery is due (one read, no lock): most idle rounds stop here. */
export async function hasDue(db: Db, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('next_attempt_at', 'is not', null)
    .where('next_attempt_at', '<=', now)
    // In the due index's order, so that PostgreSQL reads that index even before it has statistics.
    .orderBy('next_attempt_at')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deliveries no attempt holds: never leased, or whose lease has passed (its holder died). */
const untaken = (now: number) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]);

/**
 * The enabled endpoints that have a delivery due by `now` that no attempt holds, each with when its
 * earliest such delivery came due. A seek or two of the endpoint-due index per enabled endpoint
 * (the databases look the earliest up again for the filter): the cost follows the number of
 * endpoints, never the length of the queue.
 */
export async function findDueEndpoints(db: Db, now: number): Promise<{ company_id: string; id: number; due: number }[]> {
  const endpoints = db
    .selectFrom('webhook_endpoints as e')
    .select(['e.company_id', 'e.id'])
    .select((eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('next_attempt_at')
        .whereRef('company_id', '=', 'e.company_id')
        .whereRef('endpoint_id', '=', 'e.id')
        .where('next_attempt_at', 'is not', null)
        .where('next_attempt_at', '<=', now)
        .where(untaken(now))
        .orderBy('next_attempt_at')
        .limit(1)
        .as('due'),
    )
    .where('e.enabled', '=', 1)
    .as('endpoints');
  const rows = await db.selectFrom(endpoints).selectAll().where('due', 'is not', null).execute();
  return rows.map((row) => ({ company_id: row.company_id, id: Number(row.id), due: Number(row.due) }));
}

/**
 * The attempts in flight by endpoint, over every dispatching process: the deliveries under a lease
 * that has not passed. Read from the lease index, which holds only the leased deliveries.
 */
export async function countLeasedByEndpoint(db: Db, now: number): Promise<{ company_id: string; endpoint_id: number; leased: number }[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['company_id', 'endpoint_id'])
    .select((eb) => eb.fn.countAll<number>().as('leased'))
    .where('leased_until', 'is not', null)
    .where('leased_until', '>=', now)
    .groupBy(['company_id', 'endpoint_id'])
    .execute();
  return rows.map((row) => ({ company_id: row.company_id, endpoint_id: Number(row.endpoint_id), leased: Number(row.leased) }));
}

/**
 * Endpoints per statement in takeDue: each is one branch of a UNION ALL, and SQLite allows 500.
 * A process takes at most WEBHOOK_CONCURRENCY (1,000) deliveries at a time, so a few statements.
 */
const TAKE_CHUNK = 200;

/**
 * Takes, of each endpoint named, up to `count` deliveries due by `now` that no attempt holds, the
 * earliest due first, and holds them until `until`: a delivery whose holder died is due again
 * once its lease has passed, so its next attempt is then. A replay during the attempt moves that
 * time to its own, which is how settling knows of it (settleDelivery). Each endpoint's deliveries
 * are a seek of the endpoint-due index. On PostgreSQL the rows are locked and those a replay is
 * changing are skipped; SQLite's writers take turns anyway.
 */
export async function takeDue(
  trx: Trx,
  { now, until, takes }: { now: number; until: number; takes: { companyId: string; endpointId: number; count: number }[] },
): Promise<ClaimedDelivery[]> {
  const claimed: ClaimedDelivery[] = [];
  for (let start = 0; start < takes.length; start += TAKE_CHUNK) {
    const branches = takes
      .slice(start, start + TAKE_CHUNK)
      .map((take, index) =>
        trx
          .selectFrom(
            takeUnlocked(
              trx,
              trx
                .selectFrom('webhook_deliveries')
                .select(['company_id', 'id'])
                .where('company_id', '=', take.companyId)
                .where('endpoint_id', '=', take.endpointId)
                .where('next_attempt_at', 'is not', null)
                .where('next_attempt_at', '<=', now)
                .where(untaken(now))
                .orderBy('next_attempt_at')
                .limit(take.count),
              'webhook_deliveries' as const,
            ).as(`t${index}`),
          )
          .select([`t${index}.company_id as company_id`, `t${index}.id as id`]),
      );
    const union = branches.slice(1).reduce((all, branch) => all.unionAll(branch), branches[0]!);
    // Read from a table of its own: SQLite then finds each row by its id, where it scans the whole
    // table for a key in a compound select.
    const due = trx.selectFrom(union.as('due')).select(['due.company_id', 'due.id']);
    const rows = await trx
      .updateTable('webhook_deliveries')
      .set({ leased_until: until, next_attempt_at: until, updated_at: now })
      // By the whole key: PostgreSQL's primary key leads with company_id, and `id` alone would scan it.
      .where((eb) => eb(eb.refTuple('company_id', 'id'), 'in', due.$asTuple('company_id', 'id')))
      .returning(['id', 'company_id', 'delivery_id', 'endpoint_id', 'event_id', 'attempt_count', 'retry_step', 'leased_until'])
      .execute();
    claimed.push(...rows);
  }
  return claimed.sort((a, b) => a.id - b.id);
}

export async function insertAttempt(db: Db, row: Insertable<WebhookAttemptTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/**
 * Writes an attempt's outcome to its delivery, only while the lease is the one that attempt held:
 * a dispatcher that outlived its lease finds the delivery taken over and changes nothing. A replay
 * that came during the attempt moved the next attempt off the lease’s end (takeDue): the attempt
 * is then counted, but the delivery stays as the replay queued it, due again.
 */
export async function settleDelivery(
  db: Db,
  claimed: Pick<ClaimedDelivery, 'company_id' | 'id' | 'leased_until'>,
  changes: Pick<DeliveryRow, 'status' | 'attempt_count' | 'retry_step' | 'next_attempt_at' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => {
      const notReplayed = eb('next_attempt_at', '=', claimed.leased_until);
      return {
        status: eb.case().when(notReplayed).then(changes.status).else(eb.ref('status')).end(),
        retry_step: eb.case().when(notReplayed).then(changes.retry_step).else(eb.ref('retry_step')).end(),
        next_attempt_at: eb.case().when(notReplayed).then(changes.next_attempt_at).else(eb.ref('next_attempt_at')).end(),
        attempt_count: changes.attempt_count,
        updated_at: changes.updated_at,
        leased_until: null,
      };
    })
    .where('company_id', '=', claimed.company_id)
    .where('id', '=', claimed.id)
    .where('leased_until', '=', claimed.leased_until)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deliveries still to attempt: the queue's depth (for /metrics). Those of a disabled endpoint are
 * not: nothing attempts them until it is enabled again, and they would show as a stuck queue.
 */
export async function countPending(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.endpoint_id'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('d.next_attempt_at', 'is not', null)
    .where('e.enabled', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Deletes up to `limit` deliveries that ended (nothing left to attempt, no lease) before `before`,
 * the longest ended first (webhook_deliveries_ended_idx), then the attempts of exactly those;
 * answers how many deliveries. The deliveries go first and name the attempts to delete, so that a
 * purge running beside another never deletes the attempts of one delivery and another delivery.
 */
export async function deleteEndedDeliveries(trx: Trx, before: number, limit: number): Promise<number> {
  const ended = trx
    .selectFrom('webhook_deliveries')
    .select(['company_id', 'id'])
    .where('next_attempt_at', 'is', null)
    .where('leased_until', 'is', null)
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit);
  const deleted = await trx
    .deleteFrom('webhook_deliveries')
    .where((eb) => eb(eb.refTuple('company_id', 'id'), 'in', ended.$asTuple('company_id', 'id')))
    .returning(['company_id', 'id'])
    .execute();
  if (deleted.length === 0) return 0;
  // A delivery's id is unique in the table (its identity or row id): the companies only let the
  // attempts' index be sought from its first column.
  await trx
    .deleteFrom('webhook_attempts')
    .where('company_id', 'in', [...new Set(deleted.map((row) => row.company_id))])
    .where(
      'delivery_id',
      'in',
      deleted.map((row) => Number(row.id)),
    )
    .execute();
  return deleted.length;
}

/**
 * The lowest Sequence of a delivery still to attempt (pending, or under a lease) to an enabled
 * endpoint: the webhooks need that event and those after it. Read from the due index, which holds
 * only the deliveries still to attempt. A disabled endpoint's deliveries hold nothing.
 */
export async function findFirstPendingSequence(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.endpoint_id'))
    .select((eb) => eb.fn.min('d.sequence').as('first'))
    .where('d.next_attempt_at', 'is not', null)
    .where('e.enabled', '=', 1)
    .executeTakeFirstOrThrow();
  return row.first === null ? undefined : Number(row.first);
}

// ---- the log ----------------------------------------------------------------------------------------

export interface DeliveryFilter {
  companyId: string;
  /** Only deliveries to endpoints of this customer (null: the company-wide endpoints); absent: every endpoint. */
  customerId?: string | null;
  /** Only deliveries to endpoints limited to facilities, all of them among these (a key limited to them); absent: any. */
  facilityIds?: readonly string[];
  endpointId?: number;
  deliveryId?: string;
  /** The event's `evt_` id. */
  eventId?: string;
  status?: string;
}

/** A delivery with its endpoint's and event's public ids. */
export type ListedDelivery = DeliveryRow & { endpoint_public_id: string; event_public_id: string; event_created_at: number };

function filteredDeliveries(db: Db, filter: DeliveryFilter) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.endpoint_id'))
    .innerJoin('events as v', (join) => join.onRef('v.company_id', '=', 'd.company_id').onRef('v.id', '=', 'd.event_id'))
    .where('d.company_id', '=', filter.companyId)
    .$if(filter.customerId !== undefined, (q) => q.where('e.customer_id', filter.customerId === null ? 'is' : '=', filter.customerId!))
    .$if(filter.facilityIds !== undefined, (q) => q.where((eb) => limitedWithin(eb, filter.facilityIds!)))
    .$if(filter.endpointId !== undefined, (q) => q.where('d.endpoint_id', '=', filter.endpointId!))
    .$if(filter.deliveryId !== undefined, (q) => q.where('d.delivery_id', '=', filter.deliveryId!))
    .$if(filter.eventId !== undefined, (q) => q.where('v.event_id', '=', filter.eventId!))
    .$if(filter.status !== undefined, (q) => q.where('d.status', '=', filter.status!));
}

export async function countDeliveries(db: Db, filter: DeliveryFilter): Promise<number> {
  const { count } = await filteredDeliveries(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Oldest first. */
export async function pageDeliveries(db: Db, filter: DeliveryFilter, offset: number, limit: number): Promise<ListedDelivery[]> {
  return filteredDeliveries(db, filter)
    .selectAll('d')
    .select(['e.endpoint_id as endpoint_public_id', 'v.event_id as event_public_id', 'v.created_at as event_created_at'])
    .orderBy('d.id')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The attempts of these deliveries, in order. */
export async function findAttempts(db: Db, companyId: string, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt_no')
    .execute();
}

/**
 * Queues one delivery again, due at `now`, at the start of the retry schedule. A dispatcher that
 * holds it keeps it until its attempt ends: the replay never runs beside that attempt, and comes
 * after it (settleDelivery leaves a delivery replayed meanwhile due).
 */
export async function requeueDelivery(trx: Trx, companyId: string, id: number, now: number): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'Pending', retry_step: 0, next_attempt_at: now, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

/** Queues again every delivery to the endpoint of an event made at or after `since`; answers how many. */
export async function requeueEndpointSince(trx: Trx, key: EndpointKey, since: number, now: number): Promise<number> {
  const events = trx.selectFrom('events').select('id').where('company_id', '=', key.companyId).where('created_at', '>=', since);
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'Pending', retry_step: 0, next_attempt_at: now, updated_at: now })
    .where('company_id', '=', key.companyId)
    .where('endpoint_id', '=', key.id)
    .where('event_id', 'in', events)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
