/**
 * The bodies (ST and SE excluded) of the warehouse's outbound X12 004010 advices (docs/x12.md): a 944
 * per receiving confirmation, a 945 per shipment confirmation, a 947 per inventory adjustment and
 * an 846 of inventory balances, built from the JSON shapes Wharf already answers. Pure functions:
 * the bridge wraps them with buildInterchange and owns partners, control numbers and the outbox.
 *
 * Every element written, its 004010 element number and the codes chosen are in docs/x12.md,
 * with what each was checked against and what could not be confirmed.
 */
import { DateTime } from 'luxon';
import { formatDecimal, tryParseDecimal, type Scaled } from '../../lib/decimal.js';
import type { InventoryRow } from '../inventory/inquiry.schemas.js';
import type { DcRecord } from '../orders/order-searches.schemas.js';
import type { RcRecord } from '../receipts/receipt-searches.schemas.js';
import type { X12Segment } from './x12-syntax.js';
import { X12WriteError } from './x12-writer.js';

/** GS01 (479) of the functional group each advice travels in. */
export const ADVICE_FUNCTIONAL_IDS = { '944': 'RE', '945': 'SW', '947': 'AW', '846': 'IB' } as const;

/**
 * The delimiters an interchange may use: Wharf writes `* > ~`, partners also use `| ^` and line
 * breaks. Refusing or cleaning all of them keeps an advice writable whichever set the bridge picks.
 */
const RESERVED_CHARACTER = /[*~>^|\r\n]/;
const RESERVED_CHARACTERS = /[*~>^|\r\n]/g;

/**
 * Free text (a description, a carrier's name) made writable: each reserved character becomes a
 * space, the ends are trimmed and the text is cut to the element's maximum length. Text is
 * cleaned because a description means the same with a space where a `*` was; an id would not.
 */
export function x12FreeText(text: string, maxLength = Number.POSITIVE_INFINITY): string {
  const characters = Array.from(text.replace(RESERVED_CHARACTERS, ' ').trim());
  return characters.slice(0, maxLength).join('').trimEnd();
}

/** An identifier as it must reach the partner: refused, never altered, when empty or holding a reserved character. */
function x12Id(value: string | number, where: string): string {
  const text = String(value);
  if (text.trim() === '') throw new X12WriteError(`${where} is empty`);
  const reserved = RESERVED_CHARACTER.exec(text);
  if (reserved) throw new X12WriteError(`${where} ${JSON.stringify(text)} contains ${JSON.stringify(reserved[0])}, which X12 reserves`);
  return text;
}

/** A value Wharf may not have: null, absent and blank text are all "not sent". */
function given(value: string | number | null | undefined): value is string | number {
  return value !== null && value !== undefined && String(value).trim() !== '';
}

const optionalId = (value: string | number | null | undefined, where: string) => (given(value) ? x12Id(value, where) : '');

/** Wharf's exact decimal (text or a JSON number) as a scaled integer; anything else is refused. */
function scaledQuantity(value: string | number, where: string): Scaled {
  const scaled = tryParseDecimal(value);
  if (scaled === undefined) {
    throw new X12WriteError(`${where} ${JSON.stringify(value)} is not a decimal with at most 11 integer and 4 fractional digits`);
  }
  return scaled;
}

/**
 * An R element: formatDecimal writes what X12 expects (no exponent, no '+', no thousands
 * separator, no trailing '.', '-' for a negative), from the exact value.
 */
const x12Decimal = (value: string | number, where: string) => formatDecimal(scaledQuantity(value, where));

/** The exact sum of scaled quantities, written as an R element. */
function x12Total(quantities: readonly Scaled[], where: string): string {
  const sum = quantities.reduce((total, quantity) => total + quantity, 0);
  if (!Number.isSafeInteger(sum)) throw new X12WriteError(`${where} is too large to add up exactly`);
  return formatDecimal(sum);
}

/** Wharf's units (http/schemas UOMS) as 355 codes: a case is CS in Wharf and CA in X12. */
const X12_UNITS = new Map([
  ['EA', 'EA'],
  ['CS', 'CA'],
]);

function x12Unit(uom: string, where: string): string {
  const code = X12_UNITS.get(uom);
  if (code === undefined) throw new X12WriteError(`${where} ${JSON.stringify(uom)} is not a unit Wharf maps to X12 (EA, CS)`);
  return code;
}

/** The facility's zone, checked once so that a wrong one names itself rather than every date. */
function checkedZone(timeZone: string): string {
  if (!DateTime.now().setZone(timeZone).isValid) throw new X12WriteError(`${JSON.stringify(timeZone)} is not a time zone`);
  return timeZone;
}

/**
 * CCYYMMDD in the facility's zone of a date-time text: facility-local text (how Wharf shows its
 * dates) is read in that zone; text with its own offset is moved into it.
 */
function facilityDate(text: string, timeZone: string, where: string): string {
  const local = DateTime.fromISO(text, { zone: timeZone });
  if (!local.isValid) throw new X12WriteError(`${where} ${JSON.stringify(text)} is not an ISO date-time`);
  return local.toFormat('yyyyMMdd');
}

/** N1 WH: Wharf's records name the facility only by its FacilityID, so N1-02 stays empty (R0203 asks for N1-02 or N1-03). */
function warehouseParty(facilityId: string): X12Segment {
  return { id: 'N1', elements: ['WH', '', 'ZZ', x12Id(facilityId, 'N1-04 (FacilityID)')] };
}

/** N9 segments for the references a record has, in the order given; absent ones are left out. */
function references(pairs: readonly [qualifier: string, value: string | number | null | undefined, field: string][]): X12Segment[] {
  return pairs.flatMap(([qualifier, value, field]) =>
    given(value) ? [{ id: 'N9', elements: [qualifier, x12Id(value, `N9-02 ${qualifier} (${field})`)] }] : [],
  );
}

/** Refuses an advice without a detail line: each set here has a mandatory detail loop. */
function requireLines(count: number, setId: string, what: string): void {
  if (count === 0) throw new X12WriteError(`a ${setId} needs at least one detail line, and the ${what} has none`);
}

export interface Advice944Options {
  /** The facility's IANA zone, in which W17-02 is dated. */
  timeZone: string;
}

/**
 * 944 Warehouse Stock Transfer Receipt Advice for one receiving confirmation: W17, N1 WH, N9 PO
 * (and BM), then per received item W07 (and G69 with its description), then W14.
 */
export function build944(record: RcRecord, options: Advice944Options): X12Segment[] {
  const timeZone = checkedZone(options.timeZone);
  const rc = record.RC;
  requireLines(rc.Items.length, '944', 'receiving confirmation');
  const received = rc.Items.map((item, index) => scaledQuantity(item.ReceivedQuantity, `W07-01 (Items[${index}].ReceivedQuantity)`));
  const items = rc.Items.flatMap((item, index): X12Segment[] => {
    const where = `Items[${index}]`;
    const description = x12FreeText(item.ItemDescription ?? item.ItemShortDescription ?? '', 45);
    return [
      {
        id: 'W07',
        elements: [
          formatDecimal(received[index]!),
          x12Unit(item.UOM, `W07-02 (${where}.UOM)`),
          '',
          'VN',
          x12Id(item.ItemNumber, `W07-05 (${where}.ItemNumber)`),
          '',
          '',
          optionalId(item.LotNo, `W07-08 (${where}.LotNo)`),
        ],
      },
      ...(description === '' ? [] : [{ id: 'G69', elements: [description] }]),
    ];
  });
  return [
    {
      id: 'W17',
      elements: [
        'F',
        facilityDate(rc.ReceivedDate, timeZone, 'W17-02 (RC.ReceivedDate)'),
        x12Id(rc.SVCPOID, 'W17-03 (RC.SVCPOID)'),
        given(record.ReferenceNo) ? x12Id(record.ReferenceNo, 'W17-04 (ReferenceNo)') : x12Id(record.PONo, 'W17-04 (PONo)'),
      ],
    },
    warehouseParty(record.FacilityID),
    ...references([
      ['PO', record.PONo, 'PONo'],
      ['BM', rc.BOLNo, 'RC.BOLNo'],
    ]),
    ...items,
    { id: 'W14', elements: [x12Total(received, 'W14-01')] },
  ];
}

export interface Advice945Options {
  /** The facility's IANA zone, in which W06-03 is dated. */
  timeZone: string;
  /**
   * W27-01 Transportation Method/Type Code (91), e.g. 'M' motor common carrier or 'U' private
   * parcel service: the DC does not say, so the partner agreement does.
   */
  transportationMethod: string;
}

/**
 * 945 Warehouse Shipping Advice for one shipment confirmation: W06, N1 WH, N9 BM/LO/CN/2I, W27
 * when the DC names a carrier, then per shipped line LX and W12, then W03.
 */
export function build945(record: DcRecord, options: Advice945Options): X12Segment[] {
  const timeZone = checkedZone(options.timeZone);
  const dc = record.DC;
  requireLines(dc.Items.length, '945', 'shipment confirmation');
  const shipped = dc.Items.map((item, index) => scaledQuantity(item.ShippedQty, `W12-03 (Items[${index}].ShippedQty)`));
  const lines = dc.Items.flatMap((item, index): X12Segment[] => {
    const where = `Items[${index}]`;
    const difference = scaledQuantity(item.DifferenceQty, `W12-04 (${where}.DifferenceQty)`);
    return [
      { id: 'LX', elements: [String(index + 1)] },
      {
        id: 'W12',
        elements: [
          // PR rather than CP: more confirmations may still ship the rest, which a DC cannot tell.
          difference === 0 ? 'CC' : 'PR',
          x12Decimal(item.OrderedQty, `W12-02 (${where}.OrderedQty)`),
          formatDecimal(shipped[index]!),
          formatDecimal(difference),
          x12Unit(item.UOM, `W12-05 (${where}.UOM)`),
          '',
          'VN',
          x12Id(item.ItemNumber, `W12-08 (${where}.ItemNumber)`),
          optionalId(item.LotNo, `W12-09 (${where}.LotNo)`),
        ],
      },
    ];
  });
  const carrier: X12Segment[] =
    given(dc.SCACCode) || given(dc.CarrierName)
      ? [
          {
            id: 'W27',
            elements: [
              x12Id(options.transportationMethod, 'W27-01 (transportationMethod)'),
              optionalId(dc.SCACCode, 'W27-02 (DC.SCACCode)'),
              given(dc.CarrierName) ? x12FreeText(dc.CarrierName, 35) : '',
            ],
          },
        ]
      : [];
  return [
    {
      id: 'W06',
      elements: [
        'F',
        x12Id(record.ReferenceNo, 'W06-02 (ReferenceNo)'),
        facilityDate(dc.ShippedDate, timeZone, 'W06-03 (DC.ShippedDate)'),
        x12Id(dc.OrderNo, 'W06-04 (DC.OrderNo)'),
        '',
        optionalId(record.PONo, 'W06-06 (PONo)'),
      ],
    },
    warehouseParty(record.FacilityID),
    ...references([
      ['BM', dc.BOLNo, 'DC.BOLNo'],
      ['LO', dc.LoadNo, 'DC.LoadNo'],
      ['CN', dc.ProNo, 'DC.ProNo'],
      ['2I', dc.TrackingNo, 'DC.TrackingNo'],
    ]),
    ...carrier,
    ...lines,
    { id: 'W03', elements: [x12Total(shipped, 'W03-01')] },
  ];
}

/** One quantity adjustment as the 947 tells it: what Wharf's adjustment answer and request hold. */
export interface AdjustmentAdvice {
  AdjustmentNo: string;
  FacilityID: string;
  /** Wharf's own reason (free text up to 50, e.g. "CYCLE-COUNT"), or a 004010 code; see adjustmentReasonCode. */
  ReasonCode: string | null;
  /** When the adjustment was applied: an ISO instant (with its offset). */
  AdjustedAt: string;
  Lines: {
    ItemID: string;
    UOM: string;
    LotNo?: string;
    /** The signed change of on-hand as exact decimal text, e.g. "-3" or "12.5". */
    Qty: string;
    InventoryStatus?: string;
  }[];
}

/** The W19-01 codes (181) of the 004010 list, which a ReasonCode may already be. */
const ADJUSTMENT_REASONS_004010 = new Set(
  '04 05 07 51 52 53 55 56 AA AB AC AD AE AF AG AH AI AK AL AN AR AS AT AU AV AW AX AY BM BN BR BS CD CO TC'.split(' '),
);

/** Wharf reasons by name (upper case, words joined by '-') and the 004010 code each means. */
const ADJUSTMENT_REASONS_BY_NAME = new Map([
  ['CYCLE-COUNT', 'AA'],
  ['PHYSICAL-COUNT', 'AA'],
  ['COUNT', 'AA'],
  ['DAMAGE', 'AU'],
  ['DAMAGED', 'AU'],
  ['DAMAGED-IN-TRANSIT', 'AV'],
  ['HOLD', '05'],
  ['QA-HOLD', '05'],
  ['RELEASE', '55'],
  ['HOLD-RELEASE', '55'],
  ['RECALL', 'AW'],
  ['EXPIRED', 'AX'],
  ['DESTROYED', '07'],
  ['SCRAP', '07'],
  ['RECEIPT-ERROR', 'AY'],
  ['SHIPPING-ERROR', 'AR'],
  ['TRANSFER', 'AK'],
]);

/** "Other": what an adjustment without a reason, or with one 004010 has no word for, is reported as. */
const OTHER_ADJUSTMENT_REASON = 'AH';

/**
 * W19-01 Quantity or Status Adjustment Reason Code (181) of a Wharf ReasonCode: a known reason
 * name, else the code itself when it is one of 004010's, else AH (Other). A two-character text
 * that is not a 004010 code is not passed on: the partner's translator would reject the set.
 */
export function adjustmentReasonCode(reasonCode: string | null): string {
  if (reasonCode === null) return OTHER_ADJUSTMENT_REASON;
  const name = reasonCode
    .trim()
    .toUpperCase()
    .replace(/[\s_-]+/g, '-');
  return ADJUSTMENT_REASONS_BY_NAME.get(name) ?? (ADJUSTMENT_REASONS_004010.has(name) ? name : OTHER_ADJUSTMENT_REASON);
}

export interface Advice947Options {
  /** The facility's IANA zone, in which W15-01 is dated. */
  timeZone: string;
}

/** 947 Warehouse Inventory Adjustment Advice for one adjustment: W15, N1 WH, then a W19 per line. */
export function build947(adjustment: AdjustmentAdvice, options: Advice947Options): X12Segment[] {
  const timeZone = checkedZone(options.timeZone);
  requireLines(adjustment.Lines.length, '947', 'adjustment');
  const adjustmentNo = x12Id(adjustment.AdjustmentNo, 'W15-02 (AdjustmentNo)');
  const reason = adjustmentReasonCode(adjustment.ReasonCode);
  return [
    // W15-02 and W15-03 go together (P0203); Wharf has one number, the warehouse's, so it fills both.
    { id: 'W15', elements: [facilityDate(adjustment.AdjustedAt, timeZone, 'W15-01 (AdjustedAt)'), adjustmentNo, adjustmentNo] },
    warehouseParty(adjustment.FacilityID),
    ...adjustment.Lines.map((line, index): X12Segment => {
      const where = `Lines[${index}]`;
      return {
        id: 'W19',
        elements: [
          reason,
          x12Decimal(line.Qty, `W19-02 (${where}.Qty)`),
          x12Unit(line.UOM, `W19-03 (${where}.UOM)`),
          '',
          'VN',
          x12Id(line.ItemID, `W19-06 (${where}.ItemID)`),
          '',
          '',
          optionalId(line.LotNo, `W19-09 (${where}.LotNo)`),
        ],
      };
    }),
  ];
}

export interface Advice846Options {
  /** The facility's IANA zone, in which BIA-04 and BIA-05 are written. */
  timeZone: string;
  /** The instant the balances were read (epoch milliseconds): BIA-04 and BIA-05. */
  at: number;
  /** BIA-03: the advice's own number, e.g. the bridge's request or outbox id. */
  referenceId: string;
  /** N1 WH: the rows carry no facility, the request that read them does. */
  facilityId: string;
  /** BIA-02 Report Type Code (755); 'SI' Seller Inventory Report unless the partner asks for another. */
  reportType?: string;
}

/** QTY-01 Quantity Qualifier (673) of each balance column, in the order they are written. */
const INVENTORY_QUANTITIES = [
  ['33', 'Available'],
  ['17', 'OnHand'],
  ['27', 'Allocated'],
] as const satisfies readonly (readonly [string, keyof InventoryRow])[];

/**
 * 846 Inventory Inquiry/Advice of inventory balances: BIA, N1 WH, then per balance LIN (VN item,
 * LT lot) and QTY 33 available, 17 on hand and 27 committed (allocated), then CTT.
 */
export function build846(rows: readonly InventoryRow[], options: Advice846Options): X12Segment[] {
  const at = DateTime.fromMillis(options.at, { zone: checkedZone(options.timeZone) });
  if (!at.isValid) throw new X12WriteError(`BIA-04 cannot date the instant ${options.at}`);
  const balances = rows.flatMap((row, index): X12Segment[] => {
    const where = `rows[${index}]`;
    const unit = x12Unit(row.UOM, `QTY-03 (${where}.UOM)`);
    const lot: string[] = given(row.LotNo) ? ['LT', x12Id(row.LotNo, `LIN-05 (${where}.LotNo)`)] : [];
    return [
      { id: 'LIN', elements: [String(index + 1), 'VN', x12Id(row.ItemNumber, `LIN-03 (${where}.ItemNumber)`), ...lot] },
      ...INVENTORY_QUANTITIES.map(
        ([qualifier, column]): X12Segment => ({
          id: 'QTY',
          elements: [qualifier, x12Decimal(row[column], `QTY-02 ${qualifier} (${where}.${column})`), [unit]],
        }),
      ),
    ];
  });
  return [
    {
      id: 'BIA',
      elements: [
        '00',
        x12Id(options.reportType ?? 'SI', 'BIA-02 (reportType)'),
        x12Id(options.referenceId, 'BIA-03 (referenceId)'),
        at.toFormat('yyyyMMdd'),
        at.toFormat('HHmm'),
      ],
    },
    warehouseParty(options.facilityId),
    ...balances,
    { id: 'CTT', elements: [String(rows.length)] },
  ];
}
