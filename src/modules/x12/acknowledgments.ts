/**
 * The acknowledgments Wharf answers an interchange with (docs/x12.md): a TA1 for the interchange
 * itself, and a 997 body per functional group (AK1, then AK2/AK3/AK4/AK5 per set, then AK9).
 */
import type { ElementSource } from './set-reading.js';
import {
  type AcknowledgmentCode,
  type GroupErrorCode,
  type InterchangeHeader,
  SegmentError,
  type SetErrorCode,
  type X12Delimiters,
  type X12Element,
  type X12Segment,
} from './x12-syntax.js';

/** One problem of a set, placed on the element it concerns. */
export interface PlacedProblem {
  source: ElementSource;
  /** AK4-03 (723); unused for a missing segment. */
  code: string;
}

export interface SetAcknowledgment {
  /** ST01, ST02. */
  setId: string;
  controlNumber: string;
  code: Exclude<AcknowledgmentCode, 'P'>;
  /** AK5-02 to AK5-06. */
  errors: SetErrorCode[];
  /** AK3 (and AK4) loops for these, in the order of their segments. */
  problems: PlacedProblem[];
  /** Segment problems the envelope check found (an AK3 without AK4). */
  segments?: { position: number; id: string; code: string }[];
}

export interface GroupAcknowledgment {
  /** GS01, GS06. */
  functionalId: string;
  controlNumber: string;
  /** GE01 as sent (AK9-02): the count the sender claimed. */
  setsIncluded: string;
  /** How many sets the group holds (AK9-03). */
  setsReceived: number;
  /** AK9-05 to AK9-09; when any, the whole group is rejected and no set is acknowledged on its own. */
  errors: GroupErrorCode[];
  sets: SetAcknowledgment[];
}

/** AK4-04 carries at most 99 characters of the bad value. */
const COPY_LENGTH = 99;
/** AK5 and AK9 carry at most five codes. */
const MAX_CODES = 5;

/** TA1: the interchange's ISA13, date and time, A/E/R and the note code (000: no error). */
export function interchangeAcknowledgment(header: InterchangeHeader, code: AcknowledgmentCode, note: string): X12Segment {
  return { id: 'TA1', elements: [header.controlNumber, header.date, header.time, code, note] };
}

/** AK9-01: accepted, accepted with errors, partly accepted, or rejected, from what became of its sets. */
export function groupCode(group: GroupAcknowledgment): AcknowledgmentCode {
  if (group.errors.length > 0) return 'R';
  const accepted = group.sets.filter((set) => set.code !== 'R').length;
  if (accepted === 0) return 'R';
  if (accepted < group.sets.length) return 'P';
  return group.sets.some((set) => set.code === 'E') ? 'E' : 'A';
}

/** The body of one 997 (between ST and SE) for one functional group. */
export function functionalAcknowledgment(group: GroupAcknowledgment): X12Segment[] {
  const segments: X12Segment[] = [{ id: 'AK1', elements: [group.functionalId, group.controlNumber] }];
  if (group.errors.length === 0) {
    for (const set of group.sets) segments.push(...setSegments(set));
  }
  const accepted = group.errors.length > 0 ? 0 : group.sets.filter((set) => set.code !== 'R').length;
  segments.push({
    id: 'AK9',
    elements: [groupCode(group), group.setsIncluded, String(group.setsReceived), String(accepted), ...group.errors.slice(0, MAX_CODES)],
  });
  return segments;
}

function setSegments(set: SetAcknowledgment): X12Segment[] {
  const segments: X12Segment[] = [{ id: 'AK2', elements: [set.setId, set.controlNumber] }];
  for (const found of set.segments ?? []) segments.push({ id: 'AK3', elements: [found.id, String(found.position), '', found.code] });
  for (const [, problems] of bySegment(set.problems)) {
    const { segmentId, position, missing } = problems[0]!.source;
    if (missing) {
      segments.push({ id: 'AK3', elements: [segmentId, String(position), '', SegmentError.mandatorySegmentMissing] });
      continue;
    }
    segments.push({ id: 'AK3', elements: [segmentId, String(position), '', SegmentError.segmentHasElementErrors] });
    for (const { source, code } of problems) {
      const place = source.component === undefined ? String(source.element) : [String(source.element), String(source.component)];
      segments.push({ id: 'AK4', elements: [place, source.reference, code, (source.value ?? '').slice(0, COPY_LENGTH)] });
    }
  }
  segments.push({ id: 'AK5', elements: [set.code, ...set.errors.slice(0, MAX_CODES)] });
  return segments;
}

/** Problems by the segment they name, in the set's order; one AK4 per element. */
function bySegment(problems: readonly PlacedProblem[]): [string, PlacedProblem[]][] {
  const groups = new Map<string, PlacedProblem[]>();
  const sorted = [...problems].sort((a, b) => a.source.position - b.source.position || a.source.element - b.source.element);
  for (const problem of sorted) {
    const key = `${problem.source.position} ${problem.source.segmentId} ${problem.source.missing ? 'missing' : ''}`;
    const placed = groups.get(key) ?? [];
    const element = `${problem.source.element}.${problem.source.component ?? ''}`;
    if (!placed.some((other) => `${other.source.element}.${other.source.component ?? ''}` === element)) placed.push(problem);
    groups.set(key, placed);
  }
  return [...groups];
}

/**
 * The acknowledgments as they can be written in the interchange's own delimiters. Their values are
 * Wharf's codes and what they copy from the interchange (GS01, GS06, GE01, ST01, ST02, a segment's
 * id, a bad value): a copied value may hold the component separator or a line break, which the
 * interchange let through where X12 wants a simple value, and which X12 has no way to escape. Each
 * such character is written as "?" (a space when "?" is itself a delimiter), so the partner sees
 * that its value was not as it should be, and the answer is a 997, never a 500.
 */
export function writableAcknowledgments(segments: readonly X12Segment[], delimiters: X12Delimiters): X12Segment[] {
  const reserved = new Set([delimiters.element, delimiters.component, delimiters.segment, '\r', '\n']);
  const replacement = reserved.has('?') ? ' ' : '?';
  const writable = (value: string) => Array.from(value, (c) => (reserved.has(c) ? replacement : c)).join('');
  const element = (value: X12Element): X12Element => (typeof value === 'string' ? writable(value) : value.map(writable));
  return segments.map((segment) => ({ id: writable(segment.id), elements: segment.elements.map(element) }));
}
