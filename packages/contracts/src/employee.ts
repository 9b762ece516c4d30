import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, GeneratedId, Version } from './common.js';
import { entityEvents } from './events.js';
import { Costs, HomeBaseRef, NamedAddress, ReadOnly, StringList } from './shapes.js';

const nullableName = Type.Optional(Type.Union([Type.String({ maxLength: 200, description: 'At most 200 characters.' }), Type.Null()]));

const employeeFields = {
  name: Type.Optional(
    Type.Object({ first_name: nullableName, last_name: nullableName }, { additionalProperties: false }),
  ),
  /** Skills that matter with a vehicle: they decide which transport resources the employee may drive. */
  driver_skills: Type.Optional(StringList),
  /** Skills of the person whatever the vehicle. */
  skills: Type.Optional(StringList),
  /** Exactly one of start_location and home_base (a domain rule). */
  start_location: Type.Optional(NamedAddress),
  home_base: Type.Optional(HomeBaseRef),
  /** The employee's fixed vehicle, preferred in matching. */
  linked_transport_resource: Type.Optional(BusinessId),
  labels: Type.Optional(StringList),
  costs: Type.Optional(Costs),
  route_settings: Type.Optional(
    Type.Object(
      {
        driving_speed_factor: Type.Optional(
          Type.Number({ minimum: 0.5, maximum: 2, description: 'Multiplies the planned driving times: 0.5 to 2.' }),
        ),
        max_stops_per_shift: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'A whole number from 1 to 10,000.' })),
      },
      { additionalProperties: false },
    ),
  ),
};

/** Body of `PUT /employee/{employee_id}`. */
export const EmployeeBody = Type.Object(
  { ...employeeFields, business_id: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);

/** What is stored and published: the body without its read-only fields. */
export const EmployeeFields = Type.Object(employeeFields, { additionalProperties: false });
export type EmployeeFields = Static<typeof EmployeeFields>;

export const Employee = Type.Object({ business_id: BusinessId, ...employeeFields, version: Version }, { additionalProperties: false });
export type Employee = Static<typeof Employee>;

/** `employee.created`, `.updated` and `.deleted` on `rm.employees.<tenant>.employee.*`: data is the employee as GET shows it. */
export const EMPLOYEE_EVENTS = entityEvents('employees', 'employee', Employee);

export const EmployeePage = Type.Object({
  employees: Type.Array(Employee, { description: 'At most `limit` employees (1 to 1000, default 100).' }),
  cursors: Cursors,
});
export type EmployeePage = Static<typeof EmployeePage>;

export const EmployeeParams = Type.Object({ employee_id: BusinessId }, { additionalProperties: false });
export type EmployeeParams = Static<typeof EmployeeParams>;

/** `/employee/{employee_id}/shift-schedule/{generated_id}` and `/employee/{employee_id}/availability/{generated_id}`. */
export const EmployeeItemParams = Type.Object({ employee_id: BusinessId, generated_id: GeneratedId }, { additionalProperties: false });
export type EmployeeItemParams = Static<typeof EmployeeItemParams>;

/** `/employee/{employee_id}/unavailability/{unavailability_id}`: generated, or chosen by the caller. */
export const EmployeeUnavailabilityParams = Type.Object(
  { employee_id: BusinessId, unavailability_id: GeneratedId },
  { additionalProperties: false },
);
export type EmployeeUnavailabilityParams = Static<typeof EmployeeUnavailabilityParams>;
