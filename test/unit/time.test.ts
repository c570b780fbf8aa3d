import { describe, expect, it } from 'vitest';
import {
  formatFacilityLocal,
  formatWithOffset,
  parseFacilityLocal,
  parseOrderDate,
  parseScheduleDate,
  parseWithOffset,
  skippedTimeProblem,
  skippedTimeProblems,
  twelveHourProblem,
} from '../../src/http/time.js';
import { dateTimeFormats } from '../../src/http/formats.js';

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

describe('times a DST change skips', () => {
  const gap = 'does not exist in America/Los_Angeles: its clocks move forward from UTC-8 to UTC-7 on 2026-03-08 and skip it';

  it('names the zone, the day and the offsets of the gap, in every local form', () => {
    expect(skippedTimeProblem('schedule-date', '3/8/2026 2:30:00 AM', LA)).toBe(`3/8/2026 2:30:00 AM ${gap}`);
    expect(skippedTimeProblem('schedule-date', '2026-03-08T02:00', LA)).toBe(`2026-03-08T02:00 ${gap}`);
    expect(skippedTimeProblem('order-date', '20260308025959', LA)).toBe(`20260308025959 ${gap}`);
    expect(skippedTimeProblem('local-date-time', '2026-03-08T02:59:59.999', LA)).toBe(`2026-03-08T02:59:59.999 ${gap}`);
    // Half-hour offsets and gaps: Lord Howe moves from +10:30 to +11:00 at 2:00 on the first Sunday of October.
    expect(skippedTimeProblem('local-date-time', '2026-10-04T02:15:00', 'Australia/Lord_Howe')).toBe(
      '2026-10-04T02:15:00 does not exist in Australia/Lord_Howe: its clocks move forward from UTC+10:30 to UTC+11 on 2026-10-04 and skip it',
    );
  });

  it('passes the edges of the gap, repeated times, dates alone and texts with their own offset', () => {
    expect(skippedTimeProblem('local-date-time', '2026-03-08T01:59:59.999', LA)).toBeUndefined();
    expect(skippedTimeProblem('local-date-time', '2026-03-08T03:00:00', LA)).toBeUndefined();
    expect(skippedTimeProblem('schedule-date', '11/1/2026 1:30:00 AM', LA)).toBeUndefined();
    expect(skippedTimeProblem('local-date-time', '2026-03-08T02:30:00-08:00', LA)).toBeUndefined();
    // Santiago skips midnight: the day still has a first instant.
    expect(skippedTimeProblem('local-date-time', '2026-09-06', 'America/Santiago')).toBeUndefined();
    expect(skippedTimeProblem('local-date-time', '2026-09-06T00:30', 'America/Santiago')).toMatch(/^2026-09-06T00:30 does not exist/);
    expect(skippedTimeProblem('schedule-date', 'not a date', LA)).toBeUndefined();
  });

  it('answers each zone for itself when one text is read in several (answers are remembered by text and zone)', () => {
    for (let round = 0; round < 2; round++) {
      expect(skippedTimeProblem('local-date-time', '2026-03-08T02:30:00', LA)).toBe(`2026-03-08T02:30:00 ${gap}`);
      expect(skippedTimeProblem('local-date-time', '2026-03-08T02:30:00', 'UTC')).toBeUndefined();
      expect(skippedTimeProblem('schedule-date', '2026-03-08T02:30:00', 'UTC')).toBeUndefined();
      expect(parseFacilityLocal('2026-03-05T14:07:09', LA)).toBe(at('2026-03-05T22:07:09.000Z'));
      expect(parseFacilityLocal('2026-03-05T14:07:09', 'Europe/Berlin')).toBe(at('2026-03-05T13:07:09.000Z'));
    }
  });

  it('names each field that falls in a gap, skipping absent ones', () => {
    expect(
      skippedTimeProblems('order-date', { 'POContent.ShipNotBefore': '20260308023000', 'POContent.ScheduledDate': null, Other: '' }, LA),
    ).toEqual([`POContent.ShipNotBefore 20260308023000 ${gap}`]);
  });
});

describe('AM/PM hours', () => {
  it('names an hour past 12 (or 0) with AM or PM, which Luxon would read as another time', () => {
    expect(twelveHourProblem('3/8/2026 13:00:00 PM')).toBe('has hour 13 with PM; with AM or PM the hour is 1 to 12');
    expect(twelveHourProblem('3/8/2026 0:30 PM')).toBe('has hour 0 with PM; with AM or PM the hour is 1 to 12');
    expect(twelveHourProblem('3/8/2026  00:30:00   am')).toBe('has hour 0 with AM; with AM or PM the hour is 1 to 12');
    expect(twelveHourProblem('3/8/2026 12:00:00 AM')).toBeUndefined();
    expect(twelveHourProblem('2026-03-08T13:00:00')).toBeUndefined();
  });

  it('the schedule and order date formats refuse them; the readers stay lenient for texts stored before', () => {
    expect(dateTimeFormats['schedule-date']('3/8/2026 13:00:00 PM')).toBe(false);
    expect(dateTimeFormats['order-date']('3/8/2026 13:00 PM')).toBe(false);
    expect(dateTimeFormats['schedule-date']('3/8/2026 1:00:00 PM')).toBe(true);
    expect(parseScheduleDate('3/8/2026 13:00:00 PM', 'UTC')).toBe(at('2026-03-08T13:00:00.000Z'));
  });
});
