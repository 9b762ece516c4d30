import { EMPLOYEE_EVENTS } from '@rm/contracts';

/**
 * What the employees service publishes, on its stream `RM_EMPLOYEES`: `employee.created`, `.updated`
 * and `.deleted` on `rm.employees.<tenant>.employee.<action>` (EMPLOYEE_EVENTS). It consumes nothing yet.
 */
export const SERVICE_NAME = EMPLOYEE_EVENTS.service;
