import { parseFacilityLocal, parseOrderDate, parseScheduleDate, parseWithOffset } from './time.js';

/**
 * The spec's date-time texts as JSON-schema formats, so that a bad date is reported with every
 * other problem of the body. Validity does not depend on the zone: any readable text reads in
 * every zone (a time a DST change skips moves forward). An empty text means "not given".
 */
const orEmpty = (check: (text: string) => boolean) => (text: string) => text === '' || check(text);

export const dateTimeFormats = {
  /** ScheduledDate, ETD: `M/d/yyyy h:mm:ss AM` or ISO 8601. */
  'schedule-date': orEmpty((text) => parseScheduleDate(text, 'UTC') !== undefined),
  /** Outbound order dates: `yyyyMMddHHmmss`, `M/D/YYYY h:mm:ss AM` or ISO 8601. */
  'order-date': orEmpty((text) => parseOrderDate(text, 'UTC') !== undefined),
  /** CreatedWhenFrom/To, ReceivedDate: facility-local ISO 8601 (an explicit offset is honoured). */
  'local-date-time': orEmpty((text) => parseFacilityLocal(text, 'UTC') !== undefined),
  /** UpdatedWhenFrom/To: ISO 8601 with its UTC offset. */
  'offset-date-time': orEmpty((text) => parseWithOffset(text) !== undefined),
  /** ExpirationDate: yyyy-MM-dd. */
  'calendar-date': orEmpty((text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && parseFacilityLocal(text, 'UTC') !== undefined),
};
