/**
 * X12 004010's syntax as the bridge (docs/x12.md) reads and writes it: the codes a TA1 and a 997
 * report, the shapes of an interchange, and the constants both directions share.
 *
 * Codes, each from the 004010 code list of its element (Stedi's X12 reference,
 * stedi.com/edi/x12-004010/element/<id>, checked against the webMethods TA1 and AK5/AK9 tables):
 * TA1-05 is element I18, AK5-02 is 718, AK9-05 is 716, AK3-04 is 720, AK3-02 is 719 (ST counts 1),
 * AK4-03 is 723.
 */

/** TA1-05 Interchange Note Code (I18). 008 (not Wharf's receiver id) and 025 (duplicate ISA13) are found by the bridge. */
export const InterchangeNote = {
  noError: '000',
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
  /** ISA13 was used before by this sender, with another interchange. */
  duplicateControlNumber: '025',
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

/** AK4-03 Data Element Syntax Error Code (723): what is wrong with one element. */
export const ElementError = {
  mandatoryMissing: '1',
  conditionalMissing: '2',
  tooManyElements: '3',
  tooShort: '4',
  tooLong: '5',
  invalidCharacter: '6',
  invalidCode: '7',
  invalidDate: '8',
  invalidTime: '9',
  exclusionViolated: '10',
} as const;
export type ElementErrorCode = (typeof ElementError)[keyof typeof ElementError];

/** TA1-04 and AK5-01/AK9-01: accepted, accepted with errors, partly accepted (AK9 only), rejected. */
export type AcknowledgmentCode = 'A' | 'E' | 'P' | 'R';

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

/** ISA11 in 004010 is the standards identifier (U), not yet the repetition separator of 00402 and later. */
export const STANDARDS_ID = 'U';
export const ISA_VERSION = '00401';
export const GS_VERSION = '004010';
export const SEGMENT_ID = /^[A-Z0-9]{2,3}$/;
/** Letters, digits and space carry data, so none of them can separate it. */
export const DATA_CHARACTER = /[A-Za-z0-9\s]/;

/** The largest control number (ISA13, GS06, ST02) X12 lets Wharf write in nine digits; the one after it is 1. */
export const LAST_CONTROL_NUMBER = 999_999_999;

/** The control number `offset` places after `number` (before it when negative), 1 following LAST_CONTROL_NUMBER. */
export function controlNumberAfter(number: number, offset: number): number {
  return ((((number - 1 + offset) % LAST_CONTROL_NUMBER) + LAST_CONTROL_NUMBER) % LAST_CONTROL_NUMBER) + 1;
}

export const isaField = (index: number) => `ISA${String(index + 1).padStart(2, '0')}`;

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
