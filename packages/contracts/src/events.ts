import { Type, type Static } from '@sinclair/typebox';

/**
 * Envelope of every event (DESIGN §5). `id` is also the `Nats-Msg-Id`; `data` is the whole new
 * state, or the key for a delete. `version` is the entity version the event brings it to.
 */
export const EventEnvelope = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ pattern: '^[a-z][a-z0-9-]*\\.[a-z][a-z0-9-]*$' }),
  tenant: Type.String({ minLength: 1 }),
  entity_id: Type.String({ minLength: 1 }),
  version: Type.Integer({ minimum: 1 }),
  occurred_at: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});
export type EventEnvelope<Data = Record<string, unknown>> = Omit<Static<typeof EventEnvelope>, 'data'> & { data: Data };

/**
 * An event waiting in a document's embedded `outbox` array, with the subject it goes out on.
 * The outbox relay publishes entries in array order and pops each one after its PubAck.
 */
export type OutboxEntry = EventEnvelope & { subject: string };

/** A stored document's waiting events, oldest first, as the outbox relay gets them. */
export interface PendingEvents {
  collection: string;
  documentId: string;
  events: OutboxEntry[];
}

/**
 * The outbox as the relay (@rm/bus) sees it; the store (@rm/store), which writes the events, reads
 * and clears them too, so the document format is known in one place.
 */
export interface OutboxSource {
  /** Tidies what a crash may have left half done; runs before the first sweep. */
  recover(): Promise<void>;
  /** Every document with waiting events. */
  pending(): AsyncIterable<PendingEvents>;
  /** Clears a published event; only the oldest can go, so events leave in version order. */
  markPublished(pending: PendingEvents, eventId: string): Promise<void>;
}

/** Field of a stored document that holds its unpublished events; absent when none wait. */
export const OUTBOX_FIELD = 'outbox';

export type EventAction = 'created' | 'updated' | 'deleted';

/** `rm.<service>.<entity>.<action>` (DESIGN §5). */
export function eventSubject(service: string, entity: string, action: EventAction): string {
  return `rm.${service}.${entity}.${action}`;
}

/** Stream that holds every event one service publishes: `RM_<SERVICE>` over `rm.<service>.>`. */
export function serviceStream(service: string): { name: string; subjects: string[] } {
  return { name: `RM_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, subjects: [`rm.${service}.>`] };
}
