import { expect, it } from 'vitest';
import { fanOut } from '../src/modules/webhooks/deliveries.service.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';
import { createWorld, expectOk, receiptBody } from './helpers/factories.js';
import * as paths from './helpers/paths.js';

/**
 * The fan-out while no endpoint is enabled anywhere (a database of its own: the other webhook tests
 * leave endpoints enabled): it moves its cursor to the newest Sequence and makes no delivery, and an
 * endpoint enabled afterwards gets only the events fanned out after that, as a disabled one always has.
 */

describeEachDialect('the webhook fan-out with no endpoint enabled', (dialect) => {
  const ctx = useTestApp(dialect, { webhookAllowPrivate: true });

  it('moves past the events without a delivery; an endpoint enabled later gets only what comes after', async () => {
    const { db } = ctx().database;
    const w = await createWorld(db, ctx().clock);
    const customer = { CompanyID: w.tenant.companyId, CustomerID: w.tenant.customerIds[0]! };
    const created = await expectOk(
      ctx().post(`${paths.WEBHOOK_ENDPOINT}/create`, { ...customer, Url: 'http://127.0.0.1:9/hook' }, w.customer),
    );
    const endpoint = { ...customer, EndpointID: created.json().Endpoint.EndpointID as string };
    await expectOk(ctx().post(`${paths.WEBHOOK_ENDPOINT}/update`, { ...endpoint, Enabled: false }, w.customer));
    const importReceipt = () => expectOk(ctx().post(paths.RECEIPT_IMPORT, receiptBody({ tenant: w.tenant }), w.customer));
    const cursor = async () =>
      Number((await db.selectFrom('webhook_fanout').select('last_sequence').executeTakeFirstOrThrow()).last_sequence);
    const deliveries = () => db.selectFrom('webhook_deliveries').select(['event_type', 'sequence']).execute();
    const newestSequence = async () =>
      Number(
        (
          await db
            .selectFrom('events')
            .select((eb) => eb.fn.max('sequence').as('last'))
            .executeTakeFirstOrThrow()
        ).last,
      );

    await importReceipt();
    await importReceipt();
    expect(await fanOut(db, ctx().clock.now())).toBe(false);
    const passed = await newestSequence();
    expect(passed).toBeGreaterThan(0);
    expect(await cursor()).toBe(passed);
    expect(await deliveries()).toEqual([]);

    await expectOk(ctx().post(`${paths.WEBHOOK_ENDPOINT}/update`, { ...endpoint, Enabled: true }, w.customer));
    await importReceipt();
    expect(await fanOut(db, ctx().clock.now())).toBe(true);
    expect(await newestSequence()).toBe(passed + 1);
    expect((await deliveries()).map((row) => [row.event_type, Number(row.sequence)])).toEqual([['receipt.imported', passed + 1]]);
    expect(await cursor()).toBe(passed + 1);
  });
});
