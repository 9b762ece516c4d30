import { parseDuration, type Shift, type ShiftScheduleFields, type Template, type Violation } from '@rm/contracts';
import { endLocationViolations, startLocationViolations, storedEndLocation, storedStartLocation } from './shift-location.js';
import { WEEK, firstCyclicOverlap, firstWeeklyOccurrence, weekMomentOffset, weekMomentsApart, type Span } from './week-timeline.js';
import { withoutReadOnly, type SubResourceInput } from './sub-resource-input.js';

/** A request body that passed the schema: the stored fields plus read-only ones sent back from a GET. */
export type ShiftScheduleInput = SubResourceInput<ShiftScheduleFields>;

export type ShiftScheduleDecision = { ok: true; schedule: ShiftScheduleFields } | { ok: false; violations: Violation[] };

/** A shift with its JSON path and the start of its template on the timeline. */
interface PlacedShift {
  shift: Shift;
  path: string;
  weekStart: number;
}

/** A shift's durations in milliseconds. */
interface Durations {
  window: number | undefined;
  atLeast: number | undefined;
  atMost: number;
}

// The schema has checked the format already; NaN, should one not parse, fails every rule instead of crashing.
const millis = (text: string) => parseDuration(text) ?? Number.NaN;
const optionalMillis = (text: string | undefined) => (text === undefined ? undefined : millis(text));
const broken = (isBroken: boolean, field: string, message: string): Violation[] => (isBroken ? [{ field, message }] : []);

/**
 * The rules of a shift schedule that its schema cannot say, and its stored form: read-only fields
 * dropped, resolved geo information left to the resolver.
 */
export function decideShiftSchedule(input: ShiftScheduleInput): ShiftScheduleDecision {
  const fields = withoutReadOnly(input);
  const shifts = fields.templates.flatMap((template, week) =>
    template.shifts.map((shift, position) => ({ shift, path: `templates[${week}].shifts[${position}]`, weekStart: week * WEEK })),
  );
  const timings = shifts.map(shiftTiming);
  const violations = [
    ...startWeekViolations(fields),
    ...indexViolations(fields.templates),
    ...timings.flatMap((timing) => timing.violations),
    ...shifts.flatMap(locationViolations),
    ...workTimeViolations(fields.templates),
    ...overlapViolations(timings, fields.templates.length * WEEK),
  ];
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, schedule: { ...fields, templates: fields.templates.map(storedTemplate) } };
}

function startWeekViolations(fields: ShiftScheduleFields): Violation[] {
  const count = fields.templates.length;
  return broken(fields.start.start_week > count, 'start.start_week', `must be a template index, from 1 to ${count}`);
}

function indexViolations(templates: Template[]): Violation[] {
  return templates.flatMap((template, position) =>
    broken(template.index !== position + 1, `templates[${position}].index`, `must be ${position + 1}: indices are one-based and consecutive`),
  );
}

/** The shift's duration rules, and when they hold, its span on the timeline or the violation of its stop.latest. */
function shiftTiming({ shift, path, weekStart }: PlacedShift): { violations: Violation[]; span?: Span } {
  const durations = durationsOf(shift);
  const violations = durationViolations(durations, path);
  if (violations.length > 0) return { violations };
  const length = shiftLength(shift, durations);
  if (length === undefined) {
    const message = 'must lie between start.earliest + duration.at_least (at_most without it) and start.earliest + start.window + duration.at_most';
    return { violations: [{ field: `${path}.stop.latest`, message }] };
  }
  const start = weekStart + weekMomentOffset(shift.start.earliest);
  return { violations: [], span: { label: path, start, end: start + length } };
}

function durationViolations({ window, atLeast, atMost }: Durations, path: string): Violation[] {
  const shortest = window ?? 0;
  const atLeastField = `${path}.duration.at_least`;
  const atMostField = `${path}.duration.at_most`;
  return [
    ...broken(window !== undefined && !(window > 0), `${path}.start.window`, 'must be strictly positive'),
    ...broken(atLeast !== undefined && !(atLeast > 0), atLeastField, 'must be strictly positive'),
    ...broken(atLeast !== undefined && !(atLeast >= shortest), atLeastField, 'must be at least start.window'),
    ...broken(!(atMost > 0), atMostField, 'must be strictly positive'),
    ...broken(!(atMost >= shortest), atMostField, 'must be at least start.window'),
    ...broken(atLeast !== undefined && !(atMost >= atLeast), atMostField, 'must be at least duration.at_least'),
    ...broken(!(atMost < WEEK), atMostField, 'must be below P7D'),
  ];
}

/** From start.earliest to the calculated end of a stored (valid) shift: see shiftLength. */
export function storedShiftLength(shift: Shift): number {
  return shiftLength(shift, durationsOf(shift)) ?? Number.NaN;
}

function durationsOf(shift: Shift): Durations {
  return { window: optionalMillis(shift.start.window), atLeast: optionalMillis(shift.duration.at_least), atMost: millis(shift.duration.at_most) };
}

/**
 * From start.earliest to the calculated end: the first occurrence of stop.latest within the bounds of
 * spec rule 4 (undefined when none is), else the latest stop those bounds allow.
 */
function shiftLength(shift: Shift, { window, atLeast, atMost }: Durations): number | undefined {
  const latestStop = (window ?? 0) + atMost;
  const latest = shift.stop?.latest;
  if (latest === undefined) return latestStop;
  return firstWeeklyOccurrence(weekMomentsApart(shift.start.earliest, latest), atLeast ?? atMost, latestStop);
}

function locationViolations({ shift, path }: PlacedShift): Violation[] {
  return [
    ...(shift.start_location === undefined ? [] : startLocationViolations(shift.start_location, `${path}.start_location`)),
    ...(shift.end_location === undefined ? [] : endLocationViolations(shift.end_location, `${path}.end_location`)),
  ];
}

/**
 * contractual_work_time: once on one shift, on every shift and acceptable_additional_work_time on
 * every template; acceptable_additional_work_time on a template also asks for it on that template's shifts.
 */
function workTimeViolations(templates: Template[]): Violation[] {
  const scheduleHasIt = templates.some((template) => template.shifts.some((shift) => shift.contractual_work_time !== undefined));
  return templates.flatMap((template, week) => {
    const path = `templates[${week}]`;
    const additional = optionalMillis(template.acceptable_additional_work_time);
    const missing = scheduleHasIt
      ? 'is required on every shift once one shift has it'
      : 'is required on every shift of a template with acceptable_additional_work_time';
    const shiftViolations = template.shifts.flatMap((shift, position) =>
      broken(
        shift.contractual_work_time === undefined && (scheduleHasIt || additional !== undefined),
        `${path}.shifts[${position}].contractual_work_time`,
        missing,
      ),
    );
    return [
      ...broken(additional !== undefined && !(additional > 0), `${path}.acceptable_additional_work_time`, 'must be strictly positive'),
      ...broken(
        scheduleHasIt && additional === undefined,
        `${path}.acceptable_additional_work_time`,
        'is required on every template once a shift has contractual_work_time',
      ),
      ...shiftViolations,
    ];
  });
}

/** Spec rules 1 and 2, on the whole cyclic timeline; without every span (a duration rule broken) there is nothing to compare. */
function overlapViolations(timings: { span?: Span }[], period: number): Violation[] {
  const spans = timings.flatMap((timing) => (timing.span === undefined ? [] : [timing.span]));
  if (spans.length < timings.length) return [];
  const overlap = firstCyclicOverlap(spans, period);
  if (overlap === undefined) return [];
  const { earlier, later } = overlap;
  return [{ field: later.label, message: earlier === later ? 'overlaps its own next occurrence' : `overlaps ${earlier.label}` }];
}

function storedTemplate(template: Template): Template {
  return { ...template, shifts: template.shifts.map(storedShift) };
}

function storedShift(shift: Shift): Shift {
  return {
    ...shift,
    ...(shift.start_location === undefined ? {} : { start_location: storedStartLocation(shift.start_location) }),
    ...(shift.end_location === undefined ? {} : { end_location: storedEndLocation(shift.end_location) }),
  };
}
