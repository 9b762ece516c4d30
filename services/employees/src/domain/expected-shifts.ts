import { DateTime } from 'luxon';
import {
  parseDuration,
  toUtcDateTime,
  WEEKDAYS,
  type AvailabilityFields,
  type EmployeeFields,
  type EndLocation,
  type Shift,
  type ShiftScheduleFields,
  type StartLocation,
} from '@rm/contracts';
import { availabilitySpan } from './availability.js';
import { storedShiftLength } from './shift-schedule.js';
import { WEEK } from './week-timeline.js';

/** A stored schedule of the employee, by its id. */
export interface ScheduleOf {
  id: string;
  schedule: ShiftScheduleFields;
}

/** One shift a schedule implies in a range: where it comes from, and the availability it stands for. */
export interface ExpectedShiftTime {
  shift_schedule_id: string;
  template_index: number;
  shift_position: number;
  availability: AvailabilityFields;
}

/** An availability of the employee as the comparison needs it. */
export interface HeldAvailability {
  id: string;
  availability: AvailabilityFields;
}

/** `[from, until)`: the expected shifts that start in it. */
export interface ShiftRange {
  from: Date;
  until: Date;
}

/**
 * The shifts the schedules imply that start in the range, in start order. Each schedule's weeks line up
 * from the Monday of the week of its `start_date`, which is template `start_week`; the templates follow in
 * index order and start over after the last. Nothing starts before `start_date`. Days and times are read in
 * `zone`: a shift at 06:00 stays at 06:00 across a change of daylight saving time (see availabilityOf
 * for its end).
 */
export function expectedShifts(schedules: readonly ScheduleOf[], range: ShiftRange, zone: string): ExpectedShiftTime[] {
  return schedules
    .flatMap((each) => shiftsOf(each, range, zone))
    .sort(
      (a, b) =>
        Date.parse(a.availability.earliest_start) - Date.parse(b.availability.earliest_start) ||
        a.shift_schedule_id.localeCompare(b.shift_schedule_id) ||
        a.template_index - b.template_index ||
        a.shift_position - b.shift_position,
    );
}

function shiftsOf({ id, schedule }: ScheduleOf, { from, until }: ShiftRange, zone: string): ExpectedShiftTime[] {
  const firstDay = DateTime.fromISO(schedule.start.start_date, { zone });
  const firstMonday = firstDay.startOf('week');
  const templates = schedule.templates;
  // weeks whose shifts may start in the range: a week of slack either side for time zone offsets
  const weekOf = (instant: Date) => Math.floor((instant.getTime() - firstMonday.toMillis()) / WEEK);
  const expected: ExpectedShiftTime[] = [];
  for (let week = Math.max(0, weekOf(from) - 1); week <= weekOf(until) + 1; week += 1) {
    const template = templates[(schedule.start.start_week - 1 + week) % templates.length];
    if (template === undefined) continue;
    const monday = firstMonday.plus({ weeks: week });
    for (const [position, shift] of template.shifts.entries()) {
      const start = startOf(shift, monday);
      if (start < firstDay || start.toMillis() < from.getTime() || start.toMillis() >= until.getTime()) continue;
      expected.push({ shift_schedule_id: id, template_index: template.index, shift_position: position, availability: availabilityOf(shift, start) });
    }
  }
  return expected;
}

/** The shift's start.earliest in the week of `monday`, a wall-clock time of the week's zone. */
function startOf(shift: Shift, monday: DateTime): DateTime {
  const { day, time } = shift.start.earliest;
  return monday.plus({ days: WEEKDAYS.indexOf(day) }).set({ hour: Number(time.slice(0, 2)), minute: Number(time.slice(3, 5)) });
}

/**
 * The availability a shift stands for when it starts at `start`, in the stored (UTC) form. Its times are
 * the schedule's wall-clock times: across the night the clocks skip an hour, its latest start and stop are
 * read on the wall clock, and its durations shrink by the hour skipped between its latest start and its
 * end, or it would overlap the next shift of a tight schedule (whose rules are wall-clock times); its
 * min_duration is cut to what the night leaves. When the clocks go back, the elapsed durations end it an
 * hour early on the wall clock, which overlaps nothing.
 */
function availabilityOf(shift: Shift, start: DateTime): AvailabilityFields {
  const earliest = start.toMillis();
  const at = (millis: number) => toUtcDateTime(new Date(millis).toISOString());
  const window = shift.start.window === undefined ? undefined : parseDuration(shift.start.window)!;
  const length = storedShiftLength(shift);
  const atMost = parseDuration(shift.duration.at_most)!;
  const atLeast = shift.duration.at_least === undefined ? undefined : parseDuration(shift.duration.at_least)!;
  const skippedInWindow = window === undefined ? 0 : skippedBy(start, window);
  const skippedInAll = skippedBy(start, length);
  // the hour skipped after the latest start shortens the work; one skipped within the window, the window
  const skippedInWork = skippedInAll - skippedInWindow;
  if (skippedInAll === 0 || atMost <= skippedInWork) {
    return availabilityFields(shift, { earliest, window, length, maxDuration: shift.duration.at_most, minDuration: shift.duration.at_least }, at);
  }
  const maxDuration = atMost - skippedInWork;
  // the latest stop must stay at least min_duration (else max_duration) after the earliest start
  const room = length - skippedInAll;
  const minDuration = Math.min(atLeast ?? maxDuration, room, maxDuration);
  return availabilityFields(
    shift,
    {
      earliest,
      window: window === undefined ? undefined : window - skippedInWindow,
      length: room,
      maxDuration: isoDuration(maxDuration),
      minDuration: atLeast === undefined && minDuration === maxDuration ? undefined : isoDuration(minDuration),
    },
    at,
  );
}

/** The availability's fields: its times in milliseconds from `earliest`, and its durations. */
function availabilityFields(
  shift: Shift,
  times: { earliest: number; window: number | undefined; length: number; maxDuration: string; minDuration: string | undefined },
  at: (millis: number) => string,
): AvailabilityFields {
  const { earliest, window, length, maxDuration, minDuration } = times;
  return {
    earliest_start: at(earliest),
    ...(window === undefined ? {} : { latest_start: at(earliest + window) }),
    ...(shift.stop?.latest === undefined ? {} : { latest_stop: at(earliest + length) }),
    ...(minDuration === undefined ? {} : { min_duration: minDuration }),
    max_duration: maxDuration,
    ...(shift.mandatory === undefined ? {} : { mandatory: shift.mandatory }),
    ...(shift.start_location === undefined ? {} : { start_location: shift.start_location }),
    ...(shift.end_location === undefined ? {} : { end_location: shift.end_location }),
  };
}

/** How much earlier the wall-clock end of `length` after `start` comes than its elapsed end: the hour skipped in between, else 0. */
function skippedBy(start: DateTime, length: number): number {
  const wallClockEnd = start.setZone('UTC', { keepLocalTime: true }).plus(length).setZone(start.zone, { keepLocalTime: true });
  return Math.max(0, start.toMillis() + length - wallClockEnd.toMillis());
}

/** An ISO 8601 duration of whole seconds, as `PT9H30M`. */
function isoDuration(millis: number): string {
  const seconds = Math.round(millis / 1000);
  const parts = [[Math.floor(seconds / 3600), 'H'], [Math.floor(seconds / 60) % 60, 'M'], [seconds % 60, 'S']] as const;
  return `PT${parts.map(([value, unit]) => (value === 0 ? '' : `${value}${unit}`)).join('') || '0S'}`;
}

/** What the employee's availabilities say of an expected shift: one covers it (starts when it does), or one overlaps it. */
export function comparedWith(
  expected: ExpectedShiftTime,
  held: readonly HeldAvailability[],
): { covered_by?: string; overlapping?: string } {
  const span = availabilitySpan(expected.availability);
  const overlaps = held.filter((each) => {
    const other = availabilitySpan(each.availability);
    return other.start < span.end && other.end > span.start;
  });
  const covering = overlaps.find((each) => Date.parse(each.availability.earliest_start) === span.start.getTime());
  if (covering !== undefined) return { covered_by: covering.id };
  return overlaps[0] === undefined ? {} : { overlapping: overlaps[0].id };
}

/** Where a shift starts and ends: its own locations, else the employee's start location or home base. */
export function shiftLocations(
  availability: AvailabilityFields,
  employee: EmployeeFields,
): { start_location: StartLocation; start_location_from: 'shift' | 'employee'; end_location?: EndLocation } {
  const end = availability.end_location === undefined ? {} : { end_location: availability.end_location };
  if (availability.start_location !== undefined) return { start_location: availability.start_location, start_location_from: 'shift', ...end };
  const start: StartLocation = employee.home_base === undefined ? { address: employee.start_location } : { home_base: employee.home_base };
  return { start_location: start, start_location_from: 'employee', ...end };
}

/** Whether `zone` is an IANA time zone this process knows. */
export function isKnownTimeZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}
