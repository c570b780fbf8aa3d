import { MAX_DATE_TEXT, parseFacilityLocal, parseOrderDate, parseScheduleDate, parseWithOffset, twelveHourProblem } from './time.js';

/**
 * The spec's date-time texts as JSON-schema formats, so that a bad date is reported with every
 * other problem of the body. Validity does not depend on the zone: any readable text reads in
 * every zone. A time that the facility's zone skips (a DST gap) is refused by the service that
 * knows the zone (time.ts, skippedTimeProblems). An empty text means "not given". A text longer
 * than any date field takes is refused unread: each check is linear in a text that short.
 */
const orEmpty = (check: (text: string) => boolean) => (text: string) => text === '' || (text.length <= MAX_DATE_TEXT && check(text));

export const dateTimeFormats = {
  /** ScheduledDate, ETD: `M/d/yyyy h:mm:ss AM` (hour 1 to 12) or ISO 8601. */
  'schedule-date': orEmpty((text) => parseScheduleDate(text, 'UTC') !== undefined && twelveHourProblem(text) === undefined),
  /** Outbound order dates: `yyyyMMddHHmmss`, `M/D/YYYY h:mm:ss AM` (hour 1 to 12) or ISO 8601. */
  'order-date': orEmpty((text) => parseOrderDate(text, 'UTC') !== undefined && twelveHourProblem(text) === undefined),
  /** CreatedWhenFrom/To, ReceivedDate: facility-local ISO 8601 (an explicit offset is honoured). */
  'local-date-time': orEmpty((text) => parseFacilityLocal(text, 'UTC') !== undefined),
  /** UpdatedWhenFrom/To: ISO 8601 with its UTC offset. */
  'offset-date-time': orEmpty((text) => parseWithOffset(text) !== undefined),
  /** ExpirationDate: yyyy-MM-dd. */
  'calendar-date': orEmpty((text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && parseFacilityLocal(text, 'UTC') !== undefined),
};

/**
 * Why a text fails its format, where a general "must be a date-time such as …" would hide it: an
 * AM/PM hour past 12. Undefined otherwise, and the field's own message stands.
 */
export function explainFormatFailure(format: string, value: unknown): string | undefined {
  if ((format !== 'schedule-date' && format !== 'order-date') || typeof value !== 'string') return undefined;
  return twelveHourProblem(value);
}
