import { EMPLOYEE_EVENTS } from '@rm/contracts';

export const EMPLOYEES_COLLECTION = 'employees';

/** The parent of every sub-resource of an employee: written only while the employee is there, removed with it. */
export const EMPLOYEE_PARENT = { collection: EMPLOYEES_COLLECTION, entity: EMPLOYEE_EVENTS.entity };
