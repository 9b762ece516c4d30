import { parseDuration, toUtcDateTime, type ActualFields, type ActualInput, type FieldsDecision, type Violation } from '@rm/contracts';

/**
 * The rules of an actual that its schema cannot say (spec rule 10, DESIGN §8): it describes a
 * completed shift, so `start` and `end` are not in the future; `end` is after `start`; `work_time` is
 * strictly positive and at most `end − start`. Date-times are stored in UTC; read-only fields go.
 */
export function decideActual(input: ActualInput, now: Date): FieldsDecision<ActualFields> {
  const violations = actualViolations(input, now.getTime());
  if (violations.length > 0) return { ok: false, violations };
  const { start, end, work_time } = input;
  return { ok: true, fields: { start: toUtcDateTime(start), ...(end === undefined ? {} : { end: toUtcDateTime(end) }), work_time } };
}

function actualViolations({ start, end, work_time }: ActualInput, now: number): Violation[] {
  const violations: Violation[] = [];
  const startsAt = Date.parse(start);
  const endsAt = end === undefined ? undefined : Date.parse(end);
  const worked = parseDuration(work_time) ?? 0;
  const future = 'must not be in the future: an actual describes a completed shift';
  if (startsAt > now) violations.push({ field: 'start', message: future });
  if (endsAt !== undefined && endsAt > now) violations.push({ field: 'end', message: future });
  if (endsAt !== undefined && endsAt <= startsAt) violations.push({ field: 'end', message: 'must be after start' });
  if (worked <= 0) violations.push({ field: 'work_time', message: 'must be strictly positive' });
  else if (endsAt !== undefined && endsAt > startsAt && worked > endsAt - startsAt) {
    violations.push({ field: 'work_time', message: 'must be at most end − start' });
  }
  return violations;
}
