import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxSource, PendingEvents } from '@rm/contracts';
import { connectTestMongo } from '@rm/testkit';
import {
  createDocumentLocks,
  createOutboxStore,
  createVersionedCollection,
  type VersionedCollection,
} from '../src/index.js';

let mongo: Awaited<ReturnType<typeof connectTestMongo>>;
let notes: VersionedCollection<{ text: string }>;
let outbox: OutboxSource;

beforeAll(async () => {
  mongo = await connectTestMongo('outbox');
  const locks = createDocumentLocks();
  notes = createVersionedCollection(mongo.db, {
    name: 'notes',
    service: 'things',
    entity: 'note',
    eventData: (resource) => ({ text: resource.body.text }),
    deletedEventData: (_tenant, key) => ({ key }),
    locks,
  });
  await notes.declareIndexes();
  outbox = createOutboxStore(mongo.db, { collections: ['notes', 'empty'], locks });
});

afterAll(async () => {
  await mongo?.close();
});

const pendingOf = async (id: string): Promise<PendingEvents | undefined> => {
  for await (const document of outbox.pending()) if (document.documentId === id) return document;
  return undefined;
};

describe('outbox store', () => {
  it('lists documents with waiting events, oldest event first', async () => {
    await notes.put('t', 'n1', { text: 'a' });
    await notes.put('t', 'n1', { text: 'b' });
    const document = await pendingOf('t/n1');
    expect(document?.collection).toBe('notes');
    expect(document?.events.map((event) => [event.type, event.version])).toEqual([
      ['note.created', 1],
      ['note.updated', 2],
    ]);
  });

  it('clears events in order and drops the field when none wait', async () => {
    const document = await pendingOf('t/n1');
    const [first, second] = document?.events ?? [];
    // Only the oldest event can be cleared: clearing the second first changes nothing.
    await outbox.markPublished(document!, second!.id);
    expect((await pendingOf('t/n1'))?.events).toHaveLength(2);

    await outbox.markPublished(document!, first!.id);
    expect((await pendingOf('t/n1'))?.events.map((event) => event.id)).toEqual([second!.id]);
    await outbox.markPublished(document!, second!.id);
    expect(await pendingOf('t/n1')).toBeUndefined();
    const stored = await mongo.db.collection('notes').findOne({ _id: 't/n1' as never });
    expect(stored).not.toHaveProperty('outbox');
    expect(stored).toMatchObject({ version: 2, body: { text: 'b' } });
  });

  it('keeps an event written after the relay read the document, when clearing the last one it saw', async () => {
    await notes.put('t', 'n4', { text: 'a' });
    const seen = await pendingOf('t/n4');
    await notes.put('t', 'n4', { text: 'b' });
    await outbox.markPublished(seen!, seen!.events[0]!.id);
    expect((await pendingOf('t/n4'))?.events.map((event) => event.version)).toEqual([2]);
  });

  it('recovers an outbox left empty, removing the field', async () => {
    await mongo.db.collection('notes').insertOne({ _id: 't/crashed', tenant: 't', key: 'crashed', version: 1, outbox: [] } as never);
    await outbox.recover();
    expect(await mongo.db.collection('notes').findOne({ _id: 't/crashed' as never })).not.toHaveProperty('outbox');
  });

  it('is idempotent: clearing an event twice removes nothing else', async () => {
    await notes.put('t', 'n2', { text: 'a' });
    const document = await pendingOf('t/n2');
    const first = document!.events[0]!;
    await outbox.markPublished(document!, first.id);
    await notes.put('t', 'n2', { text: 'b' });
    await outbox.markPublished(document!, first.id);
    expect((await pendingOf('t/n2'))?.events.map((event) => event.version)).toEqual([2]);
  });

  it('loses no event when writes and clearing of one document interleave', async () => {
    await notes.put('t', 'n3', { text: 'v1' });
    const writes: Promise<unknown>[] = [];
    for (let version = 2; version <= 30; version += 1) {
      writes.push(notes.put('t', 'n3', { text: `v${version}` }));
      const document = await pendingOf('t/n3');
      if (document?.events[0]) writes.push(outbox.markPublished(document, document.events[0].id));
    }
    await Promise.all(writes);
    const stored = await mongo.db.collection('notes').findOne({ _id: 't/n3' as never });
    const waiting = ((stored?.outbox ?? []) as { version: number }[]).map((event) => event.version);
    // What is still waiting is exactly the newest events, contiguous up to the current version.
    expect(stored?.version).toBe(30);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting).toEqual(Array.from({ length: waiting.length }, (_, index) => 31 - waiting.length + index));
  });
});
