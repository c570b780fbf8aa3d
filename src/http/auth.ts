import type { FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { isStorableText } from '../lib/json-values.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import { forbidden, unauthenticated, unknownFacility } from '../lib/refusal.js';

/** Who is calling: the API key's id, role and scope (from the tenants module's key lookup). */
export type Role = 'customer' | 'operator' | 'admin' | 'rater';

/** Who acts on a document: the customer's system, or the warehouse. An admin key acts as either. */
export type Actor = 'customer' | 'operator';

export const ROLES_OF: Record<Actor, readonly Role[]> = { customer: ['customer', 'admin'], operator: ['operator', 'admin'] };

export interface Principal {
  keyId: number;
  role: Role;
  companyId: string;
  /** The customers a customer key may act for. */
  customerIds: string[];
  /** The facilities the key may act in; empty means every facility of its company. */
  facilityIds: string[];
  /** The rate-engine UserIDs a rater key may quote for. */
  userIds: number[];
  /** The key's own limit of requests a minute (null: the routes' default; 0: none). */
  rateLimit: number | null;
}

/** Resolves a presented key to its principal; undefined when unknown or revoked. */
export type KeyLookup = (presentedKey: string) => MaybePromise<Principal | undefined>;

/** A facility a request names, as its scope check found it. */
export interface FacilityRef {
  facilityId: string;
  timeZone: string;
}

/** The tenant facts that scope checks need, answered by the tenants module. */
export interface TenantDirectory {
  findFacility(companyId: string, facilityId: string): MaybePromise<FacilityRef | undefined>;
  customerExists(companyId: string, customerId: string): MaybePromise<boolean>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** The facility the body names, once the scope check found it (its services need not read it again). */
    facility?: FacilityRef;
  }
}

const SCHEME = /^APIKey +(\S+)$/i;

/**
 * `onRequest` hook: every route it guards needs `Authorization: APIKey <key>` (401 otherwise). It
 * takes a callback rather than returning a promise, so that a key the lookup remembers admits the
 * request without waiting for the microtask queue.
 */
export function authenticate(lookup: KeyLookup): onRequestHookHandler {
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    if (!header) return done(unauthenticated('Missing Authorization header; send Authorization: APIKey <key>'));
    const match = SCHEME.exec(header.trim());
    if (!match) return done(unauthenticated('Authorization header must be APIKey <key>'));
    const admit = (principal: Principal | undefined) => {
      if (!principal) return done(unauthenticated('Unknown or revoked API key'));
      request.principal = principal;
      done();
    };
    const principal = lookup(match[1]!);
    if (principal instanceof Promise) principal.then(admit, done);
    else admit(principal);
  };
}

/** The tenant identifiers an operation's body names (not yet validated on the failure path). */
interface BodyIdentifiers {
  CompanyID?: unknown;
  CustomerID?: unknown;
  FacilityID?: unknown;
  FacilityIDs?: unknown;
}

/** What an operation's body names besides its CompanyID, CustomerID and FacilityID. */
export interface AuthorizeOptions {
  /**
   * The body may list facilities in FacilityIDs (a webhook endpoint's), each checked as a FacilityID
   * is. Only operations whose schema has the list (and bounds it) ask for it: elsewhere a
   * FacilityIDs key is nothing of Wharf's.
   */
  facilityList?: boolean;
}

/** 403 unless the key's role may call an operation of `roles`. */
export function requireRole(principal: Principal, roles: readonly Role[]): void {
  if (!roles.includes(principal.role)) throw forbidden(`An API key with role ${principal.role} may not call this operation`);
}

/** Builds the `preHandler` that runs the checks of `permit` for an operation's roles. */
export interface Authorize {
  (roles: readonly Role[], options?: AuthorizeOptions): preHandlerHookHandler;
  /**
   * The same checks without a request: throws the 403 or 400 a request would get, and answers the
   * facility the body names. Used where a body failed validation but its identifiers may still
   * deserve a failure ACK.
   */
  check(principal: Principal, body: unknown, roles: readonly Role[], options?: AuthorizeOptions): Promise<FacilityRef | undefined>;
}

/**
 * Checks, in the order of docs/access.md, the key's role and the body's CompanyID (403), that the FacilityID
 * exists in that company (400 Not found facility), and the CustomerID and FacilityID against the
 * key's scope (403); each entry of a FacilityIDs list (where the operation has one) as a FacilityID,
 * every one's existence before any one's scope. The preHandler keeps the facility it found on the
 * request.
 */
export function createAuthorizer(directory: TenantDirectory): Authorize {
  const check = async (principal: Principal, body: unknown, roles: readonly Role[], options: AuthorizeOptions = {}) => {
    let facility: FacilityRef | undefined;
    const ids = (body ?? {}) as BodyIdentifiers;
    const companyId = ids.CompanyID;
    const customerId = ids.CustomerID;
    const facilityId = ids.FacilityID;

    requireRole(principal, roles);
    if (companyId !== principal.companyId) throw forbidden(`CompanyID ${String(companyId)} is outside this API key's scope`);
    if (facilityId !== undefined) {
      // A text that cannot be stored names no facility (and must not reach the database).
      facility =
        typeof facilityId === 'string' && isStorableText(facilityId)
          ? await directory.findFacility(principal.companyId, facilityId)
          : undefined;
      if (!facility) throw unknownFacility();
      if (principal.facilityIds.length > 0 && !principal.facilityIds.includes(facility.facilityId)) {
        throw forbidden(`FacilityID ${facilityId} is outside this API key's scope`);
      }
    }
    const listed = options.facilityList && Array.isArray(ids.FacilityIDs) ? (ids.FacilityIDs as unknown[]) : [];
    for (const entry of listed) {
      const known = typeof entry === 'string' && isStorableText(entry) && (await directory.findFacility(principal.companyId, entry));
      if (!known) throw unknownFacility();
    }
    const outside = principal.facilityIds.length > 0 && listed.find((entry) => !principal.facilityIds.includes(entry as string));
    if (outside) throw forbidden(`FacilityID ${String(outside)} is outside this API key's scope`);
    if (customerId !== undefined) {
      const inScope =
        typeof customerId === 'string' &&
        isStorableText(customerId) &&
        (principal.role === 'customer'
          ? principal.customerIds.includes(customerId)
          : await directory.customerExists(companyId, customerId));
      if (!inScope) throw forbidden(`CustomerID ${String(customerId)} is outside this API key's scope`);
    }
    return facility;
  };
  const preHandler = (roles: readonly Role[], options?: AuthorizeOptions) => async (request: FastifyRequest) => {
    request.facility = await check(request.principal, request.body, roles, options);
  };
  return Object.assign(preHandler, { check });
}
