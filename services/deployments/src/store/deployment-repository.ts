import { DEPLOYMENT_EVENTS, type Deployment, type DeploymentFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';

export type DeploymentRepository = ResourceCollection<DeploymentFields>;

/** Deployments of every tenant, external and planning-bound, keyed by their id; each write carries its event. */
export function createDeploymentRepository(store: Store): DeploymentRepository {
  return store.collection<DeploymentFields>({
    name: 'deployments',
    events: DEPLOYMENT_EVENTS,
    represent: toDeployment,
    // what the removals after an employee's or a transport resource's delete look for
    indexed: (deployment) => ({ employee_id: deployment.employee_id, transport_resource_ids: deployment.transport_resource_ids }),
    indexes: { employee: ['employee_id'], transport_resources: ['transport_resource_ids'] },
  });
}

/** The API representation, also the data of its events. */
export function toDeployment(resource: Resource<DeploymentFields>): Deployment {
  return { id: resource.key, ...resource.body, version: resource.version };
}
