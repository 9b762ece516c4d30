import { AVAILABILITY_EVENTS, type Availability, type AvailabilityFields } from '@rm/contracts';
import type { GuardDefinition, Resource, ResourceCollection, Store } from '@rm/store';
import { availabilitySpan, type Span } from '../domain/availability.js';
import { EMPLOYEE_PARENT } from './employee-parent.js';

export type AvailabilityRepository = ResourceCollection<AvailabilityFields>;

/**
 * No two availabilities of an employee overlap (spec rule 1). The guard of the employee holds the span
 * of each of its availabilities, so the write that commits one holds the spans it was checked on.
 */
const noOverlappingAvailabilities: GuardDefinition<AvailabilityFields, Span> = {
  summarize: availabilitySpan,
  conflictOf: (candidate, others) => others.find(({ summary }) => summary.start < candidate.end && summary.end > candidate.start)?.key,
  conflictMessage: (key) => `the availability overlaps availability '${key}' of the employee`,
};

/** Availabilities of every employee, keyed by a generated id under their employee; each write carries its event. */
export function createAvailabilityRepository(store: Store): AvailabilityRepository {
  return store.collection<AvailabilityFields>({
    name: 'availabilities',
    events: AVAILABILITY_EVENTS,
    represent: toAvailability,
    parent: EMPLOYEE_PARENT,
    guard: noOverlappingAvailabilities,
    // spans for the lists and bulk deletes by range (spec rule 2)
    indexed: (availability) => ({ span: availabilitySpan(availability) }),
    indexes: { span: ['span.end', 'span.start'] },
    // generated ids that PUT only updates: a removed id never comes back
    tombstones: 'purge',
  });
}

/** The API representation, which is also the data of the availability's events. */
export function toAvailability(resource: Resource<AvailabilityFields>): Availability {
  return { id: resource.key, employee_id: resource.parent ?? '', ...resource.body, version: resource.version };
}
