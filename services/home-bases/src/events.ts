import {
  AVAILABILITY_EVENTS,
  DEPLOYMENT_EVENTS,
  EMPLOYEE_EVENTS,
  entityOfType,
  HOME_BASE_EVENTS,
  homeBaseReferences,
  SHIFT_SCHEDULE_EVENTS,
  TRANSPORT_RESOURCE_EVENTS,
  type EntityEvents,
} from '@rm/contracts';
import type { ConsumerDefinition } from '@rm/runtime';
import type { Logger } from '@rm/service-kit';
import { CLAIM_DEADLINE_MS, type ReferenceIndex } from './store/reference-index.js';

/**
 * What the home-bases service publishes, on its stream `RM_HOME_BASES`:
 * `rm.home-bases.<tenant>.home-base.<created|updated|deleted>` (HOME_BASE_EVENTS: the home base as GET
 * shows it, address included, for consumers that hold a copy) and `….forecast.<…>` (FORECAST_EVENTS, see
 * forecast-repository).
 */
export const SERVICE_NAME = HOME_BASE_EVENTS.service;

/**
 * What it consumes: the events of every entity that can name a home base (employees, availabilities,
 * shift schedules, transport resources, deployments' start locations), into the reference index that
 * a home-base delete consults.
 */
export function referenceConsumers(references: ReferenceIndex, logger: Logger): ConsumerDefinition[] {
  return [
    referenceConsumer('home-bases-references-employees', [EMPLOYEE_EVENTS, AVAILABILITY_EVENTS, SHIFT_SCHEDULE_EVENTS], references, logger),
    referenceConsumer('home-bases-references-transport-resources', [TRANSPORT_RESOURCE_EVENTS], references, logger),
    referenceConsumer('home-bases-references-deployments', [DEPLOYMENT_EVENTS], references, logger),
  ];
}

/** Between two sweeps of a publisher's stale claims. */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * Applies each event to the index; and as the publisher's stream moves on, drops its referrers'
 * claims that are still there CLAIM_DEADLINE_MS before the event (never settled, or settled with a
 * version that never came).
 */
function referenceConsumer(durable: string, entities: EntityEvents[], references: ReferenceIndex, logger: Logger): ConsumerDefinition {
  const names = entities.map((entity) => entity.entity);
  let sweptAt = 0;
  const sweepDue = () => Date.now() - sweptAt >= SWEEP_INTERVAL_MS;
  return {
    durable,
    entities,
    // A first version that names no home base, as most creates are, is nothing to the index whenever it
    // comes: its referrer has no row yet, and a claim of a later write goes with that write's own event.
    // So a bulk load's events cost no ledger statements here, but for the batches read while a claim
    // sweep is due (every 30 s), which go through whole. This holds because a claim names the home bases
    // of its write's body, which its event carries: a version that names none settles no claim.
    ignores: (event) => !sweepDue() && event.version === 1 && !event.type.endsWith('.deleted') && homeBaseReferences(event.data).length === 0,
    async handle(event) {
      const named = event.type.endsWith('.deleted') ? [] : homeBaseReferences(event.data).map((reference) => reference.business_id);
      await references.apply(event.tenant, { entity: entityOfType(event.type), id: event.entity_id }, event.version, named);
      if (!sweepDue()) return;
      sweptAt = Date.now();
      const dropped = await references.dropStaleClaims(names, new Date(Date.parse(event.occurred_at) - CLAIM_DEADLINE_MS));
      if (dropped > 0) logger.warn({ dropped, durable }, 'dropped home-base claims whose event never came');
    },
  };
}
