import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { AggregatorRegistry, Registry } from 'prom-client';
import { purgeEndedDeliveriesBefore } from '../../src/modules/webhooks/deliveries.service.js';
import { createDispatcher, type Dispatcher } from '../../src/modules/webhooks/dispatcher.js';
import { WebhookTally } from '../../src/modules/webhooks/webhook-metrics.js';
import { createSender, type Sender } from '../../src/modules/webhooks/sender.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, expectOk, problems, receiptBody, type World } from '../helpers/factories.js';
import { parseMetrics, readMetrics, valueOf } from '../helpers/metrics.js';
import * as paths from '../helpers/paths.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Webhooks (docs/webhooks.md) against a real HTTP receiver on loopback: endpoints as their owners manage
 * them, every delivery signed (checked with the standardwebhooks package), retried on the schedule
 * (driven by the test clock, never by waiting), disabled by a 410 or five days of failures, logged
 * attempt by attempt, and replayed on request.
 */

type Json = Record<string, unknown>;
const ENDPOINT = '/edi/webhook/endpoint';
const DELIVERY = '/edi/webhook/delivery';
const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describeEachDialect('webhooks', (dialect) => {
  // Loopback receivers need private addresses allowed, as in the tests and the demo; 1,000 imports
  // in a test would pass the key's rate limit.
  const ctx = useTestApp(dialect, { webhookAllowPrivate: true, rateLimitEdi: 0 });
  let receiver: Receiver;
  let sender: Sender;
  let dispatcher: Dispatcher;
  let w: World;

  beforeAll(async () => {
    receiver = await startReceiver();
    sender = createSender({ allowPrivate: true, now: () => ctx().clock.now() });
  });
  afterAll(async () => {
    await sender.close();
    await receiver.close();
  });
  beforeEach(async () => {
    // Signatures are checked against the real time (5 minutes' tolerance): the clock starts now.
    ctx().clock.time = Date.now();
    w = await createWorld(ctx().database.db, ctx().clock);
    receiver.received.length = 0;
    receiver.answerWith({ status: 200, body: 'ok' });
    dispatcher = createDispatcher({
      db: ctx().database.db,
      clock: ctx().clock,
      sender,
      concurrency: 16,
      leaseMs: 60 * SECOND,
      pollMs: 50,
      random: () => 0.5,
      onError: (error) => {
        throw error;
      },
    });
  });

  const customer = (customerIndex = 0) => ({ CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[customerIndex]! });
  const create = async (body: Json = {}, key = w.customer) =>
    (await expectOk(ctx().post(`${ENDPOINT}/create`, { ...customer(), Url: receiver.url(), ...body }, key))).json().Endpoint;
  const importReceipt = (customerIndex = 0, key = w.customer) =>
    expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant, customer: customerIndex }), key));
  const deliveries = async (body: Json = {}, key = w.customer) =>
    (await expectOk(ctx().post(`${DELIVERY}/search-by-paging`, { ...customer(), ...body }, key))).json().results.data;
  /** The events the receiver got, by type, in the order they came. */
  const receivedTypes = () => receiver.received.map((got) => (JSON.parse(got.body) as { type: string }).type);

  // ---- endpoints ---------------------------------------------------------------------------------

  it('creates an endpoint and shows its secret once; lists, updates, rotates and deletes it', async () => {
    const now = new Date(ctx().clock.now()).toISOString();
    const created = await create({ EventTypes: ['receipt.imported', 'order.shipped'], Description: 'ERP' });
    expect(created).toEqual({
      EndpointID: expect.stringMatching(/^ep_[0-9A-HJKMNP-TV-Z]{26}$/),
      CustomerID: w.tenant.customerIds[0],
      FacilityIDs: null,
      Url: receiver.url(),
      EventTypes: ['receipt.imported', 'order.shipped'],
      Description: 'ERP',
      Enabled: true,
      DisabledReason: null,
      FailingSince: null,
      CreatedWhen: now,
      UpdatedWhen: now,
      Secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { Secret: _secret, ...shown } = created;
    const listed = await expectOk(ctx().post(`${ENDPOINT}/list`, customer(), w.customer));
    expect(listed.json()).toEqual({ Endpoints: [shown] });
    expect(listed.body).not.toContain('whsec_');

    const id = { ...customer(), EndpointID: created.EndpointID };
    const updated = await expectOk(ctx().post(`${ENDPOINT}/update`, { ...id, EventTypes: null, Enabled: false }, w.customer));
    expect(updated.json()).toEqual({ Endpoint: { ...shown, EventTypes: null, Enabled: false, DisabledReason: 'Disabled by its owner' } });
    const enabled = await expectOk(ctx().post(`${ENDPOINT}/update`, { ...id, Enabled: true }, w.customer));
    expect(enabled.json().Endpoint).toMatchObject({ Enabled: true, DisabledReason: null });

    const rotated = (await expectOk(ctx().post(`${ENDPOINT}/rotate-secret`, id, w.customer))).json().Endpoint;
    expect(rotated.Secret).toMatch(/^whsec_/);
    expect(rotated.Secret).not.toBe(created.Secret);

    expect((await expectOk(ctx().post(`${ENDPOINT}/delete`, id, w.customer))).json()).toEqual({
      Endpoint: { EndpointID: created.EndpointID, Deleted: true },
    });
    expect((await expectOk(ctx().post(`${ENDPOINT}/list`, customer(), w.customer))).json()).toEqual({ Endpoints: [] });
    const gone = await ctx().post(`${ENDPOINT}/delete`, id, w.customer);
    expect({ status: gone.statusCode, body: gone.json() }).toEqual({
      status: 404,
      body: { error: `Not found endpoint ${created.EndpointID}` },
    });
  });

  it('keeps customers apart: another customer neither sees nor changes an endpoint; an admin sees every one of its company', async () => {
    const mine = await create();
    const theirs = await create({ CustomerID: w.tenant.customerIds[1] }, w.otherCustomer);
    const companyWide = await create({ CustomerID: undefined }, w.admin);
    expect(companyWide.CustomerID).toBeNull();

    const otherView = await expectOk(ctx().post(`${ENDPOINT}/list`, customer(1), w.otherCustomer));
    expect(otherView.json().Endpoints.map((e: Json) => e.EndpointID)).toEqual([theirs.EndpointID]);
    const named = await ctx().post(
      `${ENDPOINT}/update`,
      { ...customer(1), EndpointID: mine.EndpointID, Url: receiver.url('/x') },
      w.otherCustomer,
    );
    expect({ status: named.statusCode, body: named.json() }).toEqual({
      status: 404,
      body: { error: `Not found endpoint ${mine.EndpointID}` },
    });
    const adminView = await expectOk(ctx().post(`${ENDPOINT}/list`, { CompanyID: w.tenant.companyId }, w.admin));
    expect(adminView.json().Endpoints.map((e: Json) => e.EndpointID)).toEqual([mine.EndpointID, theirs.EndpointID, companyWide.EndpointID]);

    const withoutCustomer = await ctx().post(`${ENDPOINT}/list`, { CompanyID: w.tenant.companyId }, w.customer);
    expect({ status: withoutCustomer.statusCode, body: withoutCustomer.json() }).toEqual({
      status: 400,
      body: problems('CustomerID is required'),
    });
    const operator = await ctx().post(`${ENDPOINT}/list`, customer(), w.operator);
    expect({ status: operator.statusCode, body: operator.json() }).toEqual({
      status: 403,
      body: problems('An API key with role operator may not call this operation'),
    });
  });

  // ---- delivery ----------------------------------------------------------------------------------

  it('delivers each event signed by the Standard Webhooks rules, and logs the attempt', async () => {
    const endpoint = await create();
    const imported = (await importReceipt()).json().Receipt;
    expect(await dispatcher.runOnce()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const events = await expectOk(ctx().post(paths.EVENT_SEARCH, customer(), w.customer));
    const [event] = events.json().results.data;
    expect(got!.headers['webhook-id']).toBe(event.EventID);
    expect(got!.headers['webhook-timestamp']).toBe(String(Math.floor(ctx().clock.now() / 1000)));
    expect(got!.headers['content-type']).toBe('application/json');
    const payload = new Webhook(endpoint.Secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(payload).toEqual({ type: 'receipt.imported', timestamp: event.CreatedWhen, data: event.Data });
    expect(event.Data).toMatchObject({ SVCPOID: imported.SVCPOID, Status: 'Imported' });

    expect(await deliveries()).toEqual([
      {
        DeliveryID: expect.stringMatching(/^dlv_[0-9A-HJKMNP-TV-Z]{26}$/),
        EndpointID: endpoint.EndpointID,
        EventID: event.EventID,
        EventType: 'receipt.imported',
        Sequence: event.Sequence,
        Status: 'Succeeded',
        NextAttemptWhen: null,
        Attempts: [
          {
            AttemptNo: 1,
            StartedWhen: new Date(ctx().clock.now()).toISOString(),
            DurationMs: expect.any(Number),
            StatusCode: 200,
            Error: null,
            Response: 'ok',
          },
        ],
      },
    ]);
    // Delivered once: nothing is due any more.
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('sends an endpoint only its types and its customer’s events; a company-wide endpoint gets every customer’s', async () => {
    await create({ Url: receiver.url('/mine'), EventTypes: ['item.created'] });
    await create({ CustomerID: undefined, Url: receiver.url('/company') }, w.admin);
    await importReceipt(0);
    await importReceipt(1, w.otherCustomer);
    await expectOk(ctx().post(paths.ITEM_IMPORT, { ...customer(), Items: [{ itemID: 'IT-1' }] }, w.customer));
    await dispatcher.runOnce();
    const byPath = (path: string) => receiver.received.filter((got) => got.path === path).map((got) => JSON.parse(got.body).type);
    expect(byPath('/mine')).toEqual(['item.created']);
    expect(byPath('/company').sort()).toEqual(['item.created', 'receipt.imported', 'receipt.imported']);
  });

  it('never sends a customer’s endpoint another customer’s event of a type it takes', async () => {
    const mine = await create({ Url: receiver.url('/mine'), EventTypes: ['receipt.imported'] });
    const theirs = await create({ ...customer(1), Url: receiver.url('/theirs'), EventTypes: ['receipt.imported'] }, w.otherCustomer);
    await importReceipt(0);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received.map((got) => got.path)).toEqual(['/mine']);
    expect((await deliveries()).map((d: Json) => [d.EndpointID, d.EventType, d.Status])).toEqual([
      [mine.EndpointID, 'receipt.imported', 'Succeeded'],
    ]);
    expect(await deliveries({ ...customer(1), EndpointID: theirs.EndpointID }, w.otherCustomer)).toEqual([]);
    expect(await deliveries(customer(1), w.otherCustomer)).toEqual([]);
  });

  it('sends an endpoint only the events that happen after it is made, even those fanned out after', async () => {
    await importReceipt(0);
    ctx().clock.advance(1);
    await create();
    await expectOk(ctx().post(paths.ITEM_IMPORT, { ...customer(), Items: [{ itemID: 'IT-AFTER' }] }, w.customer));
    // Neither event was fanned out before the endpoint was made: one round takes both.
    await dispatcher.runOnce();
    expect(receivedTypes()).toEqual(['item.created']);
  });

  it('retries a failing delivery on the schedule, then delivers it when the receiver recovers', async () => {
    await create();
    await importReceipt();
    receiver.answerWith({ status: 500, body: 'down for maintenance' });
    expect(await dispatcher.runOnce()).toBe(1);
    const [failed] = await deliveries();
    expect(failed).toMatchObject({
      Status: 'Pending',
      NextAttemptWhen: new Date(ctx().clock.now() + 5 * SECOND).toISOString(),
      Attempts: [{ AttemptNo: 1, StatusCode: 500, Error: null, Response: 'down for maintenance' }],
    });
    // Not due yet: nothing is attempted.
    ctx().clock.advance(4 * SECOND);
    expect(await dispatcher.runOnce()).toBe(0);
    receiver.answerWith({ status: 204 });
    ctx().clock.advance(SECOND);
    expect(await dispatcher.runOnce()).toBe(1);
    const [delivered] = await deliveries();
    expect(delivered.Status).toBe('Succeeded');
    expect(delivered.Attempts.map((a: Json) => a.StatusCode)).toEqual([500, 204]);
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((got) => got.headers['webhook-id'])).size).toBe(1);
  });

  it('waits as long as a Retry-After asks, and gives a delivery up after eight attempts', async () => {
    await create();
    await importReceipt();
    receiver.answerWith({ status: 503, headers: { 'retry-after': '120' } });
    await dispatcher.runOnce();
    const [first] = await deliveries();
    expect(first.NextAttemptWhen).toBe(new Date(ctx().clock.now() + 120 * SECOND).toISOString());

    receiver.answerWith({ status: 500 });
    const started = ctx().clock.now();
    const waits = [120 * SECOND, 5 * 60 * SECOND, 30 * 60 * SECOND, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    for (const wait of waits) {
      ctx().clock.advance(wait);
      expect(await dispatcher.runOnce()).toBe(1);
    }
    const [given] = await deliveries();
    expect(given.Status).toBe('Failed');
    expect(given.NextAttemptWhen).toBeNull();
    expect(given.Attempts.map((a: Json) => Date.parse(a.StartedWhen as string) - started)).toEqual([
      0,
      ...waits.map((_, i) => waits.slice(0, i + 1).reduce((a, b) => a + b, 0)),
    ]);
    ctx().clock.advance(24 * HOUR);
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('disables an endpoint that answers 410 Gone, and sends it nothing more', async () => {
    const endpoint = await create();
    await importReceipt();
    receiver.answerWith({ status: 410 });
    await dispatcher.runOnce();
    expect((await deliveries())[0]).toMatchObject({ Status: 'Failed', NextAttemptWhen: null });
    const listed = (await expectOk(ctx().post(`${ENDPOINT}/list`, customer(), w.customer))).json().Endpoints;
    expect(listed).toEqual([
      expect.objectContaining({ EndpointID: endpoint.EndpointID, Enabled: false, DisabledReason: 'The endpoint answered 410 Gone' }),
    ]);
    receiver.answerWith({ status: 200 });
    await importReceipt();
    expect(await dispatcher.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('disables an endpoint after five days of nothing but failures; one success starts the count again', async () => {
    const endpoint = await create();
    receiver.answerWith({ status: 500 });
    await importReceipt();
    await dispatcher.runOnce();
    // A success on day 2 clears the streak...
    ctx().clock.advance(2 * 24 * HOUR);
    receiver.answerWith({ status: 200 });
    await importReceipt();
    await dispatcher.runOnce();
    const enabled = async () => (await expectOk(ctx().post(`${ENDPOINT}/list`, customer(), w.customer))).json().Endpoints[0];
    expect(await enabled()).toMatchObject({ Enabled: true, FailingSince: null });
    // ...so failures from day 2.5 on disable it only five days later.
    receiver.answerWith({ status: 500 });
    ctx().clock.advance(12 * HOUR);
    const failingSince = new Date(ctx().clock.now()).toISOString();
    await importReceipt();
    await dispatcher.runOnce();
    ctx().clock.advance(4 * 24 * HOUR);
    await importReceipt();
    await dispatcher.runOnce();
    expect(await enabled()).toMatchObject({ Enabled: true, DisabledReason: null, FailingSince: failingSince });
    ctx().clock.advance(24 * HOUR);
    await importReceipt();
    await dispatcher.runOnce();
    expect(await enabled()).toMatchObject({
      EndpointID: endpoint.EndpointID,
      Enabled: false,
      DisabledReason: 'Every attempt failed for 5 days',
    });
  });

  it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
    const endpoint = await create();
    const rotated = (
      await expectOk(ctx().post(`${ENDPOINT}/rotate-secret`, { ...customer(), EndpointID: endpoint.EndpointID }, w.customer))
    ).json().Endpoint;
    await importReceipt();
    await dispatcher.runOnce();
    const [during] = receiver.received;
    expect((during!.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    for (const secret of [endpoint.Secret, rotated.Secret]) {
      expect(() => new Webhook(secret).verify(during!.body, during!.headers as Record<string, string>)).not.toThrow();
    }
    // 24 hours on (the clock is back at the real time so that the timestamp verifies).
    await sql`update webhook_endpoints set previous_secret_until = ${ctx().clock.now()} where endpoint_id = ${endpoint.EndpointID}`.execute(
      ctx().database.db,
    );
    await importReceipt();
    await dispatcher.runOnce();
    const after = receiver.received[1]!;
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(() => new Webhook(rotated.Secret).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(endpoint.Secret).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });

  it('replays one delivery, or every delivery to an endpoint since a time', async () => {
    const endpoint = await create();
    await importReceipt();
    ctx().clock.advance(60 * SECOND);
    const since = new Date(ctx().clock.now()).toISOString();
    await importReceipt();
    await importReceipt();
    await dispatcher.runOnce();
    const [first, second] = await deliveries();
    expect(receiver.received).toHaveLength(3);

    const one = await expectOk(ctx().post(`${DELIVERY}/replay`, { ...customer(), DeliveryID: first.DeliveryID }, w.customer));
    expect(one.json()).toEqual({ Replayed: 1 });
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(first.EventID);

    const all = await expectOk(
      ctx().post(`${DELIVERY}/replay`, { ...customer(), EndpointID: endpoint.EndpointID, Since: since }, w.customer),
    );
    expect(all.json()).toEqual({ Replayed: 2 });
    expect(await dispatcher.runOnce()).toBe(2);
    const [again] = await deliveries({ DeliveryID: undefined, EventID: second.EventID });
    expect(again.Attempts.map((a: Json) => a.AttemptNo)).toEqual([1, 2]);

    const neither = await ctx().post(`${DELIVERY}/replay`, { ...customer(), EndpointID: endpoint.EndpointID }, w.customer);
    expect({ status: neither.statusCode, body: neither.json() }).toEqual({
      status: 400,
      body: problems('Send DeliveryID, or EndpointID and Since'),
    });
    const unknown = await ctx().post(`${DELIVERY}/replay`, { ...customer(1), DeliveryID: first.DeliveryID }, w.otherCustomer);
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({
      status: 404,
      body: { error: `Not found delivery ${first.DeliveryID}` },
    });
  });

  it('refuses with 409 a replay that would queue deliveries of a disabled endpoint, changing nothing; replays once it is enabled', async () => {
    const endpoint = await create();
    const since = new Date(ctx().clock.now()).toISOString();
    await importReceipt();
    receiver.answerWith({ status: 410 });
    await dispatcher.runOnce();
    const [gone] = await deliveries();
    expect(gone).toMatchObject({ Status: 'Failed', NextAttemptWhen: null });

    const refusal = problems(
      `Endpoint ${endpoint.EndpointID} is disabled (The endpoint answered 410 Gone): enable it, then replay its deliveries`,
    );
    const one = await ctx().post(`${DELIVERY}/replay`, { ...customer(), DeliveryID: gone.DeliveryID }, w.customer);
    expect({ status: one.statusCode, body: one.json() }).toEqual({ status: 409, body: refusal });
    const all = await ctx().post(`${DELIVERY}/replay`, { ...customer(), EndpointID: endpoint.EndpointID, Since: since }, w.customer);
    expect({ status: all.statusCode, body: all.json() }).toEqual({ status: 409, body: refusal });
    expect(await deliveries()).toEqual([gone]);
    // Nothing to queue since a later time: nothing is promised, whatever the endpoint's state.
    ctx().clock.advance(SECOND);
    const later = new Date(ctx().clock.now()).toISOString();
    const none = await ctx().post(`${DELIVERY}/replay`, { ...customer(), EndpointID: endpoint.EndpointID, Since: later }, w.customer);
    expect({ status: none.statusCode, body: none.json() }).toEqual({ status: 200, body: { Replayed: 0 } });

    receiver.answerWith({ status: 200 });
    await expectOk(ctx().post(`${ENDPOINT}/update`, { ...customer(), EndpointID: endpoint.EndpointID, Enabled: true }, w.customer));
    const replayed = await expectOk(ctx().post(`${DELIVERY}/replay`, { ...customer(), DeliveryID: gone.DeliveryID }, w.customer));
    expect(replayed.json()).toEqual({ Replayed: 1 });
    expect(await dispatcher.runOnce()).toBe(1);
    expect((await deliveries())[0]).toMatchObject({ Status: 'Succeeded', NextAttemptWhen: null });
  });

  it('replays a delivery asked for during its attempt once that attempt ends, never beside it', async () => {
    await create();
    await importReceipt();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const attemptArrived = new Promise<void>((resolve) => (arrived = resolve));
    receiver.answerWith(() => {
      arrived();
      return { status: 200, body: 'ok', heldUntil: released };
    });
    const attempting = dispatcher.runOnce();
    await attemptArrived;
    const [delivery] = await deliveries();
    const replayed = await expectOk(ctx().post(`${DELIVERY}/replay`, { ...customer(), DeliveryID: delivery.DeliveryID }, w.customer));
    expect(replayed.json()).toEqual({ Replayed: 1 });
    // The attempt still holds the delivery: another dispatcher takes nothing.
    const other = createDispatcher({ db: ctx().database.db, clock: ctx().clock, sender, concurrency: 4, leaseMs: 60 * SECOND, pollMs: 50 });
    expect(await other.runOnce()).toBe(0);
    release();
    expect(await attempting).toBe(1);

    // The attempt succeeded, yet the replay asked for another: the delivery is due now.
    const [afterAttempt] = await deliveries();
    expect(afterAttempt).toMatchObject({
      Status: 'Pending',
      NextAttemptWhen: new Date(ctx().clock.now()).toISOString(),
      Attempts: [{ AttemptNo: 1, StatusCode: 200 }],
    });
    receiver.answerWith({ status: 204 });
    expect(await dispatcher.runOnce()).toBe(1);
    const [replayedDelivery] = await deliveries();
    expect(replayedDelivery).toMatchObject({ Status: 'Succeeded', NextAttemptWhen: null });
    expect(replayedDelivery.Attempts.map((a: Json) => [a.AttemptNo, a.StatusCode])).toEqual([
      [1, 200],
      [2, 204],
    ]);
    expect(receiver.received).toHaveLength(2);
  });

  it('purges the deliveries that ended longer ago than the retention, with their attempts, and keeps what is pending', async () => {
    await create();
    await importReceipt();
    await importReceipt();
    expect(await dispatcher.runOnce()).toBe(2);
    ctx().clock.advance(31 * DAY);
    receiver.answerWith({ status: 500, body: 'down for maintenance' });
    await importReceipt();
    expect(await dispatcher.runOnce()).toBe(1);
    const before = await deliveries();
    expect(before.map((delivery: Json) => delivery.Status)).toEqual(['Succeeded', 'Succeeded', 'Pending']);
    const attempts = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from webhook_attempts where company_id = ${w.tenant.companyId}`.execute(
            ctx().database.db,
          )
        ).rows[0]!.n,
      );
    expect(await attempts()).toBe(3);

    // The database is shared by this file's tests: every delivery that ended before the cutoff goes,
    // the earlier tests' too.
    const endedBefore = async (cutoff: number) =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from webhook_deliveries
            where next_attempt_at is null and leased_until is null and updated_at < ${cutoff}`.execute(ctx().database.db)
        ).rows[0]!.n,
      );
    const ended = await endedBefore(ctx().clock.now() - 30 * DAY);
    expect(ended).toBeGreaterThanOrEqual(2);
    const purge = async (now: number) => (await purgeEndedDeliveriesBefore(ctx().database.db, now - 30 * DAY, { size: 1000 })).rows;
    expect(await purge(ctx().clock.now())).toBe(ended);
    expect(await deliveries()).toEqual([before[2]]);
    expect(await attempts()).toBe(1);
    // A pending delivery is kept however old it grows.
    const later = ctx().clock.now() + 365 * DAY;
    const endedLater = await endedBefore(later - 30 * DAY);
    expect(await purge(later)).toBe(endedLater);
    expect(await deliveries()).toEqual([before[2]]);
  });

  it('filters the delivery log by endpoint, event and status; another customer finds none of it', async () => {
    const a = await create({ Url: receiver.url('/a') });
    await create({ Url: receiver.url('/b') });
    receiver.answerWith((got) => ({ status: got.path === '/a' ? 200 : 500 }));
    await importReceipt();
    await dispatcher.runOnce();
    expect((await deliveries({ EndpointID: a.EndpointID })).map((d: Json) => d.Status)).toEqual(['Succeeded']);
    expect((await deliveries({ Status: 'Pending' })).map((d: Json) => d.EndpointID)).not.toContain(a.EndpointID);
    expect(await deliveries({ EndpointID: 'ep_01NEVERUSED000000000000000' })).toEqual([]);
    expect(await deliveries({ ...customer(1) }, w.otherCustomer)).toEqual([]);
    expect(await deliveries({ ...customer(1), EndpointID: a.EndpointID }, w.otherCustomer)).toEqual([]);
  });

  it('delivers every one of 1,000 imports at least once, each signed with the endpoint’s secret', async () => {
    const endpoint = await create();
    const webhook = new Webhook(endpoint.Secret);
    for (let i = 0; i < 1000; i += 20) await Promise.all(Array.from({ length: 20 }, () => importReceipt()));
    let attempted = 0;
    // A round takes at most 4 deliveries of the one endpoint (fair dispatch).
    for (let round = 0; round < 1000 && attempted < 1000; round++) attempted += await dispatcher.runOnce();
    const events = (await expectOk(ctx().post(paths.EVENT_SEARCH, { ...customer(), Paging: { PageSize: 1000 } }, w.customer))).json();
    expect(events.paging.totalCount).toBe(1000);
    const got = new Set(
      receiver.received.map((r) => webhook.verify(r.body, r.headers as Record<string, string>) && r.headers['webhook-id']),
    );
    expect([...got].sort()).toEqual(events.results.data.map((e: { EventID: string }) => e.EventID).sort());
    expect(receivedTypes().every((type) => type === 'receipt.imported')).toBe(true);
    // A thousand requests and deliveries: more than a default test's time on a busy machine.
  }, 120_000);
});

describeEachDialect('webhooks without private addresses', (dialect) => {
  const ctx = useTestApp(dialect);
  let w: World;
  beforeAll(async () => {
    w = await createWorld(ctx().database.db, ctx().clock);
  });

  it('refuses http:// and private addresses when an endpoint is saved, and a name that resolves to one when it is attempted', async () => {
    const body = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0] };
    const refused = async (url: string) => {
      const answer = await ctx().post(`${ENDPOINT}/create`, { ...body, Url: url }, w.customer);
      return { status: answer.statusCode, body: answer.json() };
    };
    expect(await refused('http://hooks.example.com/wharf')).toEqual({ status: 400, body: problems('Url must be https://') });
    expect(await refused('https://169.254.169.254/latest')).toEqual({
      status: 400,
      body: problems('Url must reach a public address, not 169.254.169.254'),
    });
    expect(await refused('https://[::127.0.0.1]/hooks')).toEqual({
      status: 400,
      body: problems('Url must reach a public address, not ::7f00:1'),
    });
    const endpoint = (await expectOk(ctx().post(`${ENDPOINT}/create`, { ...body, Url: 'https://localhost:1/hooks' }, w.customer))).json()
      .Endpoint;
    await expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant }), w.customer));
    const sender = createSender({ allowPrivate: false });
    const dispatcher = createDispatcher({ db: ctx().database.db, clock: ctx().clock, sender, concurrency: 4, leaseMs: 60_000, pollMs: 50 });
    expect(await dispatcher.runOnce()).toBe(1);
    await sender.close();
    const [delivery] = (await expectOk(ctx().post(`${DELIVERY}/search-by-paging`, body, w.customer))).json().results.data;
    expect(delivery).toMatchObject({ EndpointID: endpoint.EndpointID, Status: 'Pending' });
    expect(delivery.Attempts[0]).toMatchObject({
      StatusCode: null,
      Error: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/),
      Response: null,
    });
  });
});

describeEachDialect('webhook metrics', (dialect) => {
  // A database of its own: the queue depth counts every delivery in it.
  const ctx = useTestApp(dialect, { webhookAllowPrivate: true });

  it('shows the queue depth, the attempts by outcome and the lag in /metrics', async () => {
    const w = await createWorld(ctx().database.db, ctx().clock);
    const receiver = await startReceiver();
    const sender = createSender({ allowPrivate: true });
    const tally = new WebhookTally();
    const observed = createDispatcher({
      db: ctx().database.db,
      clock: ctx().clock,
      sender,
      concurrency: 16,
      leaseMs: 60_000,
      pollMs: 50,
      random: () => 0.5,
      observer: tally,
    });
    const customer = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! };
    await expectOk(ctx().post(`${ENDPOINT}/create`, { ...customer, Url: receiver.url() }, w.customer));
    const importReceipt = () => expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant }), w.customer));
    receiver.answerWith({ status: 500 });
    await importReceipt();
    await importReceipt();
    await observed.runOnce();
    expect(valueOf(await readMetrics(ctx().app), 'wharf_webhook_queue_depth')).toBe(2);
    ctx().clock.advance(6 * SECOND);
    receiver.answerWith({ status: 200 });
    await observed.runOnce();
    expect(valueOf(await readMetrics(ctx().app), 'wharf_webhook_queue_depth')).toBe(0);
    const samples = parseMetrics(
      await Registry.merge([AggregatorRegistry.aggregate([await tally.asMetricsJson(ctx().database.db)])]).metrics(),
    );
    expect(valueOf(samples, 'wharf_webhook_attempts_total', { outcome: 'retry' })).toBe(2);
    expect(valueOf(samples, 'wharf_webhook_attempts_total', { outcome: 'succeeded' })).toBe(2);
    // Both delivered 6 s after their events: in the bucket up to 10 s, not the one up to 5 s.
    expect(valueOf(samples, 'wharf_webhook_lag_seconds_count')).toBe(2);
    expect(valueOf(samples, 'wharf_webhook_lag_seconds_sum')).toBe(12);
    expect(valueOf(samples, 'wharf_webhook_lag_seconds_bucket', { le: '5' })).toBe(0);
    expect(valueOf(samples, 'wharf_webhook_lag_seconds_bucket', { le: '10' })).toBe(2);
    await sender.close();
    await receiver.close();
  });

  it('counts in the queue depth only the deliveries of enabled endpoints: a disabled one’s wait, and go once it is enabled', async () => {
    const w = await createWorld(ctx().database.db, ctx().clock);
    const receiver = await startReceiver();
    const sender = createSender({ allowPrivate: true });
    const dispatcher = createDispatcher({
      db: ctx().database.db,
      clock: ctx().clock,
      sender,
      concurrency: 16,
      leaseMs: 60_000,
      pollMs: 50,
    });
    const customer = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! };
    const endpoint = (await expectOk(ctx().post(`${ENDPOINT}/create`, { ...customer, Url: receiver.url() }, w.customer))).json().Endpoint;
    const depth = async () => valueOf(await readMetrics(ctx().app), 'wharf_webhook_queue_depth');
    const enable = (Enabled: boolean) =>
      expectOk(ctx().post(`${ENDPOINT}/update`, { ...customer, EndpointID: endpoint.EndpointID, Enabled }, w.customer));
    receiver.answerWith({ status: 500 });
    await expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant }), w.customer));
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await depth()).toBe(1);

    await enable(false);
    expect(await depth()).toBe(0);
    ctx().clock.advance(6 * SECOND);
    expect(await dispatcher.runOnce()).toBe(0);

    receiver.answerWith({ status: 200 });
    await enable(true);
    expect(await depth()).toBe(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await depth()).toBe(0);
    await sender.close();
    await receiver.close();
  });
});
