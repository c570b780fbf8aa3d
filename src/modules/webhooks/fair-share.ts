/**
 * How a dispatcher shares its attempts out (docs/webhooks.md, "Fair dispatch"): no endpoint has
 * more than ENDPOINT_IN_FLIGHT_LIMIT attempts in flight, counted over every dispatching process;
 * no company more than half of a process's slots; and the free slots go round the companies with a
 * delivery due, one at a time, and within a company round its endpoints, the earliest due first.
 * An attempt in flight cannot be taken back, so a company never holds more than its half, even
 * while nobody else waits: whoever comes due next finds the other half free.
 */

/** The most attempts to one endpoint in flight at once, over every process that dispatches. */
export const ENDPOINT_IN_FLIGHT_LIMIT = 4;

/** The most attempts of one company a process of `concurrency` slots has in flight: half (at least one). */
export function companyShare(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 2));
}

/** An enabled endpoint with a delivery due that no attempt holds, and when its earliest one came due. */
export interface DueEndpoint {
  companyId: string;
  endpointId: number;
  due: number;
}

/** How many of an endpoint's due deliveries to take, the earliest due first. */
export interface EndpointTake {
  companyId: string;
  endpointId: number;
  count: number;
}

export interface ShareLimits {
  /** The process's free slots. */
  limit: number;
  /** The most attempts of one company the process may have in flight (companyShare). */
  share: number;
  /** The process's attempts in flight, by company. */
  heldByCompany: ReadonlyMap<string, number>;
  /** Every process's attempts in flight (unexpired leases), by endpointKey. */
  leasedByEndpoint: ReadonlyMap<string, number>;
}

/** The key of an endpoint in `leasedByEndpoint`. */
export const endpointKey = (companyId: string, endpointId: number) => `${companyId}/${endpointId}`;

/**
 * Shares up to `limit` attempts out among the due endpoints: passes over the companies (the one
 * whose delivery came due first leads each pass), each pass giving each company one attempt on its
 * next endpoint that has room, until the slots, the companies' shares or the endpoints' rooms run
 * out. Answers the endpoints that get any, in the order they first got one.
 */
export function shareOut(due: readonly DueEndpoint[], limits: ShareLimits): EndpointTake[] {
  const ordered = [...due].sort(
    (a, b) => a.due - b.due || (a.companyId < b.companyId ? -1 : a.companyId > b.companyId ? 1 : 0) || a.endpointId - b.endpointId,
  );
  const companies = new Map<string, { room: number; endpoints: { take: EndpointTake; room: number }[]; next: number }>();
  for (const endpoint of ordered) {
    const room = ENDPOINT_IN_FLIGHT_LIMIT - (limits.leasedByEndpoint.get(endpointKey(endpoint.companyId, endpoint.endpointId)) ?? 0);
    if (room <= 0) continue;
    let company = companies.get(endpoint.companyId);
    if (!company) {
      company = { room: limits.share - (limits.heldByCompany.get(endpoint.companyId) ?? 0), endpoints: [], next: 0 };
      companies.set(endpoint.companyId, company);
    }
    company.endpoints.push({ take: { companyId: endpoint.companyId, endpointId: endpoint.endpointId, count: 0 }, room });
  }
  const takes: EndpointTake[] = [];
  let left = limits.limit;
  let open = [...companies.values()].filter((company) => company.room > 0);
  while (left > 0 && open.length > 0) {
    for (const company of open) {
      if (left === 0) break;
      // The company's next endpoint with room, round its endpoints from where the last pass stopped.
      const count = company.endpoints.length;
      let found: (typeof company.endpoints)[number] | undefined;
      for (let step = 0; step < count && !found; step++) {
        const candidate = company.endpoints[(company.next + step) % count]!;
        if (candidate.room > 0) {
          found = candidate;
          company.next = (company.next + step + 1) % count;
        }
      }
      if (!found) {
        company.room = 0;
        continue;
      }
      if (found.take.count === 0) takes.push(found.take);
      found.take.count += 1;
      found.room -= 1;
      company.room -= 1;
      left -= 1;
    }
    open = open.filter((company) => company.room > 0);
  }
  return takes;
}
