import type { Generated } from 'kysely';

/** Times are epoch milliseconds (UTC). */
export interface CompanyTable {
  company_id: string;
  name: string;
  created_at: number;
}

export interface CustomerTable {
  company_id: string;
  customer_id: string;
  name: string;
  created_at: number;
}

export interface FacilityTable {
  company_id: string;
  facility_id: string;
  name: string;
  time_zone: string;
  created_at: number;
}

/** Scope lists are JSON arrays of IDs; an empty facility list means every facility of the company. */
export interface ApiKeyTable {
  id: Generated<number>;
  key_hash: string;
  role: string;
  company_id: string;
  customer_ids: string;
  facility_ids: string;
  user_ids: string;
  label: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Requests a minute this key may make; null: the route's default; 0: no limit. */
  rate_limit: number | null;
  /** When the key stops working; null: never. */
  expires_at: number | null;
  /** The key that replaced it (`key rotate`); null: none. A replaced key works until its expiry, the end of its grace period. */
  replaced_by: number | null;
}

export interface TenantTables {
  companies: CompanyTable;
  customers: CustomerTable;
  facilities: FacilityTable;
  api_keys: ApiKeyTable;
}
