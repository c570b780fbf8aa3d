import type { ApiKeyRow } from './tenants.repository.js';
import type { ApiKeyView } from './tenants.schemas.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

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
  };
}
