import { TRANSPORT_RESOURCE_EVENTS, type TransportResource, type TransportResourceFields } from '@rm/contracts';
import type { CascadeTarget, Resource, ResourceCollection, Store } from '@rm/store';

export const TRANSPORT_RESOURCES_COLLECTION = 'transport_resources';

/** The parent of every unavailability of a transport resource: written only while it is there, removed with it. */
export const TRANSPORT_RESOURCE_PARENT = { collection: TRANSPORT_RESOURCES_COLLECTION, entity: TRANSPORT_RESOURCE_EVENTS.entity };

export type TransportResourceRepository = ResourceCollection<TransportResourceFields>;

/**
 * Transport resources of every tenant, keyed by their business id; each write carries its event.
 * Deleting one removes its unavailabilities (`subResources`), each with its own event, and finishes
 * after a crash.
 */
export function createTransportResourceRepository(store: Store, subResources: readonly CascadeTarget[]): TransportResourceRepository {
  return store.collection<TransportResourceFields>({
    name: TRANSPORT_RESOURCES_COLLECTION,
    events: TRANSPORT_RESOURCE_EVENTS,
    represent: toTransportResource,
    cascadeTo: subResources,
  });
}

/** The API representation, which is also the data of its events (the removed state for a delete). */
export function toTransportResource(resource: Resource<TransportResourceFields>): TransportResource {
  return { business_id: resource.key, ...resource.body, version: resource.version };
}
