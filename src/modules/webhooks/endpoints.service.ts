import type { Db } from '../../db/database.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { forbidden, invalid, notFound } from '../../lib/refusal.js';
import { nextSortableId } from '../../lib/ids.js';
import { runCommand } from '../commands/commands.service.js';
import { urlProblem } from './address-policy.js';
import { newSecret } from './signature.js';
import { presentEndpoint } from './webhooks.present.js';
import * as repo from './webhooks.repository.js';
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
 * Webhook endpoints (DESIGN §13): a customer's system manages its own; an admin manages every
 * endpoint of its company, and its endpoints without a CustomerID take every customer's events.
 * The secret is shown when it is made, at creation and rotation, and never again.
 */

/** How long a rotated secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Which endpoints a request may see: one customer's, or (an admin without CustomerID) the whole company's. */
interface EndpointScope {
  companyId: string;
  /** undefined: every endpoint of the company. */
  customerId?: string;
}

/** Why a key limited to facilities is refused: an endpoint has no facility. */
export const FACILITY_KEY_REFUSED =
  'An API key limited to facilities may not manage webhooks: an endpoint takes the events of every facility';

/**
 * The request's scope; a customer key must name its customer (the authorizer checked it is its own).
 * A key limited to facilities is refused: endpoints and their deliveries carry the events of every
 * facility of the customer, which that key may not read.
 */
export function scopeOf(principal: Principal, request: { CompanyID: string; CustomerID?: string }): EndpointScope {
  if (principal.facilityIds.length > 0) throw forbidden(FACILITY_KEY_REFUSED);
  if (request.CustomerID === undefined && principal.role !== 'admin') throw invalid('CustomerID is required');
  return { companyId: request.CompanyID, customerId: request.CustomerID };
}

/** The endpoint the request names, in its scope; elsewhere it is 404 as an unknown one. */
export async function requireEndpoint(db: Db, scope: EndpointScope, endpointId: string): Promise<repo.EndpointRow> {
  const row = await repo.findEndpoint(db, scope.companyId, endpointId);
  if (!row || (scope.customerId !== undefined && row.customer_id !== scope.customerId)) {
    throw notFound(`Not found endpoint ${endpointId}`);
  }
  return row;
}

function checkedUrl(url: string, allowPrivate: boolean): string {
  const problem = urlProblem(url, allowPrivate);
  if (problem) throw invalid(problem);
  return url;
}

const eventTypesColumn = (types: readonly string[] | null | undefined) =>
  types === null || types === undefined ? null : JSON.stringify(types);

export function createEndpoint(
  cx: CommandContext,
  request: EndpointCreateRequest,
  allowPrivate: boolean,
  /** The demo names its endpoints, so that the document's examples can. */
  endpointId?: string,
): Promise<EndpointWithSecretResult> {
  const scope = scopeOf(cx.principal, request);
  const url = checkedUrl(request.Url, allowPrivate);
  return runCommand(cx, {
    run: async (trx) => {
      const now = cx.clock.now();
      const row = await repo.insertEndpoint(trx, {
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
      return { Endpoint: { ...presentEndpoint(row), Secret: row.secret } };
    },
  });
}

export async function listEndpoints(db: Db, principal: Principal, request: EndpointListRequest): Promise<EndpointListResult> {
  const scope = scopeOf(principal, request);
  return { Endpoints: (await repo.listEndpoints(db, scope.companyId, scope.customerId)).map(presentEndpoint) };
}

/** Every endpoint of a company, each customer's and the company-wide ones (the admin API's list). */
export async function listCompanyEndpoints(db: Db, companyId: string): Promise<EndpointListResult> {
  return { Endpoints: (await repo.listEndpoints(db, companyId)).map(presentEndpoint) };
}

/** Changes what the request sends; enabling clears the reason it was disabled and its failing streak. */
export function updateEndpoint(cx: CommandContext, request: EndpointUpdateRequest, allowPrivate: boolean): Promise<EndpointResult> {
  const scope = scopeOf(cx.principal, request);
  const url = request.Url === undefined ? undefined : checkedUrl(request.Url, allowPrivate);
  return runCommand(cx, {
    run: async (trx) => {
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID);
      const enabled = request.Enabled === undefined ? undefined : request.Enabled ? 1 : 0;
      const row = await repo.updateEndpoint(
        trx,
        { companyId: endpoint.company_id, id: endpoint.id },
        {
          url,
          event_types: request.EventTypes === undefined ? undefined : eventTypesColumn(request.EventTypes),
          description: request.Description,
          enabled,
          ...(enabled === 1 && endpoint.enabled === 0 ? { disabled_reason: null, failing_since: null } : {}),
          ...(enabled === 0 && endpoint.enabled === 1 ? { disabled_reason: 'Disabled by its owner' } : {}),
          updated_at: cx.clock.now(),
        },
      );
      return { Endpoint: presentEndpoint(row) };
    },
  });
}

/** Deletes the endpoint, its deliveries and their log. */
export function deleteEndpoint(cx: CommandContext, request: EndpointLookup): Promise<EndpointDeleteResult> {
  const scope = scopeOf(cx.principal, request);
  return runCommand(cx, {
    run: async (trx) => {
      const endpoint = await requireEndpoint(trx, scope, request.EndpointID);
      await repo.deleteEndpoint(trx, { companyId: endpoint.company_id, id: endpoint.id });
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
      const row = await repo.updateEndpoint(
        trx,
        { companyId: endpoint.company_id, id: endpoint.id },
        { secret: newSecret(), previous_secret: endpoint.secret, previous_secret_until: now + ROTATION_OVERLAP_MS, updated_at: now },
      );
      return { Endpoint: { ...presentEndpoint(row), Secret: row.secret } };
    },
  });
}
