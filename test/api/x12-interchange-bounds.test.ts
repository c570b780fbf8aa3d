import { readFileSync } from 'node:fs';
import { beforeAll, beforeEach, expect, it, vi } from 'vitest';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import * as partners from '../../src/modules/x12/partners.service.js';
import { readInterchange } from '../../src/modules/x12/x12-reader.js';
import { EXAMPLE_940 } from '../../src/modules/x12/x12.routes.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, importItems, problems } from '../helpers/factories.js';
import { ORDER_ACK_SEARCH, THREEPL_ORDER } from '../helpers/paths.js';
import { answerEnvelope, expectX12, interchange, postX12, type X12Group, type X12Parties } from '../helpers/x12.js';

/**
 * POST /edi/x12 under hostile interchanges: the sender is authorized from the ISA before anything
 * after it is read, an interchange holds at most 10,000 sets and 1,000,000 segments, and a resend
 * that differs only in layout replays.
 */

// Passes every call through; the tests count the calls, to see whether the sets were read at all.
vi.mock('../../src/modules/x12/x12-reader.js', async (importOriginal) => {
  const reader = await importOriginal<typeof import('../../src/modules/x12/x12-reader.js')>();
  return { ...reader, readInterchange: vi.fn(reader.readInterchange) };
});
const readsOfSets = () => vi.mocked(readInterchange).mock.calls.length;

/** ACME's partners, each sending to the company DEMO. */
const from = (sender: string): X12Parties => ({ sender, receiver: 'DEMO' });
const [ACMEEDI, ACMEAUTH, ACMESIZE] = [from('ACMEEDI'), from('ACMEAUTH'), from('ACMESIZE')];

/** `count` sets of an invoice (810), in a group (IN) Wharf does not take: their 997 runs no command. */
const invoices = (count: number): X12Group => ['IN', '1', Array.from({ length: count }, () => ['810', ['BIG*20261127*INV-1']])];

describeEachDialect('X12 interchanges at their bounds, in', (dialect) => {
  const ctx = useTestApp(dialect);
  const keys = { acme: '', globex: '', admin: '' };
  const sendX12 = (body: string, key = keys.acme) => postX12(ctx().app, body, key);
  const orders = async (referenceNo: string) => {
    const listed = await ctx().post(`${THREEPL_ORDER}/list`, { CompanyID: 'DEMO', FacilityID: 'LAX1' }, keys.admin);
    return (listed.json().results.data as { ReferenceNo: string }[]).filter((order) => order.ReferenceNo === referenceNo);
  };

  beforeAll(async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    await tenants.addCompany(db, clock, { companyId: 'DEMO' });
    for (const customerId of ['ACME', 'GLOBEX']) await tenants.addCustomer(db, clock, { companyId: 'DEMO', customerId });
    await tenants.addFacility(db, clock, { companyId: 'DEMO', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    const tenant = { companyId: 'DEMO', customerIds: ['ACME', 'GLOBEX'], facilityIds: ['LAX1'] };
    keys.acme = await createKey(db, clock, tenant, 'customer', { customerIds: ['ACME'] });
    keys.globex = await createKey(db, clock, tenant, 'customer', { customerIds: ['GLOBEX'] });
    keys.admin = await createKey(db, clock, tenant, 'admin');
    // One partner per test, so that each test's control numbers start at 1.
    for (const id of ['ACMEEDI', 'ACMEAUTH', 'ACMESIZE'])
      await partners.addPartner(db, clock, { companyId: 'DEMO', customerId: 'ACME', id, qualifier: 'ZZ' });
    await importItems(ctx(), { tenant, key: keys.acme, items: ['MUG-BLUE-12'] });
  });
  beforeEach(() => {
    vi.mocked(readInterchange).mockClear();
  });

  it('authorizes the sender from the ISA before reading a set: a stranger’s or another customer’s interchange is 403, unread', async () => {
    // Sets that would each be a problem: ST02 twice, a set without SE, a segment outside its set, and too many of them.
    const malformed = [
      'GS*OW*ACMEAUTH*DEMO*20261127*1200*1*X*004010~',
      ...Array.from({ length: 10_001 }, () => 'ST*940*0001~'),
      'W05*N*SO-1~',
      'GE*1*1~',
      'IEA*1*000000001~',
    ].join('\n');
    const isa = (sender: string) =>
      `ISA*00*          *00*          *ZZ*${sender.padEnd(15)}*ZZ*DEMO           *261127*1200*U*00401*000000001*0*P*>~\n`;

    const stranger = await sendX12(isa('STRANGER') + malformed);
    expect([stranger.statusCode, stranger.json()]).toEqual([
      403,
      problems("Interchange sender ZZ/STRANGER is not a trading partner of this API key's customers"),
    ]);
    const otherCustomer = await sendX12(isa('ACMEAUTH') + malformed, keys.globex);
    expect([otherCustomer.statusCode, otherCustomer.json()]).toEqual([
      403,
      problems("Interchange sender ZZ/ACMEAUTH is not a trading partner of this API key's customers"),
    ]);
    expect(readsOfSets()).toBe(0);

    // The partner's own key gets the TA1 of its interchange, still without a set read (it holds too many).
    const own = await sendX12(isa('ACMEAUTH') + malformed);
    expectX12(own, 400, [answerEnvelope(ACMEAUTH, '000000001'), 'TA1*000000001*261127*1200*R*024~', 'IEA*0*000000001~', '']);
    expect(readsOfSets()).toBe(0);
    // A sound interchange of the partner is read, once.
    const sound = await sendX12(interchange(ACMEAUTH, '000000002', [invoices(1)]));
    expect(sound.statusCode).toBe(200);
    expect(readsOfSets()).toBe(1);
  });

  it('takes 10,000 sets, and refuses 10,001 sets or 1,000,001 segments with a TA1 024 before reading a set', async () => {
    const most = await sendX12(interchange(ACMESIZE, '000000001', [invoices(10_000)]));
    expectX12(most, 200, [
      answerEnvelope(ACMESIZE, '000000001'),
      'GS*FA*DEMO*ACMESIZE*20260305*1407*1*X*004010~',
      'ST*997*0001~',
      'AK1*IN*1~',
      'AK9*R*10000*10000*0*1~',
      'SE*4*0001~',
      'GE*1*1~',
      'IEA*1*000000001~',
      '',
    ]);
    expect(readsOfSets()).toBe(1);
    vi.mocked(readInterchange).mockClear();

    const tooManySets = await sendX12(interchange(ACMESIZE, '000000002', [invoices(10_001)]));
    expectX12(tooManySets, 400, [answerEnvelope(ACMESIZE, '000000002'), 'TA1*000000002*261127*1200*R*024~', 'IEA*0*000000002~', '']);
    // ISA, GS, ST, SE, GE and IEA are segments too: 999,995 notes make 1,000,001.
    const notes = Array.from({ length: 999_995 }, () => 'NTE*X');
    const tooManySegments = await sendX12(interchange(ACMESIZE, '000000003', [['IN', '1', [['810', notes]]]]));
    expectX12(tooManySegments, 400, [answerEnvelope(ACMESIZE, '000000003'), 'TA1*000000003*261127*1200*R*024~', 'IEA*0*000000003~', '']);
    expect(readsOfSets()).toBe(0);
  });

  it('replays a resend that differs only in layout (the example 940 with and without its final newline); another body is TA1 025', async () => {
    const first = await sendX12(EXAMPLE_940);
    expect([first.statusCode, first.headers['idempotent-replayed'], first.body.includes('AK2*940*0001~\nAK5*E~')]).toEqual([
      200,
      undefined,
      true,
    ]);
    const layouts = {
      'examples/940-demo.x12 (a final newline)': readFileSync(new URL('../../examples/940-demo.x12', import.meta.url), 'utf8'),
      'CRLF after each terminator': EXAMPLE_940.replaceAll('~\n', '~\r\n'),
      'no line breaks': EXAMPLE_940.replaceAll('~\n', '~'),
      'a byte-order mark and blank lines around it': `\uFEFF\r\n${EXAMPLE_940}\n\n`,
    };
    for (const [layout, text] of Object.entries(layouts)) {
      const again = await sendX12(text);
      expect([layout, again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([layout, 200, 'true', first.body]);
    }
    expect(await orders('SO-X12-1')).toHaveLength(1);
    const acks = await ctx().post(
      ORDER_ACK_SEARCH,
      { CompanyID: 'DEMO', CustomerID: 'ACME', FacilityID: 'LAX1', ReferenceNo: 'SO-X12-1' },
      keys.acme,
    );
    expect(acks.json()).toHaveLength(1);

    // Spaces are data, not layout: the same ISA13 with another ship-to name is another interchange.
    const other = await sendX12(EXAMPLE_940.replace('N1*ST*Jane Doe~', 'N1*ST*Jane  Doe~'));
    expectX12(other, 400, [answerEnvelope(ACMEEDI, '000000002'), 'TA1*000000101*261127*1200*R*025~', 'IEA*0*000000002~', '']);
  });
});
