import { DEPLOYMENT_EVENTS, type Deployment, type DeploymentFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export type DeploymentRepository = ResourceCollection<DeploymentFields>;

/** Deployments of every tenant, external and planning-bound, keyed by their id; each write carries its event. */
export function createDeploymentRepository(store: Store): DeploymentRepository {
  return store.collection<DeploymentFields>({
    name: 'deployments',
    events: DEPLOYMENT_EVENTS,
    represent: toDeployment,
    // what the removals after an employee's or a transport resource's delete, and a release, look for
    indexed: ({ employee_id, transport_resource_ids, planning_id }) => ({ employee_id, transport_resource_ids, planning_id: planning_id ?? null }),
    indexes: { employee: ['employee_id'], transport_resources: ['transport_resource_ids'], planning: ['planning_id'] },
  });
}

/** The API representation, also the data of its events. */
export function toDeployment(resource: Resource<DeploymentFields>): Deployment {
  return { id: resource.key, ...resource.body, version: resource.version };
}
