import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingEvents } from '@rm/contracts';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import type { Store, StoredDocument } from '../src/index.js';
import { readable, testStore, widgetDefinition, type Widget, type Widgets } from './fixtures.js';

let mongo: TestMongo;
let store: Store;
let widgets: Widgets;

beforeAll(async () => {
  mongo = await connectTestMongo('store_outbox');
  store = testStore(mongo.db);
  widgets = store.collection(widgetDefinition());
  store.collection(widgetDefinition({ name: 'empty' }));
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const id = (key: string) => ({ tenant: 't', key });
const raw = async (key: string) => readable((await widgets.collection.findOne({ _id: `t/${key}` })) as StoredDocument<Widget> | null);
const waitingVersions = async (key: string) => ((await raw(key))?.outbox ?? []).map((event) => event.version);
const eventIds = async (key: string) => ((await raw(key))?.outbox ?? []).map((event) => event.id);
const published = (key: string, ids: string[]) => ({ collection: 'widgets', documentId: `t/${key}`, eventIds: ids });

async function pendingOf(documentId: string): Promise<PendingEvents | undefined> {
  for await (const document of store.outbox.pending()) if (document.documentId === documentId) return document;
  return undefined;
}

describe('outbox store', () => {
  it('lists every document with waiting events, of every collection the store made, oldest event first', async () => {
    await widgets.put(id('n1'), { colour: 'a' });
    await widgets.put(id('n1'), { colour: 'b' });
    const document = await pendingOf('t/n1');
    expect(document?.collection).toBe('widgets');
    expect(document?.events.map((event) => [event.type, event.version])).toEqual([
      ['widget.created', 1],
      ['widget.updated', 2],
    ]);
  });

  it('clears published events in order, and drops the field when none wait', async () => {
    const [first, second] = await eventIds('n1');
    // only the oldest event can go: clearing the second alone changes nothing
    await store.outbox.clear([published('n1', [second as string])]);
    expect(await waitingVersions('n1')).toEqual([1, 2]);

    await store.outbox.clear([published('n1', [first as string, second as string])]);
    expect(await pendingOf('t/n1')).toBeUndefined();
    const stored = await raw('n1');
    expect(stored).not.toHaveProperty('outbox');
    expect(stored).toMatchObject({ version: 2, body: { colour: 'b' } });
  });

  // few and many documents, some with an event written after the relay read them
  it.each([10, 40])('clears %i documents in one call, keeping events written since', async (count) => {
    const keys = Array.from({ length: count }, (_, index) => `many-${count}-${index}`);
    for (const key of keys) await widgets.put(id(key), { colour: 'x' });
    const seen = await Promise.all(keys.map(async (key) => published(key, await eventIds(key))));
    const later = keys.filter((_, index) => index % 3 === 0);
    for (const key of later) await widgets.put(id(key), { colour: 'y' });
    await store.outbox.clear(seen);
    for (const key of keys) {
      if (later.includes(key)) expect(await waitingVersions(key)).toEqual([2]);
      else expect(await raw(key)).not.toHaveProperty('outbox');
    }
  });

  it('keeps an event written after the relay read the document', async () => {
    await widgets.put(id('n4'), { colour: 'a' });
    const seen = await eventIds('n4');
    await widgets.put(id('n4'), { colour: 'b' });
    await store.outbox.clear([published('n4', seen)]);
    expect(await waitingVersions('n4')).toEqual([2]);
  });

  it('is idempotent: clearing an event twice removes nothing else', async () => {
    await widgets.put(id('n2'), { colour: 'a' });
    const first = await eventIds('n2');
    await store.outbox.clear([published('n2', first)]);
    await widgets.put(id('n2'), { colour: 'b' });
    await store.outbox.clear([published('n2', first)]);
    expect(await waitingVersions('n2')).toEqual([2]);
  });

  it('loses no event when writes and clearing of one document interleave', async () => {
    await widgets.put(id('n3'), { colour: 'v1' });
    const work: Promise<unknown>[] = [];
    for (let version = 2; version <= 30; version += 1) {
      work.push(widgets.put(id('n3'), { colour: `v${version}` }));
      const head = (await eventIds('n3'))[0];
      if (head !== undefined) work.push(store.outbox.clear([published('n3', [head])]));
    }
    await Promise.all(work);
    const waiting = await waitingVersions('n3');
    // what still waits is exactly the newest events, contiguous up to the current version
    expect((await raw('n3'))?.version).toBe(30);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting).toEqual(Array.from({ length: waiting.length }, (_, index) => 31 - waiting.length + index));
  });

  it('hands each committed write to every listener until it unsubscribes', async () => {
    const seen: PendingEvents[] = [];
    const unsubscribe = store.outbox.onCommit((committed) => seen.push(committed));
    await widgets.put(id('n5'), { colour: 'a' });
    unsubscribe();
    await widgets.put(id('n5'), { colour: 'b' });
    expect(seen).toEqual([{ collection: 'widgets', documentId: 't/n5', events: [expect.objectContaining({ version: 1 })] }]);
  });

  it('drops an outbox left empty by racing relays when the sweep comes by, keeping the document', async () => {
    await mongo.db.collection('widgets').insertOne({ _id: 't/emptied', tenant: 't', key: 'emptied', version: 1, outbox: [], outbox_waiting: true } as never);
    expect(await pendingOf('t/emptied')).toBeUndefined();
    const stored = await raw('emptied');
    expect(stored).toMatchObject({ version: 1 });
    expect(stored).not.toHaveProperty('outbox');
    expect(stored).not.toHaveProperty('outbox_waiting');
  });

  it('marks a document as waiting exactly while events wait in it', async () => {
    await widgets.put(id('w1'), { colour: 'a' });
    await widgets.put(id('w1'), { colour: 'b' });
    expect(await raw('w1')).toMatchObject({ outbox_waiting: true });
    const [first, second] = await eventIds('w1');
    await store.outbox.clear([published('w1', [first as string])]);
    expect(await raw('w1')).toMatchObject({ outbox_waiting: true });
    await store.outbox.clear([published('w1', [second as string])]);
    expect(await raw('w1')).not.toHaveProperty('outbox_waiting');
  });
});
