/**
 * The X12 004010 codec of the bridge (DESIGN §16): reads one interchange into its envelopes and
 * segments, checking the envelope the way a TA1 and a 997 report it, and writes segments and whole
 * envelopes with exact counts. It knows no transaction set: what a 940 or a 943 means, which sets
 * are supported and which control numbers were seen before belong to the bridge.
 *
 * Wharf's own rather than an npm parser: node-x12 (1.7.1) is in maintenance mode since 2021 and
 * reports envelope errors as free text (strict mode throws at the first one), with neither TA1/AK5/AK9
 * codes nor segment positions; x12-parser (1.3.0) only splits segments, and cannot write or check
 * envelopes; node-x12-edi maps fields to JSON without envelope checks. None answers the codes a TA1
 * and a 997 need, so each would need this file's checks on top of it anyway.
 *
 * Codes, each from the 004010 code list of its element (Stedi's X12 reference,
 * stedi.com/edi/x12-004010/element/<id>, checked against the webMethods TA1 and AK5/AK9 tables):
 * TA1-05 is element I18, AK5-02 is 718, AK9-05 is 716, AK3-04 is 720, AK3-02 is 719 (ST counts 1).
 */
import { DateTime } from 'luxon';

/** TA1-05 Interchange Note Code (I18). 009 (unknown receiver) and 025 (duplicate ISA13) need the partner table: the bridge's. */
export const InterchangeNote = {
  /** IEA02 is not ISA13. */
  controlNumberMismatch: '001',
  invalidSegmentTerminator: '004',
  invalidSenderQualifier: '005',
  invalidSenderId: '006',
  invalidReceiverQualifier: '007',
  invalidReceiverId: '008',
  invalidAuthorizationQualifier: '010',
  invalidAuthorization: '011',
  invalidSecurityQualifier: '012',
  invalidSecurity: '013',
  invalidDate: '014',
  invalidTime: '015',
  invalidStandardsId: '016',
  invalidVersion: '017',
  invalidControlNumber: '018',
  invalidAcknowledgmentRequested: '019',
  /** I18 calls ISA15 the test indicator. */
  invalidUsageIndicator: '020',
  /** IEA01 is not the number of groups. */
  invalidGroupCount: '021',
  invalidControlStructure: '022',
  prematureEnd: '023',
  /** I18's own example: an invalid GS segment. */
  invalidContent: '024',
  invalidElementSeparator: '026',
  invalidComponentSeparator: '027',
} as const;
export type InterchangeNoteCode = (typeof InterchangeNote)[keyof typeof InterchangeNote];

/** AK9-05 Functional Group Syntax Error Code (716). */
export const GroupError = {
  notSupported: '1',
  versionNotSupported: '2',
  trailerMissing: '3',
  /** GE02 is not GS06. */
  controlNumberMismatch: '4',
  /** GE01 is not the number of sets. */
  setCountMismatch: '5',
  controlNumberSyntax: '6',
} as const;
export type GroupErrorCode = (typeof GroupError)[keyof typeof GroupError];

/** AK5-02 Transaction Set Syntax Error Code (718). */
export const SetError = {
  notSupported: '1',
  trailerMissing: '2',
  /** SE02 is not ST02. */
  controlNumberMismatch: '3',
  /** SE01 is not the number of segments from ST to SE. */
  segmentCountMismatch: '4',
  segmentsInError: '5',
  invalidSetId: '6',
  invalidControlNumber: '7',
  controlNumberNotUnique: '23',
} as const;
export type SetErrorCode = (typeof SetError)[keyof typeof SetError];

/** AK3-04 Segment Syntax Error Code (720); the codec finds only 1, the rest are for the bridge's set rules. */
export const SegmentError = {
  unrecognizedSegmentId: '1',
  unexpectedSegment: '2',
  mandatorySegmentMissing: '3',
  loopOverMaximum: '4',
  segmentOverMaximumUse: '5',
  segmentNotInSet: '6',
  segmentOutOfSequence: '7',
  segmentHasElementErrors: '8',
} as const;
export type SegmentErrorCode = (typeof SegmentError)[keyof typeof SegmentError];

export interface X12Delimiters {
  /** Between elements: the character right after "ISA". */
  element: string;
  /** Between the components of a composite element: ISA16. */
  component: string;
  /** After every segment: the character right after ISA16. */
  segment: string;
}

export const defaultDelimiters: X12Delimiters = { element: '*', component: '>', segment: '~' };

/** A simple element's value, or a composite element's components in order. */
export type X12Element = string | readonly string[];

export interface X12Segment {
  id: string;
  /** elements[0] is element 01 (W05-01); an absent element is ''. */
  elements: readonly X12Element[];
}

export interface PositionedSegment extends X12Segment {
  /** Its count within its transaction set, ST being 1: what AK3-02 reports. */
  position: number;
}

/** ISA, its fixed-width fields as sent except the ids, which lose their padding. */
export interface InterchangeHeader {
  authorizationQualifier: string;
  authorization: string;
  securityQualifier: string;
  security: string;
  senderQualifier: string;
  senderId: string;
  receiverQualifier: string;
  receiverId: string;
  /** ISA09, YYMMDD. */
  date: string;
  /** ISA10, HHMM. */
  time: string;
  standardsId: string;
  version: string;
  controlNumber: string;
  acknowledgmentRequested: string;
  usage: string;
  /** ISA01 to ISA16 exactly as sent. */
  elements: readonly string[];
}

export interface InterchangeProblem {
  code: InterchangeNoteCode;
  message: string;
}

export interface GroupProblem {
  code: GroupErrorCode;
  message: string;
}

export interface SetProblem {
  code: SetErrorCode;
  message: string;
  /** The segment at fault, for an AK3 (and the bridge's AK4s when it checks elements). */
  segment?: { position: number; id: string; code: SegmentErrorCode };
}

export interface X12TransactionSet {
  /** ST01, e.g. '940'. */
  id: string;
  /** ST02. */
  controlNumber: string;
  /** ST first, then the body, then SE when the set has one; segments[i].position is i + 1. */
  segments: PositionedSegment[];
  /** SE01 and SE02 as sent; absent when the set has no SE. */
  trailer?: { segmentCount: string; controlNumber: string };
  /** Empty when the envelope of the set is sound; the bridge adds its own (1, 5) to answer AK5. */
  problems: SetProblem[];
}

export interface X12Group {
  functionalId: string;
  senderCode: string;
  receiverCode: string;
  /** GS04, CCYYMMDD. */
  date: string;
  /** GS05, HHMM (seconds may follow). */
  time: string;
  controlNumber: string;
  agency: string;
  /** GS08, e.g. '004010' or '004010VICS'. */
  version: string;
  sets: X12TransactionSet[];
  /** GE01 and GE02 as sent; absent when the group has no GE. */
  trailer?: { setCount: string; controlNumber: string };
  problems: GroupProblem[];
}

export interface X12Interchange {
  delimiters: X12Delimiters;
  header: InterchangeHeader;
  /** TA1 segments sent between ISA and the first GS (an interchange that acknowledges another). */
  acknowledgments: X12Segment[];
  groups: X12Group[];
  trailer: { groupCount: string; controlNumber: string };
}

/**
 * An interchange whose envelope holds (set and group problems are inside it), or the problems that
 * make it unreadable, first found first: a TA1 answers problems[0].code. The header is there when the
 * ISA itself could be read, for the TA1's ISA13, date and time.
 */
export type X12ReadResult =
  | { ok: true; interchange: X12Interchange }
  | { ok: false; problems: InterchangeProblem[]; header?: InterchangeHeader; delimiters?: X12Delimiters };

const ISA_LENGTH = 106;
const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1] as const;
/** The I18 code that names each ISA field when its width is wrong. */
const ISA_FIELD_NOTES: readonly InterchangeNoteCode[] = [
  InterchangeNote.invalidAuthorizationQualifier,
  InterchangeNote.invalidAuthorization,
  InterchangeNote.invalidSecurityQualifier,
  InterchangeNote.invalidSecurity,
  InterchangeNote.invalidSenderQualifier,
  InterchangeNote.invalidSenderId,
  InterchangeNote.invalidReceiverQualifier,
  InterchangeNote.invalidReceiverId,
  InterchangeNote.invalidDate,
  InterchangeNote.invalidTime,
  InterchangeNote.invalidStandardsId,
  InterchangeNote.invalidVersion,
  InterchangeNote.invalidControlNumber,
  InterchangeNote.invalidAcknowledgmentRequested,
  InterchangeNote.invalidUsageIndicator,
  InterchangeNote.invalidComponentSeparator,
];
/** ISA11 in 004010 is the standards identifier (U), not yet the repetition separator of 00402 and later. */
const STANDARDS_ID = 'U';
const ISA_VERSION = '00401';
const GS_VERSION = '004010';
const SEGMENT_ID = /^[A-Z0-9]{2,3}$/;
/** Letters, digits and space carry data, so none of them can separate it. */
const DATA_CHARACTER = /[A-Za-z0-9\s]/;

const isaField = (index: number) => `ISA${String(index + 1).padStart(2, '0')}`;
/** Values quoted in a problem's message: a hostile element must not become a megabyte log line. */
const shown = (value: string) => (value.length > 20 ? `${value.slice(0, 20)}…` : value);
const asCount = (value: string) => (/^\d{1,9}$/.test(value) ? Number(value) : undefined);

type IsaRead = { ok: true; header: InterchangeHeader; delimiters: X12Delimiters; end: number } | { ok: false; problem: InterchangeProblem };

function readIsa(text: string, start: number): IsaRead {
  const fail = (code: InterchangeNoteCode, message: string): IsaRead => ({ ok: false, problem: { code, message } });
  if (!text.startsWith('ISA', start)) {
    return start >= text.length
      ? fail(InterchangeNote.prematureEnd, 'the body is empty: an interchange starts with ISA')
      : fail(InterchangeNote.invalidControlStructure, 'the body does not start with an ISA segment');
  }
  if (text.length - start < ISA_LENGTH) {
    return fail(InterchangeNote.prematureEnd, `the ISA segment is cut short: ${text.length - start} characters, ${ISA_LENGTH} expected`);
  }
  const element = text.charAt(start + 3);
  if (DATA_CHARACTER.test(element)) {
    return fail(InterchangeNote.invalidElementSeparator, `the element separator ${JSON.stringify(element)} is a data character`);
  }
  // Fixed widths are what let a reader find ISA16 and the terminator before it knows them.
  const elements: string[] = [];
  let cursor = start + 4;
  for (let index = 0; index < ISA_WIDTHS.length - 1; index++) {
    const width = ISA_WIDTHS[index] ?? 0;
    const next = text.indexOf(element, cursor);
    if (next !== cursor + width) {
      const found = next === -1 ? 'runs to the end of the body' : `is ${next - cursor} characters`;
      return fail(ISA_FIELD_NOTES[index] ?? InterchangeNote.invalidControlStructure, `${isaField(index)} ${found}, ${width} expected`);
    }
    elements.push(text.slice(cursor, next));
    cursor = next + 1;
  }
  const component = text.charAt(cursor);
  const segment = text.charAt(cursor + 1);
  elements.push(component);
  if (DATA_CHARACTER.test(segment.replace(/[\r\n]/, '')) || segment === element) {
    return fail(
      InterchangeNote.invalidSegmentTerminator,
      `the segment terminator ${JSON.stringify(segment)} after ISA16 cannot separate segments`,
    );
  }
  if (DATA_CHARACTER.test(component) || component === element || component === segment) {
    return fail(
      InterchangeNote.invalidComponentSeparator,
      `the component separator (ISA16) ${JSON.stringify(component)} cannot separate components`,
    );
  }
  const field = (index: number) => elements[index] ?? '';
  const header: InterchangeHeader = {
    authorizationQualifier: field(0),
    authorization: field(1),
    securityQualifier: field(2),
    security: field(3),
    senderQualifier: field(4),
    senderId: field(5).trim(),
    receiverQualifier: field(6),
    receiverId: field(7).trim(),
    date: field(8),
    time: field(9),
    standardsId: field(10),
    version: field(11),
    controlNumber: field(12),
    acknowledgmentRequested: field(13),
    usage: field(14),
    elements,
  };
  return { ok: true, header, delimiters: { element, component, segment }, end: cursor + 2 };
}

function isaValueProblems(header: InterchangeHeader): InterchangeProblem[] {
  const checks: [boolean, InterchangeNoteCode, string][] = [
    [/^\d{2}$/.test(header.authorizationQualifier), InterchangeNote.invalidAuthorizationQualifier, 'ISA01 is not a 2-digit qualifier'],
    [/^\d{2}$/.test(header.securityQualifier), InterchangeNote.invalidSecurityQualifier, 'ISA03 is not a 2-digit qualifier'],
    [/^[A-Z0-9]{2}$/.test(header.senderQualifier), InterchangeNote.invalidSenderQualifier, 'ISA05 is not an ID qualifier'],
    [header.senderId !== '', InterchangeNote.invalidSenderId, 'ISA06 (sender id) is blank'],
    [/^[A-Z0-9]{2}$/.test(header.receiverQualifier), InterchangeNote.invalidReceiverQualifier, 'ISA07 is not an ID qualifier'],
    [header.receiverId !== '', InterchangeNote.invalidReceiverId, 'ISA08 (receiver id) is blank'],
    [validTime(header.date, 'yyMMdd', 6), InterchangeNote.invalidDate, `ISA09 ${header.date} is not a date (YYMMDD)`],
    [validTime(header.time, 'HHmm', 4), InterchangeNote.invalidTime, `ISA10 ${header.time} is not a time (HHMM)`],
    [header.standardsId === STANDARDS_ID, InterchangeNote.invalidStandardsId, `ISA11 is ${header.standardsId}, ${STANDARDS_ID} expected`],
    [header.version === ISA_VERSION, InterchangeNote.invalidVersion, `ISA12 is ${header.version}, only ${ISA_VERSION} is read`],
    [/^\d{9}$/.test(header.controlNumber), InterchangeNote.invalidControlNumber, `ISA13 ${header.controlNumber} is not 9 digits`],
    [/^[01]$/.test(header.acknowledgmentRequested), InterchangeNote.invalidAcknowledgmentRequested, 'ISA14 is neither 0 nor 1'],
    [/^[IPT]$/.test(header.usage), InterchangeNote.invalidUsageIndicator, `ISA15 is ${header.usage}, one of I, P, T expected`],
  ];
  return checks.filter(([holds]) => !holds).map(([, code, message]) => ({ code, message }));
}

function validTime(value: string, format: string, digits: number): boolean {
  return value.length === digits && /^\d+$/.test(value) && DateTime.fromFormat(value, format, { zone: 'utc' }).isValid;
}

interface RawSegment {
  id: string;
  /** Elements as sent, components not yet split: envelope fields compare these. */
  raw: string[];
}

function splitSegment(text: string, delimiters: X12Delimiters): RawSegment {
  const [id = '', ...raw] = text.split(delimiters.element);
  return { id, raw };
}

function toSegment({ id, raw }: RawSegment, delimiters: X12Delimiters): X12Segment {
  const elements = raw.map((value) => (value.includes(delimiters.component) ? value.split(delimiters.component) : value));
  return { id, elements };
}

/**
 * Reads one interchange. Never throws on input: whatever the text, the answer is a result. Line breaks
 * after segment terminators (and a byte-order mark or blank lines around the interchange) are
 * tolerated, as most partners' files have them.
 */
export function readInterchange(text: string): X12ReadResult {
  const start = /^[\uFEFF\s]*/.exec(text)?.[0].length ?? 0;
  const isa = readIsa(text, start);
  if (!isa.ok) return { ok: false, problems: [isa.problem] };
  const { header, delimiters } = isa;
  const problems = isaValueProblems(header);

  const acknowledgments: X12Segment[] = [];
  const groups: X12Group[] = [];
  let group: X12Group | undefined;
  let set: X12TransactionSet | undefined;
  let trailer: X12Interchange['trailer'] | undefined;
  let ordinal = 1;
  const where = (id: string) => `segment ${ordinal} (${id || 'no id'})`;

  const closeSet = (before: string) => {
    if (set) set.problems.push({ code: SetError.trailerMissing, message: `set ${shown(set.controlNumber)} has no SE before ${before}` });
    set = undefined;
  };
  const closeGroup = (before: string) => {
    closeSet(before);
    if (group)
      group.problems.push({ code: GroupError.trailerMissing, message: `group ${shown(group.controlNumber)} has no GE before ${before}` });
    group = undefined;
  };

  // After the first problem of structure the rest of the text cannot be placed, so reading stops there.
  let structureProblem: InterchangeProblem | undefined;
  // Scanned rather than split, so a hostile body costs no more than the segments read before it fails.
  for (let cursor = isa.end; cursor < text.length; ) {
    const terminatorAt = text.indexOf(delimiters.segment, cursor);
    const end = terminatorAt === -1 ? text.length : terminatorAt;
    let segmentText = text.slice(cursor, end).replace(/^[\r\n]+/, '');
    cursor = end + 1;
    if (delimiters.segment === '\n') segmentText = segmentText.replace(/\r$/, '');
    if (segmentText.trim() === '') continue;
    ordinal++;
    const raw = splitSegment(segmentText, delimiters);
    const value = (index: number) => raw.raw[index - 1] ?? '';
    if (trailer) {
      structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)} comes after IEA` };
      break;
    }
    if (raw.id === 'ISA') {
      structureProblem = { code: InterchangeNote.invalidControlStructure, message: `${where(raw.id)}: a second ISA before IEA` };
      break;
    }
    if (raw.id === 'IEA') {
      closeGroup('IEA');
      trailer = { groupCount: value(1), controlNumber: value(2) };
      if (asCount(trailer.groupCount) !== groups.length) {
        problems.push({
          code: InterchangeNote.invalidGroupCount,
          message: `IEA01 says ${shown(trailer.groupCount)} groups, the interchange has ${groups.length}`,
        });
      }
      if (trailer.controlNumber !== header.controlNumber) {
        problems.push({
          code: InterchangeNote.controlNumberMismatch,
          message: `IEA02 ${shown(trailer.controlNumber)} is not ISA13 ${header.controlNumber}`,
        });
      }
      continue;
    }
    if (raw.id === 'GS') {
      closeGroup('the next GS');
      if (raw.raw.length < 8) {
        structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)} has ${raw.raw.length} elements, 8 expected` };
        break;
      }
      group = {
        functionalId: value(1),
        senderCode: value(2),
        receiverCode: value(3),
        date: value(4),
        time: value(5),
        controlNumber: value(6),
        agency: value(7),
        version: value(8),
        sets: [],
        problems: [],
      };
      groups.push(group);
      if (!/^\d{1,9}$/.test(group.controlNumber)) {
        group.problems.push({ code: GroupError.controlNumberSyntax, message: `GS06 ${shown(group.controlNumber)} is not 1 to 9 digits` });
      }
      if (!group.version.startsWith(GS_VERSION)) {
        group.problems.push({ code: GroupError.versionNotSupported, message: `GS08 is ${shown(group.version)}, ${GS_VERSION} expected` });
      }
      continue;
    }
    if (raw.id === 'GE') {
      closeSet('GE');
      if (!group) {
        structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)}: GE without a GS` };
        break;
      }
      group.trailer = { setCount: value(1), controlNumber: value(2) };
      if (asCount(group.trailer.setCount) !== group.sets.length) {
        group.problems.push({
          code: GroupError.setCountMismatch,
          message: `GE01 says ${shown(group.trailer.setCount)} sets, the group has ${group.sets.length}`,
        });
      }
      if (!sameGroupNumber(group.trailer.controlNumber, group.controlNumber)) {
        group.problems.push({
          code: GroupError.controlNumberMismatch,
          message: `GE02 ${shown(group.trailer.controlNumber)} is not GS06 ${shown(group.controlNumber)}`,
        });
      }
      group = undefined;
      continue;
    }
    if (raw.id === 'TA1' && !group && groups.length === 0) {
      acknowledgments.push(toSegment(raw, delimiters));
      continue;
    }
    if (!group) {
      structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)} is outside a functional group` };
      break;
    }
    if (raw.id === 'ST') {
      closeSet('the next ST');
      const opened: X12TransactionSet = { id: value(1), controlNumber: value(2), segments: [], problems: [] };
      opened.segments.push({ ...toSegment(raw, delimiters), position: 1 });
      if (!/^\d{3}$/.test(opened.id)) {
        opened.problems.push({ code: SetError.invalidSetId, message: `ST01 ${shown(opened.id)} is not a 3-digit set identifier` });
      }
      if (!/^\S{4,9}$/.test(opened.controlNumber)) {
        opened.problems.push({
          code: SetError.invalidControlNumber,
          message: `ST02 ${shown(opened.controlNumber)} is not 4 to 9 characters`,
        });
      } else if (group.sets.some((other) => other.controlNumber === opened.controlNumber)) {
        opened.problems.push({
          code: SetError.controlNumberNotUnique,
          message: `ST02 ${opened.controlNumber} is used twice in group ${shown(group.controlNumber)}`,
        });
      }
      group.sets.push(opened);
      set = opened;
      continue;
    }
    if (!set) {
      structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)} is outside a transaction set` };
      break;
    }
    const position = set.segments.length + 1;
    set.segments.push({ ...toSegment(raw, delimiters), position });
    if (raw.id === 'SE') {
      set.trailer = { segmentCount: value(1), controlNumber: value(2) };
      if (asCount(set.trailer.segmentCount) !== position) {
        set.problems.push({
          code: SetError.segmentCountMismatch,
          message: `SE01 says ${shown(set.trailer.segmentCount)} segments, set ${shown(set.controlNumber)} has ${position}`,
        });
      }
      if (set.trailer.controlNumber !== set.controlNumber) {
        set.problems.push({
          code: SetError.controlNumberMismatch,
          message: `SE02 ${shown(set.trailer.controlNumber)} is not ST02 ${shown(set.controlNumber)}`,
        });
      }
      set = undefined;
    } else if (!SEGMENT_ID.test(raw.id)) {
      // Typically a segment terminator inside an element: the rest of that element becomes a "segment".
      set.problems.push({
        code: SetError.segmentsInError,
        message: `segment ${position} of set ${shown(set.controlNumber)} has no valid segment id: ${JSON.stringify(shown(raw.id))}`,
        segment: { position, id: raw.id, code: SegmentError.unrecognizedSegmentId },
      });
    }
  }
  if (structureProblem) problems.push(structureProblem);
  else if (!trailer) problems.push({ code: InterchangeNote.prematureEnd, message: 'the interchange ends without IEA' });

  if (problems.length > 0 || !trailer) return { ok: false, problems, header, delimiters };
  return { ok: true, interchange: { delimiters, header, acknowledgments, groups, trailer } };
}

/** GS06 and GE02 are numbers (N0): 1 and 0001 are the same group. */
function sameGroupNumber(trailerValue: string, headerValue: string): boolean {
  const trailerNumber = asCount(trailerValue);
  return trailerNumber === undefined ? trailerValue === headerValue : trailerNumber === asCount(headerValue);
}

/**
 * An element by its place in the segment (W05-02 is 2) and, for a composite, its component
 * (1-based); '' when absent. A simple element is its own first component.
 */
export function elementValue(segment: X12Segment, position: number, component = 1): string {
  const element = segment.elements[position - 1];
  if (element === undefined) return '';
  if (typeof element === 'string') return component === 1 ? element : '';
  return element[component - 1] ?? '';
}

// ---- Writing ----

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
