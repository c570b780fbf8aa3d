import { describe, expect, it } from 'vitest';
import {
  formatFacilityLocal,
  formatWithOffset,
  parseFacilityLocal,
  parseOrderDate,
  parseScheduleDate,
  parseWithOffset,
} from '../../src/http/time.js';

const LA = 'America/Los_Angeles';
const at = (iso: string) => Date.parse(iso);

describe('facility time formats', () => {
  it('shows instants as facility-local ISO with milliseconds, and with the offset', () => {
    expect(formatFacilityLocal(at('2024-03-05T22:07:09.123Z'), LA)).toBe('2024-03-05T14:07:09.123');
    expect(formatWithOffset(at('2024-03-05T22:07:09.123Z'), LA)).toBe('2024-03-05T14:07:09.123-08:00');
    expect(formatWithOffset(at('2024-07-05T22:07:09.000Z'), LA)).toBe('2024-07-05T15:07:09.000-07:00');
  });

  it('reads facility-local ISO in the facility zone, and honours an explicit offset', () => {
    expect(parseFacilityLocal('2024-03-05T14:07:09.123', LA)).toBe(at('2024-03-05T22:07:09.123Z'));
    expect(parseFacilityLocal('2024-03-05T14:07:09', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseFacilityLocal('2024-03-05', LA)).toBe(at('2024-03-05T08:00:00.000Z'));
    expect(parseFacilityLocal('2024-03-05T14:07:09.123Z', LA)).toBe(at('2024-03-05T14:07:09.123Z'));
    expect(parseFacilityLocal('2024-02-30T00:00:00', LA)).toBeUndefined();
    expect(parseFacilityLocal('yesterday', LA)).toBeUndefined();
  });

  it('takes the earlier instant of a time that a DST change repeats', () => {
    // 2024-11-03 01:30 happens at -07:00 and again at -08:00 in Los Angeles.
    expect(parseFacilityLocal('2024-11-03T01:30:00.000', LA)).toBe(at('2024-11-03T08:30:00.000Z'));
    expect(parseScheduleDate('11/3/2024 1:30:00 AM', LA)).toBe(at('2024-11-03T08:30:00.000Z'));
  });

  it('moves a time that a DST change skips forward', () => {
    // 2024-03-10 02:30 does not exist in Los Angeles; clocks jump from 02:00 to 03:00.
    expect(parseFacilityLocal('2024-03-10T02:30:00', LA)).toBe(at('2024-03-10T10:30:00.000Z'));
  });

  it('requires an offset where the spec says UTC offset', () => {
    expect(parseWithOffset('2024-03-05T14:07:09.123-08:00')).toBe(at('2024-03-05T22:07:09.123Z'));
    expect(parseWithOffset('2024-03-05T22:07:09Z')).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseWithOffset('2024-03-05T14:07:09.123')).toBeUndefined();
  });

  it('reads the published M/d/yyyy h:mm:ss AM form and ISO for schedule dates', () => {
    expect(parseScheduleDate('3/5/2024 2:07:09 PM', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseScheduleDate('03/05/2024 02:07:09 PM', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseScheduleDate('12/31/2024 12:00:00 AM', 'UTC')).toBe(at('2024-12-31T00:00:00.000Z'));
    expect(parseScheduleDate('2024-03-05T14:07:09', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseScheduleDate('13/5/2024 2:07:09 PM', LA)).toBeUndefined();
  });

  it('reads yyyyMMddHHmmss for order dates', () => {
    expect(parseOrderDate('20240305140709', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseOrderDate('3/5/2024 2:07:09 PM', LA)).toBe(at('2024-03-05T22:07:09.000Z'));
    expect(parseOrderDate('20241305140709', LA)).toBeUndefined();
  });
});
