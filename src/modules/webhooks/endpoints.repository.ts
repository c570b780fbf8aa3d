import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import type { Database, Db, Trx } from '../../db/database.js';
import { lockNames } from '../../db/dialect.js';
import type { WebhookEndpointTable } from './webhooks.tables.js';

/** All SQL of webhook endpoints: their rows, the facilities they are limited to, their counts and failures. */

export type EndpointRow = Selectable<WebhookEndpointTable>;
export type NewEndpointRow = Insertable<WebhookEndpointTable>;

/** An endpoint's row by its key. */
export interface EndpointKey {
  companyId: string;
  id: number;
}

// ---- endpoints ------------------------------------------------------------------------------------

/** An endpoint with the facilities it is limited to, in FacilityID order (as JavaScript sorts text); null: every facility. */
export type LimitedEndpointRow = EndpointRow & { facility_ids: string[] | null };

/** Queries that read endpoints as `e`. */
type WithEndpoints = Database & { e: WebhookEndpointTable };

/**
 * The endpoints limited to facilities, all of them among `facilityIds`: those a key limited to
 * these facilities manages (one of every facility is not among them).
 */
export function limitedWithin(eb: ExpressionBuilder<WithEndpoints, 'e'>, facilityIds: readonly string[]) {
  const limits = () =>
    eb
      .selectFrom('webhook_endpoint_facilities as f')
      .select('f.facility_id')
      .whereRef('f.company_id', '=', 'e.company_id')
      .whereRef('f.endpoint_id', '=', 'e.id');
  return eb.and([eb.exists(limits()), eb.not(eb.exists(limits().where('f.facility_id', 'not in', facilityIds)))]);
}

export async function insertEndpoint(trx: Trx, row: NewEndpointRow): Promise<EndpointRow> {
  return trx.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Limits the endpoint to these facilities (null: every facility), in place of what it was limited to. */
export async function setEndpointFacilities(trx: Trx, key: EndpointKey, facilityIds: readonly string[] | null): Promise<void> {
  await trx.deleteFrom('webhook_endpoint_facilities').where('company_id', '=', key.companyId).where('endpoint_id', '=', key.id).execute();
  if (facilityIds === null || facilityIds.length === 0) return;
  await trx
    .insertInto('webhook_endpoint_facilities')
    .values(facilityIds.map((facilityId) => ({ company_id: key.companyId, endpoint_id: key.id, facility_id: facilityId })))
    .execute();
}

/** The endpoints with the facilities each is limited to: one read for all of them. */
export async function withFacilities(db: Db, rows: EndpointRow[]): Promise<LimitedEndpointRow[]> {
  if (rows.length === 0) return [];
  const limits = await db
    .selectFrom('webhook_endpoint_facilities')
    .select(['company_id', 'endpoint_id', 'facility_id'])
    .where('company_id', 'in', [...new Set(rows.map((row) => row.company_id))])
    .where(
      'endpoint_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  const byEndpoint = new Map<string, string[]>();
  for (const limit of limits) {
    const key = JSON.stringify([limit.company_id, Number(limit.endpoint_id)]);
    byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), limit.facility_id]);
  }
  return rows.map((row) => ({ ...row, facility_ids: byEndpoint.get(JSON.stringify([row.company_id, Number(row.id)]))?.sort() ?? null }));
}

export async function findEndpoint(db: Db, companyId: string, endpointId: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/** Which of a company's endpoints to list. */
export interface EndpointListFilter {
  /** Of this customer (null: the company-wide ones); absent: every endpoint. */
  customerId?: string | null;
  /** Only those limited to facilities, all of them among these (a key limited to them); absent: any. */
  facilityIds?: readonly string[];
}

/** A company's endpoints, oldest first. */
export async function listEndpoints(db: Db, companyId: string, filter: EndpointListFilter = {}): Promise<EndpointRow[]> {
  const { customerId, facilityIds } = filter;
  return db
    .selectFrom('webhook_endpoints as e')
    .selectAll('e')
    .where('e.company_id', '=', companyId)
    .$if(customerId !== undefined, (q) => q.where('e.customer_id', customerId === null ? 'is' : '=', customerId!))
    .$if(facilityIds !== undefined, (q) => q.where((eb) => limitedWithin(eb, facilityIds!)))
    .orderBy('e.id')
    .execute();
}

/**
 * Takes, until the transaction ends, the lock that creations of endpoints in the company take
 * turns on, so that the counts a creation reads stay true until it commits (PostgreSQL; SQLite's
 * writers take turns anyway).
 */
export async function lockEndpointCreation(trx: Trx, companyId: string): Promise<void> {
  await lockNames(trx, [JSON.stringify(['webhook_endpoints', companyId])]);
}

/** How many endpoints the company has, and how many of them are the customer's. */
export async function countEndpoints(
  trx: Trx,
  companyId: string,
  customerId: string | null,
): Promise<{ company: number; customer: number }> {
  const row = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => [
      eb.fn.countAll<number>().as('company'),
      eb.fn
        .sum<number | null>(
          eb
            .case()
            .when('customer_id', '=', customerId ?? '')
            .then(1)
            .else(0)
            .end(),
        )
        .as('customer'),
    ])
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return { company: Number(row.company), customer: customerId === null ? 0 : Number(row.customer ?? 0) };
}

export async function updateEndpoint(trx: Db, key: EndpointKey, changes: Updateable<WebhookEndpointTable>): Promise<EndpointRow> {
  return trx
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('company_id', '=', key.companyId)
    .where('id', '=', key.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the endpoint with its facilities, its deliveries and their log. */
export async function deleteEndpoint(trx: Trx, key: EndpointKey): Promise<void> {
  const deliveries = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('company_id', '=', key.companyId)
    .where('endpoint_id', '=', key.id);
  await trx.deleteFrom('webhook_attempts').where('company_id', '=', key.companyId).where('delivery_id', 'in', deliveries).execute();
  await trx.deleteFrom('webhook_deliveries').where('company_id', '=', key.companyId).where('endpoint_id', '=', key.id).execute();
  await setEndpointFacilities(trx, key, null);
  await trx.deleteFrom('webhook_endpoints').where('company_id', '=', key.companyId).where('id', '=', key.id).execute();
}

/** Whether any company has an endpoint enabled: one row read at most (endpoints are few). */
export async function hasEnabledEndpoints(db: Db): Promise<boolean> {
  const row = await db.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The enabled endpoints of these companies, each with the facilities it is limited to: where their
 * new events go. One read, in which an endpoint comes once per facility it is limited to.
 */
export async function findEnabledEndpoints(db: Db, companyIds: string[]): Promise<LimitedEndpointRow[]> {
  if (companyIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_endpoints as e')
    .leftJoin('webhook_endpoint_facilities as f', (join) =>
      join.onRef('f.company_id', '=', 'e.company_id').onRef('f.endpoint_id', '=', 'e.id'),
    )
    .selectAll('e')
    .select('f.facility_id as limited_to')
    .where('e.company_id', 'in', companyIds)
    .where('e.enabled', '=', 1)
    .orderBy('e.company_id')
    .orderBy('e.id')
    .execute();
  const endpoints: LimitedEndpointRow[] = [];
  for (const { limited_to: limitedTo, ...row } of rows) {
    const last = endpoints.at(-1);
    const endpoint = last?.company_id === row.company_id && last.id === row.id ? last : undefined;
    if (endpoint) endpoint.facility_ids!.push(limitedTo!);
    else endpoints.push({ ...row, facility_ids: limitedTo === null ? null : [limitedTo] });
  }
  return endpoints;
}

/** Endpoints by key; the company ids let PostgreSQL find each row by its primary key. */
export async function findEndpointsByKeys(db: Db, keys: EndpointKey[]): Promise<EndpointRow[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', 'in', [...new Set(keys.map((key) => key.companyId))])
    .where('id', 'in', [...new Set(keys.map((key) => key.id))])
    .execute();
}

/** Marks the endpoint failing since `at`, unless it already is; answers when it has been failing since. */
export async function markFailing(db: Db, key: EndpointKey, at: number): Promise<number> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(at)) }))
    .where('company_id', '=', key.companyId)
    .where('id', '=', key.id)
    .returning('failing_since')
    .executeTakeFirstOrThrow();
  return Number(row.failing_since);
}

export async function clearFailing(db: Db, key: EndpointKey): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('company_id', '=', key.companyId)
    .where('id', '=', key.id)
    .where('failing_since', 'is not', null)
    .execute();
}
