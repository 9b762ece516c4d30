import { parseDuration, shiftWindowOf, toUtcDateTime, type AvailabilityFields, type Violation } from '@rm/contracts';
import { choosesStart, endLocationViolations, startLocationViolations, storedEndLocation, storedStartLocation } from './shift-location.js';
import { withoutReadOnly, type SubResourceInput } from './sub-resource-input.js';

/** A request body that passed the schema: the stored fields plus read-only ones sent back from a GET. */
export type AvailabilityInput = SubResourceInput<AvailabilityFields>;

/** The time an availability takes for overlap tests (spec rule 2): `[earliest_start, calculated latest_stop)`. */
export interface Span {
  start: Date;
  end: Date;
}

export type AvailabilityDecision = { ok: true; availability: AvailabilityFields } | { ok: false; violations: Violation[] };

const at = (text: string) => Date.parse(text);
const duration = (text: string) => parseDuration(text) ?? Number.NaN;

/** The span of an availability as it is stored and compared: its shift window (DESIGN §6) as dates. */
export function availabilitySpan(availability: AvailabilityFields): Span {
  const { start, end } = shiftWindowOf(availability);
  return { start: new Date(start), end: new Date(end) };
}

/**
 * The rules of an availability that its schema cannot say, and its stored form: read-only fields
 * dropped, date-times in UTC, resolved geo information left to the resolver.
 */
export function decideAvailability(input: AvailabilityInput): AvailabilityDecision {
  const violations = [...timeViolations(input), ...locationViolations(input)];
  if (violations.length > 0) return { ok: false, violations };
  const fields = withoutReadOnly(input);
  const availability: AvailabilityFields = {
    ...fields,
    earliest_start: toUtcDateTime(fields.earliest_start),
    ...(fields.latest_start === undefined ? {} : { latest_start: toUtcDateTime(fields.latest_start) }),
    ...(fields.latest_stop === undefined ? {} : { latest_stop: toUtcDateTime(fields.latest_stop) }),
    ...(fields.start_location === undefined ? {} : { start_location: storedStartLocation(fields.start_location) }),
    ...(fields.end_location === undefined ? {} : { end_location: storedEndLocation(fields.end_location) }),
  };
  return { ok: true, availability };
}

function timeViolations(input: AvailabilityFields): Violation[] {
  const violations: Violation[] = [];
  const earliestStart = at(input.earliest_start);
  const maxDuration = duration(input.max_duration);
  const minDuration = input.min_duration === undefined ? undefined : duration(input.min_duration);
  if (!(maxDuration > 0)) violations.push({ field: 'max_duration', message: 'must be longer than zero' });
  if (minDuration !== undefined && !(minDuration > 0)) violations.push({ field: 'min_duration', message: 'must be longer than zero' });
  if (minDuration !== undefined && minDuration > maxDuration) violations.push({ field: 'min_duration', message: 'must not be longer than max_duration' });
  const latestStart = input.latest_start === undefined ? earliestStart : at(input.latest_start);
  if (latestStart < earliestStart) violations.push({ field: 'latest_start', message: 'must not be before earliest_start' });
  if (input.latest_stop !== undefined && violations.length === 0) {
    const latestStop = at(input.latest_stop);
    // spec: between earliest_start + min_duration (max_duration when absent) and latest_start + max_duration
    if (latestStop < earliestStart + (minDuration ?? maxDuration)) {
      violations.push({ field: 'latest_stop', message: `must not be before earliest_start + ${input.min_duration === undefined ? 'max_duration' : 'min_duration'}` });
    } else if (latestStop > latestStart + maxDuration) {
      violations.push({ field: 'latest_stop', message: `must not be after ${input.latest_start === undefined ? 'earliest_start' : 'latest_start'} + max_duration` });
    }
  }
  return violations;
}

function locationViolations(input: AvailabilityFields): Violation[] {
  const violations = [
    ...(input.start_location === undefined ? [] : startLocationViolations(input.start_location, 'start_location')),
    ...(input.end_location === undefined ? [] : endLocationViolations(input.end_location, 'end_location')),
  ];
  // home_base_id is the deprecated form of start_location.home_base: one way of saying where to start
  if (input.home_base_id !== undefined && choosesStart(input.start_location)) {
    violations.push({ field: 'home_base_id', message: 'must not be given together with a start_location (use start_location.home_base)' });
  }
  return violations;
}
