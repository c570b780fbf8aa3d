import { beforeAll, describe, expect, it } from 'vitest';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import * as partners from '../../src/modules/x12/partners.service.js';
import { controlNumberAfter, LAST_CONTROL_NUMBER } from '../../src/modules/x12/x12-syntax.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, importItems } from '../helpers/factories.js';
import { answerEnvelope, expectX12, interchange, postX12, type X12Parties } from '../helpers/x12.js';

/**
 * The control numbers Wharf writes to a partner (ISA13, GS06, ST02 of its 997s, TA1s and advices)
 * have nine digits: after 999999999 the next is 1, on both databases, and never a 500.
 */

/** GLOBEX's partner GLOBEXWRAP, sending to the company DEMO. */
const GLOBEX: X12Parties = { sender: 'GLOBEXWRAP', receiver: 'DEMO' };

const order940 = (referenceNo: string) => [
  `W05*N*${referenceNo}*PO-${referenceNo}`,
  'N1*WH*Los Angeles DC*91*LAX1',
  'N1*ST*Jane Doe',
  'N3*1 Market St',
  'N4*San Francisco*CA*94105*US',
  'LX*1',
  'W01*2*EA**VN*MUG-BLUE-12',
];

describe('control numbers', () => {
  it('wrap from 999999999 to 1, forwards and backwards', () => {
    expect(LAST_CONTROL_NUMBER).toBe(999_999_999);
    expect([controlNumberAfter(1, 0), controlNumberAfter(41, 1), controlNumberAfter(999_999_998, 1)]).toEqual([1, 42, 999_999_999]);
    expect([controlNumberAfter(999_999_999, 1), controlNumberAfter(999_999_999, 3), controlNumberAfter(999_999_998, 4)]).toEqual([1, 3, 3]);
    expect([controlNumberAfter(1, -1), controlNumberAfter(2, -3), controlNumberAfter(5, -4)]).toEqual([999_999_999, 999_999_998, 1]);
  });
});

describeEachDialect('X12 control numbers at the top of their range, in', (dialect) => {
  const ctx = useTestApp(dialect);
  const keys = { globex: '' };
  const sendX12 = (body: string, key = keys.globex) => postX12(ctx().app, body, key);

  beforeAll(async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    await tenants.addCompany(db, clock, { companyId: 'DEMO' });
    await tenants.addCustomer(db, clock, { companyId: 'DEMO', customerId: 'GLOBEX' });
    await tenants.addFacility(db, clock, { companyId: 'DEMO', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    const tenant = { companyId: 'DEMO', customerIds: ['GLOBEX'], facilityIds: ['LAX1'] };
    keys.globex = await createKey(db, clock, tenant, 'customer');
    await partners.addPartner(db, clock, { companyId: 'DEMO', customerId: 'GLOBEX', id: 'GLOBEXWRAP', qualifier: 'ZZ' });
    await importItems(ctx(), { tenant, key: keys.globex, items: ['MUG-BLUE-12'] });
  });

  it('wraps the control numbers it writes from 999999999 to 1: in its 997s and in the advices of the outbox', async () => {
    const { db } = ctx().database;
    const setCounters = (last: number) =>
      db
        .updateTable('x12_partners')
        .set({ last_interchange_no: last, last_group_no: last, last_set_no: last })
        .where('company_id', '=', 'DEMO')
        .where('partner_id', '=', 'GLOBEXWRAP')
        .execute();
    await setCounters(999_999_998);
    // Two groups: their two 997s take GS06/ST02 999999999 and then 1 (E: GLOBEX has no stock to allocate).
    const twoGroups = await sendX12(
      interchange(GLOBEX, '000000001', [
        ['OW', '1', [['940', order940('SO-WRAP-1')]]],
        ['OW', '2', [['940', order940('SO-WRAP-2')]]],
      ]),
    );
    expectX12(twoGroups, 200, [
      answerEnvelope(GLOBEX, '999999999'),
      'GS*FA*DEMO*GLOBEXWRAP*20260305*1407*999999999*X*004010~',
      'ST*997*999999999~',
      'AK1*OW*1~',
      'AK2*940*0001~',
      'AK5*E~',
      'AK9*E*1*1*1~',
      'SE*6*999999999~',
      'GE*1*999999999~',
      'GS*FA*DEMO*GLOBEXWRAP*20260305*1407*1*X*004010~',
      'ST*997*0001~',
      'AK1*OW*2~',
      'AK2*940*0001~',
      'AK5*E~',
      'AK9*E*1*1*1~',
      'SE*6*0001~',
      'GE*1*1~',
      'IEA*2*999999999~',
      '',
    ]);
    const next = await sendX12(interchange(GLOBEX, '000000002', [['OW', '3', [['940', order940('SO-WRAP-3')]]]]));
    expect([next.statusCode, ...next.body.split('\n').filter((line) => /^(ISA|GS|ST|IEA)\*/.test(line))]).toEqual([
      200,
      answerEnvelope(GLOBEX, '000000001'),
      'GS*FA*DEMO*GLOBEXWRAP*20260305*1407*2*X*004010~',
      'ST*997*0002~',
      'IEA*1*000000001~',
    ]);
    // A TA1 takes an ISA13 too.
    const refused = await sendX12(
      interchange(GLOBEX, '000000003', [['OW', '4', [['940', order940('SO-WRAP-4')]]]]).replace('IEA*1*', 'IEA*2*'),
    );
    expect([refused.statusCode, refused.body.split('\n')[0]]).toEqual([400, answerEnvelope(GLOBEX, '000000002')]);

    // The outbox: an 846 at the top of the numbering, then the next one from 1.
    await setCounters(999_999_998);
    const advise = async () => {
      const response = await ctx().post('/edi/x12/846', { CompanyID: 'DEMO', CustomerID: 'GLOBEX', FacilityID: 'LAX1' }, keys.globex);
      expect(response.statusCode, response.body).toBe(200);
      const [queued] = response.json().Advices as { OutboxID: number; ControlNumber: string }[];
      const listed = await ctx().post('/edi/x12/outbox/list', { CompanyID: 'DEMO', CustomerID: 'GLOBEX', Status: 'All' }, keys.globex);
      const advice = (listed.json().results.data as { OutboxID: number; Interchange: string }[]).find(
        (row) => row.OutboxID === queued!.OutboxID,
      )!;
      return [queued!.ControlNumber, ...advice.Interchange.split('\n').filter((line) => /^(GS|ST|SE|GE|IEA)\*/.test(line))];
    };
    const gs = (number: number) => `GS*IB*DEMO*GLOBEXWRAP*20260305*1407*${number}*X*004010~`;
    expect(await advise()).toEqual([
      '999999999',
      gs(999_999_999),
      'ST*846*999999999~',
      'SE*5*999999999~',
      'GE*1*999999999~',
      'IEA*1*999999999~',
    ]);
    expect(await advise()).toEqual(['000000001', gs(1), 'ST*846*0001~', 'SE*5*0001~', 'GE*1*1~', 'IEA*1*000000001~']);
    expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
  });
});
