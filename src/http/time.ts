import { LRUCache } from 'lru-cache';
import { DateTime, FixedOffsetZone } from 'luxon';
import { invalid } from '../lib/refusal.js';

/**
 * The spec's time formats (docs/compatibility.md), read and written with Luxon in a facility's IANA zone.
 * Instants are epoch milliseconds (UTC).
 */

/** `2024-03-05T14:07:09.123`: how CreatedWhen values are shown, in the facility's zone. */
export function formatFacilityLocal(epochMs: number, zone: string): string {
  return DateTime.fromMillis(epochMs, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS");
}

/** `2024-03-05T14:07:09.123-08:00`: how UpdatedWhen values are shown, with the zone's offset. */
export function formatWithOffset(epochMs: number, zone: string): string {
  return DateTime.fromMillis(epochMs, { zone }).toISO({ suppressMilliseconds: false, includeOffset: true })!;
}

/**
 * The longest date-time text any field takes: every date field's `maxLength` is at most this (a
 * test holds them to it). A longer text is no date: it is answered without being read, and never
 * remembered.
 */
export const MAX_DATE_TEXT = 50;

/** Readings kept per function: a date is read up to four times a request (its format, AM/PM, DST, value), and documents share dates. */
const READINGS_KEPT = 1000;
/** What one kept reading counts for: its key (two bytes a character) and a generous allowance for the reading. */
const readingBytes = (key: string) => 2 * key.length + 1024;
/** The largest reading kept: a date-time text beside a zone's name and a format's (each well under 50 characters). */
const LARGEST_READING = readingBytes('x'.repeat(MAX_DATE_TEXT + 100));

/**
 * `read`, remembering the answers for the last arguments: a reading never changes (Luxon's
 * DateTimes are immutable, and a zone's rules do not change while the process runs). The memory
 * is bounded in bytes, and no entry larger than a date-time text's is kept.
 */
function remembered<A extends (string | number)[], T>(read: (...args: A) => T): (...args: A) => T {
  const readings = new LRUCache<string, { value: T }>({
    max: READINGS_KEPT,
    maxSize: READINGS_KEPT * LARGEST_READING,
    maxEntrySize: LARGEST_READING,
    sizeCalculation: (_reading, key) => readingBytes(key),
  });
  return (...args) => {
    // No argument but the last holds a NUL (zones and formats are names, numbers have none).
    const key = args.join('\u0000');
    let reading = readings.get(key);
    if (!reading) readings.set(key, (reading = { value: read(...args) }));
    return reading.value;
  };
}

/**
 * {@link remembered} for what a date-time text (the last argument) says: a text longer than any
 * date field takes says nothing, and is neither read nor remembered.
 */
function rememberedOfText<A extends (string | number)[], T>(
  read: (...args: [...A, string]) => T | undefined,
): (...args: [...A, string]) => T | undefined {
  const remember = remembered(read);
  return (...args) => ((args[args.length - 1] as string).length > MAX_DATE_TEXT ? undefined : remember(...args));
}

/**
 * The instant a wall-clock time (given as if in UTC) names in `zone`, worked out once per pair. A
 * time that a DST change makes ambiguous (it happens twice) takes the earlier instant, chosen
 * explicitly: Luxon's own pick depends on the offset in force today. A time that a DST change
 * skips moves forward, as Luxon does: what was stored before such times were refused (or read
 * after a facility changed its zone) still shows.
 */
const instantInZone = remembered((zone: string, wallClockMs: number): number => {
  const local = DateTime.fromObject(DateTime.fromMillis(wallClockMs, { zone: 'utc' }).toObject(), { zone });
  return Math.min(...local.getPossibleOffsets().map((candidate) => candidate.toMillis()));
});

function wallClockToInstant(wallClock: DateTime, zone: string): number {
  return instantInZone(zone, wallClock.toMillis());
}

/** An offset after the time part (a date's own `-05` is not an offset). */
const OFFSET_SUFFIX = /T[\d:.,]+(Z|[+-]\d{2}(:?\d{2})?)$/i;

/**
 * What a date-time text says: a wall-clock time (read in UTC, so that no zone has touched it yet)
 * and whether it names a time of day, or an instant when the text carries its own offset.
 */
type Reading = { wallClock: DateTime; timeOfDay: boolean } | { instant: number };

/** The published `M/d/yyyy h:mm:ss AM` form, one or two digits each, with or without seconds. */
const US_FORMATS = [
  { format: 'M/d/yyyy h:mm:ss a', timeOfDay: true },
  { format: 'M/d/yyyy h:mm a', timeOfDay: true },
  { format: 'M/d/yyyy', timeOfDay: false },
];

/**
 * Why a text in the published AM/PM form has no valid hour: Luxon reads `13:00:00 PM` as 1 PM and
 * `0:30 PM` as 12:30 PM, so the hour is checked as written (a 12-hour clock runs from 1 to 12).
 * Input is refused for it (http/formats.ts); reading stays lenient, for texts stored before.
 */
export const twelveHourProblem = rememberedOfText((text: string): string | undefined => {
  // The AM/PM that ends the text, after white space: one match at the end, no backtracking over the clock before it.
  const trimmed = text.trim();
  const written = /\s([ap])m$/i.exec(trimmed);
  const clock = written ? trimmed.slice(0, written.index).trimEnd() : '';
  if (!written || clock === '') return undefined;
  const meridiem = written[1]!;
  // Read without its AM/PM, the hour is the one written: Luxon's `h` with `a` would already have moved it.
  for (const format of ['M/d/yyyy H:mm:ss', 'M/d/yyyy H:mm']) {
    const hour = (DateTime.fromFormatExplain(clock.replace(/\s+/g, ' '), format).matches as { H?: number } | undefined)?.H;
    if (hour !== undefined && (hour < 1 || hour > 12)) {
      return `has hour ${hour} with ${meridiem.toUpperCase()}M; with AM or PM the hour is 1 to 12`;
    }
  }
  return undefined;
});

const readFacilityLocal = rememberedOfText((text: string): Reading | undefined => {
  if (OFFSET_SUFFIX.test(text)) {
    const instant = parseWithOffset(text);
    return instant === undefined ? undefined : { instant };
  }
  const wallClock = DateTime.fromISO(text, { zone: 'utc' });
  return wallClock.isValid ? { wallClock, timeOfDay: text.includes('T') } : undefined;
});

const readScheduleDate = rememberedOfText((text: string): Reading | undefined => {
  const normal = text.trim().replace(/\s+/g, ' ');
  for (const { format, timeOfDay } of US_FORMATS) {
    const wallClock = DateTime.fromFormat(normal, format, { zone: 'utc' });
    if (wallClock.isValid) return { wallClock, timeOfDay };
  }
  return readFacilityLocal(text.trim());
});

const readOrderDate = rememberedOfText((text: string): Reading | undefined => {
  if (!/^\d{14}$/.test(text)) return readScheduleDate(text);
  const wallClock = DateTime.fromFormat(text, 'yyyyMMddHHmmss', { zone: 'utc' });
  return wallClock.isValid ? { wallClock, timeOfDay: true } : undefined;
});

/** The local date-time texts a facility's zone reads, by their JSON-schema format (http/formats.ts). */
const READERS = {
  'schedule-date': readScheduleDate,
  'order-date': readOrderDate,
  'local-date-time': readFacilityLocal,
};
export type LocalTimeFormat = keyof typeof READERS;

const instantOf = (reading: Reading | undefined, zone: string) =>
  reading === undefined ? undefined : 'instant' in reading ? reading.instant : wallClockToInstant(reading.wallClock, zone);

/**
 * A facility-local ISO date-time (`2024-03-05T14:07:09.123`, milliseconds and seconds optional, or
 * a date alone) read in `zone`; one that carries its own offset keeps it. Undefined when invalid.
 */
export function parseFacilityLocal(text: string, zone: string): number | undefined {
  return instantOf(readFacilityLocal(text), zone);
}

/** An ISO date-time that must carry its UTC offset (UpdatedWhenFrom/To). Undefined when invalid. */
export function parseWithOffset(text: string): number | undefined {
  if (text.length > MAX_DATE_TEXT || !OFFSET_SUFFIX.test(text)) return undefined;
  const parsed = DateTime.fromISO(text, { setZone: true });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

/** ScheduledDate / ETD: the published US form or ISO, read in the facility's zone. */
export function parseScheduleDate(text: string, zone: string): number | undefined {
  return instantOf(readScheduleDate(text), zone);
}

/** Outbound order dates also come as `yyyyMMddHHmmss`. */
export function parseOrderDate(text: string, zone: string): number | undefined {
  return instantOf(readOrderDate(text), zone);
}

/**
 * Why a valid local time names no instant in `zone`: a DST change skips it (2:30 AM on the day
 * Los Angeles moves from UTC-8 to UTC-7). Undefined for every other text, a date alone included
 * (a day's first instant exists even where midnight is skipped).
 */
export function skippedTimeProblem(format: LocalTimeFormat, text: string, zone: string): string | undefined {
  return skippedTimeIn(format, zone, text);
}

/** skippedTimeProblem, once per (format, zone, text): Luxon's zone arithmetic is most of a DN import's date work. */
const skippedTimeIn = rememberedOfText((format: LocalTimeFormat, zone: string, text: string): string | undefined => {
  const reading = READERS[format](text);
  if (reading === undefined || 'instant' in reading || !reading.timeOfDay) return undefined;
  const { wallClock } = reading;
  const local = DateTime.fromObject(wallClock.toObject(), { zone });
  const shown = "yyyy-MM-dd'T'HH:mm:ss.SSS";
  if (local.toFormat(shown) === wallClock.toFormat(shown)) return undefined;
  // Read at the offset in force after the change, the wall clock falls before it: the offset there is the one before.
  const before = DateTime.fromObject(wallClock.toObject(), { zone: FixedOffsetZone.instance(local.offset) }).setZone(zone).offset;
  const name = (offset: number) => FixedOffsetZone.instance(offset).name;
  return `${text} does not exist in ${zone}: its clocks move forward from ${name(before)} to ${name(local.offset)} on ${wallClock.toISODate()} and skip it`;
});

/**
 * One problem per field whose local time `zone` skips, each naming the field: for a service to
 * refuse with everything else it found (the formats have already refused unreadable texts).
 */
export function skippedTimeProblems(format: LocalTimeFormat, fields: Record<string, string | null | undefined>, zone: string): string[] {
  return Object.entries(fields).flatMap(([field, text]) => {
    const problem = typeof text === 'string' && text !== '' ? skippedTimeProblem(format, text, zone) : undefined;
    return problem ? [`${field} ${problem}`] : [];
  });
}

/** Refuses (400) the fields whose local time `zone` skips, each named; see {@link skippedTimeProblems}. */
export function refuseSkippedTimes(format: LocalTimeFormat, fields: Record<string, string | null | undefined>, zone: string): void {
  const problems = skippedTimeProblems(format, fields, zone);
  if (problems.length > 0) throw invalid(...problems);
}

/** A time window of a search; bounds are inclusive epoch milliseconds, absent when not given. */
export interface TimeWindow {
  from?: number;
  to?: number;
}

const given = (text: string | null | undefined): text is string => text !== undefined && text !== null && text !== '';

/**
 * CreatedWhenFrom/To read in the facility's zone. The route schema's `local-date-time` format has
 * already refused unreadable bounds, together with the body's other problems; a bound the zone
 * skips (a DST gap) is refused here.
 */
export function localWindow(from: string | null | undefined, to: string | null | undefined, zone: string): TimeWindow {
  refuseSkippedTimes('local-date-time', { CreatedWhenFrom: from, CreatedWhenTo: to }, zone);
  return { from: given(from) ? parseFacilityLocal(from, zone) : undefined, to: given(to) ? parseFacilityLocal(to, zone) : undefined };
}

/** UpdatedWhenFrom/To, which carry their offset (checked by the `offset-date-time` format). */
export function offsetWindow(from: string | null | undefined, to: string | null | undefined): TimeWindow {
  return { from: given(from) ? parseWithOffset(from) : undefined, to: given(to) ? parseWithOffset(to) : undefined };
}
