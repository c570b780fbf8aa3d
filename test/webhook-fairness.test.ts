import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import { claimDue, fanOut } from '../src/modules/webhooks/deliveries.service.js';
import { createDispatcher, type Dispatcher } from '../src/modules/webhooks/dispatcher.js';
import { companyShare, ENDPOINT_IN_FLIGHT_LIMIT } from '../src/modules/webhooks/fair-share.js';
import { createSender, type Sender } from '../src/modules/webhooks/sender.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { createKey, createTenant, expectOk, importItems, type Tenant } from './helpers/factories.js';
import * as paths from './helpers/paths.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/**
 * Fair webhook dispatch, against real HTTP receivers on loopback: one company's endpoints that
 * accept a delivery and never answer hold at most half of a dispatcher's slots, so another
 * company's delivery goes out as soon as it is due, not when their 15 s attempts end; and no
 * endpoint ever has more than 4 attempts open at once, even with two dispatchers on one queue,
 * whose claims take turns so that each counts the leases the one before it took.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits, without a deadline of its own (the test's bounds it), until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await pause(20);
}

/** The default WEBHOOK_CONCURRENCY, the slots of a dispatching process as it ships. */
const CONCURRENCY = loadConfig({}, {}).webhookConcurrency;
/**
 * How soon after it is due another company's delivery must arrive: "a few seconds", generous for a
 * busy machine, and far below the 15 s a never-answering receiver holds each attempt.
 */
const WITHIN_MS = 5000;

describeEachDialect('fair webhook dispatch', (dialect) => {
  // Loopback receivers need private addresses allowed; a hundred endpoints and their imports would
  // pass the key's rate limit.
  const ctx = useTestApp(dialect, { webhookAllowPrivate: true, rateLimitEdi: 0 });
  let sender: Sender;
  const dispatchers: Dispatcher[] = [];
  const receivers: Receiver[] = [];
  const errors: unknown[] = [];

  const dispatcher = (db: Db, concurrency: number) => {
    const made = createDispatcher({
      db,
      clock: ctx().clock,
      sender,
      concurrency,
      leaseMs: 60_000,
      pollMs: 20,
      onError: (error) => errors.push(error),
    });
    dispatchers.push(made);
    made.start();
    return made;
  };
  const receiver = async () => {
    const made = await startReceiver();
    receivers.push(made);
    return made;
  };
  /** An endpoint of the tenant's customer, made with its admin key, for item.created events. */
  const createEndpoint = async (tenant: Tenant, admin: string, customer: number, url: string) =>
    expectOk(
      ctx().post(
        `${paths.WEBHOOK_ENDPOINT}/create`,
        { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[customer], Url: url, EventTypes: ['item.created'] },
        admin,
      ),
    );
  const createItem = (tenant: Tenant, admin: string, customer: number) =>
    importItems(ctx(), { tenant, customer, key: admin, items: [`SKU-${Math.random().toString(36).slice(2, 10)}`] });

  beforeAll(() => {
    sender = createSender({ allowPrivate: true, now: () => ctx().clock.now() });
  });
  beforeEach(() => {
    // The time every delivery is due at: signatures are checked against the real one.
    ctx().clock.time = Date.now();
  });
  afterEach(async () => {
    // Receivers first: their held requests end, so that the attempts end and stopping is quick.
    for (const made of receivers.splice(0)) await made.close();
    for (const made of dispatchers.splice(0)) await made.stop();
    // Each test sees only its own endpoints' deliveries due.
    await ctx().database.db.updateTable('webhook_endpoints').set({ enabled: 0 }).execute();
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(() => sender.close());

  it('delivers another company’s due delivery within seconds while one company’s 100 endpoints never answer', async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    // Company A: 5 customers with 20 endpoints each, on a receiver that takes every request and never answers.
    const a = await createTenant(db, clock, { customers: 5 });
    const adminA = await createKey(db, clock, a, 'admin');
    const hanging = await receiver();
    hanging.answerWith({ status: 200, heldUntil: new Promise(() => {}) });
    for (let customer = 0; customer < 5; customer++) {
      for (let i = 0; i < 20; i++) await createEndpoint(a, adminA, customer, hanging.url(`/a/${customer}/${i}`));
    }
    // Company B: one endpoint that answers at once.
    const b = await createTenant(db, clock);
    const adminB = await createKey(db, clock, b, 'admin');
    const answering = await receiver();
    const arrivedAt: number[] = [];
    answering.answerWith(() => {
      arrivedAt.push(performance.now());
      return { status: 204 };
    });
    await createEndpoint(b, adminB, 0, answering.url('/b'));

    dispatcher(db, CONCURRENCY);
    // An event for each of A's customers: 100 deliveries due, to endpoints that never answer.
    for (let customer = 0; customer < 5; customer++) await createItem(a, adminA, customer);
    const share = companyShare(CONCURRENCY);
    await until(() => hanging.received.length >= share);

    // Then one for B: due as soon as it is fanned out, which is after this request answers.
    await createItem(b, adminB, 0);
    const dueAt = performance.now();
    await until(() => arrivedAt.length > 0 || performance.now() - dueAt > 3 * WITHIN_MS);
    expect(arrivedAt, 'B’s delivery never came while A’s attempts hung').toHaveLength(1);
    expect(arrivedAt[0]! - dueAt).toBeLessThan(WITHIN_MS);
    expect(JSON.parse(answering.received[0]!.body).data.CompanyID).toBe(b.companyId);
    // A holds its half of the slots, and not one more, while its attempts hang.
    expect(hanging.received).toHaveLength(share);
  }, 60_000);

  it('never has more than 4 attempts open to one endpoint, even with two dispatchers on the queue', async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    const tenant = await createTenant(db, clock);
    const admin = await createKey(db, clock, tenant, 'admin');
    const slow = await receiver();
    // Every request waits until 4 are open at once; from then on each is answered 50 ms after it came.
    let open = 0;
    let mostOpen = 0;
    let fourOpen!: () => void;
    const gate = new Promise<void>((resolve) => (fourOpen = resolve));
    slow.answerWith(() => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      if (open >= ENDPOINT_IN_FLIGHT_LIMIT) fourOpen();
      return { status: 200, heldUntil: gate.then(() => pause(50)).then(() => (open -= 1)) };
    });
    await createEndpoint(tenant, admin, 0, slow.url('/slow'));
    for (let i = 0; i < 10; i++) await createItem(tenant, admin, 0);

    // A second dispatcher as another process would run it: on PostgreSQL, its own connections.
    const other = dialect === 'postgres' ? connectDatabase(ctx().database.url, { poolSize: 2 }) : db;
    try {
      dispatcher(db, 16);
      dispatcher(other, 16);
      await until(async () => {
        const rows = await db.selectFrom('webhook_deliveries').select('status').where('company_id', '=', tenant.companyId).execute();
        return rows.length === 10 && rows.every((row) => row.status === 'Succeeded');
      });
      for (const made of dispatchers.splice(0)) await made.stop();
    } finally {
      if (other !== db) await other.destroy();
    }
    expect(mostOpen).toBe(ENDPOINT_IN_FLIGHT_LIMIT);
    // Each of the 10 events once: an attempt never ran beside another of the same delivery.
    expect(new Set(slow.received.map((got) => got.headers['webhook-id'])).size).toBe(10);
    expect(slow.received).toHaveLength(10);
  }, 60_000);

  it('sends an endpoint its next delivery as soon as one of its 4 attempts ends, not at the next look', async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    const tenant = await createTenant(db, clock);
    const admin = await createKey(db, clock, tenant, 'admin');
    const answering = await receiver();
    answering.answerWith({ status: 204 });
    await createEndpoint(tenant, admin, 0, answering.url('/quick'));
    await importItems(ctx(), { tenant, key: admin, items: Array.from({ length: 30 }, (_, i) => `QUICK-${i}`) });
    // A look for work a minute apart: the 26 deliveries past the first 4 can only go because
    // attempts ended (the test's own limit is far shorter than one look).
    const made = createDispatcher({ db, clock, sender, concurrency: CONCURRENCY, leaseMs: 60_000, pollMs: 60_000 });
    dispatchers.push(made);
    made.start();
    await until(() => answering.received.length >= 30);
    expect(answering.received).toHaveLength(30);
  });

  it('counts the attempts another process has just taken: a claim waits for the claim before it to commit', async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    const tenant = await createTenant(db, clock);
    const admin = await createKey(db, clock, tenant, 'admin');
    await createEndpoint(tenant, admin, 0, 'http://127.0.0.1:9/unused');
    for (let i = 0; i < 10; i++) await createItem(tenant, admin, 0);
    await fanOut(db, clock.now());
    const claim = (on: Db) =>
      claimDue(on, { now: clock.now(), until: clock.now() + 60_000, limit: 16, share: 8, heldByCompany: new Map() });

    // A second process's connections on PostgreSQL; SQLite has one process dispatch.
    const other = dialect === 'postgres' ? connectDatabase(ctx().database.url, { poolSize: 2 }) : db;
    try {
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let first!: () => void;
      const firstTaken = new Promise<void>((resolve) => (first = resolve));
      const firstClaim = db.transaction().execute(async (trx) => {
        const taken = await claim(trx);
        first();
        await committing;
        return taken;
      });
      await firstTaken;
      // The second claim runs while the first has taken 4 and not committed; it may take nothing of
      // the endpoint, so it waits for the first to commit and counts its leases.
      const secondClaim = claim(other);
      await Promise.race([secondClaim, pause(500)]);
      commit();
      expect((await firstClaim).claimed.map((row) => row.company_id)).toEqual(Array(ENDPOINT_IN_FLIGHT_LIMIT).fill(tenant.companyId));
      expect(await secondClaim).toEqual({ claimed: [], heldBack: true });
    } finally {
      if (other !== db) await other.destroy();
    }
  });
});
