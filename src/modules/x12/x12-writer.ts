/** Writes X12 004010 segments and whole envelopes (docs/x12.md), with exact counts and the control numbers the caller gives. */
import { DateTime } from 'luxon';
import {
  DATA_CHARACTER,
  defaultDelimiters,
  GS_VERSION,
  ISA_VERSION,
  isaField,
  SEGMENT_ID,
  STANDARDS_ID,
  type X12Delimiters,
  type X12Segment,
} from './x12-syntax.js';
/** A value the codec cannot write: the caller's mistake, or data to clean before it is mapped to X12. */
export class X12WriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'X12WriteError';
  }
}

export interface X12WriteFormat {
  delimiters?: X12Delimiters;
  /** Written after each segment terminator: '' (default), '\n' or '\r\n' for one segment a line. */
  afterSegment?: string;
}

function checkedFormat(format: X12WriteFormat): Required<X12WriteFormat> {
  const delimiters = format.delimiters ?? defaultDelimiters;
  const afterSegment = format.afterSegment ?? '';
  const { element, component, segment } = delimiters;
  for (const [name, value] of Object.entries(delimiters)) {
    if (value.length !== 1) throw new X12WriteError(`the ${name} delimiter must be one character`);
  }
  if (DATA_CHARACTER.test(element) || DATA_CHARACTER.test(component) || DATA_CHARACTER.test(segment.replace(/[\r\n]/, ''))) {
    throw new X12WriteError('a delimiter cannot be a letter, a digit or a space');
  }
  if (new Set([element, component, segment]).size !== 3) throw new X12WriteError('the three delimiters must differ');
  if (!/^[\r\n]*$/.test(afterSegment)) throw new X12WriteError('only line breaks may follow a segment terminator');
  return { delimiters, afterSegment };
}

function checkedValue(value: string, where: string, { element, component, segment }: X12Delimiters): string {
  for (const reserved of [element, component, segment, '\r', '\n']) {
    if (value.includes(reserved)) throw new X12WriteError(`${where} contains ${JSON.stringify(reserved)}, which X12 reserves`);
  }
  return value;
}

/** One segment without its terminator. Trailing empty elements and components are left out, as X12 asks. */
export function writeSegment(segment: X12Segment, delimiters: X12Delimiters = defaultDelimiters): string {
  if (!SEGMENT_ID.test(segment.id)) throw new X12WriteError(`${JSON.stringify(segment.id)} is not a segment id`);
  const values = segment.elements.map((element, index) => {
    const where = `${segment.id}${String(index + 1).padStart(2, '0')}`;
    if (typeof element === 'string') return checkedValue(element, where, delimiters);
    const components = element.map((value, at) => checkedValue(value, `${where}-${at + 1}`, delimiters));
    return withoutTrailingEmpty(components).join(delimiters.component);
  });
  return [segment.id, ...withoutTrailingEmpty(values)].join(delimiters.element);
}

function withoutTrailingEmpty(values: string[]): string[] {
  let length = values.length;
  while (length > 0 && values[length - 1] === '') length--;
  return values.slice(0, length);
}

/** Segments, each followed by the terminator (and afterSegment). */
export function writeSegments(segments: readonly X12Segment[], format: X12WriteFormat = {}): string {
  const { delimiters, afterSegment } = checkedFormat(format);
  return segments.map((segment) => writeSegment(segment, delimiters) + delimiters.segment + afterSegment).join('');
}

/** ISA09/ISA10 (YYMMDD, HHMM) and GS04/GS05 (CCYYMMDD, HHMM) of one instant, in the time zone the partner agreed. */
export function envelopeDateTime(at: number, timeZone: string): { isaDate: string; isaTime: string; gsDate: string; gsTime: string } {
  const local = DateTime.fromMillis(at, { zone: timeZone });
  if (!local.isValid) throw new X12WriteError(`cannot date an envelope: ${local.invalidExplanation ?? local.invalidReason ?? timeZone}`);
  return {
    isaDate: local.toFormat('yyMMdd'),
    isaTime: local.toFormat('HHmm'),
    gsDate: local.toFormat('yyyyMMdd'),
    gsTime: local.toFormat('HHmm'),
  };
}

export interface X12Party {
  /** ISA05/ISA07, e.g. 'ZZ'. */
  qualifier: string;
  /** ISA06/ISA08, up to 15 characters (padded here). */
  id: string;
}

export interface SetToWrite {
  /** ST01, e.g. '944'. */
  id: string;
  /** ST02 (= SE02): a number is written with at least 4 digits. */
  controlNumber: number | string;
  /** The body between ST and SE. */
  segments: readonly X12Segment[];
}

export interface GroupToWrite {
  /** GS01, e.g. 'AR' (943), 'OW' (940), 'RE' (944), 'SW' (945), 'FA' (997). */
  functionalId: string;
  senderCode: string;
  receiverCode: string;
  /** GS06 (= GE02), 1 to 999999999. */
  controlNumber: number;
  /** GS08, '004010' unless set. */
  version?: string;
  sets: readonly SetToWrite[];
}

export interface InterchangeToWrite {
  sender: X12Party;
  receiver: X12Party;
  /** ISA13 (= IEA02), 1 to 999999999: the caller owns the numbering. */
  controlNumber: number;
  /** The instant the envelope is dated (epoch milliseconds) and the zone its dates are written in. */
  at: number;
  timeZone: string;
  /** ISA15, 'P' unless set. */
  usage?: 'P' | 'T' | 'I';
  /** ISA14. */
  acknowledgmentRequested?: boolean;
  /** Segments between ISA and the first GS: a TA1 answering another interchange. */
  acknowledgments?: readonly X12Segment[];
  groups: readonly GroupToWrite[];
}

const ENVELOPE_IDS = new Set(['ISA', 'IEA', 'GS', 'GE', 'ST', 'SE']);

function checkedNumber(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value < 1 || value > 999_999_999) throw new X12WriteError(`${name} ${value} is not 1 to 999999999`);
  return String(value);
}

/** An ISA field padded to its width; a qualifier (exact) cannot be padded, an id can. */
function fixedWidth(value: string, width: number, name: string, exact = false): string {
  if (value.trim() === '' || value.length > width || (exact && value.length !== width)) {
    throw new X12WriteError(`${name} must be ${exact ? '' : '1 to '}${width} characters`);
  }
  return value.padEnd(width, ' ');
}

/**
 * A whole interchange: ISA with its fixed widths, each group and set with SE01, GE01 and IEA01
 * counted here and the control numbers the caller gives repeated in the trailers.
 */
export function buildInterchange(interchange: InterchangeToWrite, format: X12WriteFormat = {}): string {
  const { delimiters, afterSegment } = checkedFormat(format);
  const { isaDate, isaTime, gsDate, gsTime } = envelopeDateTime(interchange.at, interchange.timeZone);
  const interchangeNumber = checkedNumber(interchange.controlNumber, 'ISA13').padStart(9, '0');
  const isaElements = [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    fixedWidth(interchange.sender.qualifier, 2, 'ISA05', true),
    fixedWidth(interchange.sender.id, 15, 'ISA06'),
    fixedWidth(interchange.receiver.qualifier, 2, 'ISA07', true),
    fixedWidth(interchange.receiver.id, 15, 'ISA08'),
    isaDate,
    isaTime,
    STANDARDS_ID,
    ISA_VERSION,
    interchangeNumber,
    interchange.acknowledgmentRequested ? '1' : '0',
    interchange.usage ?? 'P',
  ].map((value, index) => checkedValue(value, isaField(index), delimiters));
  // ISA16 is the component separator itself, so it is the one element written around the value check.
  const isa = ['ISA', ...isaElements, delimiters.component].join(delimiters.element);

  const segments: X12Segment[] = [...(interchange.acknowledgments ?? [])];
  for (const group of interchange.groups) {
    const groupNumber = checkedNumber(group.controlNumber, 'GS06');
    segments.push({
      id: 'GS',
      elements: [group.functionalId, group.senderCode, group.receiverCode, gsDate, gsTime, groupNumber, 'X', group.version ?? GS_VERSION],
    });
    for (const set of group.sets) {
      const setNumber =
        typeof set.controlNumber === 'number' ? checkedNumber(set.controlNumber, 'ST02').padStart(4, '0') : set.controlNumber;
      if (!/^\S{4,9}$/.test(setNumber)) throw new X12WriteError(`ST02 ${setNumber} is not 4 to 9 characters`);
      const envelopeInBody = set.segments.find((segment) => ENVELOPE_IDS.has(segment.id));
      if (envelopeInBody)
        throw new X12WriteError(`the body of set ${setNumber} holds a ${envelopeInBody.id} segment; the envelope is written here`);
      segments.push({ id: 'ST', elements: [set.id, setNumber] }, ...set.segments, {
        id: 'SE',
        elements: [String(set.segments.length + 2), setNumber],
      });
    }
    segments.push({ id: 'GE', elements: [String(group.sets.length), groupNumber] });
  }
  segments.push({ id: 'IEA', elements: [String(interchange.groups.length), interchangeNumber] });
  return isa + delimiters.segment + afterSegment + writeSegments(segments, { delimiters, afterSegment });
}
