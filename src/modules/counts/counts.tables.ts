/**
 * How many rows of a kind a search would find, per scope and day, kept in the transaction that
 * writes the rows (docs/paging.md): a page's totalCount sums these instead of counting the table.
 */
export interface SearchCountTable {
  company_id: string;
  /** The kind of rows counted (counts.service.ts CountedKind). */
  counted: string;
  facility_id: string;
  customer_id: string;
  /** The rows' status, where a search filters on it; '' for kinds without one. */
  status: string;
  /** The UTC day (days since 1970-01-01) of the time that the kind's searches window on. */
  day: number;
  count: number;
}

export interface CountTables {
  search_counts: SearchCountTable;
}
