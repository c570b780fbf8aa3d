/**
 * The operator at the command line acting as a company's administrator: the context its commands
 * run with (webhooks, X12), and the checks a request built from arguments gets.
 */
import type { TSchema } from '@sinclair/typebox';
import { settleChange } from './app.js';
import type { Db } from './db/database.js';
import type { Principal } from './http/auth.js';
import type { CommandContext } from './http/command-context.js';
import { systemClock } from './lib/clock.js';
import { sha256Hex } from './lib/ids.js';
import { invalid, notFound } from './lib/refusal.js';
import { inputProblems } from './lib/validate.js';
import * as tenants from './modules/tenants/tenants.service.js';

/**
 * The API key the CLI's commands acting for a company act with: none. The operator at the command line acts as
 * the administrator of the company without a key, and what it writes records no key id (NULL), as
 * the CLI's other writes do (a rate card's loaded_by_key_id, an event's key_id). A Principal's keyId
 * is a number because every HTTP request has a key, so this null is typed as one; the webhook
 * services pass it only to webhook_endpoints.key_id (which takes NULL), to `settle` (which writes
 * nothing for them: they move no stock) and to the idempotency record (never written: the CLI sends
 * no Idempotency-Key). A made-up number such as 0 would read as a key that never existed; should a
 * service ever write it into a column that requires a key, NULL fails loudly instead.
 */
const NO_API_KEY = null as unknown as number;

/** The operator as the administrator of one company: every customer, every facility. */
export function companyAdmin(companyId: string): Principal {
  return { keyId: NO_API_KEY, role: 'admin', companyId, customerIds: [], facilityIds: [], userIds: [], rateLimit: null };
}

/** A command's context outside HTTP (as the demo builds one): the company's administrator, no Idempotency-Key. */
export function adminContext(db: Db, request: { CompanyID: string }): CommandContext {
  return {
    db,
    clock: systemClock,
    principal: companyAdmin(request.CompanyID),
    identity: { companyId: request.CompanyID, keyId: NO_API_KEY, requestHash: sha256Hex(JSON.stringify(request)) },
    settle: settleChange,
  };
}

/** A request built from arguments gets the checks its route's schema makes, in the same words. */
export function checkRequest(schema: TSchema, request: unknown): void {
  const problems = inputProblems(schema, request);
  if (problems.length > 0) throw invalid(...problems);
}

/** The company a command names must exist, and so must its customer and facility where it names them. */
export async function requireTenant(db: Db, request: { CompanyID: string; CustomerID?: string; FacilityID?: string }): Promise<void> {
  if (!(await tenants.companyExists(db, request.CompanyID))) throw notFound(`Company ${request.CompanyID} not found`);
  if (request.CustomerID !== undefined && !(await tenants.customerExists(db, request.CompanyID, request.CustomerID))) {
    throw notFound(`Customer ${request.CustomerID} not found in company ${request.CompanyID}`);
  }
  if (request.FacilityID !== undefined && !(await tenants.findFacilityRef(db, request.CompanyID, request.FacilityID))) {
    throw notFound(`Facility ${request.FacilityID} not found in company ${request.CompanyID}`);
  }
}
