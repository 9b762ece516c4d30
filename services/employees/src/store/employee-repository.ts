import type { Db } from 'mongodb';
import type { Employee, EmployeeFields } from '@rm/contracts';
import { createVersionedCollection, type DocumentLocks, type Resource, type VersionedCollection } from '@rm/store';
import { SERVICE_NAME } from '../events.js';

export const EMPLOYEES_COLLECTION = 'employees';

export type EmployeeRepository = VersionedCollection<EmployeeFields>;

/** Employees of every tenant, keyed by their business id; each write carries its event. */
export function createEmployeeRepository(
  db: Db,
  options: { locks: DocumentLocks; onWrite?: () => void },
): EmployeeRepository {
  return createVersionedCollection<EmployeeFields>(db, {
    name: EMPLOYEES_COLLECTION,
    service: SERVICE_NAME,
    entity: 'employee',
    eventData: toEmployee,
    deletedEventData: (_tenant, key) => ({ business_id: key }),
    locks: options.locks,
    onWrite: options.onWrite,
  });
}

/** The API representation, which is also the data of the employee's events. */
export function toEmployee(resource: Resource<EmployeeFields>): Employee {
  return { business_id: resource.key, ...resource.body, version: resource.version };
}
