import type { ColumnType, Generated } from 'kysely';

/** The X12 bridge's tables (docs/x12.md). */

/** A control number Wharf last gave: 0 until it sends something. */
type LastControlNo = ColumnType<number, number | undefined, number>;

/** A trading partner: a customer's system that speaks X12, by its ISA qualifier and id. */
export interface X12PartnerTable {
  company_id: string;
  qualifier: string;
  partner_id: string;
  /** Its application id in GS02/GS03 (the ISA id unless set otherwise). */
  gs_id: string;
  customer_id: string;
  /** The control numbers Wharf last gave in what it sent this partner: ISA13, GS06, ST02. */
  last_interchange_no: LastControlNo;
  last_group_no: LastControlNo;
  last_set_no: LastControlNo;
  created_at: number;
}

/** An interchange a partner sent, by its ISA13, and the 997 that answered it (sent again on a replay). */
export interface X12InterchangeTable {
  company_id: string;
  qualifier: string;
  partner_id: string;
  /** ISA13 as sent (9 digits). */
  control_no: string;
  /** SHA-256 of the interchange's text: the same ISA13 with another body is not a replay. */
  request_hash: string;
  /** The whole 997 interchange Wharf answered. */
  answer: string;
  created_at: number;
}

/** An advice for a partner (944, 945, 947, 846): the interchange to take, or why it could not be written. */
export interface X12OutboxTable {
  company_id: string;
  id: Generated<number>;
  customer_id: string;
  /** Null only for an advice of no facility (none so far). */
  facility_id: string | null;
  qualifier: string;
  partner_id: string;
  set_id: string;
  /** What the advice tells of: the SVCPOID and ConfirmationNo, the AdjustmentNo, the 846's own reference. */
  document_no: string;
  control_no: string | null;
  interchange: string | null;
  problem: string | null;
  created_at: number;
  taken_at: number | null;
}

/** Wharf's own ids in a company's interchanges, when the company sets them (else ZZ and the CompanyID). */
export interface X12IdentityTable {
  company_id: string;
  qualifier: string;
  isa_id: string;
  gs_id: string;
  updated_at: number;
}

export interface X12Tables {
  x12_partners: X12PartnerTable;
  x12_interchanges: X12InterchangeTable;
  x12_outbox: X12OutboxTable;
  x12_identities: X12IdentityTable;
}
