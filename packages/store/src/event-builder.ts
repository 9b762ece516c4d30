import { context, propagation } from '@opentelemetry/api';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import {
  eventSubject,
  eventType,
  type EntityEvents,
  type EventAction,
  type EventValidator,
  type OutboxEntry,
  type TraceHeaders,
} from '@rm/contracts';
import { entityId, type Resource } from './document.js';
import { EventTooLargeError, InvalidEventError } from './errors.js';

/** Bytes a published message takes beyond its JSON body: subject and headers (Nats-Msg-Id, traceparent, tracestate). */
const MESSAGE_OVERHEAD_BYTES = 1_024;

export interface EventBuilderOptions<Body> {
  events: EntityEvents;
  /** The event `data` of a resource: its representation, which names its parent. */
  represent(resource: Resource<Body>): Record<string, unknown>;
  validate: EventValidator;
  /** Largest message the stream and the server accept. */
  maxEventBytes: number;
  /**
   * 'random' (default): a fresh UUIDv7 per event. 'by-version': derived from tenant, entity, id and
   * version, so that the event of a write built again later is the same event, with the same Nats-Msg-Id.
   */
  ids?: 'random' | 'by-version';
}

/** Namespace of the by-version event ids (UUIDv5). */
const EVENT_ID_NAMESPACE = '0b8e1c7a-3f7e-4d55-9a43-5e0c6f2d9b10';

/** The event of a write: `resource` is the new state, or the removed one for a delete. */
export type EventBuilder<Body> = (resource: Resource<Body>, action: EventAction, version: number, at: Date) => OutboxEntry;

/**
 * Builds each event when it is written, checked against its contract and against the broker's
 * message limit: an event that could never be published is refused with its write (413), instead of
 * being found by the relay for ever after.
 */
export function createEventBuilder<Body>({ events, represent, validate, maxEventBytes, ids = 'random' }: EventBuilderOptions<Body>): EventBuilder<Body> {
  return (resource, action, version, at) => {
    const event = {
      id: ids === 'random' ? uuidv7() : uuidv5(`${resource.tenant}/${events.entity}/${entityId(resource)}/${version}`, EVENT_ID_NAMESPACE),
      type: eventType(events.entity, action),
      tenant: resource.tenant,
      entity_id: entityId(resource),
      version,
      occurred_at: at.toISOString(),
      data: represent(resource),
    };
    const check = validate(event);
    if (!check.ok) throw new InvalidEventError(check.reason);
    const bytes = Buffer.byteLength(JSON.stringify(event)) + MESSAGE_OVERHEAD_BYTES;
    if (bytes > maxEventBytes) throw new EventTooLargeError(events.entity, bytes, maxEventBytes);
    // the trace of the write (a request, a consumed event) goes on in the publish and the consumers
    const trace: TraceHeaders = {};
    propagation.inject(context.active(), trace);
    return { ...event, subject: eventSubject(events, resource.tenant, action), ...(Object.keys(trace).length === 0 ? {} : { trace }) };
  };
}
