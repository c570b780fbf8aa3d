import type { ApiKeyRow, CompanyRow, CustomerRow, FacilityRow } from './tenants.repository.js';
import type { ApiKeyView, CompanyView, CustomerView, FacilityView } from './tenants.schemas.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const iso = (ms: number) => new Date(ms).toISOString();

export function presentCompany(row: CompanyRow): CompanyView {
  return { company: row.company_id, name: row.name, createdAt: iso(row.created_at) };
}

export function presentCustomer(row: CustomerRow): CustomerView {
  return { company: row.company_id, customer: row.customer_id, name: row.name, createdAt: iso(row.created_at) };
}

export function presentFacility(row: FacilityRow): FacilityView {
  return { company: row.company_id, facility: row.facility_id, name: row.name, timeZone: row.time_zone, createdAt: iso(row.created_at) };
}

export function presentApiKey(row: ApiKeyRow): ApiKeyView {
  return {
    id: Number(row.id),
    role: row.role,
    company: row.company_id,
    customers: JSON.parse(row.customer_ids) as string[],
    facilities: JSON.parse(row.facility_ids) as string[],
    userIds: JSON.parse(row.user_ids) as number[],
    label: row.label,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: isoOrNull(row.last_used_at),
    revokedAt: isoOrNull(row.revoked_at),
    rateLimit: row.rate_limit,
    expiresAt: isoOrNull(row.expires_at),
    replacedBy: row.replaced_by === null ? null : Number(row.replaced_by),
  };
}
