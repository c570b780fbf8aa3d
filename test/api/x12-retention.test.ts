import { beforeAll, expect, it } from 'vitest';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import * as partners from '../../src/modules/x12/partners.service.js';
import { purgeExpired } from '../../src/retention.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, importItems, stock } from '../helpers/factories.js';
import { THREEPL_ORDER } from '../helpers/paths.js';
import { interchange, postX12, type X12Parties } from '../helpers/x12.js';

/**
 * X12 retention (docs/x12.md, "Retention"): the record of an interchange received, which makes the
 * same interchange sent again a replay, is kept X12_RETENTION_DAYS; after that the interchange is
 * received as a new one, answered from the partner's control numbers, which are never purged. An
 * advice a partner took goes after the same time; one still waiting stays whatever its age.
 */

type Json = Record<string, unknown>;
const DAY = 24 * 3_600_000;
const RETENTION = { idempotencyRetentionHours: 48, webhookRetentionDays: 30, eventRetentionDays: 90, x12RetentionDays: 90 };
const ACME: X12Parties = { sender: 'ACMEEDI', receiver: 'X12KEEP' };
const tenant = { companyId: 'X12KEEP', customerIds: ['ACME'], facilityIds: ['LAX1'] };
const ids = { CompanyID: 'X12KEEP', CustomerID: 'ACME' };

const order940 = (referenceNo: string) => [
  `W05*N*${referenceNo}*PO-${referenceNo}`,
  'N1*WH*Wharf Los Angeles*9*LAX1',
  'N1*ST*Jane Doe',
  'N3*1 Market St',
  'N4*San Francisco*CA*94105',
  'LX*1',
  'W01*2*EA**VN*MUG-BLUE-12',
];

describeEachDialect('X12 retention', (dialect) => {
  const ctx = useTestApp(dialect);
  const keys = { acme: '', operator: '' };
  const x12Purged = async () => {
    const purged = await purgeExpired(ctx().database.db, RETENTION, ctx().clock.now(), { size: 1000 });
    return Object.fromEntries(purged.filter((kind) => kind.kind.startsWith('x12')).map((kind) => [kind.kind, kind.rows]));
  };
  const advices = async (Status: string) =>
    (await ctx().post('/edi/x12/outbox/list', { ...ids, Status }, keys.acme)).json().results.data.map((advice: Json) => advice.OutboxID);

  beforeAll(async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    await tenants.addCompany(db, clock, { companyId: 'X12KEEP' });
    await tenants.addCustomer(db, clock, { companyId: 'X12KEEP', customerId: 'ACME' });
    await tenants.addFacility(db, clock, { companyId: 'X12KEEP', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    keys.acme = await createKey(db, clock, tenant, 'customer', { customerIds: ['ACME'] });
    keys.operator = await createKey(db, clock, tenant, 'operator');
    await importItems(ctx(), { tenant, key: keys.acme, items: ['MUG-BLUE-12'] });
    await stock(ctx(), { tenant, items: [{ ItemNumber: 'MUG-BLUE-12', Qty: 100 }] });
    // After the stock, whose adjustment would otherwise owe the partner a 947.
    await partners.addPartner(db, clock, { companyId: 'X12KEEP', customerId: 'ACME', id: 'ACMEEDI', qualifier: 'ZZ' });
  });

  it('replays an interchange for 90 days; after that the same interchange is received as new, numbered on', async () => {
    const text = interchange(ACME, '000000501', [['OW', '501', [['940', order940('SO-501')]]]]);
    const isa13 = (answer: string) => answer.split('\n')[0]!.split('*')[13];
    const first = await postX12(ctx().app, text, keys.acme);
    expect([first.statusCode, first.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(first.body).toContain('AK5*A~');

    ctx().clock.advance(90 * DAY);
    expect(await x12Purged()).toEqual({ 'x12 interchanges': 0, 'x12 advices': 0 });
    const replayed = await postX12(ctx().app, text, keys.acme);
    expect([replayed.statusCode, replayed.body, replayed.headers['idempotent-replayed']]).toEqual([200, first.body, 'true']);

    ctx().clock.advance(1);
    expect(await x12Purged()).toEqual({ 'x12 interchanges': 1, 'x12 advices': 0 });
    const again = await postX12(ctx().app, text, keys.acme);
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([200, undefined]);
    // A new 997 under the partner's next control number; the 940 runs again, as the live order's re-import.
    expect([isa13(first.body), isa13(again.body)]).toEqual(['000000001', '000000002']);
    expect(again.body).toContain('AK5*A~');
    const orders = (await ctx().post(`${THREEPL_ORDER}/list`, { CompanyID: 'X12KEEP', FacilityID: 'LAX1' }, keys.operator)).json().results
      .data as Json[];
    expect(orders.filter((order) => order.ReferenceNo === 'SO-501')).toHaveLength(1);
  });

  it('purges an advice taken more than 90 days ago, and never one still waiting', async () => {
    const request846 = async () =>
      (await ctx().post('/edi/x12/846', { ...ids, FacilityID: 'LAX1' }, keys.acme)).json().Advices[0].OutboxID as number;
    const taken = await request846();
    const waiting = await request846();
    expect((await ctx().post('/edi/x12/outbox/ack', { ...ids, OutboxIDs: [taken] }, keys.acme)).json()).toEqual({
      Taken: [taken],
      AlreadyTaken: [],
    });
    ctx().clock.advance(90 * DAY);
    expect(await x12Purged()).toEqual({ 'x12 interchanges': 0, 'x12 advices': 0 });
    expect(await advices('Taken')).toEqual([taken]);
    ctx().clock.advance(1);
    expect(await x12Purged()).toEqual({ 'x12 interchanges': 1, 'x12 advices': 1 });
    expect(await advices('All')).toEqual([waiting]);
    ctx().clock.advance(1000 * DAY);
    expect(await x12Purged()).toEqual({ 'x12 interchanges': 0, 'x12 advices': 0 });
    expect(await advices('Waiting')).toEqual([waiting]);
  });
});
