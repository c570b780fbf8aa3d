/** The answer a state-changing request gave, kept per (company, API key, Idempotency-Key). */
export interface IdempotencyRecordTable {
  company_id: string;
  key_id: number;
  idempotency_key: string;
  /** SHA-256 of method, path and body: "the same request". */
  request_hash: string;
  /** Null for a success; else the kind of the refusal (lib/refusal.ts). */
  refusal_kind: string | null;
  /** The success body as JSON, or the refusal's messages as a JSON array of strings. */
  response_body: string;
  created_at: number;
}

export interface IdempotencyTables {
  idempotency_records: IdempotencyRecordTable;
}
