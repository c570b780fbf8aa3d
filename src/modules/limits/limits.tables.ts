/**
 * How many requests of a key's minute the processes on one PostgreSQL have taken between them
 * (docs/operations.md). A process takes them in leases: `used` counts every request leased, served or not.
 */
export interface RateLimitWindowTable {
  key_id: number;
  /** Which routes' limit: `edi` (the EDI and admin routes) or `rate` (the rate engine). */
  route_group: string;
  /** The window's first instant, ms since the epoch (a multiple of its length). */
  window_start: number;
  used: number;
  /** How many requests the last lease took: what the process that took it may serve. */
  last_lease: number;
}

export interface LimitTables {
  rate_limit_windows: RateLimitWindowTable;
}
