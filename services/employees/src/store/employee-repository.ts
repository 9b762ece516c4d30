import { EMPLOYEE_EVENTS, type Employee, type EmployeeFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export const EMPLOYEES_COLLECTION = 'employees';

export type EmployeeRepository = ResourceCollection<EmployeeFields>;

/** Employees of every tenant, keyed by their business id; each write carries its event. */
export function createEmployeeRepository(store: Store): EmployeeRepository {
  return store.collection<EmployeeFields>({ name: EMPLOYEES_COLLECTION, events: EMPLOYEE_EVENTS, represent: toEmployee });
}

/** The API representation, which is also the data of the employee's events (the removed state for a delete). */
export function toEmployee(resource: Resource<EmployeeFields>): Employee {
  return { business_id: resource.key, ...resource.body, version: resource.version };
}
