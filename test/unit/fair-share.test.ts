import { describe, expect, it } from 'vitest';
import { companyShare, endpointKey, shareOut, type DueEndpoint } from '../../src/modules/webhooks/fair-share.js';

/**
 * How a dispatcher shares its free slots out among the endpoints with deliveries due: at most 4
 * attempts in flight to an endpoint (over every process), at most half of the process's slots to a
 * company, and the slots round the companies one at a time, then round each company's endpoints.
 */

const none = new Map<string, number>();
const endpoints = (companyId: string, count: number, due = 0, firstId = 1): DueEndpoint[] =>
  Array.from({ length: count }, (_, i) => ({ companyId, endpointId: firstId + i, due }));
/** Attempts given per company, from the takes. */
const perCompany = (takes: { companyId: string; count: number }[]) =>
  takes.reduce<Record<string, number>>((sum, take) => ({ ...sum, [take.companyId]: (sum[take.companyId] ?? 0) + take.count }), {});

describe('the fair share of the dispatcher', () => {
  it('gives a company half of the slots, rounded down, and at least one', () => {
    expect([1, 2, 3, 16, 64, 65, 1000].map(companyShare)).toEqual([1, 1, 1, 8, 32, 32, 500]);
  });

  it('never gives an endpoint more than 4 attempts, counting those in flight from every process', () => {
    const takes = shareOut(endpoints('A', 2), {
      limit: 64,
      share: 32,
      heldByCompany: none,
      leasedByEndpoint: new Map([[endpointKey('A', 2), 3]]),
    });
    expect(takes).toEqual([
      { companyId: 'A', endpointId: 1, count: 4 },
      { companyId: 'A', endpointId: 2, count: 1 },
    ]);
    expect(
      shareOut(endpoints('A', 1), { limit: 64, share: 32, heldByCompany: none, leasedByEndpoint: new Map([[endpointKey('A', 1), 4]]) }),
    ).toEqual([]);
  });

  it('gives one company at most its share, less what it holds, even when no other company waits', () => {
    expect(perCompany(shareOut(endpoints('A', 100), { limit: 64, share: 32, heldByCompany: none, leasedByEndpoint: none }))).toEqual({
      A: 32,
    });
    expect(
      perCompany(shareOut(endpoints('A', 100), { limit: 40, share: 32, heldByCompany: new Map([['A', 30]]), leasedByEndpoint: none })),
    ).toEqual({ A: 2 });
    expect(shareOut(endpoints('A', 100), { limit: 40, share: 32, heldByCompany: new Map([['A', 32]]), leasedByEndpoint: none })).toEqual(
      [],
    );
  });

  it('serves a company that holds its share no more, and another company at once', () => {
    const due = [...endpoints('A', 100, 1000), ...endpoints('B', 1, 5000, 500)];
    const takes = shareOut(due, { limit: 32, share: 32, heldByCompany: new Map([['A', 32]]), leasedByEndpoint: none });
    // Up to 4 of B's endpoint's due deliveries (the claim takes fewer when fewer are due).
    expect(takes).toEqual([{ companyId: 'B', endpointId: 500, count: 4 }]);
  });

  it('goes round the companies, then round each company’s endpoints, the earliest due first', () => {
    const due = [
      { companyId: 'B', endpointId: 10, due: 300 },
      { companyId: 'A', endpointId: 1, due: 100 },
      { companyId: 'A', endpointId: 2, due: 200 },
      { companyId: 'C', endpointId: 20, due: 400 },
    ];
    // Three slots: one to each company, A's earliest endpoint first.
    expect(shareOut(due, { limit: 3, share: 32, heldByCompany: none, leasedByEndpoint: none })).toEqual([
      { companyId: 'A', endpointId: 1, count: 1 },
      { companyId: 'B', endpointId: 10, count: 1 },
      { companyId: 'C', endpointId: 20, count: 1 },
    ]);
    // Six: a second round gives A its second endpoint, B and C their second attempt.
    expect(shareOut(due, { limit: 6, share: 32, heldByCompany: none, leasedByEndpoint: none })).toEqual([
      { companyId: 'A', endpointId: 1, count: 1 },
      { companyId: 'B', endpointId: 10, count: 2 },
      { companyId: 'C', endpointId: 20, count: 2 },
      { companyId: 'A', endpointId: 2, count: 1 },
    ]);
  });

  it('leaves slots free when the endpoints’ and companies’ room runs out first', () => {
    const due = [...endpoints('A', 2), ...endpoints('B', 1, 0, 9)];
    expect(perCompany(shareOut(due, { limit: 64, share: 32, heldByCompany: none, leasedByEndpoint: none }))).toEqual({ A: 8, B: 4 });
    expect(shareOut(due, { limit: 0, share: 32, heldByCompany: none, leasedByEndpoint: none })).toEqual([]);
  });
});
