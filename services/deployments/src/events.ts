import { ACTUAL_EVENTS, EMPLOYEE_EVENTS, TRANSPORT_RESOURCE_EVENTS, type EntityEvents } from '@rm/contracts';
import type { ConsumerDefinition } from '@rm/runtime';
import type { ActualRepository } from './store/actual-repository.js';
import type { KnownResources } from './store/known-resources.js';

/**
 * What the deployments service publishes, on its stream `RM_DEPLOYMENTS`:
 * `rm.deployments.<tenant>.actual.<created|updated|deleted>` (ACTUAL_EVENTS).
 */
export const SERVICE_NAME = ACTUAL_EVENTS.service;

export interface ConsumerParts {
  known: KnownResources;
  actuals: ActualRepository;
}

/**
 * What it consumes: the employees' and transport resources' events, to know which exist, and to
 * remove what depends on one that is deleted (our decision, README): an employee's actuals.
 */
export function ownerConsumers({ known, actuals }: ConsumerParts): ConsumerDefinition[] {
  return [
    knownResourceConsumer('deployments-known-employees', EMPLOYEE_EVENTS, known, async (tenant, employeeId) => {
      await actuals.removeMany({ tenant, parent: employeeId });
    }),
    knownResourceConsumer('deployments-known-transport-resources', TRANSPORT_RESOURCE_EVENTS, known, async () => undefined),
  ];
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
    async handle(event) {
      await known.apply(event, entities.entity);
      // recorded first, removed after: see KnownResources. Again on a redelivery: the first may have stopped half way.
      if (event.type.endsWith('.deleted')) await removeDependents(event.tenant, event.entity_id);
    },
  };
}
