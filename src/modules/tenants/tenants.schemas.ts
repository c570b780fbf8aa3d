import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';

/** Tenant identifiers: the spec's strings of at most 15 characters, printable ASCII without spaces. */
const TenantId = Type.String({ pattern: '^[!-~]{1,15}$', 'x-message': 'must be 1 to 15 printable characters without spaces' });
const Name = Type.String({ maxLength: 200 });

export const ROLES = ['customer', 'operator', 'admin', 'rater'] as const;

export const NewCompanySchema = Type.Object({ companyId: TenantId, name: Type.Optional(Name) });
export type NewCompany = Static<typeof NewCompanySchema>;

export const NewCustomerSchema = Type.Object({ companyId: TenantId, customerId: TenantId, name: Type.Optional(Name) });
export type NewCustomer = Static<typeof NewCustomerSchema>;

export const NewFacilitySchema = Type.Object({
  companyId: TenantId,
  facilityId: TenantId,
  name: Type.Optional(Name),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
export type NewFacility = Static<typeof NewFacilitySchema>;

export const FacilityTimeZoneSchema = Type.Object({
  companyId: TenantId,
  facilityId: TenantId,
  timeZone: Type.String({ minLength: 1, maxLength: 64 }),
});
export type FacilityTimeZone = Static<typeof FacilityTimeZoneSchema>;

export const NewApiKeySchema = Type.Object({
  role: StringEnum(ROLES),
  companyId: TenantId,
  customerIds: Type.Array(TenantId, { maxItems: 1000 }),
  facilityIds: Type.Array(TenantId, { maxItems: 1000 }),
  userIds: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 1000 }),
  label: Type.String({ maxLength: 200 }),
  /** Requests a minute; absent or null: the routes' default (docs/operations.md); 0: no limit. */
  rateLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), Type.Null()])),
  /** When the key stops working (epoch milliseconds); absent: never. */
  expiresAt: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});
export type NewApiKey = Static<typeof NewApiKeySchema>;

/** What `company list --json` prints for a company. */
export interface CompanyView {
  company: string;
  name: string;
  createdAt: string;
}

/** What `customer list --json` prints for a customer. */
export interface CustomerView {
  company: string;
  customer: string;
  name: string;
  createdAt: string;
}

/** What `facility list --json` prints for a facility. */
export interface FacilityView {
  company: string;
  facility: string;
  name: string;
  timeZone: string;
  createdAt: string;
}

/** What `key list --json` prints for a key: never the key or its hash. */
export interface ApiKeyView {
  id: number;
  role: string;
  company: string;
  customers: string[];
  facilities: string[];
  userIds: number[];
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Requests a minute; null: the routes' default; 0: no limit. */
  rateLimit: number | null;
  /** When the key stops working; null: never. */
  expiresAt: string | null;
  /** The id of the key that replaced it (`key rotate`); null: none. */
  replacedBy: number | null;
}
