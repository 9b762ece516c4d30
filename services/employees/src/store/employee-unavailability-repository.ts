import { EMPLOYEE_UNAVAILABILITY_EVENTS, type EmployeeUnavailability, type EmployeeUnavailabilityFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';
import { EMPLOYEE_PARENT } from './employee-parent.js';

export type EmployeeUnavailabilityRepository = ResourceCollection<EmployeeUnavailabilityFields>;

/**
 * Unavailabilities of every employee under their employee; PUT may choose the id, so tombstones are
 * kept (a removed id that comes back continues its versions).
 */
export function createEmployeeUnavailabilityRepository(store: Store): EmployeeUnavailabilityRepository {
  return store.collection<EmployeeUnavailabilityFields>({
    name: 'employee_unavailabilities',
    events: EMPLOYEE_UNAVAILABILITY_EVENTS,
    represent: toEmployeeUnavailability,
    parent: EMPLOYEE_PARENT,
    indexed: (unavailability) => ({ span: { start: new Date(unavailability.from), end: new Date(unavailability.to) } }),
    indexes: { span: ['span.end', 'span.start'] },
  });
}

export function toEmployeeUnavailability(resource: Resource<EmployeeUnavailabilityFields>): EmployeeUnavailability {
  return { id: resource.key, employee_id: resource.parent ?? '', ...resource.body, version: resource.version };
}
