import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import * as partners from '../../src/modules/x12/partners.service.js';
import { readInterchange } from '../../src/modules/x12/x12-reader.js';
import { EXAMPLE_940 } from '../../src/modules/x12/x12.routes.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, importItems, problems, stock } from '../helpers/factories.js';
import {
  ADJUST_QTY,
  EVENT_SEARCH,
  ORDER_ACK_SEARCH,
  ORDER_SHIP,
  RECEIPT_ACK_SEARCH,
  RECEIPT_CONFIRM,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from '../helpers/paths.js';
import { answerEnvelope, expectX12, interchange, postX12, type X12Parties } from '../helpers/x12.js';

/**
 * POST /edi/x12 (docs/x12.md): a partner's 940s and 943s run as the DN and RN commands they stand
 * for, and the interchange is answered with its 997, or a TA1 when its envelope cannot be taken.
 */

type Json = Record<string, unknown>;
const OUTBOX_LIST = '/edi/x12/outbox/list';
const OUTBOX_ACK = '/edi/x12/outbox/ack';
const X12_846 = '/edi/x12/846';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/x12/${name}`, import.meta.url), 'utf8');

/** ACME's partner ACMEEDI, sending to the company WHARFDEMO. */
const ACME: X12Parties = { sender: 'ACMEEDI', receiver: 'WHARFDEMO', date: '261126', time: '1015' };

const order940 = (purpose: string, referenceNo: string, lines: string[] = ['LX*1', 'W01*2*EA**VN*MUG-BLUE-12']) => [
  `W05*${purpose}*${referenceNo}*PO-${referenceNo}`,
  'N1*WH*Wharf Demo Los Angeles*9*LAX1',
  'N1*ST*Jane Doe',
  'N3*1 Market St',
  'N4*San Francisco*CA*94105',
  ...lines,
];

describeEachDialect('X12 interchanges in', (dialect) => {
  const ctx = useTestApp(dialect);
  const tenant = { companyId: 'WHARFDEMO', customerIds: ['ACME', 'GLOBEX'], facilityIds: ['LAX1'] };
  const keys: Record<'acme' | 'globex' | 'operator' | 'admin', string> = { acme: '', globex: '', operator: '', admin: '' };
  const sendX12 = (body: string, key = keys.acme, contentType?: string) => postX12(ctx().app, body, key, contentType);
  const facility = { CompanyID: 'WHARFDEMO', FacilityID: 'LAX1' };
  const receipts = async () => (await ctx().post(`${THREEPL_RECEIPT}/list`, facility, keys.operator)).json().results.data as Json[];
  const orders = async () => (await ctx().post(`${THREEPL_ORDER}/list`, facility, keys.operator)).json().results.data as Json[];
  const getDocument = async (operations: string, svcpoid: unknown) => {
    const response = await ctx().post(`${operations}/get`, { ...facility, SVCPOID: svcpoid }, keys.operator);
    const { Moves: _moves, Timeline: _timeline, ...document } = response.json();
    return document;
  };
  const acks = async (path: string, filter: Json) =>
    (await ctx().post(path, { CompanyID: 'WHARFDEMO', CustomerID: 'ACME', FacilityID: 'LAX1', ...filter }, keys.acme)).json();

  beforeAll(async () => {
    const { db } = ctx().database;
    const clock = ctx().clock;
    await tenants.addCompany(db, clock, { companyId: 'WHARFDEMO' });
    await tenants.addCustomer(db, clock, { companyId: 'WHARFDEMO', customerId: 'ACME' });
    await tenants.addCustomer(db, clock, { companyId: 'WHARFDEMO', customerId: 'GLOBEX' });
    await tenants.addFacility(db, clock, { companyId: 'WHARFDEMO', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    keys.acme = await createKey(db, clock, tenant, 'customer', { customerIds: ['ACME'] });
    keys.globex = await createKey(db, clock, tenant, 'customer', { customerIds: ['GLOBEX'] });
    keys.operator = await createKey(db, clock, tenant, 'operator');
    keys.admin = await createKey(db, clock, tenant, 'admin');
    await partners.addPartner(db, clock, { companyId: 'WHARFDEMO', customerId: 'ACME', id: 'ACMEEDI', qualifier: 'ZZ' });
    await importItems(ctx(), { tenant, key: keys.acme, items: ['MUG-BLUE-12', 'TEE-BLK-M'] });
    await stock(ctx(), { tenant, items: [{ ItemNumber: 'MUG-BLUE-12', Qty: 100 }] });
  });

  it('takes a 943 as the RN import it stands for, keeps the segments it does not map, and answers a TA1 and a 997', async () => {
    const response = await sendX12(fixture('943-inbound-advice.x12'));
    expectX12(response, 200, [
      answerEnvelope(ACME, '000000001'),
      // ISA14 asked for a TA1.
      'TA1*000000943*261126*0930*A*000~',
      'GS*FA*WHARFDEMO*ACMEEDI*20260305*1407*1*X*004010~',
      'ST*997*0001~',
      'AK1*AR*943~',
      'AK2*943*0001~',
      'AK5*A~',
      'AK9*A*1*1*1~',
      'SE*6*0001~',
      'GE*1*1~',
      'IEA*1*000000001~',
      '',
    ]);
    const [receipt] = await receipts();
    expect(await getDocument(THREEPL_RECEIPT, receipt!.SVCPOID)).toEqual({
      Receipt: {
        // N3 and N4 of the warehouse's N1 loop: sent, not mapped, kept.
        X12Segments: [
          { Segment: 'N3', Elements: ['1200 Harbor Blvd'] },
          { Segment: 'N4', Elements: ['Long Beach', 'CA', '90802'] },
        ],
        Status: 'Imported',
        BOLNo: 'BOL-99812',
        Seals: 'SEAL-4471',
        ScheduledDate: '2026-12-03T08:00:00.000',
        SCACCode: 'ODFL',
        CarrierName: 'OLD DOMINION',
        ContainerNo: 'MSCU7712345',
        ReferenceNo: 'ASN-77001',
        PONo: 'PO-55120',
        ETD: '2026-11-25T00:00:00.000',
        SupplierID: 'ACMEPLANT2',
        ShippingInstruction: 'Dock 4 only; call ahead',
        Items: [
          { ExpectedQty: '120', UOM: 'EA', ItemNumber: 'MUG-BLUE-12', ItemNotes: 'Blue mug, 12 oz', LineNo: 1, ReceivedQty: '0' },
          { ExpectedQty: '10', UOM: 'CS', ItemNumber: 'TEE-BLK-M', LotNo: 'LOT-2611', LineNo: 2, ReceivedQty: '0' },
        ],
        TitleID: null,
        SVCPOID: receipt!.SVCPOID,
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        ReceiptType: 'Regular Receipt',
        CreatedWhen: '2026-03-05T06:07:09.123',
        UpdatedWhen: '2026-03-05T06:07:09.123-08:00',
      },
    });
    // The same ACK as a JSON import's.
    expect(await acks(RECEIPT_ACK_SEARCH, { PONo: 'PO-55120' })).toEqual([
      {
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ReferenceNo: 'ASN-77001',
        PONo: 'PO-55120',
        ACK: { CustomerId: 'ACME', PONo: 'PO-55120', ReferenceNo: 'ASN-77001', SVCPOID: receipt!.SVCPOID, Status: 'Success', Error: null },
        CreatedWhen: '2026-03-05T06:07:09.123',
      },
    ]);
  });

  it('takes 940s as DN imports, replacements and cancels, allocating as the JSON import does', async () => {
    const response = await sendX12(fixture('940-shipping-order.x12'));
    // TEE-BLK-M has no stock: the order is short, an import answered Warning, so E.
    expectX12(response, 200, [
      answerEnvelope(ACME, '000000002'),
      'GS*FA*WHARFDEMO*ACMEEDI*20260305*1407*2*X*004010~',
      'ST*997*0002~',
      'AK1*OW*940~',
      'AK2*940*0001~',
      'AK5*E~',
      'AK9*E*1*1*1~',
      'SE*6*0002~',
      'GE*1*2~',
      'IEA*1*000000002~',
      '',
    ]);
    const [order] = await orders();
    expect(await getDocument(THREEPL_ORDER, order!.SVCPOID)).toEqual({
      Order: {
        CustomerSONo: 'CSO-4410',
        ShipNotBefore: '2026-12-01T00:00:00.000',
        ShipNoLater: '2026-12-03T17:00:00.000',
        ReferenceNo: 'SO-88001',
        PONo: 'PO-88001',
        Address: {
          ShipToName: 'Jane Doe',
          ShipToAddress1: '1 Market St',
          ShipToAddress2: 'Suite 300',
          ShipToCity: 'San Francisco',
          ShipToState: 'CA',
          ShipToZipCode: '94105',
          // N4-04 is sent only outside the United States.
          ShipToCountry: 'US',
          ShipToContact: 'Jane Doe',
          ShipToPhone: '4155550100',
          ShipToEmail: 'jane@example.com',
        },
        ShippingInfo: { FreightTerm: 'PP', ShipMethod: 'U', CarrierName: 'UPS GROUND', SCACCode: 'UPSN' },
        OrderNotes: { Note: 'Gift wrap' },
        Items: [
          { LineNo: 1, OrderedQty: '12', UOM: 'EA', ItemID: 'MUG-BLUE-12', ItemNote: 'Blue mug', AllocatedQty: '12', ShippedQty: '0' },
          { LineNo: 2, OrderedQty: '1', UOM: 'CS', ItemID: 'TEE-BLK-M', AllocatedQty: '0', ShippedQty: '0' },
        ],
        TitleID: null,
        SVCPOID: order!.SVCPOID,
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        Status: 'Imported',
        OrderType: null,
        ShipToName: 'Jane Doe',
        CarrierName: 'UPS GROUND',
        SCACCode: 'UPSN',
        CreatedWhen: '2026-03-05T06:07:09.123',
        UpdatedWhen: '2026-03-05T06:07:09.123-08:00',
      },
    });

    // R replaces the order (now 5 mugs, fully allocated: A), F cancels it.
    const replaced = await sendX12(
      interchange(ACME, '000000941', [['OW', '941', [['940', order940('R', 'SO-88001', ['LX*1', 'W01*5*EA**VN*MUG-BLUE-12'])]]]]),
    );
    expect(replaced.body).toContain('AK2*940*0001~\nAK5*A~\nAK9*A*1*1*1~');
    const afterReplace = (await getDocument(THREEPL_ORDER, order!.SVCPOID)).Order;
    expect([afterReplace.PONo, afterReplace.Items]).toEqual([
      'PO-SO-88001',
      [{ LineNo: 1, OrderedQty: '5', UOM: 'EA', ItemID: 'MUG-BLUE-12', AllocatedQty: '5', ShippedQty: '0' }],
    ]);
    const cancelled = await sendX12(interchange(ACME, '000000942', [['OW', '942', [['940', order940('F', 'SO-88001')]]]]));
    expect(cancelled.body).toContain('AK2*940*0001~\nAK5*A~\nAK9*A*1*1*1~');
    expect((await getDocument(THREEPL_ORDER, order!.SVCPOID)).Order.Status).toBe('Cancelled');
    expect((await acks(ORDER_ACK_SEARCH, { ReferenceNo: 'SO-88001' })).map((ack: { ACK: Json }) => ack.ACK.Status)).toEqual([
      'Warning',
      'Success',
      'Success',
    ]);
  });

  it('reads several groups and sets in the delimiters the ISA declares', async () => {
    const text = interchange(ACME, '000000950', [
      [
        'OW',
        '950',
        [
          ['940', order940('N', 'SO-95001')],
          ['940', order940('N', 'SO-95002', ['LX*1', 'W01*1*EA**VN*MUG-BLUE-12'])],
        ],
      ],
      ['AR', '951', [['943', ['W06*N*ASN-95101*20261125', 'N1*WH*LA*9*LAX1', 'W27*M*UPSN', 'W04*6*CA**VN*TEE-BLK-M']]]],
    ])
      // Elements | (ISA's 4th character), components ^ (ISA16), segments ! then a line break.
      .replaceAll('*', '|')
      .replace('|>~', '|^!')
      .replaceAll('~', '!');
    const response = await sendX12(text);
    expect(response.statusCode).toBe(200);
    // The answers before this one took ISA13 1 to 4 and GS06 1 to 4.
    expect(response.body.split('\n')).toEqual([
      'ISA|00|          |00|          |ZZ|WHARFDEMO      |ZZ|ACMEEDI        |260305|1407|U|00401|000000005|0|P|^!',
      'GS|FA|WHARFDEMO|ACMEEDI|20260305|1407|5|X|004010!',
      'ST|997|0005!',
      'AK1|OW|950!',
      'AK2|940|0001!',
      'AK5|A!',
      'AK2|940|0002!',
      'AK5|A!',
      'AK9|A|2|2|2!',
      'SE|8|0005!',
      'GE|1|5!',
      'GS|FA|WHARFDEMO|ACMEEDI|20260305|1407|6|X|004010!',
      'ST|997|0006!',
      'AK1|AR|951!',
      'AK2|943|0001!',
      'AK5|A!',
      'AK9|A|1|1|1!',
      'SE|6|0006!',
      'GE|1|6!',
      'IEA|2|000000005!',
      '',
    ]);
    expect((await orders()).map((o) => o.ReferenceNo).filter((no) => String(no).startsWith('SO-95'))).toEqual(['SO-95001', 'SO-95002']);
    expect((await receipts()).map((r) => r.PONo)).toContain('ASN-95101');
  });

  it('rejects a set with AK3/AK4 naming every segment and element at fault, writes its failure ACK, and applies the rest', async () => {
    const badReceipt = [
      // No PONo at all: W06-02 is empty and there is no W06-06.
      'W06*N**20261125',
      'N1*WH*LA*9*LAX1',
      'W27*M*UPSN',
      // A unit Wharf does not keep (PL), and a line without any product id.
      'W04*5*PL**VN*MUG-BLUE-12',
      'W04*7*EA',
    ];
    const response = await sendX12(
      interchange(ACME, '000000960', [
        ['AR', '960', [['943', badReceipt]]],
        // An unknown purpose, and an order of a warehouse Wharf does not have, beside a good one.
        [
          'OW',
          '961',
          [
            ['940', order940('X', 'SO-96001')],
            [
              '940',
              [
                'W05*N*SO-96002',
                'N1*WH*Nowhere*9*NOPE',
                'N1*ST*Jane Doe',
                'N3*1 Market St',
                'N4*San Francisco*CA*94105',
                'LX*1',
                'W01*1*EA**VN*MUG-BLUE-12',
              ],
            ],
            ['940', order940('N', 'SO-96003')],
          ],
        ],
      ]),
    );
    expectX12(response, 200, [
      answerEnvelope(ACME, '000000006'),
      'GS*FA*WHARFDEMO*ACMEEDI*20260305*1407*7*X*004010~',
      'ST*997*0007~',
      'AK1*AR*960~',
      'AK2*943*0001~',
      'AK3*W06*2**8~',
      'AK4*2*285*1~',
      'AK3*W04*5**8~',
      'AK4*2*355*7*PL~',
      'AK3*W04*6**8~',
      'AK4*5*234*1~',
      'AK5*R*5~',
      'AK9*R*1*1*0~',
      'SE*12*0007~',
      'GE*1*7~',
      'GS*FA*WHARFDEMO*ACMEEDI*20260305*1407*8*X*004010~',
      'ST*997*0008~',
      'AK1*OW*961~',
      'AK2*940*0001~',
      'AK3*W05*2**8~',
      'AK4*1*473*7*X~',
      'AK5*R*5~',
      'AK2*940*0002~',
      'AK3*N1*3**8~',
      'AK4*4*67*7*NOPE~',
      'AK5*R*5~',
      'AK2*940*0003~',
      'AK5*A~',
      'AK9*P*3*3*1~',
      'SE*14*0008~',
      'GE*1*8~',
      'IEA*2*000000006~',
      '',
    ]);
    // The 943 refused by the RN import's schema gets the failure ACK a JSON body would, with every message.
    const message =
      'ASNContent.PONo is required; ASNContent.Items[0].UOM must be one of: EA, CS; ASNContent.Items[1].ItemNumber is required';
    expect((await acks(RECEIPT_ACK_SEARCH, {})).filter((ack: Json) => ack.PONo === null)).toEqual([
      {
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        ReferenceNo: null,
        PONo: null,
        ACK: { code: `EDI-ERROR-${message}`, error: message },
        CreatedWhen: '2026-03-05T06:07:09.123',
      },
    ]);
    expect((await orders()).map((o) => o.ReferenceNo).filter((no) => String(no).startsWith('SO-96'))).toEqual(['SO-96003']);
  });

  it('answers an interchange sent again with its first 997, applying it once; the same ISA13 with another body is a TA1', async () => {
    const text = interchange(ACME, '000000970', [['OW', '970', [['940', order940('N', 'SO-97001')]]]]);
    const first = await sendX12(text);
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await sendX12(text);
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([200, first.body, 'true']);
    expect((await orders()).filter((o) => o.ReferenceNo === 'SO-97001')).toHaveLength(1);
    expect((await acks(ORDER_ACK_SEARCH, { ReferenceNo: 'SO-97001' })).length).toBe(1);

    const other = await sendX12(interchange(ACME, '000000970', [['OW', '970', [['940', order940('N', 'SO-97002')]]]]));
    expectX12(other, 400, [answerEnvelope(ACME, '000000008'), 'TA1*000000970*261126*1015*R*025~', 'IEA*0*000000008~', '']);
    expect((await orders()).filter((o) => o.ReferenceNo === 'SO-97002')).toEqual([]);
  });

  it('answers an envelope it cannot take with a TA1, and a body that is no interchange with the error array, changing nothing', async () => {
    const good = interchange(ACME, '000000980', [['OW', '980', [['940', order940('N', 'SO-98001')]]]]);
    const wrongCount = await sendX12(good.replace('IEA*1*', 'IEA*2*'));
    expectX12(wrongCount, 400, [answerEnvelope(ACME, '000000009'), 'TA1*000000980*261126*1015*R*021~', 'IEA*0*000000009~', '']);
    const otherReceiver = await sendX12(
      interchange(ACME, '000000981', [['OW', '981', [['940', order940('N', 'SO-98002')]]]]).replace(
        '*ZZ*WHARFDEMO      *',
        '*ZZ*SOMEONEELSE    *',
      ),
    );
    expectX12(otherReceiver, 400, [answerEnvelope(ACME, '000000010'), 'TA1*000000981*261126*1015*R*008~', 'IEA*0*000000010~', '']);
    // A test interchange (ISA15 T) must not change the books.
    const test = await sendX12(
      interchange(ACME, '000000982', [['OW', '982', [['940', order940('N', 'SO-98003')]]]]).replace('*0*P*>~', '*0*T*>~'),
    );
    expectX12(test, 400, [
      answerEnvelope(ACME, '000000011').replace('*0*P*>~', '*0*T*>~'),
      'TA1*000000982*261126*1015*R*020~',
      'IEA*0*000000011~',
      '',
    ]);
    const cut = await sendX12(good.slice(0, 50));
    expect([cut.statusCode, cut.json()]).toEqual([
      400,
      problems('The body is not an X12 interchange: the ISA segment is cut short: 50 characters, 106 expected'),
    ]);
    const garbage = await sendX12('x'.repeat(10 * 1024 * 1024));
    expect([garbage.statusCode, garbage.json()]).toEqual([
      400,
      problems('The body is not an X12 interchange: the body does not start with an ISA segment'),
    ]);
    expect((await orders()).filter((o) => String(o.ReferenceNo).startsWith('SO-98'))).toEqual([]);
  });

  it('takes interchanges only from a partner of the key’s customers, with a customer or admin key, as application/edi-x12', async () => {
    const text = interchange(ACME, '000000990', [['OW', '990', [['940', order940('N', 'SO-99001')]]]]);
    const refusal = problems("Interchange sender ZZ/ACMEEDI is not a trading partner of this API key's customers");
    const otherCustomer = await sendX12(text, keys.globex);
    expect([otherCustomer.statusCode, otherCustomer.json()]).toEqual([403, refusal]);
    const unknownSender = await sendX12(text.replace('ZZ*ACMEEDI        ', 'ZZ*STRANGER       '));
    expect([unknownSender.statusCode, unknownSender.json()]).toEqual([
      403,
      problems("Interchange sender ZZ/STRANGER is not a trading partner of this API key's customers"),
    ]);
    const operator = await sendX12(text, keys.operator);
    expect([operator.statusCode, operator.json()]).toEqual([403, problems('An API key with role operator may not call this operation')]);
    for (const contentType of ['application/json', 'text/plain']) {
      const other = await sendX12(text, keys.acme, contentType);
      expect([other.statusCode, other.json()]).toEqual([415, problems('Content-Type must be application/edi-x12')]);
    }
    expect((await orders()).filter((o) => o.ReferenceNo === 'SO-99001')).toEqual([]);
    const admin = await sendX12(text, keys.admin);
    expect([admin.statusCode, admin.body.includes('AK5*A~')]).toEqual([200, true]);
  });

  it('rejects a set whose element holds a segment terminator, naming the piece it cut off, and applies nothing of it', async () => {
    const cut = order940('N', 'SO-98501').map((segment) => (segment === 'N1*ST*Jane Doe' ? 'N1*ST*Doe~Jane & Co' : segment));
    const response = await sendX12(interchange(ACME, '000000985', [['OW', '985', [['940', cut]]]]));
    expect(response.statusCode).toBe(200);
    // The text after the stray terminator is a "segment" of no valid id, and SE01 no longer counts the set.
    expect(response.body).toContain('AK2*940*0001~\nAK3*Jane & Co*5**1~\nAK5*R*5*4~\nAK9*R*1*1*0~');
    expect((await orders()).filter((o) => o.ReferenceNo === 'SO-98501')).toEqual([]);
  });

  it('refuses an interchange holding a NUL character with 400 on both databases, and applies nothing', async () => {
    const withNul = interchange(ACME, '000000988', [['OW', '988', [['940', order940('N', 'SO-98801')]]]]).replace(
      'W05*N*',
      'W05*A\u0000B*',
    );
    const response = await sendX12(withNul);
    expect([response.statusCode, response.json()]).toEqual([400, problems('The body must not contain a NUL character (\\u0000)')]);
    expect((await orders()).filter((o) => o.ReferenceNo === 'SO-98801')).toEqual([]);
    expect(ctx().logs.filter((line) => line.level === 50)).toEqual([]);
  });

  it('answers a 997 when a value it copies holds the component separator, writing "?" for it, and applies nothing', async () => {
    // GE01 and GS01 are simple values: the ">" of this interchange's ISA16 has no place in them, nor in the 997 that copies them.
    const countedWrong = interchange(ACME, '000000986', [['OW', '986', [['940', order940('N', 'SO-98601')]]]]).replace(
      'GE*1*986~',
      'GE*1>*986~',
    );
    const counted = await sendX12(countedWrong);
    expect(counted.statusCode).toBe(200);
    expect(counted.body).toContain('AK1*OW*986~\nAK9*R*1?*1*0*5~');
    const unknownGroup = interchange(ACME, '000000987', [['OW', '987', [['940', order940('N', 'SO-98701')]]]]).replace('GS*OW*', 'GS*O>W*');
    const unknown = await sendX12(unknownGroup);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain('AK1*O?W*987~\nAK9*R*1*1*0*1~');
    expect((await orders()).filter((o) => ['SO-98601', 'SO-98701'].includes(o.ReferenceNo as string))).toEqual([]);
  });

  // ---- advices out -------------------------------------------------------------------------------

  const outbox = async (status = 'Waiting') =>
    (
      await ctx().post(OUTBOX_LIST, { CompanyID: 'WHARFDEMO', CustomerID: 'ACME', Status: status, Paging: { PageSize: 1000 } }, keys.acme)
    ).json().results.data as Json[];
  const adviceOf = async (documentNo: string) => (await outbox('All')).filter((advice) => advice.DocumentNo === documentNo);
  /** An advice's interchange with its control numbers as N (ISA13, GS06, ST02 and their trailers), once they are checked. */
  const shapeOf = (advice: Json) => {
    const text = advice.Interchange as string;
    const read = readInterchange(text);
    expect(read.ok, text).toBe(true);
    const isa13 = advice.ControlNumber as string;
    expect(text.slice(90, 99)).toBe(isa13);
    return text
      .replace(new RegExp(`\\*${isa13}\\*`), '*N*')
      .replace(new RegExp(`IEA\\*1\\*${isa13}~`), 'IEA*1*N~')
      .replace(/(GS\*[^\n]*\*)\d+(\*X\*004010~)/, '$1N$2')
      .replace(/GE\*1\*\d+~/, 'GE*1*N~')
      .replace(/(ST\*\d{3}\*)\d{4}~/, '$1N~')
      .replace(/(SE\*\d+\*)\d{4}~/, '$1N~')
      .split('\n');
  };
  const envelopeOf = (functionalId: string, setId: string) => [
    'ISA*00*          *00*          *ZZ*WHARFDEMO      *ZZ*ACMEEDI        *260305*1407*U*00401*N*0*P*>~',
    `GS*${functionalId}*WHARFDEMO*ACMEEDI*20260305*1407*N*X*004010~`,
    `ST*${setId}*N~`,
  ];
  const trailerOf = (segments: number) => [`SE*${segments}*N~`, 'GE*1*N~', 'IEA*1*N~', ''];

  it('round trip: a 943 in, received in the 3PL API, and a 944 out naming the same PO and quantities, told by x12.ready', async () => {
    const text = interchange(ACME, '000000701', [
      [
        'AR',
        '701',
        [
          [
            '943',
            [
              'W06*N*ASN-70101*20261125***PO-70101',
              'N1*WH*LA*9*LAX1',
              'W27*M*UPSN',
              'W04*8*EA**VN*MUG-BLUE-12',
              'W04*2.5*CA**VN*TEE-BLK-M',
            ],
          ],
        ],
      ],
    ]);
    expect((await sendX12(text)).body).toContain('AK5*A~');
    const receipt = (await receipts()).find((r) => r.PONo === 'PO-70101')!;
    const items = [
      { ItemNumber: 'MUG-BLUE-12', ReceivedQuantity: '8', UOM: 'EA' },
      { ItemNumber: 'TEE-BLK-M', ReceivedQuantity: '2.5', UOM: 'CS', LotNo: 'LOT-7' },
    ];
    const confirmed = await ctx().post(
      RECEIPT_CONFIRM,
      { ...facility, SVCPOID: receipt.SVCPOID, ConfirmationNo: 'RC-70101', Close: true, Items: items },
      keys.operator,
    );
    expect(confirmed.statusCode, confirmed.body).toBe(200);

    const [advice] = await adviceOf(`${receipt.SVCPOID}/RC-70101`);
    expect({ ...advice, ControlNumber: undefined, Interchange: undefined, OutboxID: undefined }).toEqual({
      Partner: 'ZZ/ACMEEDI',
      Set: '944',
      FacilityID: 'LAX1',
      DocumentNo: `${receipt.SVCPOID}/RC-70101`,
      Problem: null,
      CreatedWhen: '2026-03-05T14:07:09.123Z',
      TakenWhen: null,
    });
    expect(shapeOf(advice!)).toEqual([
      ...envelopeOf('RE', '944'),
      `W17*F*20260305*${receipt.SVCPOID}*ASN-70101~`,
      'N1*WH**ZZ*LAX1~',
      'N9*PO*PO-70101~',
      'W07*8*EA**VN*MUG-BLUE-12~',
      'W07*2.5*CA**VN*TEE-BLK-M***LOT-7~',
      'W14*10.5~',
      ...trailerOf(8),
    ]);
    const ready = await ctx().post(
      EVENT_SEARCH,
      { CompanyID: 'WHARFDEMO', CustomerID: 'ACME', Types: ['x12.ready'], Paging: { PageSize: 1000 } },
      keys.acme,
    );
    expect(
      ready
        .json()
        .results.data.map((event: { Data: Json }) => event.Data)
        .filter((data: Json) => data.OutboxID === advice!.OutboxID),
    ).toEqual([
      {
        CompanyID: 'WHARFDEMO',
        CustomerID: 'ACME',
        FacilityID: 'LAX1',
        DocumentNo: `${receipt.SVCPOID}/RC-70101`,
        OutboxID: advice!.OutboxID,
        Partner: 'ZZ/ACMEEDI',
        Set: '944',
        ControlNumber: advice!.ControlNumber,
        Problem: null,
        Sequence: expect.any(Number),
      },
    ]);
  });

  it('round trip: a 940 in, shipped in the 3PL API, and a 945 out with the carrier, the tracking number and each line', async () => {
    expect(
      (
        await sendX12(
          interchange(ACME, '000000702', [['OW', '702', [['940', order940('N', 'SO-70201', ['LX*1', 'W01*3*EA**VN*MUG-BLUE-12'])]]]]),
        )
      ).body,
    ).toContain('AK5*A~');
    const order = (await orders()).find((o) => o.ReferenceNo === 'SO-70201')!;
    const shipment = { ConfirmationNo: 'SHP-70201', CarrierName: 'UPS', SCACCode: 'UPSN', TrackingNo: '1Z999AA10123456785', Close: true };
    const shipped = await ctx().post(
      ORDER_SHIP,
      { ...facility, SVCPOID: order.SVCPOID, ...shipment, Items: [{ LineNo: 1, ItemNumber: 'MUG-BLUE-12', ShippedQty: '3', UOM: 'EA' }] },
      keys.operator,
    );
    expect(shipped.statusCode, shipped.body).toBe(200);
    const [advice] = await adviceOf(`${order.SVCPOID}/SHP-70201`);
    expect([advice!.Set, advice!.Problem]).toEqual(['945', null]);
    expect(shapeOf(advice!)).toEqual([
      ...envelopeOf('SW', '945'),
      `W06*F*SO-70201*20260305*${order.SVCPOID}**PO-SO-70201~`,
      'N1*WH**ZZ*LAX1~',
      'N9*2I*1Z999AA10123456785~',
      'W27*U*UPSN*UPS~',
      'LX*1~',
      'W12*CC*3*3*0*EA**VN*MUG-BLUE-12~',
      'W03*3~',
      ...trailerOf(9),
    ]);
  });

  it('queues a 947 per adjustment and an 846 on request; an advice X12 cannot carry is queued with its problem', async () => {
    const adjust = (adjustmentNo: string, itemNumber: string) =>
      ctx().post(
        ADJUST_QTY,
        {
          ...facility,
          CustomerID: 'ACME',
          AdjustmentNo: adjustmentNo,
          ReasonCode: 'CYCLE-COUNT',
          Items: [{ ItemNumber: itemNumber, Qty: '-2', UOM: 'EA' }],
        },
        keys.operator,
      );
    expect((await adjust('ADJ-70301', 'MUG-BLUE-12')).statusCode).toBe(200);
    const [adjusted] = await adviceOf('ADJ-70301');
    expect(shapeOf(adjusted!)).toEqual([
      ...envelopeOf('AW', '947'),
      'W15*20260305*ADJ-70301*ADJ-70301~',
      'N1*WH**ZZ*LAX1~',
      'W19*AA*-2*EA**VN*MUG-BLUE-12~',
      ...trailerOf(5),
    ]);
    const requested = await ctx().post(X12_846, { CompanyID: 'WHARFDEMO', CustomerID: 'ACME', FacilityID: 'LAX1' }, keys.acme);
    expect(requested.statusCode, requested.body).toBe(200);
    const [queued] = requested.json().Advices;
    expect(queued).toEqual({
      OutboxID: expect.any(Number),
      Partner: 'ZZ/ACMEEDI',
      Set: '846',
      ControlNumber: expect.stringMatching(/^\d{9}$/),
      Problem: null,
    });
    const [inventory] = (await outbox()).filter((advice) => advice.OutboxID === queued.OutboxID);
    const text = inventory!.Interchange as string;
    expect(text).toContain('ST*846*');
    expect(text).toContain('LIN*1*VN*MUG-BLUE-12~\nQTY*33*');
    // An item id holding the element separator cannot go out as it is: the adjustment stands, its advice says why.
    await stock(ctx(), { tenant, items: [{ ItemNumber: 'MUG*STAR', Qty: 5 }] });
    expect((await adjust('ADJ-70302', 'MUG*STAR')).statusCode).toBe(200);
    const [refused] = await adviceOf('ADJ-70302');
    expect({ ...refused, OutboxID: undefined }).toEqual({
      Partner: 'ZZ/ACMEEDI',
      Set: '947',
      FacilityID: 'LAX1',
      DocumentNo: 'ADJ-70302',
      ControlNumber: null,
      Interchange: null,
      Problem: 'W19-06 (Lines[0].ItemID) "MUG*STAR" contains "*", which X12 reserves',
      CreatedWhen: '2026-03-05T14:07:09.123Z',
      TakenWhen: null,
    });

    // GLOBEX has no partner: nothing to queue.
    const none = await ctx().post(X12_846, { CompanyID: 'WHARFDEMO', CustomerID: 'GLOBEX', FacilityID: 'LAX1' }, keys.globex);
    expect([none.statusCode, none.json()]).toEqual([404, { error: 'Customer GLOBEX has no X12 trading partner' }]);
  });

  it('takes advices with the ack, once; an id that is not the customer’s is 404 and takes nothing', async () => {
    const waiting = await outbox();
    const [first, second] = waiting.map((advice) => advice.OutboxID as number);
    const ack = (ids: number[], key = keys.acme, customerId = 'ACME') =>
      ctx().post(OUTBOX_ACK, { CompanyID: 'WHARFDEMO', CustomerID: customerId, OutboxIDs: ids }, key);
    const unknown = await ack([first!, 999_999]);
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'Not found outbox advice 999999' }]);
    const otherCustomer = await ack([first!], keys.globex, 'GLOBEX');
    expect([otherCustomer.statusCode, otherCustomer.json()]).toEqual([404, { error: `Not found outbox advice ${first}` }]);
    expect((await outbox()).length).toBe(waiting.length);

    expect((await ack([first!])).json()).toEqual({ Taken: [first], AlreadyTaken: [] });
    expect((await ack([second!, first!])).json()).toEqual({ Taken: [second], AlreadyTaken: [first] });
    expect((await outbox()).map((advice) => advice.OutboxID)).toEqual(waiting.slice(2).map((advice) => advice.OutboxID));
    const taken = (await outbox('Taken')).map((advice) => [advice.OutboxID, advice.TakenWhen]);
    expect(taken).toEqual([
      [first, '2026-03-05T14:07:09.123Z'],
      [second, '2026-03-05T14:07:09.123Z'],
    ]);
  });

  it('the README’s example 940 is the published one (document-examples sends it to the demo)', () => {
    expect(readFileSync(new URL('../../examples/940-demo.x12', import.meta.url), 'utf8')).toBe(`${EXAMPLE_940}\n`);
  });

  it('answers two requests with the same interchange at once with the same 997, applying it once', async () => {
    const text = interchange(ACME, '000000975', [
      [
        'OW',
        '975',
        [
          ['940', order940('N', 'SO-97501')],
          ['940', order940('N', 'SO-97502')],
        ],
      ],
    ]);
    // The loser's 997 rolls back with its control numbers: the partner's numbering keeps no gap.
    const [one, two] = await Promise.all([sendX12(text), sendX12(text)]);
    expect([one.statusCode, two.statusCode]).toEqual([200, 200]);
    expect(two.body).toBe(one.body);
    expect(one.body).toContain('AK9*A*2*2*2~');
    // One of them answered first; the other replayed its 997.
    expect([one.headers['idempotent-replayed'], two.headers['idempotent-replayed']].filter(Boolean)).toEqual(['true']);
    const isa13 = Number(one.body.slice(90, 99));
    const next = await sendX12(interchange(ACME, '000000976', [['OW', '976', [['940', order940('N', 'SO-97601')]]]]));
    expect(Number(next.body.slice(90, 99))).toBe(isa13 + 1);
    for (const referenceNo of ['SO-97501', 'SO-97502']) {
      expect((await orders()).filter((o) => o.ReferenceNo === referenceNo)).toHaveLength(1);
      expect(await acks(ORDER_ACK_SEARCH, { ReferenceNo: referenceNo })).toHaveLength(1);
    }
  });

  it("takes interchanges addressed to the company's own ids once it sets them, and answers from them", async () => {
    await partners.setOwnParty(ctx().database.db, ctx().clock, { companyId: 'WHARFDEMO', id: 'WHARFWMS', qualifier: '01' });
    const old = await sendX12(interchange(ACME, '000000990', [['OW', '990', [['940', order940('N', 'SO-99001')]]]]));
    expect([old.statusCode, old.body.split('\n')[1]]).toEqual([400, 'TA1*000000990*261126*1015*R*008~']);
    const text = interchange(ACME, '000000991', [['OW', '991', [['940', order940('N', 'SO-99101')]]]]).replace(
      'ZZ*WHARFDEMO      *261126',
      '01*WHARFWMS       *261126',
    );
    const answered = await sendX12(text);
    expect(answered.statusCode).toBe(200);
    expect(answered.body.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(
        /^ISA\*00\*          \*00\*          \*01\*WHARFWMS       \*ZZ\*ACMEEDI        \*260305\*1407\*U\*00401\*\d{9}\*0\*P\*>~$/,
      ),
      expect.stringMatching(/^GS\*FA\*WHARFWMS\*ACMEEDI\*20260305\*1407\*\d+\*X\*004010~$/),
    ]);
    expect(answered.body).toContain('AK5*A~');
  });
});
