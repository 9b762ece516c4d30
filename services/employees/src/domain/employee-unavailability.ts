import { toUtcDateTime, type EmployeeUnavailabilityFields, type Violation } from '@rm/contracts';
import { withoutReadOnly, type SubResourceInput } from './sub-resource-input.js';

export type EmployeeUnavailabilityInput = SubResourceInput<EmployeeUnavailabilityFields>;

export type EmployeeUnavailabilityDecision =
  | { ok: true; unavailability: EmployeeUnavailabilityFields }
  | { ok: false; violations: Violation[] };

/** `to` after `from` (DESIGN §8, as for transport resources); the stored form has UTC date-times. */
export function decideEmployeeUnavailability(input: EmployeeUnavailabilityInput): EmployeeUnavailabilityDecision {
  if (!(Date.parse(input.to) > Date.parse(input.from))) return { ok: false, violations: [{ field: 'to', message: 'must be after from' }] };
  const fields = withoutReadOnly(input);
  return { ok: true, unavailability: { ...fields, from: toUtcDateTime(fields.from), to: toUtcDateTime(fields.to) } };
}
