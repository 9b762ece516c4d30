import { eventSubject, serviceStream } from '@rm/contracts';

/** What the employees service publishes. It consumes nothing yet. */
export const SERVICE_NAME = 'employees';

/** `RM_EMPLOYEES` over `rm.employees.>`. */
export const EMPLOYEES_STREAM = serviceStream(SERVICE_NAME);

export const EMPLOYEE_EVENTS = {
  created: eventSubject(SERVICE_NAME, 'employee', 'created'),
  updated: eventSubject(SERVICE_NAME, 'employee', 'updated'),
  deleted: eventSubject(SERVICE_NAME, 'employee', 'deleted'),
} as const;
