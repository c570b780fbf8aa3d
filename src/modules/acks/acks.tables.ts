import type { Generated } from 'kysely';

/**
 * One acknowledgement per import or cancel call (docs/receipts.md, docs/orders.md): the success form carries the
 * document's identifiers and Status/Error; the failure form carries `failure_code`/`failure_error`.
 */
export interface AckTable {
  company_id: string;
  id: Generated<number>;
  /** 'RN' (receipts) or 'DN' (orders). */
  document_type: string;
  customer_id: string;
  facility_id: string;
  po_no: string | null;
  reference_no: string | null;
  /** 'number' when the ReferenceNo came as a JSON number, so that it is echoed as one. */
  reference_no_type: string | null;
  svcpoid: string | null;
  status: string | null;
  error: string | null;
  failure_code: string | null;
  failure_error: string | null;
  key_id: number;
  created_at: number;
}

export interface AckTables {
  acks: AckTable;
}
