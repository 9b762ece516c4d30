import { toUtcDateTime, type EmployeeUnavailabilityFields, type Violation } from '@rm/contracts';

export type EmployeeUnavailabilityInput = EmployeeUnavailabilityFields & { id?: unknown; employee_id?: unknown; version?: unknown };

export type EmployeeUnavailabilityDecision =
  | { ok: true; unavailability: EmployeeUnavailabilityFields }
  | { ok: false; violations: Violation[] };

/** `to` after `from` (DESIGN §8, as for transport resources); the stored form has UTC date-times. */
export function decideEmployeeUnavailability(input: EmployeeUnavailabilityInput): EmployeeUnavailabilityDecision {
  if (!(Date.parse(input.to) > Date.parse(input.from))) return { ok: false, violations: [{ field: 'to', message: 'must be after from' }] };
  const { id: _id, employee_id: _employeeId, version: _version, ...fields } = input;
  return { ok: true, unavailability: { ...fields, from: toUtcDateTime(fields.from), to: toUtcDateTime(fields.to) } };
}
