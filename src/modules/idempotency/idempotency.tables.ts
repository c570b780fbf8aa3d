/** The answer a state-changing request gave, kept per (company, API key, Idempotency-Key). */
export interface IdempotencyRecordTable {
  company_id: string;
  key_id: number;
  idempotency_key: string;
  /** SHA-256 of method, path and body: "the same request". */
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: number;
}

export interface IdempotencyTables {
  idempotency_records: IdempotencyRecordTable;
}
