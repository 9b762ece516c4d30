import { randomUUID } from 'node:crypto';
import type { ConsumerInfo, JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { eventSubject, OUTBOX_FIELD, type EventEnvelope } from '@rm/contracts';
import { createOutboxStore, createVersionedCollection, type DocumentLocks } from '@rm/store';
import type { Db } from 'mongodb';
import { pino, type Logger } from 'pino';
import { DEAD_LETTER_STREAM, deadLetterSubject, type DeadLetterRecord } from '../src/index.js';

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** An event of the `widget` entity of `service`, valid against the envelope contract. */
export function widgetEvent(
  service: string,
  entityId: string,
  version: number,
  action: 'created' | 'updated' | 'deleted' = 'updated',
): { subject: string; event: EventEnvelope } {
  return {
    subject: eventSubject(service, 'widget', action),
    event: {
      id: randomUUID(),
      type: `widget.${action}`,
      tenant: 'tenant-a',
      entity_id: entityId,
      version,
      occurred_at: new Date().toISOString(),
      data: { key: entityId, version },
    },
  };
}

export async function publishEvent(js: JetStreamClient, subject: string, event: EventEnvelope, msgID = event.id): Promise<void> {
  await js.publish(subject, JSON.stringify(event), { msgID });
}

/** The consumer has nothing left to deliver and nothing unacknowledged. */
export function consumerSettled(jsm: JetStreamManager, stream: string, durable: string): () => Promise<ConsumerInfo | undefined> {
  return async () => {
    const info = await jsm.consumers.info(stream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
  };
}

export async function readDeadLetter(jsm: JetStreamManager, durable: string): Promise<DeadLetterRecord | undefined> {
  let stored: StoredMsg | null;
  try {
    stored = await jsm.streams.getMessage(DEAD_LETTER_STREAM.name, { last_by_subj: deadLetterSubject(durable) });
  } catch {
    return undefined;
  }
  return stored?.json<DeadLetterRecord>() ?? undefined;
}

/** A handler side effect that is NOT idempotent, so that a second run of a handler shows up. */
export function handledLog(db: Db, name = 'handled') {
  const collection = db.collection<{ event_id: string; entity_id: string; version: number; delivery: number }>(name);
  return {
    record: (event: EventEnvelope, delivery: number) =>
      collection.insertOne({ event_id: event.id, entity_id: event.entity_id, version: event.version, delivery }),
    count: (filter: Record<string, unknown> = {}) => collection.countDocuments(filter),
    all: () => collection.find({}, { projection: { _id: 0 } }).toArray(),
  };
}

/**
 * Widgets kept by the real @rm/store: each write carries its event in the document's outbox, and
 * `outbox` is the store's side of it that the relay reads and clears, under the same locks.
 */
export function widgetStore(db: Db, service: string, locks: DocumentLocks, name = 'widgets') {
  const widgets = createVersionedCollection<Record<string, unknown>>(db, {
    name,
    service,
    entity: 'widget',
    locks,
    eventData: (resource) => ({ key: resource.key, ...resource.body }),
    deletedEventData: (_tenant, key) => ({ key }),
  });
  return {
    collection: widgets.collection,
    name,
    declareIndexes: widgets.declareIndexes,
    outbox: createOutboxStore(db, { collections: [name], locks }),
    /** Creates or updates the widget; returns its new version. */
    write: async (tenant: string, key: string, body: Record<string, unknown>) => (await widgets.put(tenant, key, body)).resource.version,
    waiting: () => widgets.collection.countDocuments({ [OUTBOX_FIELD]: { $exists: true } }),
  };
}
