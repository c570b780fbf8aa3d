import { IANAZone } from 'luxon';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { inTransaction } from '../../db/transaction.js';
import type { FacilityRef, Principal, Role } from '../../http/auth.js';
import { conflict, invalid, notFound } from '../../lib/refusal.js';
import type { Clock } from '../../lib/clock.js';
import { randomToken, sha256Hex } from '../../lib/ids.js';
import { inputProblems } from '../../lib/validate.js';
import type { TSchema } from '@sinclair/typebox';
import type { ApiKeyDescription } from './api-key.schemas.js';
import { presentApiKey, presentCompany, presentCustomer, presentFacility } from './tenants.present.js';
import * as repo from './tenants.repository.js';
import {
  NewApiKeySchema,
  NewCompanySchema,
  NewCustomerSchema,
  NewFacilitySchema,
  FacilityTimeZoneSchema,
  type ApiKeyView,
  type CompanyView,
  type CustomerView,
  type FacilityTimeZone,
  type FacilityView,
  type NewApiKey,
  type NewCompany,
  type NewCustomer,
  type NewFacility,
} from './tenants.schemas.js';

/** Companies, their customers and facilities, and the API keys that act for them. */

/** A key's last use is recorded at most this often, so that busy keys do not write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;
const KEY_PREFIX = 'wk_';

function assertInput(schema: TSchema, input: unknown): void {
  const problems = inputProblems(schema, input);
  if (problems.length > 0) throw invalid(...problems);
}

async function insertOnce(insert: () => Promise<void>, duplicateMessage: string): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(duplicateMessage);
    throw error;
  }
}

export async function companyExists(db: Db, companyId: string): Promise<boolean> {
  return (await repo.findCompany(db, companyId)) !== undefined;
}

async function requireCompany(db: Db, companyId: string): Promise<void> {
  if (!(await companyExists(db, companyId))) throw notFound(`Company ${companyId} not found`);
}

export async function addCompany(db: Db, clock: Clock, input: NewCompany): Promise<void> {
  assertInput(NewCompanySchema, input);
  await insertOnce(
    () => repo.insertCompany(db, { company_id: input.companyId, name: input.name ?? input.companyId, created_at: clock.now() }),
    `Company ${input.companyId} already exists`,
  );
}

export async function addCustomer(db: Db, clock: Clock, input: NewCustomer): Promise<CustomerView> {
  assertInput(NewCustomerSchema, input);
  await requireCompany(db, input.companyId);
  const row = { company_id: input.companyId, customer_id: input.customerId, name: input.name ?? input.customerId, created_at: clock.now() };
  await insertOnce(() => repo.insertCustomer(db, row), `Customer ${input.customerId} already exists in company ${input.companyId}`);
  return presentCustomer(row);
}

/** `name`: how the caller names the time zone (the CLI's `timezone`, the admin API's `TimeZone`). */
function assertTimeZone(timeZone: string, name: string): void {
  if (!IANAZone.isValidZone(timeZone)) throw invalid(`${name} ${timeZone} is not an IANA time zone (e.g. America/Chicago)`);
}

export async function addFacility(db: Db, clock: Clock, input: NewFacility, timeZoneName = 'timezone'): Promise<FacilityView> {
  assertInput(NewFacilitySchema, input);
  const timeZone = input.timeZone ?? 'UTC';
  assertTimeZone(timeZone, timeZoneName);
  await requireCompany(db, input.companyId);
  const row = {
    company_id: input.companyId,
    facility_id: input.facilityId,
    name: input.name ?? input.facilityId,
    time_zone: timeZone,
    created_at: clock.now(),
  };
  await insertOnce(() => repo.insertFacility(db, row), `Facility ${input.facilityId} already exists in company ${input.companyId}`);
  return presentFacility(row);
}

export async function listCompanies(db: Db): Promise<CompanyView[]> {
  return (await repo.listCompanies(db)).map(presentCompany);
}

/** The customers of every company, or of one (which must exist). */
export async function listCustomers(db: Db, companyId?: string): Promise<CustomerView[]> {
  if (companyId !== undefined) await requireCompany(db, companyId);
  return (await repo.listCustomers(db, companyId)).map(presentCustomer);
}

/** The facilities of every company, or of one (which must exist). */
export async function listFacilities(db: Db, companyId?: string): Promise<FacilityView[]> {
  if (companyId !== undefined) await requireCompany(db, companyId);
  return (await repo.listFacilities(db, companyId)).map(presentFacility);
}

/**
 * Moves a facility to another time zone. Documents keep their instants: a time read after the
 * change is the same instant, shown in the new zone (a server trusts a facility it looked up for
 * about a second, docs/access.md). Answers the facility and the zone it had.
 */
export async function setFacilityTimeZone(db: Db, input: FacilityTimeZone): Promise<{ facility: FacilityView; previousTimeZone: string }> {
  assertInput(FacilityTimeZoneSchema, input);
  const { facility, before } = await updateFacility(db, input, 'timezone');
  return { facility, previousTimeZone: before.timeZone };
}

/**
 * Renames a facility, or moves it to another time zone (see setFacilityTimeZone), or both; answers
 * it as it was and as it is. `timeZoneName` is how the caller names the zone in a refusal.
 */
export async function updateFacility(
  db: Db,
  input: { companyId: string; facilityId: string; name?: string; timeZone?: string },
  timeZoneName: string,
): Promise<{ facility: FacilityView; before: FacilityView }> {
  if (input.timeZone !== undefined) assertTimeZone(input.timeZone, timeZoneName);
  await requireCompany(db, input.companyId);
  return inTransaction(db, async (trx) => {
    const before = await repo.lockFacility(trx, input.companyId, input.facilityId);
    if (!before) throw notFound(`Facility ${input.facilityId} not found in company ${input.companyId}`);
    const after = { ...before, name: input.name ?? before.name, time_zone: input.timeZone ?? before.time_zone };
    if (after.name !== before.name || after.time_zone !== before.time_zone) {
      await repo.updateFacility(trx, input.companyId, input.facilityId, { name: after.name, time_zone: after.time_zone });
    }
    return { facility: presentFacility(after), before: presentFacility(before) };
  });
}

/** Renames a customer of the company; answers it. */
export async function renameCustomer(db: Db, input: { companyId: string; customerId: string; name: string }): Promise<CustomerView> {
  if (!(await repo.renameCustomer(db, input.companyId, input.customerId, input.name))) {
    throw notFound(`Customer ${input.customerId} not found in company ${input.companyId}`);
  }
  return presentCustomer((await repo.findCustomer(db, input.companyId, input.customerId))!);
}

/** Which scope lists each role takes; a list a role does not use is refused rather than ignored. */
const scopeRules: Record<
  Role,
  { customers: 'required' | 'optional' | 'refused'; facilities: 'optional' | 'refused'; userIds: 'required' | 'refused' }
> = {
  customer: { customers: 'required', facilities: 'optional', userIds: 'refused' },
  operator: { customers: 'refused', facilities: 'optional', userIds: 'refused' },
  admin: { customers: 'refused', facilities: 'refused', userIds: 'refused' },
  rater: { customers: 'refused', facilities: 'refused', userIds: 'required' },
};

/** How a caller names a new key's fields in its messages: the CLI's flags, or the admin API's keys. */
export interface KeyFieldNames {
  /** Each scope list: one entry of it, and the list as a whole. */
  customers: { one: string; list: string };
  facilities: { one: string; list: string };
  userIds: { one: string; list: string };
  expiresAt: string;
}

export const CLI_KEY_FIELDS: KeyFieldNames = {
  customers: { one: '--customer', list: '--customer' },
  facilities: { one: '--facility', list: '--facility' },
  userIds: { one: '--user-id', list: '--user-id' },
  expiresAt: '--expires',
};

function scopeProblems(input: NewApiKey, names: KeyFieldNames): string[] {
  const rule = scopeRules[input.role];
  const problems: string[] = [];
  const check = (name: { one: string; list: string }, list: unknown[], mode: 'required' | 'optional' | 'refused') => {
    if (mode === 'required' && list.length === 0) problems.push(`a ${input.role} key needs at least one ${name.one}`);
    if (mode === 'refused' && list.length > 0) problems.push(`a ${input.role} key takes no ${name.list}`);
  };
  check(names.customers, input.customerIds, rule.customers);
  check(names.facilities, input.facilityIds, rule.facilities);
  check(names.userIds, input.userIds, rule.userIds);
  return problems;
}

const unique = <T>(values: T[]) => [...new Set(values)];

/** A new key: shown once, stored only as its hash. */
const newKey = () => KEY_PREFIX + randomToken(32);

/** Creates a key and returns it with its id; the key itself is shown this once and stored hashed. */
export async function createApiKey(
  db: Db,
  clock: Clock,
  input: NewApiKey,
  names: KeyFieldNames = CLI_KEY_FIELDS,
): Promise<{ key: string; view: ApiKeyView }> {
  assertInput(NewApiKeySchema, input);
  const problems = scopeProblems(input, names);
  if (problems.length > 0) throw invalid(...problems);
  const now = clock.now();
  if (input.expiresAt !== undefined && input.expiresAt <= now) {
    throw invalid(`${names.expiresAt} ${new Date(input.expiresAt).toISOString()} is not in the future`);
  }
  await requireCompany(db, input.companyId);

  const customerIds = unique(input.customerIds);
  const facilityIds = unique(input.facilityIds);
  const knownCustomers = await repo.findCustomerIds(db, input.companyId, customerIds);
  const knownFacilities = await repo.findFacilityIds(db, input.companyId, facilityIds);
  const missing = [
    ...customerIds.filter((c) => !knownCustomers.includes(c)).map((c) => `customer ${c} does not exist in company ${input.companyId}`),
    ...facilityIds.filter((f) => !knownFacilities.includes(f)).map((f) => `facility ${f} does not exist in company ${input.companyId}`),
  ];
  if (missing.length > 0) throw invalid(...missing);

  const key = newKey();
  const id = await repo.insertApiKey(db, {
    key_hash: sha256Hex(key),
    role: input.role,
    company_id: input.companyId,
    customer_ids: JSON.stringify(customerIds),
    facility_ids: JSON.stringify(facilityIds),
    user_ids: JSON.stringify(unique(input.userIds)),
    label: input.label,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    rate_limit: input.rateLimit ?? null,
    expires_at: input.expiresAt ?? null,
  });
  const row = await repo.findApiKey(db, id);
  return { key, view: presentApiKey(row!) };
}

/** A key by its id, never its secret; undefined when there is none. */
export async function findApiKeyView(db: Db, id: number): Promise<ApiKeyView | undefined> {
  const row = await repo.findApiKey(db, id);
  return row && presentApiKey(row);
}

/**
 * What the key behind `principal` may do, in the API's words: the customers and facilities it
 * reaches (a key limited to none reaches every one of its company), never the key itself.
 */
export async function describeApiKey(db: Db, principal: Principal): Promise<ApiKeyDescription> {
  const key = (await findApiKeyView(db, principal.keyId))!;
  const customers =
    principal.role === 'customer'
      ? principal.customerIds
      : (await repo.listCustomers(db, principal.companyId)).map((row) => row.customer_id);
  const facilities =
    principal.facilityIds.length > 0
      ? principal.facilityIds
      : (await repo.listFacilities(db, principal.companyId)).map((row) => row.facility_id);
  return {
    KeyID: principal.keyId,
    Role: principal.role,
    CompanyID: principal.companyId,
    Customers: customers,
    Facilities: facilities,
    UserIDs: principal.userIds,
    Label: key.label,
    ExpiresAt: key.expiresAt,
  };
}

export async function listApiKeys(db: Db, companyId?: string): Promise<ApiKeyView[]> {
  return (await repo.listApiKeys(db, companyId)).map(presentApiKey);
}

/** How long `key rotate` may leave the old key working: up to a year. */
export const MAX_ROTATION_GRACE_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * Replaces a key: a new key of the same role, scope, label, rate limit and expiry, while the old
 * one keeps working for `graceMs` and then expires (or sooner, when it was to expire sooner), and
 * names the key that replaced it. A revoked or expired key is not rotated: its callers are
 * already cut off; nor is a key already replaced, in its grace period: its replacement is the key
 * to rotate (two replacements of one key would leave two new keys working).
 */
export async function rotateApiKey(
  db: Db,
  clock: Clock,
  id: number,
  graceMs: number,
): Promise<{ key: string; view: ApiKeyView; replaced: ApiKeyView }> {
  if (!Number.isSafeInteger(id) || id < 1) throw invalid('key id must be a positive integer');
  if (!Number.isSafeInteger(graceMs) || graceMs < 0 || graceMs > MAX_ROTATION_GRACE_MS) {
    throw invalid('--grace must be from 0 to 8760 hours (a year)');
  }
  return inTransaction(db, async (trx) => {
    const old = await repo.lockApiKey(trx, id);
    if (!old) throw notFound(`API key ${id} not found`);
    if (old.revoked_at !== null) throw conflict(`API key ${id} is revoked; it cannot be rotated`);
    const now = clock.now();
    if (old.expires_at !== null && old.expires_at <= now) {
      throw conflict(`API key ${id} expired at ${new Date(old.expires_at).toISOString()}; it cannot be rotated`);
    }
    if (old.replaced_by !== null) {
      const successor = Number(old.replaced_by);
      throw conflict(
        `API key ${id} was already replaced by key ${successor} and works only until ${new Date(old.expires_at!).toISOString()}; rotate key ${successor} instead`,
      );
    }
    const key = newKey();
    // Everything the old key was (role, company, scope, label, rate limit, expiry), but its secret and its history.
    const { id: _oldId, ...kept } = old;
    const newId = await repo.insertApiKey(trx, {
      ...kept,
      key_hash: sha256Hex(key),
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      replaced_by: null,
    });
    await repo.replaceApiKey(trx, id, { replacedBy: newId, expiresAt: Math.min(old.expires_at ?? Infinity, now + graceMs) });
    const created = await repo.findApiKey(trx, newId);
    const replaced = await repo.findApiKey(trx, id);
    return { key, view: presentApiKey(created!), replaced: presentApiKey(replaced!) };
  });
}

/** Revokes a key at once for every process; revoking a revoked key keeps its first revocation time. */
export async function revokeApiKey(db: Db, clock: Clock, id: number): Promise<ApiKeyView> {
  if (!Number.isSafeInteger(id) || id < 1) throw invalid('key id must be a positive integer');
  await repo.revokeApiKey(db, id, clock.now());
  const row = await repo.findApiKey(db, id);
  if (!row) throw notFound(`API key ${id} not found`);
  return presentApiKey(row);
}

/** The principal of a working key, and the instant the key stops working (null: never). */
export interface AuthenticatedKey extends Principal {
  expiresAt: number | null;
}

/**
 * The principal a presented key stands for, or undefined when the key is unknown, revoked or
 * expired (it works until the instant before its expiry).
 */
export async function authenticateApiKey(db: Db, clock: Clock, presentedKey: string): Promise<AuthenticatedKey | undefined> {
  const row = await repo.findApiKeyByHash(db, sha256Hex(presentedKey));
  const now = clock.now();
  if (!row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return undefined;
  if (row.last_used_at === null || row.last_used_at < now - LAST_USED_RESOLUTION_MS) {
    await repo.touchApiKey(db, Number(row.id), now, now - LAST_USED_RESOLUTION_MS);
  }
  return {
    keyId: Number(row.id),
    role: row.role as Role,
    companyId: row.company_id,
    customerIds: JSON.parse(row.customer_ids) as string[],
    facilityIds: JSON.parse(row.facility_ids) as string[],
    userIds: JSON.parse(row.user_ids) as number[],
    rateLimit: row.rate_limit,
    expiresAt: row.expires_at,
  };
}

/** A facility of the company as a request's scope check keeps it; undefined when the company has none such. */
export async function findFacilityRef(db: Db, companyId: string, facilityId: string): Promise<FacilityRef | undefined> {
  const facility = await repo.findFacility(db, companyId, facilityId);
  return facility && { facilityId: facility.facility_id, timeZone: facility.time_zone };
}

export async function customerExists(db: Db, companyId: string, customerId: string): Promise<boolean> {
  return (await repo.findCustomerIds(db, companyId, [customerId])).length === 1;
}

/**
 * The time zone of a facility that the request's scope check has already found (docs/access.md's order
 * of checks): the one it kept (`known`, a command's `cx.facility`) without reading it again, else
 * read. A facility missing here is the calling code's bug, not the caller's.
 */
export async function facilityTimeZone(db: Db, companyId: string, facilityId: string, known?: FacilityRef): Promise<string> {
  if (known?.facilityId === facilityId) return known.timeZone;
  const facility = await repo.findFacility(db, companyId, facilityId);
  if (!facility) throw new Error(`a facility was used before the scope check found it`);
  return facility.time_zone;
}
