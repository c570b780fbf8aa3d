import type { Db, Trx } from '../../db/database.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { conflict, forbidden, invalid, notFound } from '../../lib/refusal.js';
import { nextSortableId } from '../../lib/ids.js';
import { runCommand } from '../commands/commands.service.js';
import { urlProblem } from './address-policy.js';
import { newSecret } from './signature.js';
import { presentEndpoint } from './webhooks.present.js';
import * as endpointsRepo from './endpoints.repository.js';
import type {
  EndpointCreateRequest,
  EndpointDeleteResult,
  EndpointListRequest,
  EndpointListResult,
  EndpointLookup,
  EndpointResult,
  EndpointUpdateRequest,
  EndpointWithSecretResult,
} from './webhooks.schemas.js';

/**
 * Webhook endpoints (docs/webhooks.md): a customer's system manages its own; an admin manages every
 * endpoint of its company, and its endpoints without a CustomerID take every customer's events. An
 * endpoint may be limited to facilities; a key limited to facilities manages exactly the endpoints
 * limited to some of its facilities. The secret is shown when it is made, at creation and
 * rotation, and never again.
 */

/** How long a rotated secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The most endpoints a customer may have: each one costs every fan-out and takes a share of the dispatchers. */
export const MAX_ENDPOINTS_PER_CUSTOMER = 20;
/** The most endpoints a company may have, its customers' and its company-wide ones together. */
export const MAX_ENDPOINTS_PER_COMPANY = 100;

/** Which endpoints a request may see and change. */
export interface EndpointScope {
  companyId: string;
  /** undefined: every endpoint of the company. */
  customerId?: string;
  /**
   * The facilities of a key limited to facilities: only the endpoints limited to some of them
   * (never one of every facility, whose events the key may not read). undefined: any endpoint.
   */
  facilityIds?: string[];
}

/** The request's scope; a customer key must name its customer (the authorizer checked it is its own). */
export function scopeOf(principal: Principal, request: { CompanyID: string; CustomerID?: string }): EndpointScope {
  if (request.CustomerID === undefined && principal.role !== 'admin') throw invalid('CustomerID is required');
  return {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityIds: principal.facilityIds.length > 0 ? principal.facilityIds : undefined,
  };
}

/** Whether an endpoint limited to `limitedTo` (null: every facility) is in the scope. */
const inScope = (scope: EndpointScope, limitedTo: readonly string[] | null) =>
  scope.facilityIds === undefined || (limitedTo !== null && limitedTo.every((facilityId) => scope.facilityIds!.includes(facilityId)));

/** The endpoint the request names, in its scope; elsewhere it is 404 as an unknown one. */
export async function requireEndpoint(db: Db, scope: EndpointScope, endpointId: string): Promise<endpointsRepo.LimitedEndpointRow> {
  const row = await endpointsRepo.findEndpoint(db, scope.companyId, endpointId);
  const [endpoint] =
    row && (scope.customerId === undefined || row.customer_id === scope.customerId) ? await endpointsRepo.withFacilities(db, [row]) : [];
  if (!endpoint || !inScope(scope, endpoint.facility_ids)) throw notFound(`Not found endpoint ${endpointId}`);
  return endpoint;
}

/**
 * The facilities an endpoint is to be limited to (null: every facility): those the request names,
 * or, when it names none at creation, those of a key limited to facilities; in FacilityID order, as
 * they are shown. Each named facility is the company's and the key's (the authorizer refused the
 * others, 400 and 403, in the order of checks); a key limited to facilities may not make an endpoint
 * of every facility (403).
 */
function facilitiesOf(scope: EndpointScope, requested: readonly string[] | null | undefined): string[] | null {
  if (requested === undefined) return scope.facilityIds ? [...scope.facilityIds].sort() : null;
  if (!inScope(scope, requested)) {
    const outside = requested?.find((facilityId) => !scope.facilityIds!.includes(facilityId));
    throw forbidden(
      outside === undefined
        ? "FacilityIDs null (every facility) is outside this API key's scope"
        : `FacilityID ${outside} is outside this API key's scope`,
    );
  }
  return requested === null ? null : [...requested].sort();
}

/** Refuses a creation beyond the customer's or the company's number of endpoints (409). */
async function requireRoomFor(trx: Trx, scope: EndpointScope): Promise<void> {
  // Creations in the company take turns from here to their commit, so none counts past another.
  await endpointsRepo.lockEndpointCreation(trx, scope.companyId);
  const count = await endpointsRepo.countEndpoints(trx, scope.companyId, scope.customerId ?? null);
  if (scope.customerId !== undefined && count.customer >= MAX_ENDPOINTS_PER_CUSTOMER) {
    throw conflict(
      `Customer ${scope.customerId} already has ${count.customer} webhook endpoints, and a customer may have at most ${MAX_ENDPOINTS_PER_CUSTOMER}: delete one before creating another`,
    );
  }
  if (count.company >= MAX_ENDPOINTS_PER_COMPANY) {
    throw conflict(
      `Company ${scope.companyId} already has ${count.company} webhook endpoints, and a company may have at most ${MAX_ENDPOINTS_PER_COMPANY}: delete one before creating another`,
    );
  }
}

function checkedUrl(url: string, allowPrivate: boolean): string {
  const problem = urlProblem(url, allowPrivate);
  if (problem) throw invalid(problem);
  return url;
}

const eventTypesColumn = (types: readonly string[] | null | undefined) =>
  types === null || types === undefined ? null : JSON.stringify(types);

const keyOf = (endpoint: endpointsRepo.EndpointRow): endpointsRepo.EndpointKey => ({ companyId: endpoint.company_id, id: endpoint.id });

export function createEndpoint(
  cx: CommandContext,
  request: EndpointCreateRequest,
  allowPrivate: boolean,
  /** The demo names its endpoints, so that the document's examples can. */
  endpointId?: string,
): Promise<EndpointWithSecretResult> {
  const scope = scopeOf(cx.principal, request);
  const url = checkedUrl(request.Url, allowPrivate);
  const facilityIds = facilitiesOf(scope, request.FacilityIDs);
  return runCommand(cx, {
    run: async (trx) => {
      await requireRoomFor(trx, scope);
      const now = cx.clock.now();
      const row = await endpointsRepo.insertEndpoint(trx, {
        company_id: scope.companyId,
        endpoint_id: endpointId ?? `ep_${nextSortableId(now)}`,
        customer_id: scope.customerId ?? null,
        url,
        event_types: eventTypesColumn(request.EventTypes),
        description: request.Description ?? null,
        enabled: 1,
        disabled_reason: null,
        secret: newSecret(),
        previous_secret: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
        key_id: cx.principal.keyId,
      });
      await endpointsRepo.setEndpointFacilities(trx, keyOf(row), facilityIds);
      return { Endpoint: { ...presentEndpoint({ ...row, facility_ids: facilityIds }), Secret: row.secret } };
    },
  });
}

/** The endpoints in the request's scope, oldest first. */
export async function listEndpoints(db: Db, principal: Principal, request: EndpointListRequest): Promise<EndpointListResult> {
  const scope = scopeOf(principal, request);
  const rows = await endpointsRepo.listEndpoints(db, scope.companyId, { customerId: scope.customerId, facilityIds: scope.facilityIds });
  return { Endpoints: (await endpointsRepo.withFacilities(db, rows)).map(presentEndpoint) };
}

/** Every endpoint of a company, each customer's and the company-wide ones (the admin API's list). */
export async function listCompanyEndpoints(db: Db, companyId: string): Promise<EndpointListResult> {
  return { Endpoints: (await endpointsRepo.withFacilities(db, await endpointsRepo.listEndpoints(db, companyId))).map(presentEndpoint) };
}

/** Changes what the request sends; enabling clears the reason it was disabled and its failing streak. */
export function updateEndpoint(cx: CommandContext, request: EndpointUpdateRequest, allowPrivate: boolean): Promise<EndpointResult> {
  const scope = scopeOf(cx.principal, request);
  const url = request.Url === undefined ? undefined : checkedUrl(request.Url, allowPrivate);
  const facilityIds = request.FacilityIDs === undefined ? undefined : facilitiesOf(scope, request.FacilityIDs);
  return runCommand(cx, {
    run: async (trx) => {
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID);
      const enabled = request.Enabled === undefined ? undefined : request.Enabled ? 1 : 0;
      if (facilityIds !== undefined) await endpointsRepo.setEndpointFacilities(trx, keyOf(endpoint), facilityIds);
      const row = await endpointsRepo.updateEndpoint(trx, keyOf(endpoint), {
        url,
        event_types: request.EventTypes === undefined ? undefined : eventTypesColumn(request.EventTypes),
        description: request.Description,
        enabled,
        ...(enabled === 1 && endpoint.enabled === 0 ? { disabled_reason: null, failing_since: null } : {}),
        ...(enabled === 0 && endpoint.enabled === 1 ? { disabled_reason: 'Disabled by its owner' } : {}),
        updated_at: cx.clock.now(),
      });
      return { Endpoint: presentEndpoint({ ...row, facility_ids: facilityIds === undefined ? endpoint.facility_ids : facilityIds }) };
    },
  });
}

/** Deletes the endpoint, its deliveries and their log. */
export function deleteEndpoint(cx: CommandContext, request: EndpointLookup): Promise<EndpointDeleteResult> {
  const scope = scopeOf(cx.principal, request);
  return runCommand(cx, {
    run: async (trx) => {
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID);
      await endpointsRepo.deleteEndpoint(trx, keyOf(endpoint));
      return { Endpoint: { EndpointID: endpoint.endpoint_id, Deleted: true as const } };
    },
  });
}

/** A new secret, shown once; the old one keeps signing beside it for 24 hours. */
export function rotateSecret(cx: CommandContext, request: EndpointLookup): Promise<EndpointWithSecretResult> {
  const scope = scopeOf(cx.principal, request);
  return runCommand(cx, {
    run: async (trx) => {
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID);
      const now = cx.clock.now();
      const row = await endpointsRepo.updateEndpoint(trx, keyOf(endpoint), {
        secret: newSecret(),
        previous_secret: endpoint.secret,
        previous_secret_until: now + ROTATION_OVERLAP_MS,
        updated_at: now,
      });
      return { Endpoint: { ...presentEndpoint({ ...row, facility_ids: endpoint.facility_ids }), Secret: row.secret } };
    },
  });
}
