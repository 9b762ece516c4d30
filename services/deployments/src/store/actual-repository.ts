import { ACTUAL_EVENTS, type Actual, type ActualFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export type ActualRepository = ResourceCollection<ActualFields>;

/** Actuals of every tenant, per employee (`parent`), keyed by their business id; each write carries its event. */
export function createActualRepository(store: Store): ActualRepository {
  return store.collection<ActualFields>({ name: 'actuals', events: ACTUAL_EVENTS, represent: toActual, scopedByParent: true });
}

/** The API representation, also the data of its events. */
export function toActual(resource: Resource<ActualFields>): Actual {
  return { employee_id: resource.parent ?? '', business_id: resource.key, ...resource.body, version: resource.version };
}
