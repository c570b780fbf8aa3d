import { settleChange } from './app.js';
import type { Db } from './db/database.js';
import { inTransaction } from './db/transaction.js';
import type { Principal } from './http/auth.js';
import type { CommandContext } from './http/command-context.js';
import type { Clock } from './lib/clock.js';
import { sha256Hex } from './lib/ids.js';

/**
 * The context of one request of a seeding batch: `route` is its method and path as HTTP names
 * them (`POST /shared/bam/v1/public/edi/outbound/order`), so that its request hash is the one the
 * same body sent over HTTP would have (request-identity.ts).
 */
export type SeedingContextOf = (route: string, request: unknown) => CommandContext;

/**
 * Seeding a database at scale through the services (`npm run bench:scale`; docs/performance.md,
 * "Pages at scale"): `work` makes many requests in one transaction, on a clock the caller drives,
 * each through the service function its route calls, so that every row they leave (ACKs, events,
 * allocations, ledger, outbox advices, counters) is the one production writes, without a commit a
 * document. It adds nothing to what the services do; it only hands them the batch's transaction.
 *
 * Not a production path, and unlike one in three ways. Every request of the API runs in a
 * transaction of its own; here the requests join the batch's (inTransaction joins an open one), so
 * what they write becomes visible, and their events are numbered, only when the whole batch commits
 * (and runCommand tells this process's dispatcher of their events before that: a seeding process
 * runs none). A refused request must end the batch: runCommand writes its failure ACK in the
 * batch's transaction beside whatever the refused command wrote before the refusal, so the refusal
 * is thrown on and the whole batch rolls back, the ACK with it. And a batch that loses a race runs
 * again from the start, so `work` must make the same requests again and keep what it learns (an
 * SVCPOID) only once this answers.
 */
export function inSeedingBatch<T>(
  db: Db,
  clock: Clock,
  principal: Principal,
  work: (contextOf: SeedingContextOf) => Promise<T>,
): Promise<T> {
  return inTransaction(db, (trx) =>
    work((route, request) => ({
      db: trx,
      clock,
      principal,
      identity: {
        companyId: principal.companyId,
        keyId: principal.keyId,
        requestHash: sha256Hex(`${route}\n${JSON.stringify(request ?? null)}`),
      },
      settle: settleChange,
    })),
  );
}
