import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inTransaction } from '../src/db/transaction.js';
import { purgeInBatches } from '../src/db/purge.js';
import { purgeIdempotencyRecordsBefore } from '../src/modules/commands/commands.service.js';
import { purgeEventsBefore, sequenceEvents } from '../src/modules/events/events.service.js';
import { createDispatcher, type Dispatcher } from '../src/modules/webhooks/dispatcher.js';
import { createSender, type Sender } from '../src/modules/webhooks/sender.js';
import { purgeExpired, type RetentionSettings } from '../src/retention.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { createWorld, expectOk, receiptBody, type World } from './helpers/factories.js';
import { EVENT_SEARCH, ITEM_IMPORT, RECEIPT_IMPORT } from './helpers/paths.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/**
 * Retention (docs/operations.md, "Retention"; docs/webhooks.md, "Retention"): each kind is purged
 * once its time has passed and not a millisecond before, a batch per transaction; an event is kept
 * while an enabled webhook endpoint still waits for it, and always the newest, so that Sequences go
 * on. Driven by the test clock.
 */

type Json = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RETENTION: RetentionSettings = {
  idempotencyRetentionHours: 48,
  webhookRetentionDays: 30,
  eventRetentionDays: 90,
  x12RetentionDays: 90,
};
const ENDPOINT = '/edi/webhook/endpoint';

/** The test app with a webhook receiver, a dispatcher and a tenant of two customers. */
function useWebhookWorld(dialect: Parameters<typeof useTestApp>[0]) {
  const ctx = useTestApp(dialect, { webhookAllowPrivate: true });
  const world = {} as { w: World; receiver: Receiver; sender: Sender; dispatcher: Dispatcher };
  beforeAll(async () => {
    world.receiver = await startReceiver();
    world.sender = createSender({ allowPrivate: true, now: () => ctx().clock.now() });
    world.w = await createWorld(ctx().database.db, ctx().clock);
    world.dispatcher = createDispatcher({
      db: ctx().database.db,
      clock: ctx().clock,
      sender: world.sender,
      concurrency: 16,
      leaseMs: 60_000,
      pollMs: 50,
      random: () => 0.5,
      onError: (error) => {
        throw error;
      },
    });
  });
  afterAll(async () => {
    await world.sender?.close();
    await world.receiver?.close();
  });

  const customer = (index: number) => ({ CompanyID: world.w.tenant.companyId, CustomerID: world.w.tenant.customerIds[index]! });
  const keyOf = (index: number) => (index === 0 ? world.w.customer : world.w.otherCustomer);
  return {
    ctx,
    world,
    customer,
    createEndpoint: async (index: number) =>
      (await expectOk(ctx().post(`${ENDPOINT}/create`, { ...customer(index), Url: world.receiver.url() }, keyOf(index)))).json().Endpoint
        .EndpointID as string,
    setEnabled: (index: number, endpointId: string, enabled: boolean) =>
      expectOk(ctx().post(`${ENDPOINT}/update`, { ...customer(index), EndpointID: endpointId, Enabled: enabled }, keyOf(index))),
    importReceipt: (index: number) =>
      expectOk(ctx().post(RECEIPT_IMPORT, receiptBody({ tenant: world.w.tenant, customer: index }), keyOf(index))),
    /** The customer's events as the events search answers them: their Sequences, oldest first. */
    sequences: async (index: number, body: Json = {}) =>
      (await expectOk(ctx().post(EVENT_SEARCH, { ...customer(index), Paging: { PageSize: 1000 }, ...body }, keyOf(index))))
        .json()
        .results.data.map((event: Json) => event.Sequence as number),
    /** What one pass of every purge did, by kind. */
    purge: async () =>
      Object.fromEntries(
        (await purgeExpired(ctx().database.db, RETENTION, ctx().clock.now(), { size: 1000 })).map((kind) => [kind.kind, kind.rows]),
      ),
  };
}

const nothing = { 'idempotency records': 0, 'webhook deliveries': 0, events: 0, 'x12 interchanges': 0, 'x12 advices': 0 };

describeEachDialect('retention of events an enabled endpoint waits for', (dialect) => {
  const { ctx, world, createEndpoint, importReceipt, sequences, purge } = useWebhookWorld(dialect);

  it('keeps an old event until its delivery has ended: first not fanned out, then failing; then purges it', async () => {
    await createEndpoint(0);
    world.receiver.answerWith({ status: 500, body: 'down' });
    await importReceipt(0);
    const [old] = await sequences(0);
    ctx().clock.advance(91 * DAY);
    await importReceipt(0);

    // Not fanned out yet, and the enabled endpoint takes it.
    expect(await purge()).toEqual(nothing);
    // Fanned out; its delivery failed and waits for its retry.
    expect(await world.dispatcher.runOnce()).toBe(2);
    expect(await purge()).toEqual(nothing);
    expect(await sequences(0)).toEqual([old, old + 1]);

    world.receiver.answerWith({ status: 204 });
    ctx().clock.advance(10_000);
    expect(await world.dispatcher.runOnce()).toBe(2);
    expect(await purge()).toEqual({ ...nothing, events: 1 });
    expect(await sequences(0)).toEqual([old + 1]);
  });

  it('purges an old event no enabled endpoint takes, though not fanned out yet, up to the first one an endpoint takes', async () => {
    const [delivered] = await sequences(0);
    // Customer 1 has no endpoint; customer 0's endpoint takes its event.
    await importReceipt(1);
    await importReceipt(0);
    ctx().clock.advance(91 * DAY);
    // The deliveries of the test before ended more than 30 days ago.
    expect(await purge()).toEqual({ ...nothing, 'webhook deliveries': 2, events: 2 });
    expect(await sequences(1)).toEqual([]);
    expect(await sequences(0)).toEqual([delivered! + 2]);
  });
});

describeEachDialect('retention of events a disabled endpoint would have taken', (dialect) => {
  const { ctx, world, createEndpoint, setEnabled, importReceipt, sequences, purge, customer } = useWebhookWorld(dialect);

  it('purges them, and gives up unsent a delivery whose event was purged once the endpoint is enabled again', async () => {
    const endpoint = await createEndpoint(1);
    world.receiver.answerWith({ status: 500, body: 'down' });
    await importReceipt(1);
    expect(await world.dispatcher.runOnce()).toBe(1);
    await setEnabled(1, endpoint, false);
    // Made while it is disabled: never queued for it.
    await importReceipt(1);
    ctx().clock.advance(91 * DAY);
    await importReceipt(0);
    const [newest] = await sequences(0);

    expect(await purge()).toEqual({ ...nothing, events: 2 });
    expect(await sequences(1)).toEqual([]);
    expect(await sequences(0)).toEqual([newest]);

    await setEnabled(1, endpoint, true);
    world.receiver.answerWith({ status: 204 });
    world.receiver.received.length = 0;
    expect(await world.dispatcher.runOnce()).toBe(1);
    expect(world.receiver.received).toEqual([]);
    const { rows } = await sql<{ status: string; next_attempt_at: number | null; attempt_count: number }>`
      select status, next_attempt_at, attempt_count from webhook_deliveries where company_id = ${customer(1).CompanyID}`.execute(
      ctx().database.db,
    );
    expect(rows.map((row) => ({ ...row, attempt_count: Number(row.attempt_count) }))).toEqual([
      { status: 'Failed', next_attempt_at: null, attempt_count: 1 },
    ]);
    expect(await world.dispatcher.runOnce()).toBe(0);
  });
});

describeEachDialect('retention of events: Sequences', (dialect) => {
  const { ctx, importReceipt, sequences, purge } = useWebhookWorld(dialect);

  it('keeps the newest event however old, so that the next event is numbered after it; a reader behind the oldest kept gets what is kept', async () => {
    for (let i = 0; i < 3; i++) await importReceipt(0);
    const [first, second, third] = await sequences(0);
    expect([second, third]).toEqual([first! + 1, first! + 2]);
    // Kept for 90 days to the millisecond, purged the millisecond after.
    ctx().clock.advance(90 * DAY);
    expect(await purge()).toEqual(nothing);
    ctx().clock.advance(1);
    expect(await purge()).toEqual({ ...nothing, events: 2 });
    expect(await purge()).toEqual(nothing);
    await importReceipt(0);
    // The Sequence of a purged event is never given again.
    expect(await sequences(0)).toEqual([third, third! + 1]);
    // A cursor at an event that is gone reads on from the oldest kept.
    expect(await sequences(0, { AfterSequence: first })).toEqual([third, third! + 1]);
  });

  it.runIf(dialect === 'postgres')('never purges an event that has no Sequence yet, however old', async () => {
    const { db } = ctx().database;
    await db
      .insertInto('events')
      .values({
        company_id: 'NOSEQ',
        event_id: 'evt_UNNUMBERED',
        type: 'receipt.imported',
        customer_id: 'CU',
        facility_id: null,
        data: '{}',
        key_id: null,
        created_at: ctx().clock.now() - 100 * DAY,
      })
      .execute();
    const lastGiven = async () =>
      Number((await db.selectFrom('event_sequencer').select('last_sequence').where('id', '=', 1).executeTakeFirstOrThrow()).last_sequence);
    const given = await lastGiven();
    ctx().clock.advance(91 * DAY);
    // The older of the two events the test before left; the newest stays.
    expect(await purgeEventsBefore(db, ctx().clock.now() - 90 * DAY, { size: 1000 })).toEqual({ rows: 1, transactions: 1 });
    const unnumbered = () => db.selectFrom('events').select('sequence').where('event_id', '=', 'evt_UNNUMBERED').executeTakeFirst();
    expect(await unnumbered()).toEqual({ sequence: null });
    // The sequencer numbers it on, after every Sequence given so far.
    expect(await sequenceEvents(db)).toBe(1);
    expect(await unnumbered()).toEqual({ sequence: given + 1 });
    expect(await lastGiven()).toBe(given + 1);
  });
});

describeEachDialect('retention of idempotency records', (dialect) => {
  const { ctx, world } = useWebhookWorld(dialect);
  const importItem = (itemID: string, key: string) =>
    ctx().post(
      ITEM_IMPORT,
      { CompanyID: world.w.tenant.companyId, CustomerID: world.w.tenant.customerIds[0], Items: [{ itemID }] },
      world.w.customer,
      { 'idempotency-key': key },
    );

  it('replays an answer until IDEMPOTENCY_RETENTION_HOURS have passed, then runs the key afresh', async () => {
    const first = await importItem('RET-1', 'retained');
    expect(first.json()).toEqual({ Items: [{ itemID: 'RET-1', Status: 'Created' }] });
    const purge = () => purgeExpired(ctx().database.db, { ...RETENTION, idempotencyRetentionHours: 24 }, ctx().clock.now(), { size: 1000 });
    ctx().clock.advance(24 * HOUR);
    expect((await purge()).map((kind) => [kind.kind, kind.rule, kind.rows])).toEqual([
      ['idempotency records', 'older than 24 hours', 0],
      ['webhook deliveries', 'ended more than 30 days ago', 0],
      ['events', 'older than 90 days', 0],
      ['x12 interchanges', 'older than 90 days', 0],
      ['x12 advices', 'taken more than 90 days ago', 0],
    ]);
    expect((await importItem('RET-2', 'retained')).statusCode).toBe(422);
    ctx().clock.advance(1);
    expect((await purge())[0]).toEqual({ kind: 'idempotency records', rule: 'older than 24 hours', rows: 1, transactions: 1 });
    expect((await importItem('RET-2', 'retained')).json()).toEqual({ Items: [{ itemID: 'RET-2', Status: 'Created' }] });
  });
});

describeEachDialect('retention in batches', (dialect) => {
  const { ctx, world, importReceipt, sequences } = useWebhookWorld(dialect);

  it('purges 5 events in batches of 2: 3 transactions, the newest kept', async () => {
    for (let i = 0; i < 6; i++) await importReceipt(0);
    const made = await sequences(0);
    ctx().clock.advance(91 * DAY);
    expect(await purgeEventsBefore(ctx().database.db, ctx().clock.now() - 90 * DAY, { size: 2 })).toEqual({ rows: 5, transactions: 3 });
    expect(await sequences(0)).toEqual([made.at(-1)]);
  });

  it('purges 5 idempotency records in batches of 2: 3 transactions', async () => {
    for (let i = 0; i < 5; i++) {
      const body = { CompanyID: world.w.tenant.companyId, CustomerID: world.w.tenant.customerIds[0], Items: [{ itemID: `BATCH-${i}` }] };
      expect((await ctx().post(ITEM_IMPORT, body, world.w.customer, { 'idempotency-key': `batch-${i}` })).statusCode).toBe(200);
    }
    ctx().clock.advance(48 * HOUR + 1);
    expect(await purgeIdempotencyRecordsBefore(ctx().database.db, ctx().clock.now() - 48 * HOUR, { size: 2 })).toEqual({
      rows: 5,
      transactions: 3,
    });
    const { rows } = await sql<{ n: number }>`select count(*) as n from idempotency_records`.execute(ctx().database.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('ends a purge after the batch in flight once it is stopped', async () => {
    const stopping = new AbortController();
    let batches = 0;
    const purged = await purgeInBatches(ctx().database.db, { size: 2, signal: stopping.signal }, async (trx) => {
      batches += 1;
      await sql`select 1`.execute(trx);
      stopping.abort();
      return 2;
    });
    expect({ purged, batches }).toEqual({ purged: { rows: 2, transactions: 1 }, batches: 1 });
    expect(await inTransaction(ctx().database.db, async () => 'still usable')).toBe('still usable');
  });
});
