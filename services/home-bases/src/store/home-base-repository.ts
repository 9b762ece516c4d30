import { HOME_BASE_EVENTS, type HomeBase, type HomeBaseFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export type HomeBaseRepository = ResourceCollection<HomeBaseFields>;

/** Home bases of every tenant, keyed by their business id; each write carries its event. */
export function createHomeBaseRepository(store: Store): HomeBaseRepository {
  return store.collection<HomeBaseFields>({ name: 'home_bases', events: HOME_BASE_EVENTS, represent: toHomeBase });
}

/** The API representation, which is also the data of its events (the removed state for a delete). */
export function toHomeBase(resource: Resource<HomeBaseFields>): HomeBase {
  return { business_id: resource.key, ...resource.body, version: resource.version };
}
