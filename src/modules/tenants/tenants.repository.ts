import type { Insertable, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import type { ApiKeyTable, CompanyTable, CustomerTable, FacilityTable } from './tenants.tables.js';

/** All SQL of companies, customers, facilities and API keys. */

export type ApiKeyRow = Selectable<ApiKeyTable>;
export type CompanyRow = Selectable<CompanyTable>;
export type CustomerRow = Selectable<CustomerTable>;
export type FacilityRow = Selectable<FacilityTable>;

export async function insertCompany(db: Db, row: Insertable<CompanyTable>): Promise<void> {
  await db.insertInto('companies').values(row).execute();
}

export async function findCompany(db: Db, companyId: string) {
  return db.selectFrom('companies').selectAll().where('company_id', '=', companyId).executeTakeFirst();
}

export async function listCompanies(db: Db): Promise<CompanyRow[]> {
  return db.selectFrom('companies').selectAll().orderBy('company_id').execute();
}

export async function insertCustomer(db: Db, row: Insertable<CustomerTable>): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

export async function listCustomers(db: Db, companyId?: string): Promise<CustomerRow[]> {
  return db
    .selectFrom('customers')
    .selectAll()
    .$if(companyId !== undefined, (q) => q.where('company_id', '=', companyId!))
    .orderBy('company_id')
    .orderBy('customer_id')
    .execute();
}

export async function findCustomer(db: Db, companyId: string, customerId: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** Renames the customer; answers whether it exists. */
export async function renameCustomer(db: Db, companyId: string, customerId: string, name: string): Promise<boolean> {
  const result = await db
    .updateTable('customers')
    .set({ name })
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findCustomerIds(db: Db, companyId: string, customerIds: string[]): Promise<string[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom('customers')
    .select('customer_id')
    .where('company_id', '=', companyId)
    .where('customer_id', 'in', customerIds)
    .execute();
  return rows.map((r) => r.customer_id);
}

export async function insertFacility(db: Db, row: Insertable<FacilityTable>): Promise<void> {
  await db.insertInto('facilities').values(row).execute();
}

export async function listFacilities(db: Db, companyId?: string): Promise<FacilityRow[]> {
  return db
    .selectFrom('facilities')
    .selectAll()
    .$if(companyId !== undefined, (q) => q.where('company_id', '=', companyId!))
    .orderBy('company_id')
    .orderBy('facility_id')
    .execute();
}

export async function findFacility(db: Db, companyId: string, facilityId: string): Promise<FacilityRow | undefined> {
  return db
    .selectFrom('facilities')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('facility_id', '=', facilityId)
    .executeTakeFirst();
}

/** The facility, locked until the transaction ends. */
export async function lockFacility(trx: Trx, companyId: string, facilityId: string): Promise<FacilityRow | undefined> {
  const query = trx.selectFrom('facilities').selectAll().where('company_id', '=', companyId).where('facility_id', '=', facilityId);
  return forUpdate(trx, query).executeTakeFirst();
}

export async function updateFacility(
  trx: Trx,
  companyId: string,
  facilityId: string,
  changes: Partial<Pick<FacilityRow, 'name' | 'time_zone'>>,
): Promise<void> {
  await trx.updateTable('facilities').set(changes).where('company_id', '=', companyId).where('facility_id', '=', facilityId).execute();
}

export async function findFacilityIds(db: Db, companyId: string, facilityIds: string[]): Promise<string[]> {
  if (facilityIds.length === 0) return [];
  const rows = await db
    .selectFrom('facilities')
    .select('facility_id')
    .where('company_id', '=', companyId)
    .where('facility_id', 'in', facilityIds)
    .execute();
  return rows.map((r) => r.facility_id);
}

export async function insertApiKey(db: Db, row: Insertable<ApiKeyTable>): Promise<number> {
  const { id } = await db.insertInto('api_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKey(db: Db, id: number): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The key, locked until the transaction ends. */
export async function lockApiKey(trx: Trx, id: number): Promise<ApiKeyRow | undefined> {
  return forUpdate(trx, trx.selectFrom('api_keys').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** Marks the key replaced by `replacedBy`: it works until `expiresAt`, the end of its grace period. */
export async function replaceApiKey(
  trx: Trx,
  id: number,
  { replacedBy, expiresAt }: { replacedBy: number; expiresAt: number },
): Promise<void> {
  await trx.updateTable('api_keys').set({ replaced_by: replacedBy, expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function listApiKeys(db: Db, companyId?: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .$if(companyId !== undefined, (q) => q.where('company_id', '=', companyId!))
    .orderBy('id')
    .execute();
}

/** Records a use, unless one was recorded after `staleBefore` (so a busy key is written rarely). */
export async function touchApiKey(db: Db, id: number, now: number, staleBefore: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}

export async function revokeApiKey(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}
