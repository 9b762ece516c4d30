import {
  AVAILABILITY_EVENTS,
  EMPLOYEE_EVENTS,
  entityOfType,
  HOME_BASE_EVENTS,
  homeBaseReferences,
  SHIFT_SCHEDULE_EVENTS,
  TRANSPORT_RESOURCE_EVENTS,
  type EventEnvelope,
} from '@rm/contracts';
import type { ConsumerDefinition } from '@rm/runtime';
import type { ReferenceIndex } from './store/reference-index.js';

/**
 * What the home-bases service publishes, on its stream `RM_HOME_BASES`:
 * `rm.home-bases.<tenant>.home-base.<created|updated|deleted>` (HOME_BASE_EVENTS: the home base as GET
 * shows it, address included, for consumers that hold a copy) and `….forecast.<…>` (FORECAST_EVENTS, see
 * forecast-repository).
 */
export const SERVICE_NAME = HOME_BASE_EVENTS.service;

/**
 * What it consumes: the events of every entity that can name a home base, into the reference index
 * that a home-base delete consults. Deployments join when that service exists (issue 10).
 */
export function referenceConsumers(references: ReferenceIndex): ConsumerDefinition[] {
  const handle = async (event: EventEnvelope): Promise<void> => {
    const named = event.type.endsWith('.deleted') ? [] : homeBaseReferences(event.data).map((reference) => reference.business_id);
    await references.apply(event.tenant, { entity: entityOfType(event.type), id: event.entity_id }, event.version, named, new Date(event.occurred_at));
  };
  return [
    { durable: 'home-bases-references-employees', entities: [EMPLOYEE_EVENTS, AVAILABILITY_EVENTS, SHIFT_SCHEDULE_EVENTS], handle },
    { durable: 'home-bases-references-transport-resources', entities: [TRANSPORT_RESOURCE_EVENTS], handle },
  ];
}
