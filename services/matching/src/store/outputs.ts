import {
  AVAILABLE_EMPLOYEE_EVENTS,
  RESOURCE_COMBINATION_EVENTS,
  type AvailableEmployee,
  type ResourceCombination,
} from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export type AvailableEmployeeFields = Omit<AvailableEmployee, 'id' | 'version'>;
export type CombinationFields = Omit<ResourceCombination, 'id' | 'version'>;

/** What the engine derives and publishes (it alone writes them, and publishes their events itself), both keyed by the availability's id. */
export interface Outputs {
  availableEmployees: ResourceCollection<AvailableEmployeeFields>;
  combinations: ResourceCollection<CombinationFields>;
}

/**
 * Both lists are filtered by employee, time (the shift window) and transport resource: a combination's,
 * or a snapshot's linked one.
 */
const byShift = (body: { employee_id: string; shift: { start: string; end: string } }, transportResourceIds: readonly string[]) => ({
  employee_id: body.employee_id,
  span: { start: new Date(body.shift.start), end: new Date(body.shift.end) },
  transport_resource_ids: transportResourceIds,
});
const indexes = { employee: ['employee_id'], span: ['span.end', 'span.start'], transport_resource: ['transport_resource_ids'] };

export function createOutputs(store: Store): Outputs {
  return {
    availableEmployees: store.collection<AvailableEmployeeFields>({
      name: 'available_employees',
      events: AVAILABLE_EMPLOYEE_EVENTS,
      represent: toAvailableEmployee,
      indexed: (body) => byShift(body, body.linked_transport_resource === undefined ? [] : [body.linked_transport_resource]),
      indexes,
      publishedBy: 'writer',
    }),
    combinations: store.collection<CombinationFields>({
      name: 'resource_combinations',
      events: RESOURCE_COMBINATION_EVENTS,
      represent: toResourceCombination,
      indexed: (body) => byShift(body, body.transport_resource_ids),
      indexes,
      publishedBy: 'writer',
    }),
  };
}

export function toAvailableEmployee(resource: Resource<AvailableEmployeeFields>): AvailableEmployee {
  return { id: resource.key, ...resource.body, version: resource.version };
}

export function toResourceCombination(resource: Resource<CombinationFields>): ResourceCombination {
  return { id: resource.key, ...resource.body, version: resource.version };
}
