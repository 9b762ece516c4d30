import { ACTUAL_EVENTS } from './actual.js';
import { AVAILABILITY_EVENTS } from './availability.js';
import type { Violation } from './common.js';
import { DEPLOYMENT_EVENTS } from './deployment.js';
import { EMPLOYEE_UNAVAILABILITY } from './employee-unavailability.js';
import { EMPLOYEE_EVENTS } from './employee.js';
import { serviceStream, type EntityEvents } from './events.js';
import { FORECAST_EVENTS } from './forecast.js';
import { HOME_BASE_EVENTS } from './home-base.js';
import { AVAILABLE_EMPLOYEE_EVENTS, RESOURCE_COMBINATION_EVENTS } from './matching.js';
import { SHIFT_SCHEDULE_EVENTS } from './shift-schedule.js';
import { TRANSPORT_RESOURCE_EVENTS, TRANSPORT_RESOURCE_UNAVAILABILITY } from './transport-resource.js';

/**
 * Every entity the API exposes, whose events the change feed and webhooks carry: their data is the
 * resource as GET shows it. Events of anything else on these streams (none today) stay inside.
 */
export const EXPOSED_EVENTS: readonly EntityEvents[] = [
  EMPLOYEE_EVENTS,
  SHIFT_SCHEDULE_EVENTS,
  AVAILABILITY_EVENTS,
  EMPLOYEE_UNAVAILABILITY.events,
  TRANSPORT_RESOURCE_EVENTS,
  TRANSPORT_RESOURCE_UNAVAILABILITY.events,
  HOME_BASE_EVENTS,
  FORECAST_EVENTS,
  DEPLOYMENT_EVENTS,
  ACTUAL_EVENTS,
  AVAILABLE_EMPLOYEE_EVENTS,
  RESOURCE_COMBINATION_EVENTS,
];

export const EXPOSED_ENTITIES: readonly string[] = EXPOSED_EVENTS.map(({ entity }) => entity);

/** One publishing service's stream, and the subject that holds one tenant's events in it. */
export interface FeedStream {
  service: string;
  name: string;
}

/** The streams of the exposed events, in a fixed order: a feed position lists one sequence per stream in this order. */
export const FEED_STREAMS: readonly FeedStream[] = [...new Set(EXPOSED_EVENTS.map(({ service }) => service))].map((service) => ({
  service,
  name: serviceStream(service).name,
}));

export function tenantSubject(stream: FeedStream, tenant: string): string {
  return `rm.${stream.service}.${tenant}.>`;
}

/** `rm.<service>.<tenant>.<entity>.<action>` (DESIGN §5) read back; undefined for a subject of another shape. */
export function parseEventSubject(subject: string): { tenant: string; entity: string; action: string } | undefined {
  const tokens = subject.split('.');
  if (tokens.length !== 5 || tokens[0] !== 'rm') return undefined;
  return { tenant: tokens[2]!, entity: tokens[3]!, action: tokens[4]! };
}

const ACTIONS = ['created', 'updated', 'deleted'];

/** Which event types a caller asked for (`?types=`); every exposed one when it asked for none. */
export type TypeFilter = (entity: string, action: string) => boolean;

/**
 * `?types=employee.*,resource-combination.created`: comma-separated `<entity>.<action>` or `<entity>.*`
 * of exposed entities. Every pattern that names nothing is a violation, so that a typo is not silence.
 */
export function parseTypeFilter(types: string | undefined): { ok: true; filter: TypeFilter } | { ok: false; violations: Violation[] } {
  const exposed: TypeFilter = (entity) => EXPOSED_ENTITIES.includes(entity);
  if (types === undefined || types.trim() === '') return { ok: true, filter: exposed };
  const wanted = new Set<string>();
  const violations: Violation[] = [];
  for (const pattern of types.split(',').map((part) => part.trim())) {
    const dot = pattern.lastIndexOf('.');
    const entity = pattern.slice(0, dot);
    const action = pattern.slice(dot + 1);
    if (dot < 0 || !EXPOSED_ENTITIES.includes(entity) || !(action === '*' || ACTIONS.includes(action))) {
      violations.push({
        field: 'types',
        message: `"${pattern}" is not <entity>.<created|updated|deleted|*> of one of: ${EXPOSED_ENTITIES.join(', ')}`,
      });
      continue;
    }
    for (const each of action === '*' ? ACTIONS : [action]) wanted.add(`${entity}.${each}`);
  }
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, filter: (entity, action) => wanted.has(`${entity}.${action}`) };
}
