import { describe, expect, it } from 'vitest';
import type { ShiftScheduleFields } from '@rm/contracts';
import { comparedWith, expectedShifts } from '../src/domain/expected-shifts.js';

type Shift = ShiftScheduleFields['templates'][number]['shifts'][number];
type Day = Shift['start']['earliest']['day'];

const shift = (day: Day, time: string, at_most = 'PT8H', more: Partial<Shift> = {}): Shift => ({ start: { earliest: { day, time } }, duration: { at_most }, ...more });
const schedule = (start_date: string, start_week: number, ...weeks: Shift[][]): ShiftScheduleFields => ({
  start: { start_date, start_week },
  templates: weeks.map((shifts, position) => ({ index: position + 1, shifts })),
});
const range = (from: string, until: string) => ({ from: new Date(from), until: new Date(until) });
const starts = (shifts: ReturnType<typeof expectedShifts>) => shifts.map((each) => each.availability.earliest_start);

describe('expected shifts of a schedule', () => {
  it('lines the weeks up from the Monday of start_date as template start_week, and rotates through the templates', () => {
    // 2026-11-30 is a Monday; week 1 of the rotation is template 2
    const rotating = schedule('2026-11-30', 2, [shift('MONDAY', '06:00')], [shift('TUESDAY', '14:00')], []);
    const shifts = expectedShifts([{ id: 's1', schedule: rotating }], range('2026-11-30T00:00:00Z', '2026-12-28T00:00:00Z'), 'UTC');
    expect(starts(shifts)).toEqual(['2026-12-01T14:00:00Z', '2026-12-14T06:00:00Z', '2026-12-22T14:00:00Z']);
    expect(shifts.map((each) => each.template_index)).toEqual([2, 1, 2]);
    expect(shifts[0]).toMatchObject({ shift_schedule_id: 's1', shift_position: 0 });
  });

  it('starts nothing before start_date, even in the week it falls in', () => {
    const weekly = schedule('2026-12-02', 1, [shift('MONDAY', '06:00'), shift('THURSDAY', '06:00')]);
    const shifts = expectedShifts([{ id: 's1', schedule: weekly }], range('2026-11-01T00:00:00Z', '2026-12-08T00:00:00Z'), 'UTC');
    expect(starts(shifts)).toEqual(['2026-12-03T06:00:00Z', '2026-12-07T06:00:00Z']);
  });

  it('keeps only the shifts that start in [from, until)', () => {
    const weekly = schedule('2026-11-30', 1, [shift('MONDAY', '06:00')]);
    const shifts = expectedShifts([{ id: 's1', schedule: weekly }], range('2026-12-07T06:00:00Z', '2026-12-14T06:00:00Z'), 'UTC');
    expect(starts(shifts)).toEqual(['2026-12-07T06:00:00Z']);
  });

  it('reads days and times in the time zone, the same wall-clock time across a change of daylight saving time', () => {
    // Europe/Amsterdam leaves summer time on Sunday 2026-10-25
    const weekly = schedule('2026-10-19', 1, [shift('MONDAY', '06:00')]);
    const shifts = expectedShifts([{ id: 's1', schedule: weekly }], range('2026-10-19T00:00:00Z', '2026-10-27T00:00:00Z'), 'Europe/Amsterdam');
    expect(starts(shifts)).toEqual(['2026-10-19T04:00:00Z', '2026-10-26T05:00:00Z']);
  });

  // Found in review: elapsed durations ended this night shift at 09:00 on the wall clock, over the next shift.
  it('ends a shift across the night the clocks skip an hour when its schedule says, its max_duration an hour shorter', () => {
    // Europe/Amsterdam starts summer time on Sunday 2026-03-29: 02:00 becomes 03:00
    const night = shift('SATURDAY', '22:00', 'PT10H', {
      duration: { at_least: 'PT9H', at_most: 'PT10H' },
      stop: { latest: { day: 'SUNDAY', time: '08:00' } },
    });
    const morning = shift('SUNDAY', '08:00', 'PT8H');
    const shifts = expectedShifts([{ id: 's1', schedule: schedule('2026-03-23', 1, [night, morning]) }], range('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z'), 'Europe/Amsterdam');
    // 22:00 +01:00 to 08:00 +02:00: nine hours
    expect(shifts.map((each) => each.availability)).toEqual([
      { earliest_start: '2026-03-28T21:00:00Z', latest_stop: '2026-03-29T06:00:00Z', min_duration: 'PT9H', max_duration: 'PT9H' },
      { earliest_start: '2026-03-29T06:00:00Z', max_duration: 'PT8H' },
    ]);
    // and the clocks going back end it by its elapsed durations: earlier on the wall clock, over nothing
    const autumn = expectedShifts([{ id: 's1', schedule: schedule('2026-10-19', 1, [night, morning]) }], range('2026-10-24T00:00:00Z', '2026-10-26T00:00:00Z'), 'Europe/Amsterdam');
    expect(autumn[0]?.availability).toMatchObject({ earliest_start: '2026-10-24T20:00:00Z', latest_stop: '2026-10-25T06:00:00Z', max_duration: 'PT10H' });
  });

  // Found in review: a short at_least kept the elapsed end (09:00 on the wall clock), and an hour skipped within
  // a shift's start window was taken from its working time.
  it('ends a shift across the skipped hour on the wall clock whatever its at_least, and keeps its working time when the hour falls in its window', () => {
    const night = shift('SATURDAY', '22:00', 'PT10H', { duration: { at_least: 'PT1H', at_most: 'PT10H' }, stop: { latest: { day: 'SUNDAY', time: '08:00' } } });
    const [short] = expectedShifts([{ id: 's1', schedule: schedule('2026-03-23', 1, [night]) }], range('2026-03-28T00:00:00Z', '2026-03-29T00:00:00Z'), 'Europe/Amsterdam');
    expect(short?.availability).toEqual({ earliest_start: '2026-03-28T21:00:00Z', latest_stop: '2026-03-29T06:00:00Z', min_duration: 'PT1H', max_duration: 'PT9H' });
    // 01:00 to 03:00 on the wall clock is one hour: the window shrinks, the ninety minutes of work do not
    const early = shift('SUNDAY', '01:00', 'PT1H30M', { start: { earliest: { day: 'SUNDAY', time: '01:00' }, window: 'PT2H' } });
    const [windowed] = expectedShifts([{ id: 's1', schedule: schedule('2026-03-23', 1, [early]) }], range('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z'), 'Europe/Amsterdam');
    expect(windowed?.availability).toEqual({ earliest_start: '2026-03-29T00:00:00Z', latest_start: '2026-03-29T01:00:00Z', max_duration: 'PT1H30M' });
  });

  it("turns the shift's window, durations, stop, mandatory and locations into the availability's fields", () => {
    const full = shift('FRIDAY', '22:00', 'PT10H', {
      start: { earliest: { day: 'FRIDAY', time: '22:00' }, window: 'PT1H' },
      duration: { at_least: 'PT6H', at_most: 'PT10H' },
      stop: { latest: { day: 'SATURDAY', time: '07:00' } },
      mandatory: true,
      start_location: { home_base: { business_id: 'hb-1' } },
      end_location: { at_last_activity: true },
    });
    const [expected] = expectedShifts([{ id: 's1', schedule: schedule('2026-11-30', 1, [full]) }], range('2026-11-30T00:00:00Z', '2026-12-07T00:00:00Z'), 'UTC');
    expect(expected?.availability).toEqual({
      earliest_start: '2026-12-04T22:00:00Z',
      latest_start: '2026-12-04T23:00:00Z',
      latest_stop: '2026-12-05T07:00:00Z',
      min_duration: 'PT6H',
      max_duration: 'PT10H',
      mandatory: true,
      start_location: { home_base: { business_id: 'hb-1' } },
      end_location: { at_last_activity: true },
    });
  });

  it('puts the shifts of several schedules in start order', () => {
    const early = schedule('2026-11-30', 1, [shift('WEDNESDAY', '06:00')]);
    const late = schedule('2026-11-30', 1, [shift('MONDAY', '14:00')]);
    const shifts = expectedShifts([{ id: 'early', schedule: early }, { id: 'late', schedule: late }], range('2026-11-30T00:00:00Z', '2026-12-07T00:00:00Z'), 'UTC');
    expect(shifts.map((each) => each.shift_schedule_id)).toEqual(['late', 'early']);
  });
});

describe('an expected shift beside the availabilities', () => {
  const [expected] = expectedShifts([{ id: 's1', schedule: schedule('2026-11-30', 1, [shift('MONDAY', '06:00')]) }], range('2026-11-30T00:00:00Z', '2026-12-07T00:00:00Z'), 'UTC');
  const held = (id: string, earliest_start: string, max_duration = 'PT8H') => ({ id, availability: { earliest_start, max_duration } });

  it('is covered by one that starts when it does', () => {
    expect(comparedWith(expected!, [held('a', '2026-11-30T06:00:00Z', 'PT4H')])).toEqual({ covered_by: 'a' });
  });

  it('is overlapped by one that starts at another time within it', () => {
    expect(comparedWith(expected!, [held('a', '2026-11-30T10:00:00Z')])).toEqual({ overlapping: 'a' });
  });

  it('meets neither when they only touch', () => {
    expect(comparedWith(expected!, [held('a', '2026-11-30T14:00:00Z'), held('b', '2026-11-29T22:00:00Z')])).toEqual({});
  });
});
