import type { Shift, Template, WeekMoment, Weekday } from '@rm/contracts';
import { WEEKDAYS } from '@rm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideShiftSchedule, type ShiftScheduleInput } from '../src/domain/shift-schedule.js';
import { DAY, HOUR, MINUTE, WEEK, firstCyclicOverlap, firstWeeklyOccurrence, weekMomentOffset } from '../src/domain/week-timeline.js';

/** `'MONDAY 08:00'` as a week moment. */
const moment = (text: string): WeekMoment => {
  const [day, time] = text.split(' ') as [Weekday, string];
  return { day, time };
};

/** A shift starting at `earliest` (like `'MONDAY 08:00'`) for at most `at_most`. */
function shift(earliest: string, at_most: string, more: { window?: string; at_least?: string; latest?: string } = {}): Shift {
  return {
    start: { earliest: moment(earliest), ...(more.window === undefined ? {} : { window: more.window }) },
    ...(more.latest === undefined ? {} : { stop: { latest: moment(more.latest) } }),
    duration: { at_most, ...(more.at_least === undefined ? {} : { at_least: more.at_least }) },
  };
}

/** A schedule of one template per list of shifts, indexed 1, 2, 3, … */
const schedule = (...weeks: Shift[][]): ShiftScheduleInput => ({
  start: { start_date: '2024-05-06', start_week: 1 },
  templates: weeks.map((shifts, position) => ({ index: position + 1, shifts })),
});
const withTemplates = (templates: Template[]): ShiftScheduleInput => ({ start: { start_date: '2024-05-06', start_week: 1 }, templates });

const day = shift('MONDAY 08:00', 'PT8H');
const paid = (contractual: string): Shift => ({ ...day, contractual_work_time: contractual });
/** The first template, allowing `additional` work time over `shifts`. */
const paidWeek = (additional: string, ...shifts: Shift[]): Template => ({ index: 1, shifts, acceptable_additional_work_time: additional });
const bothLocations: Shift = { ...day, start_location: { at_last_end: true }, end_location: { at_last_activity: true } };
const violationsOf = (input: ShiftScheduleInput) => {
  const decision = decideShiftSchedule(input);
  return decision.ok ? [] : decision.violations;
};
const fieldsOf = (input: ShiftScheduleInput) => violationsOf(input).map((violation) => violation.field);

describe('decideShiftSchedule accepts', () => {
  it.each<[string, ShiftScheduleInput]>([
    ['a week of day shifts', schedule([day, shift('TUESDAY 08:00', 'PT8H'), shift('FRIDAY 08:00', 'PT8H')])],
    ['a recurring week off', schedule([day], [])],
    ['a start week within the templates', { ...schedule([day], []), start: { start_date: '2024-05-06', start_week: 2 } }],
    ['a positive window with durations at least as long', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT1H' })])],
    ['the longest duration below P7D', schedule([shift('MONDAY 00:00', 'P6DT23H59M')])],
    ['stop.latest within its bounds', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT6H', latest: 'MONDAY 16:00' })])],
    ['stop.latest after Sunday midnight', schedule([shift('SUNDAY 22:00', 'PT8H', { latest: 'MONDAY 06:00' })])],
    ['stop.latest on the earliest stop', schedule([shift('MONDAY 08:00', 'PT8H', { at_least: 'PT6H', latest: 'MONDAY 14:00' })])],
    ['contractual work time everywhere', withTemplates([paidWeek('PT1H', paid('PT0S'))])],
    ['a start location and an end location', schedule([bothLocations])],
    ['shifts that only touch', schedule([shift('MONDAY 00:00', 'PT8H'), shift('MONDAY 08:00', 'PT16H'), shift('TUESDAY 00:00', 'P6D')])],
    ['a one-week schedule whose Sunday shift ends as Monday starts', schedule([day, shift('SUNDAY 22:00', 'PT10H')])],
    ['an end shortened by stop.latest', schedule([shift('SUNDAY 20:00', 'PT12H', { window: 'PT1H', latest: 'MONDAY 08:00' }), day])],
    ['a long shift ending in a week off', schedule([day, shift('SATURDAY 12:00', 'P6D')], [], [day])],
  ])('%s', (_case, input) => {
    expect(violationsOf(input)).toEqual([]);
  });
});

describe('decideShiftSchedule refuses', () => {
  const [first, second] = ['templates[0].shifts[0]', 'templates[0].shifts[1]'];
  const tuesday = shift('TUESDAY 08:00', 'PT8H');
  const weekOff: Template = { index: 2, shifts: [] };
  const home_base = { business_id: 'hb-1' };
  it.each<[string, ShiftScheduleInput, string[]]>([
    ['indices that skip one', withTemplates([{ index: 1, shifts: [] }, { index: 3, shifts: [] }]), ['templates[1].index']],
    ['indices out of order', withTemplates([{ index: 2, shifts: [] }, { index: 1, shifts: [] }]), ['templates[0].index', 'templates[1].index']],
    ['a start week beyond the templates', { ...schedule([day]), start: { start_date: '2024-05-06', start_week: 2 } }, ['start.start_week']],
    ['a window of zero', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT0S' })]), [`${first}.start.window`]],
    ['at_least of zero', schedule([shift('MONDAY 08:00', 'PT8H', { at_least: 'PT0S' })]), [`${first}.duration.at_least`]],
    ['at_least shorter than the window', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT30M' })]), [`${first}.duration.at_least`]],
    ['at_most of zero', schedule([shift('MONDAY 08:00', 'PT0S')]), [`${first}.duration.at_most`]],
    ['at_most shorter than the window', schedule([shift('MONDAY 08:00', 'PT30M', { window: 'PT1H' })]), [`${first}.duration.at_most`]],
    ['at_most shorter than at_least', schedule([shift('MONDAY 08:00', 'PT4H', { at_least: 'PT5H' })]), [`${first}.duration.at_most`]],
    ['at_most of P7D', schedule([shift('MONDAY 08:00', 'P7D')]), [`${first}.duration.at_most`]],
    ['stop.latest after its latest stop', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', latest: 'MONDAY 18:00' })]), [`${first}.stop.latest`]],
    ['stop.latest before its earliest stop', schedule([shift('MONDAY 08:00', 'PT8H', { at_least: 'PT6H', latest: 'MONDAY 13:00' })]), [`${first}.stop.latest`]],
    ['a shift without contractual work time beside one with it', withTemplates([paidWeek('PT1H', paid('PT8H'), tuesday)]), [`${second}.contractual_work_time`]],
    ['a week off without acceptable additional work time', withTemplates([paidWeek('PT1H', paid('PT8H')), weekOff]), ['templates[1].acceptable_additional_work_time']],
    ['additional work time over shifts without contractual work time', withTemplates([paidWeek('PT1H', day)]), [`${first}.contractual_work_time`]],
    ['additional work time of zero', withTemplates([paidWeek('PT0S', paid('PT8H'))]), ['templates[0].acceptable_additional_work_time']],
    ['a start location with two choices', schedule([{ ...day, start_location: { home_base, at_last_end: true } }]), [`${first}.start_location`]],
    ['an end location with two choices', schedule([{ ...day, end_location: { home_base, at_last_activity: true } }]), [`${first}.end_location`]],
    ['shifts overlapping within a week', schedule([day, shift('MONDAY 15:00', 'PT8H')]), ['templates[0].shifts[1]']],
    ['a Sunday night shift running into the next template', schedule([shift('SUNDAY 22:00', 'PT12H')], [day]), ['templates[1].shifts[0]']],
    ['the last template running into the first', schedule([day], [], [shift('SUNDAY 23:00', 'PT10H')]), [first]],
    ['a one-week schedule whose Sunday shift runs into its Monday shift', schedule([day, shift('SUNDAY 22:00', 'PT11H')]), [first]],
    ['an end not shortened by stop.latest', schedule([shift('SUNDAY 20:00', 'PT12H', { window: 'PT1H' }), day]), ['templates[0].shifts[1]']],
    ['a lone shift longer than its one-week period', schedule([shift('MONDAY 08:00', 'P6D', { window: 'P2D' })]), [first]],
  ])('%s', (_case, input, fields) => {
    expect(fieldsOf(input)).toEqual(fields);
  });

  it('names the shift an overlapped shift overlaps', () => {
    expect(violationsOf(schedule([day], [], [shift('SUNDAY 23:00', 'PT10H')]))).toEqual([
      { field: 'templates[0].shifts[0]', message: 'overlaps templates[2].shifts[0]' },
    ]);
    expect(violationsOf(schedule([shift('MONDAY 08:00', 'P6D', { window: 'P2D' })]))).toEqual([
      { field: 'templates[0].shifts[0]', message: 'overlaps its own next occurrence' },
    ]);
  });

  it('says which index each template must have', () => {
    expect(violationsOf(withTemplates([{ index: 2, shifts: [] }]))).toEqual([
      { field: 'templates[0].index', message: 'must be 1: indices are one-based and consecutive' },
    ]);
  });

  it('leaves overlaps unchecked while a duration is wrong, but reports every other rule', () => {
    const input = { ...schedule([day, shift('MONDAY 10:00', 'P7D')], [paid('PT8H')]), start: { start_date: '2024-05-06', start_week: 3 } };
    expect(fieldsOf(input)).toEqual([
      'start.start_week',
      'templates[0].shifts[1].duration.at_most',
      'templates[0].acceptable_additional_work_time',
      'templates[0].shifts[0].contractual_work_time',
      'templates[0].shifts[1].contractual_work_time',
      'templates[1].acceptable_additional_work_time',
    ]);
  });
});

describe('decideShiftSchedule stores', () => {
  it('the schedule without read-only fields and resolved geo information', () => {
    const geoPoint = { latitude: 51.05, longitude: 3.72 };
    const resolved = { geocoded: true, address: 'Gent', precision: 3 };
    const located = (geo_point: { latitude: number; longitude: number; resolved?: unknown }): Shift => ({
      ...day,
      start_location: { address: { name: 'Depot', geo_point } },
      end_location: { address: { geo_point } },
    });
    const input = { ...schedule([located({ ...geoPoint, resolved })]), name: 'Early', id: 'x', employee_id: 'e-1', version: 3 };
    expect(decideShiftSchedule(input)).toStrictEqual({
      ok: true,
      schedule: { name: 'Early', start: input.start, templates: [{ index: 1, shifts: [located(geoPoint)] }] },
    });
  });
});

describe('week timeline', () => {
  const span = (label: string, start: number, end: number) => ({ label, start, end });

  it('places a week moment from Monday 00:00', () => {
    expect(weekMomentOffset(moment('WEDNESDAY 07:30'))).toBe(2 * DAY + 7 * HOUR + 30 * MINUTE);
  });

  it('finds the first weekly occurrence within bounds, or none', () => {
    expect(firstWeeklyOccurrence(HOUR, 2 * HOUR, WEEK + 2 * HOUR)).toBe(WEEK + HOUR);
    expect(firstWeeklyOccurrence(HOUR, 2 * HOUR, WEEK)).toBeUndefined();
  });

  it.each([
    ['nothing for touching spans', [span('a', 0, 10), span('b', 10, 20)], 20, undefined],
    ['a neighbour overlap', [span('b', 5, 15), span('a', 0, 10)], 20, ['a', 'b']],
    ['an overlap across the end of the period', [span('a', 2, 8), span('z', 15, 23)], 20, ['z', 'a']],
    ['a span overlapping its own next occurrence', [span('a', 5, 26)], 20, ['a', 'a']],
    ['nothing without spans', [], 20, undefined],
  ])('finds %s', (_case, spans, period, labels) => {
    const overlap = firstCyclicOverlap(spans, period);
    expect(overlap && [overlap.earlier.label, overlap.later.label]).toEqual(labels);
  });
});

describe('overlap on the cyclic timeline', () => {
  const minutes = (count: number) => `PT${count}M`;
  const randomShift = fc
    .record({
      day: fc.constantFrom(...WEEKDAYS),
      minuteOfDay: fc.integer({ min: 0, max: DAY / MINUTE - 1 }),
      atMost: fc.oneof(fc.integer({ min: 1, max: 12 * 60 }), fc.integer({ min: 1, max: WEEK / MINUTE - 1 })),
      windowShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    })
    .map(({ day, minuteOfDay, atMost, windowShare }) => {
      const time = `${String(Math.floor(minuteOfDay / 60)).padStart(2, '0')}:${String(minuteOfDay % 60).padStart(2, '0')}`;
      const window = windowShare === undefined ? undefined : Math.max(1, Math.floor(windowShare * atMost));
      return shift(`${day} ${time}`, minutes(atMost), window === undefined ? {} : { window: minutes(window) });
    });

  /** Every occurrence of every shift one period back, now and one period on, compared pairwise. */
  function bruteForceOverlaps(weeks: Shift[][]): boolean {
    const period = weeks.length * WEEK;
    const spans = weeks.flatMap((shifts, week) =>
      shifts.map((each) => {
        const start = week * WEEK + weekMomentOffset(each.start.earliest);
        const window = each.start.window === undefined ? 0 : Number(each.start.window.slice(2, -1)) * MINUTE;
        return { start, end: start + window + Number(each.duration.at_most.slice(2, -1)) * MINUTE };
      }),
    );
    const occurrences = spans.flatMap((each, id) => [-1, 0, 1].map((k) => ({ id, k, start: each.start + k * period, end: each.end + k * period })));
    return occurrences.some((a) => occurrences.some((b) => (a.id !== b.id || a.k !== b.k) && a.start < b.end && b.start < a.end));
  }

  it('is reported exactly when some occurrences of two shifts overlap', () => {
    const weeks = fc.array(fc.array(randomShift, { maxLength: 5 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(weeks, (shifts) => {
        const overlapReported = violationsOf(schedule(...shifts)).some((violation) => violation.message.startsWith('overlaps'));
        expect(overlapReported).toBe(bruteForceOverlaps(shifts));
      }),
      { numRuns: 500 },
    );
  });
});
