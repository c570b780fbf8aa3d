import type { AttemptRow, ListedDelivery } from './deliveries.repository.js';
import type { LimitedEndpointRow } from './endpoints.repository.js';
import type { Delivery, Endpoint } from './webhooks.schemas.js';

/** Endpoint and delivery rows → what the webhook operations answer. Times are UTC ISO 8601. */

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export function presentEndpoint(row: LimitedEndpointRow): Endpoint {
  return {
    EndpointID: row.endpoint_id,
    CustomerID: row.customer_id,
    FacilityIDs: row.facility_ids,
    Url: row.url,
    EventTypes: row.event_types === null ? null : (JSON.parse(row.event_types) as string[]),
    Description: row.description,
    Enabled: row.enabled === 1,
    DisabledReason: row.disabled_reason,
    FailingSince: row.failing_since === null ? null : iso(row.failing_since),
    CreatedWhen: iso(row.created_at),
    UpdatedWhen: iso(row.updated_at),
  };
}

export function presentDelivery(row: ListedDelivery, attempts: AttemptRow[]): Delivery {
  return {
    DeliveryID: row.delivery_id,
    EndpointID: row.endpoint_public_id,
    EventID: row.event_public_id,
    EventType: row.event_type,
    Sequence: row.sequence,
    Status: row.status as Delivery['Status'],
    NextAttemptWhen: row.next_attempt_at === null ? null : iso(row.next_attempt_at),
    Attempts: attempts.map((attempt) => ({
      AttemptNo: attempt.attempt_no,
      StartedWhen: iso(attempt.started_at),
      DurationMs: attempt.duration_ms,
      StatusCode: attempt.status_code,
      Error: attempt.error,
      Response: attempt.response,
    })),
  };
}
