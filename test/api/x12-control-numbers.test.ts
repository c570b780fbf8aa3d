import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import * as partners from '../../src/modules/x12/partners.service.js';
import { controlNumberAfter, LAST_CONTROL_NUMBER } from '../../src/modules/x12/x12-syntax.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { importItems } from '../helpers/factories.js';

/**
 * The control numbers Wharf writes to a partner (ISA13, GS06, ST02 of its 997s, TA1s and advices)
 * have nine digits: after 999999999 the next is 1, on both databases, and never a 500.
 */

type Group = [functionalId: string, groupNo: string, sets: [setId: string, body: string[]][]];

/** An interchange from GLOBEXWRAP to the company DEMO, one segment a line. */
function interchange(controlNo: string, groups: Group[]): string {
  const lines = [`ISA*00*          *00*          *ZZ*GLOBEXWRAP     *ZZ*DEMO           *261127*1200*U*00401*${controlNo}*0*P*>~`];
  for (const [functionalId, groupNo, sets] of groups) {
    lines.push(`GS*${functionalId}*GLOBEXWRAP*DEMO*20261127*1200*${groupNo}*X*004010~`);
    sets.forEach(([setId, body], index) => {
      const setNo = String(index + 1).padStart(4, '0');
      lines.push(`ST*${setId}*${setNo}~`, ...body.map((line) => `${line}~`), `SE*${body.length + 2}*${setNo}~`);
    });
    lines.push(`GE*${sets.length}*${groupNo}~`);
  }
  lines.push(`IEA*${groups.length}*${controlNo}~`);
  return lines.join('\n');
}

const order940 = (referenceNo: string) => [
  `W05*N*${referenceNo}*PO-${referenceNo}`,
  'N1*WH*Los Angeles DC*91*LAX1',
  'N1*ST*Jane Doe',
  'N3*1 Market St',
  'N4*San Francisco*CA*94105*US',
  'LX*1',
  'W01*2*EA**VN*MUG-BLUE-12',
];

/** Wharf's envelope of an answer, at the test clock's instant (2026-03-05 14:07 UTC). */
const answerEnvelope = (controlNo: string) =>
  `ISA*00*          *00*          *ZZ*DEMO           *ZZ*GLOBEXWRAP     *260305*1407*U*00401*${controlNo}*0*P*>~`;

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
  const postX12 = (body: string, key = keys.globex) =>
    ctx().app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}/edi/x12`,
      headers: { 'content-type': 'application/edi-x12', authorization: `APIKey ${key}` },
      payload: body,
    });
  const expectX12 = (response: LightMyRequestResponse, status: number, lines: string[]) => {
    expect(response.headers['content-type']).toBe('application/edi-x12');
    expect({ status: response.statusCode, body: response.body.split('\n') }).toEqual({ status, body: lines });
  };

  beforeAll(async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    await tenants.addCompany(db, clock, { companyId: 'DEMO' });
    await tenants.addCustomer(db, clock, { companyId: 'DEMO', customerId: 'GLOBEX' });
    await tenants.addFacility(db, clock, { companyId: 'DEMO', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    keys.globex = (
      await tenants.createApiKey(db, clock, {
        role: 'customer',
        companyId: 'DEMO',
        customerIds: ['GLOBEX'],
        facilityIds: [],
        userIds: [],
        label: 'x12 customer',
        rateLimit: null,
      })
    ).key;
    await partners.addPartner(db, clock, { companyId: 'DEMO', customerId: 'GLOBEX', id: 'GLOBEXWRAP', qualifier: 'ZZ' });
    const tenant = { companyId: 'DEMO', customerIds: ['GLOBEX'], facilityIds: ['LAX1'] };
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
    const twoGroups = await postX12(
      interchange('000000001', [
        ['OW', '1', [['940', order940('SO-WRAP-1')]]],
        ['OW', '2', [['940', order940('SO-WRAP-2')]]],
      ]),
    );
    expectX12(twoGroups, 200, [
      answerEnvelope('999999999'),
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
    const next = await postX12(interchange('000000002', [['OW', '3', [['940', order940('SO-WRAP-3')]]]]));
    expect([next.statusCode, ...next.body.split('\n').filter((line) => /^(ISA|GS|ST|IEA)\*/.test(line))]).toEqual([
      200,
      answerEnvelope('000000001'),
      'GS*FA*DEMO*GLOBEXWRAP*20260305*1407*2*X*004010~',
      'ST*997*0002~',
      'IEA*1*000000001~',
    ]);
    // A TA1 takes an ISA13 too.
    const refused = await postX12(interchange('000000003', [['OW', '4', [['940', order940('SO-WRAP-4')]]]]).replace('IEA*1*', 'IEA*2*'));
    expect([refused.statusCode, refused.body.split('\n')[0]]).toEqual([400, answerEnvelope('000000002')]);

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
