import type { Generated } from 'kysely';

/** A receiver of events (docs/webhooks.md): a customer's, or the whole company's (an admin's). */
export interface WebhookEndpointTable {
  company_id: string;
  id: Generated<number>;
  /** `ep_<ULID>`: how the API names it. */
  endpoint_id: string;
  /** Null: every customer of the company. */
  customer_id: string | null;
  url: string;
  /** The event types it takes, as a JSON array; null: all. */
  event_types: string | null;
  description: string | null;
  /** 1 or 0. */
  enabled: number;
  /** Why it was disabled: by its owner, a 410, or five days of failures. */
  disabled_reason: string | null;
  /** `whsec_<base64 of 32 random bytes>`. */
  secret: string;
  /** The secret before the last rotation, which keeps signing beside the new one until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** Since when every attempt has failed (null: the last one succeeded, or none was made yet). */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  key_id: number | null;
}

/**
 * The facilities an endpoint is limited to, one row each; an endpoint without any takes the events
 * of every facility.
 */
export interface WebhookEndpointFacilityTable {
  company_id: string;
  /** The endpoint's row (its `id`, not its `ep_` id). */
  endpoint_id: number;
  facility_id: string;
}

/** One event to one endpoint, until it is delivered or given up. */
export interface WebhookDeliveryTable {
  company_id: string;
  id: Generated<number>;
  /** `dlv_<ULID>`. */
  delivery_id: string;
  endpoint_id: number;
  /** The events row (its id, not its `evt_` id). */
  event_id: number;
  event_type: string;
  sequence: number;
  /** Pending, Succeeded or Failed. */
  status: string;
  /** Attempts made so far, replays included: the next attempt's number is one more. */
  attempt_count: number;
  /** Failed attempts since the delivery was (re)queued: where it stands in the retry schedule. */
  retry_step: number;
  /** When the next attempt is due; null once Succeeded or Failed. */
  next_attempt_at: number | null;
  /** Until when a dispatching process holds it; another may take it after. */
  leased_until: number | null;
  created_at: number;
  updated_at: number;
}

/** Every attempt of a delivery, as it went. */
export interface WebhookAttemptTable {
  company_id: string;
  id: Generated<number>;
  delivery_id: number;
  attempt_no: number;
  started_at: number;
  duration_ms: number;
  /** The receiver's HTTP status; null when none came (refused address, timeout, connection error). */
  status_code: number | null;
  /** What went wrong before a status came. */
  error: string | null;
  /** The first 1 KB of the receiver's answer. */
  response: string | null;
}

/** How far the events have been fanned out to endpoints: one row, by Sequence. */
export interface WebhookFanoutTable {
  id: number;
  last_sequence: number;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_endpoint_facilities: WebhookEndpointFacilityTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_fanout: WebhookFanoutTable;
}
