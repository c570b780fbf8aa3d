import { DateTime } from 'luxon';

/**
 * The spec's time formats (DESIGN §6), read and written with Luxon in a facility's IANA zone.
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
 * The instant a wall-clock time names in `zone`. A time that a DST change makes ambiguous (it
 * happens twice) takes the earlier instant, chosen explicitly: Luxon's own pick depends on the
 * offset in force today. A time that a DST change skips moves forward, as Luxon does.
 */
function wallClockToInstant(wallClock: DateTime, zone: string): number {
  const local = DateTime.fromObject(wallClock.toObject(), { zone });
  return Math.min(...local.getPossibleOffsets().map((candidate) => candidate.toMillis()));
}

/** An offset after the time part (a date's own `-05` is not an offset). */
const OFFSET_SUFFIX = /T[\d:.,]+(Z|[+-]\d{2}(:?\d{2})?)$/i;

function parseWith(text: string, formats: string[], zone: string): number | undefined {
  for (const format of formats) {
    const wallClock = DateTime.fromFormat(text, format, { zone: 'utc' });
    if (wallClock.isValid) return wallClockToInstant(wallClock, zone);
  }
  return undefined;
}

/**
 * A facility-local ISO date-time (`2024-03-05T14:07:09.123`, milliseconds and seconds optional, or
 * a date alone) read in `zone`; one that carries its own offset keeps it. Undefined when invalid.
 */
export function parseFacilityLocal(text: string, zone: string): number | undefined {
  if (OFFSET_SUFFIX.test(text)) return parseWithOffset(text);
  const wallClock = DateTime.fromISO(text, { zone: 'utc' });
  return wallClock.isValid ? wallClockToInstant(wallClock, zone) : undefined;
}

/** An ISO date-time that must carry its UTC offset (UpdatedWhenFrom/To). Undefined when invalid. */
export function parseWithOffset(text: string): number | undefined {
  if (!OFFSET_SUFFIX.test(text)) return undefined;
  const parsed = DateTime.fromISO(text, { setZone: true });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

/** The published `M/d/yyyy h:mm:ss AM` form, one or two digits each, with or without seconds. */
const US_FORMATS = ['M/d/yyyy h:mm:ss a', 'M/d/yyyy h:mm a', 'M/d/yyyy'];

/** ScheduledDate / ETD: the published US form or ISO, read in the facility's zone. */
export function parseScheduleDate(text: string, zone: string): number | undefined {
  return parseWith(text.trim().replace(/\s+/g, ' '), US_FORMATS, zone) ?? parseFacilityLocal(text.trim(), zone);
}

/** Outbound order dates also come as `yyyyMMddHHmmss`. */
export function parseOrderDate(text: string, zone: string): number | undefined {
  return /^\d{14}$/.test(text) ? parseWith(text, ['yyyyMMddHHmmss'], zone) : parseScheduleDate(text, zone);
}

/** A time window of a search; bounds are inclusive epoch milliseconds, absent when not given. */
export interface TimeWindow {
  from?: number;
  to?: number;
}

const given = (text: string | null | undefined): text is string => text !== undefined && text !== null && text !== '';

/**
 * CreatedWhenFrom/To read in the facility's zone. The route schema's `local-date-time` format has
 * already refused unreadable bounds, together with the body's other problems.
 */
export function localWindow(from: string | null | undefined, to: string | null | undefined, zone: string): TimeWindow {
  return { from: given(from) ? parseFacilityLocal(from, zone) : undefined, to: given(to) ? parseFacilityLocal(to, zone) : undefined };
}

/** UpdatedWhenFrom/To, which carry their offset (checked by the `offset-date-time` format). */
export function offsetWindow(from: string | null | undefined, to: string | null | undefined): TimeWindow {
  return { from: given(from) ? parseWithOffset(from) : undefined, to: given(to) ? parseWithOffset(to) : undefined };
}
