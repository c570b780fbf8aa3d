import type { ColumnType } from 'kysely';

/** The X12 bridge's tables (DESIGN §16). */

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

export interface X12Tables {
  x12_partners: X12PartnerTable;
  x12_interchanges: X12InterchangeTable;
}
