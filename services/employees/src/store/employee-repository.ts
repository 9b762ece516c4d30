import { EMPLOYEE_EVENTS, type Employee, type EmployeeFields } from '@rm/contracts';
import type { CascadeTarget, Resource, ResourceCollection, Store } from '@rm/store';
import { EMPLOYEES_COLLECTION } from './employee-parent.js';

export type EmployeeRepository = ResourceCollection<EmployeeFields>;

/**
 * Employees of every tenant, keyed by their business id; each write carries its event. Deleting one
 * removes its sub-resources (`subResources`), each with its own event, and finishes after a crash.
 */
export function createEmployeeRepository(store: Store, subResources: readonly CascadeTarget[]): EmployeeRepository {
  return store.collection<EmployeeFields>({ name: EMPLOYEES_COLLECTION, events: EMPLOYEE_EVENTS, represent: toEmployee, cascadeTo: subResources });
}

/** The API representation, which is also the data of the employee's events (the removed state for a delete). */
export function toEmployee(resource: Resource<EmployeeFields>): Employee {
  return { business_id: resource.key, ...resource.body, version: resource.version };
}
