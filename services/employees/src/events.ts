import { EMPLOYEE_EVENTS } from '@rm/contracts';

/**
 * What the employees service publishes, on its stream `RM_EMPLOYEES`, on
 * `rm.employees.<tenant>.<entity>.<created|updated|deleted>`: `employee` (EMPLOYEE_EVENTS),
 * `shift-schedule`, `availability` and `employee-unavailability` (their events name the employee in
 * `entity_id`, `<employee_id>/<id>`). Deleting an employee publishes the deletion of each of its
 * sub-resources too. It consumes nothing.
 */
export const SERVICE_NAME = EMPLOYEE_EVENTS.service;
