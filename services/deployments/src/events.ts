import {
  ACTUAL_EVENTS,
  EMPLOYEE_EVENTS,
  PLANNED_ROUTE_EVENTS,
  toUtcDateTime,
  TRANSPORT_RESOURCE_EVENTS,
  type DeploymentFields,
  type EntityEvents,
  type PlannedDeployment,
  type ReleasedRoute,
} from '@rm/contracts';
import type { ConsumerDefinition } from '@rm/runtime';
import { ignoreNotFound, type IndexedFilter } from '@rm/store';
import type { DeploymentWriter } from './coordination/deployment-writer.js';
import type { ActualRepository } from './store/actual-repository.js';
import type { DeploymentRepository } from './store/deployment-repository.js';
import type { KnownResources } from './store/known-resources.js';

/**
 * What the deployments service publishes, on its stream `RM_DEPLOYMENTS`:
 * `rm.deployments.<tenant>.deployment.<created|updated|deleted>` (DEPLOYMENT_EVENTS) and
 * `rm.deployments.<tenant>.actual.<…>` (ACTUAL_EVENTS).
 */
export const SERVICE_NAME = ACTUAL_EVENTS.service;

export interface ConsumerParts {
  known: KnownResources;
  actuals: ActualRepository;
  deployments: DeploymentRepository;
  writer: DeploymentWriter;
}

/**
 * What it consumes: the employees' and transport resources' events, to know which exist, and to
 * remove what depends on one that is deleted (our decision, README): an employee's actuals and
 * external deployments; a transport resource's external deployments. Planning-bound ones stay (spec:
 * deployed combinations are not removed).
 */
export function ownerConsumers({ known, actuals, deployments, writer }: ConsumerParts): ConsumerDefinition[] {
  /** Removes the external deployments that match, each through the writer (its calendars follow). */
  async function removeExternal(tenant: string, where: IndexedFilter): Promise<void> {
    for (const deployment of await deployments.find({ tenant }, where)) {
      if (deployment.body.planning_id !== undefined) continue;
      await writer.remove({ tenant, key: deployment.key }, {}).catch(ignoreNotFound);
    }
  }
  return [
    knownResourceConsumer('deployments-known-employees', EMPLOYEE_EVENTS, known, async (tenant, employeeId) => {
      await actuals.removeMany({ tenant, parent: employeeId });
      await removeExternal(tenant, { employee_id: employeeId });
    }),
    knownResourceConsumer('deployments-known-transport-resources', TRANSPORT_RESOURCE_EVENTS, known, (tenant, id) =>
      removeExternal(tenant, { transport_resource_ids: id }),
    ),
  ];
}

/**
 * The planning platform's releases and unreleases (PLANNED_ROUTE_EVENTS): the deployments of a
 * planning_id become exactly those of its latest release, or none once unreleased. The runner applies
 * a route's messages in revision order and skips older ones; applying one twice changes nothing.
 */
export function plannedRouteConsumer({ deployments, writer }: Pick<ConsumerParts, 'deployments' | 'writer'>): ConsumerDefinition {
  return {
    durable: 'deployments-planned-routes',
    entities: [PLANNED_ROUTE_EVENTS],
    async handle(event) {
      const { tenant, entity_id: planningId } = event;
      const wanted = event.type.endsWith('.deleted') ? [] : (event.data as ReleasedRoute).deployments;
      const kept = new Set(wanted.map((deployment) => deployment.id));
      for (const stale of await deployments.find({ tenant }, { planning_id: planningId })) {
        if (!kept.has(stale.key)) await writer.removePlanned({ tenant, key: stale.key });
      }
      for (const deployment of wanted) await writer.putPlanned({ tenant, key: deployment.id }, plannedFields(deployment, planningId));
    },
  };
}

/** A released route's deployment as it is stored: date-times in UTC, bound to its planning_id. */
function plannedFields({ id: _id, start, end, ...fields }: PlannedDeployment, planningId: string): DeploymentFields {
  return {
    ...fields,
    start: { ...start, at: toUtcDateTime(start.at) },
    end: { at: toUtcDateTime(end.at) },
    planning_id: planningId,
  };
}

/** Records each event of `entities`; after a delete, removes what depended on the resource. */
function knownResourceConsumer(
  durable: string,
  entities: EntityEvents,
  known: KnownResources,
  removeDependents: (tenant: string, id: string) => Promise<void>,
): ConsumerDefinition {
  return {
    durable,
    entities: [entities],
    // No ledger, whose read and upsert per event were a seventh of a bulk load's row operations
    // (bench/README.md): KnownResources keeps each resource's version (an older event never lands on a
    // newer one), and a delete handled again removes what a first delivery would, nothing more (writes
    // naming the resource were refused meanwhile; one that learns from the owner that it is back while
    // the removal runs is the race a first delivery has too)
    versions: 'handler',
    async handle(event) {
      await known.apply(event, entities.entity);
      if (!event.type.endsWith('.deleted')) return;
      // Recorded first, removed after: see KnownResources. Again on a redelivery: the first may have
      // stopped half way. Not when a write has since learnt from the owner that it exists again (a
      // newer version, ResourceChecks): what names it now names the new one.
      const stillDeleted = (await known.missingHere(event.tenant, entities.entity, [event.entity_id])).size === 1;
      if (stillDeleted) await removeDependents(event.tenant, event.entity_id);
    },
  };
}
