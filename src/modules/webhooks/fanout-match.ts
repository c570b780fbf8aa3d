import type { NumberedEvent } from '../events/events.service.js';
import type { LimitedEndpointRow } from './endpoints.repository.js';

/**
 * Which endpoints take an event: one that happened since the endpoint was made (an
 * event committed before it, but fanned out after, is not its business), of its customer (or, for
 * a company-wide endpoint, of every customer of its company), of its types (or all), and of its
 * facilities (or all) — an event of no facility, the item master's, goes to every endpoint of its
 * customer whatever facilities the endpoint is limited to.
 *
 * The enabled endpoints of a fan-out's companies are indexed once by company and customer, each
 * with its types and facilities as sets, so an event is held only against its own customer's
 * endpoints and its company's company-wide ones: a fan-out costs the same per event however many
 * companies and endpoints the database has.
 */
export interface Receivers {
  /** The endpoints that take the event, in the order they were made. */
  of(event: NumberedEvent): LimitedEndpointRow[];
  /** How many endpoints there are to take events at all. */
  readonly size: number;
}

interface Receiver {
  endpoint: LimitedEndpointRow;
  /** null: every event type. */
  types: ReadonlySet<string> | null;
  /** null: every facility. */
  facilities: ReadonlySet<string> | null;
}

/** Whose events an endpoint takes: its company's and customer's (null: every customer's). */
const whose = (companyId: string, customerId: string | null) => JSON.stringify([companyId, customerId]);

function takes({ endpoint, types, facilities }: Receiver, event: NumberedEvent): boolean {
  if (event.created_at < endpoint.created_at) return false;
  if (types !== null && !types.has(event.type)) return false;
  return facilities === null || event.facility_id === null || facilities.has(event.facility_id);
}

export function receiversOf(endpoints: readonly LimitedEndpointRow[]): Receivers {
  const byOwner = new Map<string, Receiver[]>();
  for (const endpoint of endpoints) {
    const receiver: Receiver = {
      endpoint,
      types: endpoint.event_types === null ? null : new Set(JSON.parse(endpoint.event_types) as string[]),
      facilities: endpoint.facility_ids === null ? null : new Set(endpoint.facility_ids),
    };
    const owner = whose(endpoint.company_id, endpoint.customer_id);
    const receivers = byOwner.get(owner);
    if (receivers) receivers.push(receiver);
    else byOwner.set(owner, [receiver]);
  }
  return {
    size: endpoints.length,
    of(event) {
      const ofCustomer = byOwner.get(whose(event.company_id, event.customer_id)) ?? [];
      const ofCompany = byOwner.get(whose(event.company_id, null)) ?? [];
      const taking = [...ofCustomer, ...ofCompany].filter((receiver) => takes(receiver, event)).map((receiver) => receiver.endpoint);
      // Both lists are in the order the endpoints were made; together they are sorted again.
      return ofCompany.length > 0 && ofCustomer.length > 0 ? taking.sort((a, b) => a.id - b.id) : taking;
    },
  };
}
