/**
 * What the 940 and 943 readers share: taking elements out of a set's segments into a JSON body,
 * while remembering which element each field came from (or would have), so that a problem found in
 * the body later (its schema, the service's refusal) is reported in the 997 where it was sent.
 */
import { DateTime } from 'luxon';
import { elementValue, type PositionedSegment, type X12Segment, type X12TransactionSet } from './x12-syntax.js';

/** Where a field's value was sent, or would have been: what an AK3 and its AK4 name. */
export interface ElementSource {
  segmentId: string;
  /** The segment's position in its set (AK3-02); a missing segment is placed at the set's SE. */
  position: number;
  /** The set has no such segment (AK3-04 3: mandatory segment missing). */
  missing?: true;
  /** AK4-01: the element's position in its segment, and its component's in a composite. */
  element: number;
  component?: number;
  /** AK4-02: the X12 data element reference number. */
  reference: string;
  /** AK4-04: the value as sent, when there was one. */
  value?: string;
}

/** A problem the reader itself finds before the body exists (a code Wharf cannot map). */
export interface ElementProblem {
  source: ElementSource;
  /** AK4-03 (723). */
  code: string;
  message: string;
}

/** A segment kept with the document as sent, like an unknown JSON key (docs/x12.md). */
export interface KeptSegment {
  Segment: string;
  Elements: (string | string[])[];
}

/** The root key of an import body under which the unmapped segments are kept. */
export const KEPT_SEGMENTS_KEY = 'X12Segments';

/** Which JSON field came from which element: fields are dotted paths as the refusal messages name them. */
export class FieldSources {
  private readonly byPath = new Map<string, ElementSource>();
  private longestPath = 0;

  /** `fallbackPath`: the document's key, for a problem that names no field (a state conflict, a document not found). */
  constructor(private readonly fallbackPath: string) {}

  set(path: string, source: ElementSource): void {
    this.byPath.set(path, source);
    this.longestPath = Math.max(this.longestPath, path.length);
  }

  get(path: string): ElementSource | undefined {
    return this.byPath.get(path);
  }

  /**
   * The source of the field a message begins with (`POContent.Items[1].UOM must be …`), else the
   * document key's. The message's own prefixes that end where a path can end (before a space, a
   * dot, a bracket or the end) are looked up, longest first: the cost of a message is its
   * length, not the number of fields the set filled.
   */
  sourceOf(message: string): ElementSource | undefined {
    for (let end = Math.min(message.length, this.longestPath); end > 0; end--) {
      if (end < message.length && !PATH_ENDS.has(message.charAt(end))) continue;
      const found = this.byPath.get(message.slice(0, end));
      if (found) return found;
    }
    return this.byPath.get(this.fallbackPath);
  }
}

/** What may follow a field's path in a message: its end, a space, or a deeper field. */
const PATH_ENDS = new Set([' ', '.', '[']);

/**
 * A set's body segments (ST and SE left out) and a cursor over them, with the sources of the
 * fields it fills and the segments no mapping took.
 */
export class SetReader {
  readonly sources: FieldSources;
  readonly problems: ElementProblem[] = [];
  private readonly taken = new Set<PositionedSegment>();
  readonly segments: readonly PositionedSegment[];
  /** Where a missing segment is reported: the SE, where the set ended without it. */
  readonly endPosition: number;

  constructor(set: X12TransactionSet, fallbackPath: string) {
    this.sources = new FieldSources(fallbackPath);
    this.segments = set.segments.filter((segment) => segment.id !== 'ST' && segment.id !== 'SE');
    this.endPosition = set.segments.length;
  }

  /** Marks a segment as mapped: it is not kept as an unmapped one. */
  take(segment: PositionedSegment): void {
    this.taken.add(segment);
  }

  /**
   * Puts element `element` of `segment` at `path` in `target` (under `key`) when it has a value, and
   * remembers where it came from either way. A segment absent (undefined) is remembered as missing.
   */
  put(
    target: Record<string, unknown>,
    key: string,
    path: string,
    segment: PositionedSegment | undefined,
    where: { id: string; element: number; reference: string; component?: number },
    convert: (value: string) => string = (value) => value,
  ): string | undefined {
    const value = segment ? elementValue(segment, where.element, where.component ?? 1) : '';
    this.sources.set(path, {
      segmentId: where.id,
      ...(segment ? { position: segment.position } : { position: this.endPosition, missing: true as const }),
      element: where.element,
      ...(where.component !== undefined ? { component: where.component } : {}),
      reference: where.reference,
      ...(value !== '' ? { value } : {}),
    });
    if (value === '') return undefined;
    const converted = convert(value);
    target[key] = converted;
    return converted;
  }

  /** The segments no mapping took, as they were sent: kept with the document. */
  keptSegments(): KeptSegment[] {
    return this.segments.filter((segment) => !this.taken.has(segment)).map(keptSegment);
  }
}

function keptSegment(segment: X12Segment): KeptSegment {
  return { Segment: segment.id, Elements: segment.elements.map((element) => (typeof element === 'string' ? element : [...element])) };
}

/** Wharf's units of measure from X12's (355): CA (case) is Wharf's CS; anything else is checked as sent. */
export function wharfUom(x12Uom: string): string {
  return x12Uom === 'CA' ? 'CS' : x12Uom;
}

/** Product id qualifiers (235) in the order an item is looked for (docs/x12.md): the vendor's number, the SKU, the UPC. */
const ITEM_QUALIFIERS = ['VN', 'SK', 'UP'] as const;

/**
 * The element holding the item id among a line segment's qualifier/id pairs (e.g. W01-04/05,
 * W01-06/07, W01-15/16): the first pair of the most preferred qualifier. Absent: the first pair's id.
 */
export function itemIdElement(segment: X12Segment, pairs: readonly (readonly [number, number])[]): number {
  for (const qualifier of ITEM_QUALIFIERS) {
    const pair = pairs.find(([at]) => elementValue(segment, at) === qualifier);
    if (pair) return pair[1];
  }
  return pairs[0]![1];
}

/**
 * A date (CCYYMMDD) and optional time (HHMM, HHMMSS) as the JSON API's ISO text in the facility's
 * time, or the text as sent when it is no date, so that the body's own check refuses it as a date.
 */
export function isoLocalDate(date: string, time: string): string {
  const text = date + time;
  const format = ['yyyyMMdd', 'yyyyMMddHHmm', 'yyyyMMddHHmmss'].find((f) => f.length === text.length);
  const parsed = format && /^\d+$/.test(text) ? DateTime.fromFormat(text, format, { zone: 'utc' }) : undefined;
  if (!parsed?.isValid) return time === '' ? date : `${date} ${time}`;
  return parsed.toFormat(time === '' ? 'yyyy-MM-dd' : "yyyy-MM-dd'T'HH:mm:ss");
}
