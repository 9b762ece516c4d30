import { randomUUID } from 'node:crypto';
import type { ConsumerInfo, JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { Type } from '@sinclair/typebox';
import { createEventValidator, entityEvents, eventSubject, type EntityEvents, type EventEnvelope } from '@rm/contracts';
import { createStore, isOutage, OUTBOX_FIELD, type Store } from '@rm/store';
import type { Db } from 'mongodb';
import { pino, type Logger } from 'pino';
import { DEAD_LETTER_STREAM, deadLetterSubject, type ConsumerRunnerOptions, type DeadLetterRecord } from '../src/index.js';

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

const TestState = Type.Object({ key: Type.String() });

/** The `widget` events of `service` (data: at least the widget's key). */
export function widgetEvents(service: string): EntityEvents {
  return entityEvents(service, 'widget', TestState);
}

/** Contracts are per entity: widgets and gadgets of any test service. */
export const validateTestEvents = createEventValidator([widgetEvents('any'), entityEvents('any', 'gadget', TestState)]);

/** A widget event valid against its contract, on `rm.<service>.tenant-a.widget.<action>`. */
export function widgetEvent(
  service: string,
  entityId: string,
  version: number,
  action: 'created' | 'updated' | 'deleted' = 'updated',
): { subject: string; event: EventEnvelope } {
  return {
    subject: eventSubject(widgetEvents(service), 'tenant-a', action),
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

export function testStore(db: Db): Store {
  return createStore(db, { maxEventBytes: 1024 ** 2 });
}

/** What a runner needs besides its stream and handler, with its ledger in `db`, as a service wires it. */
export function runnerParts(db: Db, durable: string): Pick<ConsumerRunnerOptions, 'durable' | 'applied' | 'validate' | 'isOutage' | 'logger'> {
  return { durable, applied: testStore(db).appliedVersions(durable), validate: validateTestEvents, isOutage, logger: silentLogger() };
}

/**
 * Widgets of `service` kept by the real @rm/store: each write carries its event in the document's
 * outbox, and `outbox` is what the relay reads, is handed and clears.
 */
export function widgetStore(db: Db, service: string, name = 'widgets') {
  const store = testStore(db);
  const widgets = store.collection<Record<string, unknown>>({
    name,
    events: widgetEvents(service),
    represent: (resource) => ({ key: resource.key, ...resource.body }),
  });
  return {
    collection: widgets.collection,
    name,
    declareIndexes: () => store.declareIndexes(),
    outbox: store.outbox,
    /** Creates or updates the widget; returns its new version. */
    write: async (tenant: string, key: string, body: Record<string, unknown>) => (await widgets.put({ tenant, key }, body)).resource.version,
    waiting: () => widgets.collection.countDocuments({ [OUTBOX_FIELD]: { $exists: true } }),
  };
}
