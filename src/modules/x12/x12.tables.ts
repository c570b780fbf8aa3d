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

export interface X12Tables {
  x12_partners: X12PartnerTable;
}
