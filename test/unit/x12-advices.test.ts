import { describe, expect, it } from 'vitest';
import type { InventoryRow } from '../../src/modules/inventory/inquiry.schemas.js';
import type { DcRecord } from '../../src/modules/orders/order-searches.schemas.js';
import { RC_DYNAMIC_KEYS, RC_ITEM_DYNAMIC_KEYS, type RcRecord } from '../../src/modules/receipts/receipt-searches.schemas.js';
import {
  ADVICE_FUNCTIONAL_IDS,
  adjustmentReasonCode,
  build846,
  build944,
  build945,
  build947,
  x12FreeText,
  type AdjustmentAdvice,
} from '../../src/modules/x12/advices.js';
import { readInterchange } from '../../src/modules/x12/x12-reader.js';
import type { X12Segment } from '../../src/modules/x12/x12-syntax.js';
import { buildInterchange, writeSegments, X12WriteError } from '../../src/modules/x12/x12-writer.js';

const LOS_ANGELES = 'America/Los_Angeles';
/** 2026-03-06 03:30 UTC: still the evening of March 5 in Los Angeles (UTC-8 until March 8). */
const EVENING_IN_LOS_ANGELES = Date.UTC(2026, 2, 6, 3, 30);

type SetId = keyof typeof ADVICE_FUNCTIONAL_IDS;

/** One advice in its own interchange, one segment a line, as the bridge will queue it. */
function interchangeOf(setId: SetId, segments: readonly X12Segment[]): string {
  return buildInterchange(
    {
      sender: { qualifier: 'ZZ', id: 'WHARF3PL' },
      receiver: { qualifier: 'ZZ', id: 'ACMEBRANDS' },
      controlNumber: 42,
      at: EVENING_IN_LOS_ANGELES,
      timeZone: LOS_ANGELES,
      groups: [
        {
          functionalId: ADVICE_FUNCTIONAL_IDS[setId],
          senderCode: 'WHARF3PL',
          receiverCode: 'ACMEBRANDS',
          controlNumber: 17,
          sets: [{ id: setId, controlNumber: 1, segments }],
        },
      ],
    },
    { afterSegment: '\n' },
  );
}

/** The interchange text expected around a body: written by hand, segment by segment. */
function expectedInterchange(setId: SetId, body: string[]): string {
  return [
    'ISA*00*          *00*          *ZZ*WHARF3PL       *ZZ*ACMEBRANDS     *260305*1930*U*00401*000000042*0*P*>',
    `GS*${ADVICE_FUNCTIONAL_IDS[setId]}*WHARF3PL*ACMEBRANDS*20260305*1930*17*X*004010`,
    `ST*${setId}*0001`,
    ...body,
    `SE*${body.length + 2}*0001`,
    'GE*1*17',
    'IEA*1*000000042',
  ]
    .map((line) => `${line}~\n`)
    .join('');
}

/** Reads an advice back with Wharf's own reader: one group, one set, nothing to report. */
function expectReadable(text: string, setId: SetId, bodyLength: number): void {
  const result = readInterchange(text);
  if (!result.ok) throw new Error(`expected a readable interchange: ${JSON.stringify(result.problems)}`);
  const [group] = result.interchange.groups;
  expect(group?.functionalId).toBe(ADVICE_FUNCTIONAL_IDS[setId]);
  expect(group?.problems).toEqual([]);
  const [set] = group?.sets ?? [];
  expect(set?.id).toBe(setId);
  expect(set?.problems).toEqual([]);
  expect(set?.trailer).toEqual({ segmentCount: String(bodyLength + 2), controlNumber: '0001' });
}

const nulls = (keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, null]));

type RcItem = RcRecord['RC']['Items'][number];

function rcItem(item: Pick<RcItem, 'ItemNumber' | 'ReceivedQuantity' | 'UOM'> & Partial<RcItem>): RcItem {
  return {
    POLineNo: null,
    ItemShortDescription: null,
    ItemDescription: null,
    CustomerMaterial: null,
    Diverse: null,
    ItemNote: null,
    SerialNumber: [],
    LotNo: null,
    ExpectedQty: null,
    ExpirationDate: null,
    SHIPMENTLINEID: null,
    SupplierID: null,
    SupplierName: null,
    ...nulls(RC_ITEM_DYNAMIC_KEYS),
    ...item,
  };
}

/**
 * Modelled on the shape of public 004010 944 samples (a 3PL's baseline 944 mapping: W17 with the
 * receipt and depositor order numbers, N1 WH, W07 per item with a G69, W14 total), written for
 * Wharf's demo receipt with a case line and an each line.
 */
function receivingConfirmation(rc: Partial<RcRecord['RC']> = {}): RcRecord {
  return {
    FacilityID: 'LAX1',
    CustomerID: 'ACME',
    ReferenceNo: 'ASN-1000',
    PONo: 'PO-DEMO-1000',
    RC: {
      SVCCompanyID: 'DEMO',
      CustomerID: 'ACME',
      SupplierID: null,
      PONo: 'PO-DEMO-1000',
      ReferenceNo: 'ASN-1000',
      SVCPOID: 'RN-1',
      ReceivedDate: '2026-03-05T19:30:00.000',
      ContainerNumber: null,
      BOLNo: 'BOL889120',
      CarrierName: 'Acme Freight',
      SCACCode: null,
      ...nulls(RC_DYNAMIC_KEYS),
      Items: [
        rcItem({
          POLineNo: 1,
          ItemNumber: 'MUG-RED-12',
          ItemDescription: 'Ceramic mug, red*12 oz~gift box',
          ReceivedQuantity: 1.5,
          UOM: 'CS',
          LotNo: 'L2403',
          ExpectedQty: '2',
        }),
        rcItem({ POLineNo: 2, ItemNumber: 'MUG-BLUE-12', ItemShortDescription: 'Blue mug', ReceivedQuantity: 2.25, UOM: 'EA' }),
      ],
      Cartons: [],
      Note: null,
      PalletQty: null,
      TitleID: null,
      RECEIPTSOURCECODE: null,
      ORGANIZATIONCODE: null,
      TOSUBINVENTORY: null,
      ...rc,
    },
    CreatedWhen: '2026-03-05T19:31:02.000',
  };
}

/**
 * Modelled on the layout of public 004010 945 guides from cold-storage and 3PL warehouses (W06 with
 * the depositor order, ship date and PO, N1, N9 references, W27 carrier, LX/W12 per line, W03),
 * with Wharf's demo order shipped by parcel: one line complete, one line partly.
 */
function shipmentConfirmation(dc: Partial<DcRecord['DC']> = {}): DcRecord {
  return {
    FacilityID: 'LAX1',
    CustomerID: 'ACME',
    ReferenceNo: 'SO-2000',
    PONo: 'PO-55012',
    DC: {
      CompanyID: 'DEMO',
      OrderNo: 'DN-1',
      ShippedDate: '2026-03-05T23:45:00.000',
      BOLNo: 'BOL-7781',
      LoadNo: null,
      SCACCode: 'UPSN',
      CarrierName: 'UPS*Ground',
      TrackingNo: '1Z999AA10123456784',
      ProNo: null,
      Items: [
        {
          LineNo: 1,
          ItemNumber: 'MUG-BLUE-12',
          LotNo: 'L2403',
          OrderedQty: 6,
          ShippedQty: 6,
          DifferenceQty: 0,
          UOM: 'EA',
          SerialNumber: [],
        },
        {
          LineNo: 2,
          ItemNumber: 'TEE-BLK-M',
          LotNo: null,
          OrderedQty: 4,
          ShippedQty: 1.5,
          DifferenceQty: 2.5,
          UOM: 'CS',
          SerialNumber: [],
        },
      ],
      ...dc,
    },
    CreatedWhen: '2026-03-05T23:46:10.000',
  };
}

/**
 * Modelled on public 004010 947 guides of parcel and contract warehouses (W15 with the adjustment
 * number, N1 WH, one W19 per item with a signed quantity), with the demo's cycle count.
 */
function cycleCount(overrides: Partial<AdjustmentAdvice> = {}): AdjustmentAdvice {
  return {
    AdjustmentNo: 'ADJ-DEMO-0001',
    FacilityID: 'LAX1',
    ReasonCode: 'CYCLE-COUNT',
    AdjustedAt: '2026-03-06T03:30:00.000Z',
    Lines: [
      { ItemID: 'TEE-BLK-M', UOM: 'EA', Qty: '-2' },
      { ItemID: 'MUG-BLUE-12', UOM: 'CS', LotNo: 'L2409', Qty: '12.5', InventoryStatus: 'Available' },
    ],
    ...overrides,
  };
}

function balance(row: Pick<InventoryRow, 'ItemNumber' | 'LotNo' | 'OnHand' | 'Allocated' | 'Available'>): InventoryRow {
  return { GoodsType: null, TitleID: null, InventoryStatus: 'Available', ExpirationDate: null, UOM: 'EA', ...row };
}

/**
 * Modelled on the BIA / N1 / LIN / QTY / CTT layout of public 004010 846 guides (a steel
 * distributor's and retailers' drop-ship 846s), with the demo's blue mug lots and a decimal balance.
 */
const BALANCES: InventoryRow[] = [
  balance({ ItemNumber: 'MUG-BLUE-12', LotNo: 'L2403', OnHand: '114', Allocated: '24', Available: '90' }),
  balance({ ItemNumber: 'MUG-BLUE-12', LotNo: 'L2409', OnHand: '240', Allocated: '0', Available: '240' }),
  balance({ ItemNumber: 'TEE-BLK-M', LotNo: null, OnHand: '12.25', Allocated: '0', Available: '12.25' }),
];

const segmentLines = (segments: readonly X12Segment[]) => writeSegments(segments, { afterSegment: '\n' }).split('~\n').slice(0, -1);

describe('944 Warehouse Stock Transfer Receipt Advice', () => {
  const body = [
    'W17*F*20260305*RN-1*ASN-1000',
    'N1*WH**ZZ*LAX1',
    'N9*PO*PO-DEMO-1000',
    'N9*BM*BOL889120',
    'W07*1.5*CA**VN*MUG-RED-12***L2403',
    'G69*Ceramic mug, red 12 oz gift box',
    'W07*2.25*EA**VN*MUG-BLUE-12',
    'G69*Blue mug',
    'W14*3.75',
  ];

  it('writes a receiving confirmation as the exact 944 text, and reads back', () => {
    const text = interchangeOf('944', build944(receivingConfirmation(), { timeZone: LOS_ANGELES }));
    expect(text).toBe(expectedInterchange('944', body));
    expectReadable(text, '944', body.length);
  });

  it('totals received quantities exactly, where floating point would not', () => {
    const segments = build944(
      receivingConfirmation({
        Items: [
          rcItem({ ItemNumber: 'A', ReceivedQuantity: 0.1, UOM: 'EA' }),
          rcItem({ ItemNumber: 'B', ReceivedQuantity: 0.2, UOM: 'EA' }),
        ],
      }),
      { timeZone: LOS_ANGELES },
    );
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(segmentLines(segments).at(-1)).toBe('W14*0.3');
  });

  it('takes the PONo as the depositor order number when there is no ReferenceNo', () => {
    const record = { ...receivingConfirmation(), ReferenceNo: null };
    expect(segmentLines(build944(record, { timeZone: LOS_ANGELES }))[0]).toBe('W17*F*20260305*RN-1*PO-DEMO-1000');
  });

  it('dates the receipt in the facility zone, also for a time written in UTC', () => {
    const receivedAt = (ReceivedDate: string, timeZone: string) =>
      segmentLines(build944(receivingConfirmation({ ReceivedDate }), { timeZone }))[0];
    expect(receivedAt('2026-03-06T03:30:00.000Z', LOS_ANGELES)).toBe('W17*F*20260305*RN-1*ASN-1000');
    expect(receivedAt('2026-03-06T03:30:00.000Z', 'Asia/Tokyo')).toBe('W17*F*20260306*RN-1*ASN-1000');
    expect(receivedAt('2026-03-05T23:59:59.999', LOS_ANGELES)).toBe('W17*F*20260305*RN-1*ASN-1000');
  });

  it('refuses an id holding a delimiter rather than alter it', () => {
    const item = rcItem({ ItemNumber: 'MUG*RED', ReceivedQuantity: 1, UOM: 'EA' });
    expect(() => build944(receivingConfirmation({ Items: [item] }), { timeZone: LOS_ANGELES })).toThrow(X12WriteError);
    expect(() => build944(receivingConfirmation({ Items: [item] }), { timeZone: LOS_ANGELES })).toThrow(
      /W07-05 \(Items\[0\]\.ItemNumber\) "MUG\*RED" contains "\*"/,
    );
    expect(() => build944(receivingConfirmation({ SVCPOID: 'RN~1' }), { timeZone: LOS_ANGELES })).toThrow(/W17-03/);
  });

  it('refuses what it cannot map: an unknown unit, a wrong zone, a confirmation without items', () => {
    const pallet = rcItem({ ItemNumber: 'MUG-RED-12', ReceivedQuantity: 1, UOM: 'PL' as 'EA' });
    expect(() => build944(receivingConfirmation({ Items: [pallet] }), { timeZone: LOS_ANGELES })).toThrow(/W07-02.*"PL"/);
    expect(() => build944(receivingConfirmation(), { timeZone: 'Mars/Olympus' })).toThrow(/not a time zone/);
    expect(() => build944(receivingConfirmation({ Items: [] }), { timeZone: LOS_ANGELES })).toThrow(/at least one detail line/);
  });
});

describe('945 Warehouse Shipping Advice', () => {
  const body = [
    'W06*F*SO-2000*20260305*DN-1**PO-55012',
    'N1*WH**ZZ*LAX1',
    'N9*BM*BOL-7781',
    'N9*2I*1Z999AA10123456784',
    'W27*U*UPSN*UPS Ground',
    'LX*1',
    'W12*CC*6*6*0*EA**VN*MUG-BLUE-12*L2403',
    'LX*2',
    'W12*PR*4*1.5*2.5*CA**VN*TEE-BLK-M',
    'W03*7.5',
  ];

  it('writes a shipment confirmation as the exact 945 text, and reads back', () => {
    const text = interchangeOf('945', build945(shipmentConfirmation(), { timeZone: LOS_ANGELES, transportationMethod: 'U' }));
    expect(text).toBe(expectedInterchange('945', body));
    expectReadable(text, '945', body.length);
  });

  it('leaves out the carrier when the DC names none, and writes a numeric ReferenceNo as text', () => {
    const record = {
      ...shipmentConfirmation({ SCACCode: null, CarrierName: null, BOLNo: null, TrackingNo: null, ProNo: '0123' }),
      ReferenceNo: 2000,
    };
    expect(segmentLines(build945(record, { timeZone: LOS_ANGELES, transportationMethod: 'M' })).slice(0, 4)).toEqual([
      'W06*F*2000*20260305*DN-1**PO-55012',
      'N1*WH**ZZ*LAX1',
      'N9*CN*0123',
      'LX*1',
    ]);
  });

  it('dates the shipment in the facility zone across midnight UTC', () => {
    const shippedOn = (ShippedDate: string) =>
      segmentLines(build945(shipmentConfirmation({ ShippedDate }), { timeZone: LOS_ANGELES, transportationMethod: 'U' }))[0];
    expect(shippedOn('2026-03-06T07:45:00.000Z')).toBe('W06*F*SO-2000*20260305*DN-1**PO-55012');
    expect(shippedOn('2026-03-06T08:00:00.000Z')).toBe('W06*F*SO-2000*20260306*DN-1**PO-55012');
  });
});

describe('947 Warehouse Inventory Adjustment Advice', () => {
  const body = [
    'W15*20260305*ADJ-DEMO-0001*ADJ-DEMO-0001',
    'N1*WH**ZZ*LAX1',
    'W19*AA*-2*EA**VN*TEE-BLK-M',
    'W19*AA*12.5*CA**VN*MUG-BLUE-12***L2409',
  ];

  it('writes an adjustment as the exact 947 text with signed quantities, and reads back', () => {
    const text = interchangeOf('947', build947(cycleCount(), { timeZone: LOS_ANGELES }));
    expect(text).toBe(expectedInterchange('947', body));
    expectReadable(text, '947', body.length);
  });

  it('writes quantities as X12 decimals: no plus sign, no trailing zeros', () => {
    const lines = [
      { ItemID: 'A', UOM: 'EA', Qty: '-0.2500' },
      { ItemID: 'B', UOM: 'EA', Qty: '007' },
    ];
    expect(segmentLines(build947(cycleCount({ Lines: lines }), { timeZone: LOS_ANGELES })).slice(2)).toEqual([
      'W19*AA*-0.25*EA**VN*A',
      'W19*AA*7*EA**VN*B',
    ]);
    expect(() => build947(cycleCount({ Lines: [{ ItemID: 'A', UOM: 'EA', Qty: '+3' }] }), { timeZone: LOS_ANGELES })).toThrow(
      /W19-02 \(Lines\[0\]\.Qty\) "\+3" is not a decimal/,
    );
  });

  it.each([
    ['CYCLE-COUNT', 'AA'],
    ['cycle count', 'AA'],
    ['Damaged', 'AU'],
    ['QA-HOLD', '05'],
    ['release', '55'],
    ['EXPIRED', 'AX'],
    ['av', 'AV'],
    ['QA', 'AH'],
    ['SHRINK', 'AH'],
    [null, 'AH'],
  ])('maps the ReasonCode %j to W19-01 %s', (reasonCode, code) => {
    expect(adjustmentReasonCode(reasonCode)).toBe(code);
  });
});

describe('846 Inventory Inquiry/Advice', () => {
  const body = [
    'BIA*00*SI*INV-20260305-01*20260305*1930',
    'N1*WH**ZZ*LAX1',
    'LIN*1*VN*MUG-BLUE-12*LT*L2403',
    'QTY*33*90*EA',
    'QTY*17*114*EA',
    'QTY*27*24*EA',
    'LIN*2*VN*MUG-BLUE-12*LT*L2409',
    'QTY*33*240*EA',
    'QTY*17*240*EA',
    'QTY*27*0*EA',
    'LIN*3*VN*TEE-BLK-M',
    'QTY*33*12.25*EA',
    'QTY*17*12.25*EA',
    'QTY*27*0*EA',
    'CTT*3',
  ];
  const options = { timeZone: LOS_ANGELES, at: EVENING_IN_LOS_ANGELES, referenceId: 'INV-20260305-01', facilityId: 'LAX1' };

  it('writes balances as the exact 846 text, dated in the facility zone, and reads back', () => {
    const text = interchangeOf('846', build846(BALANCES, options));
    expect(text).toBe(expectedInterchange('846', body));
    expectReadable(text, '846', body.length);
  });

  it('writes the report type the partner asks for, and an empty advice when nothing is on hand', () => {
    expect(segmentLines(build846([], { ...options, reportType: 'MB', at: Date.UTC(2026, 2, 6, 8, 0) }))).toEqual([
      'BIA*00*MB*INV-20260305-01*20260306*0000',
      'N1*WH**ZZ*LAX1',
      'CTT*0',
    ]);
  });
});

describe('free text', () => {
  it('replaces every reserved character with a space and keeps the rest', () => {
    expect(x12FreeText('A*B~C>D^E|F\r\nG')).toBe('A B C D E F  G');
    expect(x12FreeText('Ceramic mug, red; 12 oz (gift)')).toBe('Ceramic mug, red; 12 oz (gift)');
  });

  it('trims the ends and cuts to the element length', () => {
    expect(x12FreeText('  *Mug*  ')).toBe('Mug');
    expect(x12FreeText('Stoneware mug with lid', 14)).toBe('Stoneware mug');
  });
});
