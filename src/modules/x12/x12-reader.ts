/**
 * Reads one X12 004010 interchange (docs/x12.md) into its envelopes and segments, checking the
 * envelope the way a TA1 and a 997 report it. It knows no transaction set: what a 940 or a 943
 * means, which sets are supported and which control numbers were seen before belong to the bridge.
 *
 * Wharf's own rather than an npm parser: node-x12 (1.7.1) is in maintenance mode since 2021 and
 * reports envelope errors as free text (strict mode throws at the first one), with neither TA1/AK5/AK9
 * codes nor segment positions; x12-parser (1.3.0) only splits segments, and cannot write or check
 * envelopes; node-x12-edi maps fields to JSON without envelope checks (docs/decisions.md).
 */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import {
  DATA_CHARACTER,
  GroupError,
  GS_VERSION,
  type InterchangeHeader,
  InterchangeNote,
  type InterchangeNoteCode,
  type InterchangeProblem,
  ISA_VERSION,
  isaField,
  type PositionedSegment,
  SEGMENT_ID,
  SegmentError,
  SetError,
  STANDARDS_ID,
  type X12Delimiters,
  type X12Element,
  type X12Group,
  type X12Interchange,
  type X12ReadResult,
  type X12Segment,
  type X12TransactionSet,
} from './x12-syntax.js';
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
  const parts = text.split(delimiters.element);
  return { id: parts[0] ?? '', raw: parts.slice(1) };
}

function componentsOf(raw: readonly string[], delimiters: X12Delimiters): X12Element[] {
  return raw.map((value) => (value.includes(delimiters.component) ? value.split(delimiters.component) : value));
}

function toSegment({ id, raw }: RawSegment, delimiters: X12Delimiters): X12Segment {
  return { id, elements: componentsOf(raw, delimiters) };
}

function toPositionedSegment({ id, raw }: RawSegment, delimiters: X12Delimiters, position: number): PositionedSegment {
  return { id, elements: componentsOf(raw, delimiters), position };
}

/** The ISA of an interchange, read before anything after it: who sent it, in which delimiters. */
export type InterchangeStart =
  | {
      ok: true;
      header: InterchangeHeader;
      delimiters: X12Delimiters;
      /** What is wrong with the ISA's values (a date, a version…), first found first; the envelope cannot be taken when any. */
      problems: InterchangeProblem[];
      /** Where the ISA starts (after a byte-order mark or blank lines) and where the segment after it may start. */
      isaStart: number;
      bodyStart: number;
    }
  | { ok: false; problem: InterchangeProblem };

/**
 * Reads the ISA alone. The bridge learns the sender from it, and checks that the sender may post,
 * before a single segment after the ISA is read.
 */
export function readInterchangeStart(text: string): InterchangeStart {
  const isaStart = /^[\uFEFF\s]*/.exec(text)?.[0].length ?? 0;
  const isa = readIsa(text, isaStart);
  if (!isa.ok) return { ok: false, problem: isa.problem };
  return {
    ok: true,
    header: isa.header,
    delimiters: isa.delimiters,
    problems: isaValueProblems(isa.header),
    isaStart,
    bodyStart: isa.end,
  };
}

const LINE_BREAK = /[\r\n]/;

interface SegmentText {
  /** The segment without its terminator and without the line breaks before it. */
  text: string;
  /** False for text after the last segment terminator (a line break as the terminator may be missing there). */
  terminated: boolean;
  /** Where the text after its terminator starts. */
  next: number;
}

/**
 * The segment starting at `cursor`, or undefined when only layout is left. Line breaks before a
 * segment (after the previous terminator) are layout and skipped, and so is a CR before a LF
 * terminator. The reader, the count of an interchange and its digest all take segments from
 * here, so they agree on what a segment is. One indexOf per segment: linear in the text.
 */
function nextSegment(text: string, delimiters: X12Delimiters, cursor: number): SegmentText | undefined {
  while (cursor < text.length) {
    const terminatorAt = text.indexOf(delimiters.segment, cursor);
    const end = terminatorAt === -1 ? text.length : terminatorAt;
    let segment = text.slice(cursor, end).replace(/^[\r\n]+/, '');
    if (delimiters.segment === '\n' && segment.endsWith('\r')) segment = segment.slice(0, -1);
    cursor = end + 1;
    // Nothing but line breaks between two terminators is layout. (What is left starts with another
    // character, so it is never blank: no search from its end, which is quadratic on a run of line breaks.)
    if (segment === '') continue;
    return { text: segment, terminated: terminatorAt !== -1, next: cursor };
  }
  return undefined;
}

/** How many segments (ISA and IEA counted) and transaction sets (ST segments) an interchange holds, up to a limit. */
export interface InterchangeSize {
  segments: number;
  sets: number;
}

/**
 * Counts the interchange's segments and sets without reading them, and stops as soon as either
 * count passes its limit: what the bridge checks before it reads a set.
 */
export function measureInterchange(
  text: string,
  start: { delimiters: X12Delimiters; bodyStart: number },
  limits: InterchangeSize,
): InterchangeSize {
  const { delimiters } = start;
  const size: InterchangeSize = { segments: 1, sets: 0 };
  for (let segment = nextSegment(text, delimiters, start.bodyStart); segment; segment = nextSegment(text, delimiters, segment.next)) {
    size.segments++;
    const { text: found } = segment;
    if (found.startsWith('ST') && (found.length === 2 || found.charAt(2) === delimiters.element)) size.sets++;
    if (size.segments > limits.segments || size.sets > limits.sets) break;
  }
  return size;
}

/** How many pieces of the interchange are hashed at once: enough to make few calls, few enough to keep no large array. */
const HASHED_TOGETHER = 1024;

/**
 * The SHA-256 (hex) of the interchange without its layout: the ISA and every segment, each with its
 * terminator, and nothing between them (no byte-order mark, no line break after a terminator, no
 * CR before a LF terminator, a missing final line-break terminator restored). Two sends of one
 * interchange that differ only in layout have the same digest.
 */
export function interchangeDigest(text: string, start: { delimiters: X12Delimiters; isaStart: number; bodyStart: number }): string {
  const { delimiters } = start;
  const hash = createHash('sha256').update(text.slice(start.isaStart, start.bodyStart));
  let pieces: string[] = [];
  for (let segment = nextSegment(text, delimiters, start.bodyStart); segment; segment = nextSegment(text, delimiters, segment.next)) {
    pieces.push(segment.text, delimiters.segment);
    if (pieces.length >= HASHED_TOGETHER) {
      hash.update(pieces.join(''));
      pieces = [];
    }
  }
  return hash.update(pieces.join('')).digest('hex');
}

/**
 * Reads one interchange. Never throws on input: whatever the text, the answer is a result. Line breaks
 * after segment terminators (and a byte-order mark or blank lines around the interchange) are
 * tolerated, as most partners' files have them. Every check is linear in the text's length.
 */
export function readInterchange(text: string): X12ReadResult {
  const start = readInterchangeStart(text);
  if (!start.ok) return { ok: false, problems: [start.problem] };
  const { header, delimiters } = start;
  const problems = [...start.problems];

  const acknowledgments: X12Segment[] = [];
  const groups: X12Group[] = [];
  let group: X12Group | undefined;
  /** The ST02s of the open group: each set's is looked up, never compared with every other. */
  const setNumbersOfGroup = new Set<string>();
  let set: X12TransactionSet | undefined;
  let trailer: X12Interchange['trailer'] | undefined;
  let ordinal = 1;
  const where = (id: string) => `segment ${ordinal} (${shown(id) || 'no id'})`;

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
  for (let found = nextSegment(text, delimiters, start.bodyStart); found; found = nextSegment(text, delimiters, found.next)) {
    const segmentText = found.text;
    if (!found.terminated && !LINE_BREAK.test(delimiters.segment)) {
      // X12 ends every segment, IEA too: text after the last terminator was cut from something longer
      // (a line break as the terminator is the one a text file may lose at its end).
      const separatorAt = segmentText.indexOf(delimiters.element);
      const id = separatorAt === -1 ? segmentText : segmentText.slice(0, separatorAt);
      structureProblem = { code: InterchangeNote.prematureEnd, message: `segment ${ordinal + 1} (${shown(id)}) has no segment terminator` };
      break;
    }
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
      setNumbersOfGroup.clear();
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
      opened.segments.push(toPositionedSegment(raw, delimiters, 1));
      if (!/^\d{3}$/.test(opened.id)) {
        opened.problems.push({ code: SetError.invalidSetId, message: `ST01 ${shown(opened.id)} is not a 3-digit set identifier` });
      }
      if (!/^\S{4,9}$/.test(opened.controlNumber)) {
        opened.problems.push({
          code: SetError.invalidControlNumber,
          message: `ST02 ${shown(opened.controlNumber)} is not 4 to 9 characters`,
        });
      } else if (setNumbersOfGroup.has(opened.controlNumber)) {
        opened.problems.push({
          code: SetError.controlNumberNotUnique,
          message: `ST02 ${opened.controlNumber} is used twice in group ${shown(group.controlNumber)}`,
        });
      }
      group.sets.push(opened);
      setNumbersOfGroup.add(opened.controlNumber);
      set = opened;
      continue;
    }
    if (!set) {
      structureProblem = { code: InterchangeNote.invalidContent, message: `${where(raw.id)} is outside a transaction set` };
      break;
    }
    const position = set.segments.length + 1;
    set.segments.push(toPositionedSegment(raw, delimiters, position));
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
