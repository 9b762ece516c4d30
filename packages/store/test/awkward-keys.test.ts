import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { entityEvents, type PendingEvents } from '@rm/contracts';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import type { ResourceCollection, Store } from '../src/index.js';
import { readable, testStore } from './fixtures.js';

/** A resource whose `data` is whatever JSON object the caller sent, like a transport resource's custom_data. */
interface Note {
  data: Record<string, unknown>;
}

const NOTE_EVENTS = entityEvents('things', 'note', Type.Object({ business_id: Type.String(), data: Type.Object({}), version: Type.Integer() }));

// Keys the driver refuses ($…, a.b) or that BSON reads back as something else (__proto__ as a
// prototype, _bsontype as a BSON type, $ref/$id as a DBRef).
const AWKWARD = JSON.parse(
  '{"$where":"1","a.b":{"c.d":[{"$e":2}]},"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},' +
    '"_bsontype":"ObjectId","ref":{"$ref":"things","$id":7},"":0}',
) as Record<string, unknown>;

let mongo: TestMongo;
let store: Store;
let notes: ResourceCollection<Note>;
const committed: PendingEvents[] = [];

beforeAll(async () => {
  mongo = await connectTestMongo('store-awkward-keys');
  store = testStore(mongo.db);
  notes = store.collection<Note>({
    name: 'notes',
    events: NOTE_EVENTS,
    represent: (resource) => ({ business_id: resource.key, ...resource.body, version: resource.version }),
  });
  await store.declareIndexes();
  store.outbox.onCommit((events) => committed.push(events));
});

afterAll(async () => {
  await mongo?.close();
});

describe('bodies with keys that MongoDB refuses or misreads', () => {
  it('are stored, read and published exactly as given', async () => {
    const id = { tenant: 't', key: 'n-1' };
    const { resource } = await notes.put(id, { data: AWKWARD });

    const read = await notes.get(id);
    expect(JSON.stringify(read?.body.data)).toBe(JSON.stringify(AWKWARD));
    expect(Object.getPrototypeOf(read?.body.data)).toBe(Object.prototype);
    expect(JSON.stringify(resource.body.data)).toBe(JSON.stringify(AWKWARD));

    const stored = readable(await notes.collection.findOne({ _id: 't/n-1' }));
    expect(JSON.stringify(stored?.outbox?.[0]?.data)).toBe(JSON.stringify({ business_id: 'n-1', data: AWKWARD, version: 1 }));
    const handed = committed.find((entry) => entry.documentId === 't/n-1')?.events[0];
    expect(JSON.stringify(handed?.data)).toBe(JSON.stringify({ business_id: 'n-1', data: AWKWARD, version: 1 }));
    for await (const pending of store.outbox.pending()) {
      if (pending.documentId === 't/n-1') expect(JSON.stringify(pending.events[0]?.data)).toBe(JSON.stringify(handed?.data));
    }
  });

  it('count as unchanged when the same body comes again, and are removed with their last state in the event', async () => {
    const id = { tenant: 't', key: 'n-2' };
    await notes.put(id, { data: AWKWARD });
    expect((await notes.put(id, { data: JSON.parse(JSON.stringify(AWKWARD)) as Record<string, unknown> })).resource.version).toBe(1);

    const removed = await notes.remove(id);
    expect(JSON.stringify(removed.body.data)).toBe(JSON.stringify(AWKWARD));
    const stored = readable(await notes.collection.findOne({ _id: 't/n-2' }));
    expect(stored?.outbox?.map((event) => event.type)).toEqual(['note.created', 'note.deleted']);
    expect(JSON.stringify(stored?.outbox?.[1]?.data)).toBe(JSON.stringify({ business_id: 'n-2', data: AWKWARD, version: 1 }));
  });
});
