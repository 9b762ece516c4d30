import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import {
  createEventValidator,
  eventSubject,
  eventType,
  PLANNED_ROUTE_EVENTS,
  type EventEnvelope,
  type PlannedDeployment,
  type ReleasedRoute,
} from '@rm/contracts';

/** A message of the planning platform, ready to publish. */
export interface PlanningMessage {
  subject: string;
  event: EventEnvelope<ReleasedRoute>;
}

const validate = createEventValidator([PLANNED_ROUTE_EVENTS]);

/**
 * A release (every deployment of the planning_id) or, without deployments, an unrelease, at
 * `revision`: the later revision of a route wins, whatever order the messages arrive in.
 */
export function planningMessage(
  tenant: string,
  planningId: string,
  revision: number,
  deployments: readonly PlannedDeployment[] | 'unreleased',
): PlanningMessage {
  const action = deployments === 'unreleased' ? 'deleted' : 'updated';
  const event: EventEnvelope<ReleasedRoute> = {
    id: randomUUID(),
    type: eventType(PLANNED_ROUTE_EVENTS.entity, action),
    tenant,
    entity_id: planningId,
    version: revision,
    occurred_at: new Date().toISOString(),
    data: { planning_id: planningId, deployments: deployments === 'unreleased' ? [] : [...deployments] },
  };
  const checked = validate(event);
  if (!checked.ok) throw new TypeError(`not a valid planning message: ${checked.reason}`);
  return { subject: eventSubject(PLANNED_ROUTE_EVENTS, tenant, action), event };
}

/** Publishes it on `RM_PLANNING` (declared by whoever consumes or publishes first), deduplicated by its id. */
export async function publishPlanningMessage(js: JetStreamClient, { subject, event }: PlanningMessage): Promise<void> {
  await js.publish(subject, JSON.stringify(event), { msgID: event.id });
}
