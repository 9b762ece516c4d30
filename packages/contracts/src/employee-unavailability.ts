import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, DateTime, dateTimeWith, GeneratedId, Version } from './common.js';
import { entityEvents } from './events.js';
import { ReadOnly } from './shapes.js';

const unavailabilityFields = {
  from: DateTime,
  to: dateTimeWith('Strictly after from.'),
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'At most 1000 characters.' })),
};

/** Body of `POST /employee/{employee_id}/unavailability` and `PUT …/{unavailability_id}`. */
export const EmployeeUnavailabilityBody = Type.Object(
  { ...unavailabilityFields, id: Type.Optional(ReadOnly), employee_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);

export const EmployeeUnavailabilityFields = Type.Object(unavailabilityFields, { additionalProperties: false });
export type EmployeeUnavailabilityFields = Static<typeof EmployeeUnavailabilityFields>;

export const EmployeeUnavailability = Type.Object(
  { id: GeneratedId, employee_id: BusinessId, ...unavailabilityFields, version: Version },
  { additionalProperties: false },
);
export type EmployeeUnavailability = Static<typeof EmployeeUnavailability>;

export const EmployeeUnavailabilityList = Type.Array(EmployeeUnavailability, {
  description: 'Every unavailability of the employee that overlaps the range, with its version.',
});

/** `employee-unavailability.created`, `.updated`, `.deleted` on `rm.employees.<tenant>.employee-unavailability.*`. */
export const EMPLOYEE_UNAVAILABILITY_EVENTS = entityEvents('employees', 'employee-unavailability', EmployeeUnavailability);
