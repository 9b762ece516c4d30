import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TenantId } from './tenant.js';

/**
 * Envelope of every event (DESIGN §5). `id` is also the `Nats-Msg-Id`; `version` is the entity
 * version the event brings it to; `data` is the entity's state after a create or update, and the
 * state it had when removed for a delete (see EntityEvents).
 */
export const EventEnvelope = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ pattern: '^[a-z][a-z0-9-]*\\.(created|updated|deleted)$' }),
  tenant: TenantId,
  /** The key, or `<parent>/<key>` for a sub-resource: two business ids of up to 512 characters and a slash. */
  entity_id: Type.String({ minLength: 1, maxLength: 1025 }),
  version: Type.Integer({ minimum: 1 }),
  occurred_at: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});
export type EventEnvelope<Data = Record<string, unknown>> = Omit<Static<typeof EventEnvelope>, 'data'> & { data: Data };

export type EventAction = 'created' | 'updated' | 'deleted';

/**
 * The event contract of one entity: who publishes it, and the schema of `data` in each of its events
 * (`<entity>.created`, `.updated`, `.deleted`). A delete carries the removed state, parent included,
 * so that a consumer can drop what it derived from it without having kept a copy.
 */
export interface EntityEvents<State extends TSchema = TSchema> {
  service: string;
  entity: string;
  state: State;
}

export function entityEvents<State extends TSchema>(service: string, entity: string, state: State): EntityEvents<State> {
  return { service, entity, state };
}

/** `<entity>.<action>`, the envelope's `type`. */
export function eventType(entity: string, action: EventAction): string {
  return `${entity}.${action}`;
}

/** The entity part of an event type: `employee.updated` → `employee`. */
export function entityOfType(type: string): string {
  return type.slice(0, type.lastIndexOf('.'));
}

/**
 * `rm.<service>.<tenant>.<entity>.<action>` (DESIGN §5): the tenant is a subject token, so that a
 * consumer can later be split across replicas by tenant.
 */
export function eventSubject(events: EntityEvents, tenant: string, action: EventAction): string {
  return `rm.${events.service}.${tenant}.${events.entity}.${action}`;
}

/** The subjects of every event of an entity, of every tenant: a consumer's filter. */
export function entitySubjects(events: EntityEvents): string {
  return `rm.${events.service}.*.${events.entity}.*`;
}

// named where the NATS users' grants are, which name the streams too
export { serviceStream } from '@rm/nats-access';
