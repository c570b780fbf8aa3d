import type { Generated } from 'kysely';

/** What the admin API changed, with the key that changed it; times are epoch milliseconds. */
export interface AdminChangeTable {
  company_id: string;
  id: Generated<number>;
  key_id: number;
  /** `customer.created`, `facility.updated`, `key.rotated`, `rate-card.loaded`, … */
  action: string;
  /** The CustomerID, FacilityID, KeyID or rate card version changed. */
  subject: string;
  /** What changed, as JSON: never key material. */
  detail: string;
  created_at: number;
}

export interface AdminTables {
  admin_changes: AdminChangeTable;
}
