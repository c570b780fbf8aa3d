import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/database.js';
import type { Role } from '../../src/http/auth.js';
import type { Clock } from '../../src/lib/clock.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';

/** Test data builders: each makes what it needs, with unique IDs, through the services. */

export const uniqueId = (prefix: string) => `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`.slice(0, 15);

export interface Tenant {
  companyId: string;
  customerIds: string[];
  facilityIds: string[];
}

/** A company with the given number of customers and facilities (one of each by default). */
export async function createTenant(
  db: Db,
  clock: Clock,
  { customers = 1, facilities = 1, timeZone = 'America/Los_Angeles' } = {},
): Promise<Tenant> {
  const companyId = uniqueId('CO');
  await tenants.addCompany(db, clock, { companyId });
  const customerIds = Array.from({ length: customers }, () => uniqueId('CU'));
  const facilityIds = Array.from({ length: facilities }, () => uniqueId('FA'));
  for (const customerId of customerIds) await tenants.addCustomer(db, clock, { companyId, customerId });
  for (const facilityId of facilityIds) await tenants.addFacility(db, clock, { companyId, facilityId, timeZone });
  return { companyId, customerIds, facilityIds };
}

/** A key of `role` in the tenant's company; customer keys default to the first customer. */
export async function createKey(
  db: Db,
  clock: Clock,
  tenant: Tenant,
  role: Role,
  scope: { customerIds?: string[]; facilityIds?: string[]; userIds?: number[] } = {},
): Promise<string> {
  const { key } = await tenants.createApiKey(db, clock, {
    role,
    companyId: tenant.companyId,
    customerIds: scope.customerIds ?? (role === 'customer' ? [tenant.customerIds[0]!] : []),
    facilityIds: scope.facilityIds ?? [],
    userIds: scope.userIds ?? (role === 'rater' ? [1] : []),
    label: `test ${role}`,
  });
  return key;
}

/** The spec's error array a test expects for these messages. */
export const problems = (...messages: string[]) => messages.map((error) => ({ code: `EDI-ERROR-${error}`, error }));

/** A tenant of two customers and two facilities (America/Los_Angeles) with keys of every kind. */
export interface World {
  tenant: Tenant;
  admin: string;
  /** A customer key of the first customer. */
  customer: string;
  /** A customer key of the second customer. */
  otherCustomer: string;
  /** An operator key of the first facility. */
  operator: string;
  /** An operator key of the second facility. */
  otherOperator: string;
}

export async function createWorld(db: Db, clock: Clock): Promise<World> {
  const tenant = await createTenant(db, clock, { customers: 2, facilities: 2, timeZone: 'America/Los_Angeles' });
  return {
    tenant,
    admin: await createKey(db, clock, tenant, 'admin'),
    customer: await createKey(db, clock, tenant, 'customer', { customerIds: [tenant.customerIds[0]!] }),
    otherCustomer: await createKey(db, clock, tenant, 'customer', { customerIds: [tenant.customerIds[1]!] }),
    operator: await createKey(db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[0]!] }),
    otherOperator: await createKey(db, clock, tenant, 'operator', { facilityIds: [tenant.facilityIds[1]!] }),
  };
}
