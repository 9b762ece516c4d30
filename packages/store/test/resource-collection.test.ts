import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingEvents } from '@rm/contracts';
import { connectTestMongo, findFreePort, testServers, type TestMongo } from '@rm/testkit';
import { MongoClient } from 'mongodb';
import {
  ConcurrentWriteError,
  DatabaseUnavailableError,
  EventTooLargeError,
  InvalidEventError,
  PreconditionFailedError,
  inListOrder,
  listPosition,
  ResourceNotFoundError,
  StoreUsageError,
  type StoredDocument,
} from '../src/index.js';
import { hasAtomicConditionalUpdates, readable, testStore, widgetDefinition, type Widget, type Widgets } from './fixtures.js';

let mongo: TestMongo;
let widgets: Widgets;
const committed: PendingEvents[] = [];

beforeAll(async () => {
  mongo = await connectTestMongo('store_resources');
  const store = testStore(mongo.db);
  widgets = store.collection(widgetDefinition());
  store.outbox.onCommit((events) => committed.push(events));
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const id = (key: string, tenant = 't1') => ({ tenant, key });
const rawDocument = async (tenant: string, key: string) =>
  readable((await widgets.collection.findOne({ _id: `${tenant}/${key}` })) as StoredDocument<Widget> | null);
const committedTo = (documentId: string) => committed.filter((entry) => entry.documentId === documentId);

describe('put', () => {
  it('creates at version 1 with a created event in the same document, and hands the event to the relay', async () => {
    const { resource, created } = await widgets.put(id('w-1'), { colour: 'red' });
    expect(created).toBe(true);
    expect(resource).toMatchObject({ tenant: 't1', key: 'w-1', version: 1, body: { colour: 'red' } });

    const stored = await rawDocument('t1', 'w-1');
    expect(stored?.outbox).toHaveLength(1);
    expect(stored?.outbox?.[0]).toMatchObject({
      type: 'widget.created',
      subject: 'rm.things.t1.widget.created',
      tenant: 't1',
      entity_id: 'w-1',
      version: 1,
      data: { business_id: 'w-1', colour: 'red', version: 1 },
    });
    expect(stored?.outbox?.[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(committedTo('t1/w-1')).toEqual([{ collection: 'widgets', documentId: 't1/w-1', events: stored?.outbox }]);
  });

  it('replaces the body, bumps the version by one and hands over every waiting event in order', async () => {
    await widgets.put(id('w-2'), { colour: 'red' });
    const { resource, created } = await widgets.put(id('w-2'), { colour: 'blue', tags: ['a'] });
    expect(created).toBe(false);
    expect(resource.version).toBe(2);
    const stored = await rawDocument('t1', 'w-2');
    expect(stored?.body).toEqual({ colour: 'blue', tags: ['a'] });
    expect(stored?.outbox?.map((event) => [event.type, event.version])).toEqual([
      ['widget.created', 1],
      ['widget.updated', 2],
    ]);
    // the relay gets the first event again with the second: it must go out before it
    expect(committedTo('t1/w-2').at(-1)?.events.map((event) => event.version)).toEqual([1, 2]);
  });

  it('writes nothing when the body is unchanged, whatever the key order', async () => {
    await widgets.put(id('w-3'), { colour: 'red', tags: ['x'] });
    const handedOver = committedTo('t1/w-3').length;
    const { resource, created } = await widgets.put(id('w-3'), { tags: ['x'], colour: 'red' });
    expect({ version: resource.version, created }).toEqual({ version: 1, created: false });
    expect(committedTo('t1/w-3')).toHaveLength(handedOver);
    expect((await rawDocument('t1', 'w-3'))?.outbox).toHaveLength(1);
  });

  it('honours If-Match: the current version and * pass, a stale one or a missing resource gives 412', async () => {
    await widgets.put(id('w-4'), { colour: 'red' });
    await expect(widgets.put(id('w-4'), { colour: 'blue' }, { ifMatch: { versions: [1] } })).resolves.toMatchObject({ resource: { version: 2 } });
    await expect(widgets.put(id('w-4'), { colour: 'green' }, { ifMatch: { any: true } })).resolves.toMatchObject({ resource: { version: 3 } });
    await expect(widgets.put(id('w-4'), { colour: 'amber' }, { ifMatch: { versions: [1, 3] } })).resolves.toMatchObject({ resource: { version: 4 } });
    const stale = widgets.put(id('w-4'), { colour: 'grey' }, { ifMatch: { versions: [2, 3] } });
    await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(stale).rejects.toMatchObject({ statusCode: 412 });
    await expect(widgets.put(id('w-missing'), { colour: 'red' }, { ifMatch: { any: true } })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(await widgets.get(id('w-missing'))).toBeNull();
    expect((await widgets.get(id('w-4')))?.body.colour).toBe('amber');
  });

  it('in update mode, answers 404 for a resource that does not exist or was removed, and writes nothing', async () => {
    await expect(widgets.put(id('w-never'), { colour: 'red' }, { mode: 'update' })).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(await rawDocument('t1', 'w-never')).toBeNull();
    await widgets.put(id('w-gone'), { colour: 'red' });
    await widgets.remove(id('w-gone'));
    await expect(widgets.put(id('w-gone'), { colour: 'blue' }, { mode: 'update' })).rejects.toMatchObject({ statusCode: 404 });
    await expect(widgets.put(id('w-3'), { colour: 'teal' }, { mode: 'update' })).resolves.toMatchObject({ created: false, resource: { version: 2 } });
  });

  it('keeps tenants apart: the same key in two tenants is two resources', async () => {
    await widgets.put(id('shared', 't-a'), { colour: 'red' });
    await widgets.put(id('shared', 't-b'), { colour: 'blue' });
    expect((await widgets.get(id('shared', 't-a')))?.body.colour).toBe('red');
    expect((await widgets.get(id('shared', 't-b')))?.body.colour).toBe('blue');
    await widgets.remove(id('shared', 't-a'));
    expect(await widgets.get(id('shared', 't-a'))).toBeNull();
    expect((await widgets.get(id('shared', 't-b')))?.version).toBe(1);
  });

  it('serialises concurrent writers of one process: every write gets its own version and event', async () => {
    await widgets.put(id('w-race'), { colour: 'c0' });
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => widgets.put(id('w-race'), { colour: `c${index + 1}` })));
    const versions = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.resource.version] : []));
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConcurrentWriteError);
    }
    expect(new Set(versions).size).toBe(versions.length);
    const stored = await rawDocument('t1', 'w-race');
    expect(stored?.version).toBe(1 + versions.length);
    expect(stored?.outbox?.map((event) => event.version)).toEqual(Array.from({ length: stored?.version ?? 0 }, (_, index) => index + 1));
  });
});

describe('create', () => {
  it('stores under a generated UUIDv7 key at version 1, with its created event', async () => {
    const first = await widgets.create({ tenant: 't1' }, { colour: 'plum' });
    const second = await widgets.create({ tenant: 't1' }, { colour: 'plum' });
    expect(first.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.key > first.key).toBe(true);
    expect(first).toMatchObject({ tenant: 't1', version: 1, body: { colour: 'plum' } });
    expect((await rawDocument('t1', first.key))?.outbox?.map((event) => [event.type, event.entity_id])).toEqual([['widget.created', first.key]]);
  });
});

describe('events that could never be published', () => {
  it('refuses a write whose event exceeds the broker message limit, with 413 and nothing written', async () => {
    const store = testStore(mongo.db, { maxEventBytes: 4_096 });
    const small = store.collection(widgetDefinition({ name: 'small_widgets' }));
    const refused = small.put(id('w-big'), { colour: 'x'.repeat(5_000) });
    await expect(refused).rejects.toBeInstanceOf(EventTooLargeError);
    await expect(refused).rejects.toMatchObject({ statusCode: 413, message: expect.stringContaining('4096 bytes') });
    expect(await small.collection.countDocuments({})).toBe(0);
    await expect(small.put(id('w-small'), { colour: 'x'.repeat(100) })).resolves.toMatchObject({ created: true });
  });

  it('refuses to write an event that breaks its contract: a bug, answered 500, nothing written', async () => {
    const store = testStore(mongo.db);
    const broken = store.collection(widgetDefinition({ name: 'broken_widgets', represent: (resource) => ({ business_id: resource.key }) }));
    const refused = broken.put(id('w-1'), { colour: 'red' });
    await expect(refused).rejects.toBeInstanceOf(InvalidEventError);
    await expect(refused).rejects.toMatchObject({ statusCode: 500, message: expect.stringContaining('colour') });
    expect(await broken.collection.countDocuments({})).toBe(0);
  });
});

describe('put across processes', () => {
  it('lets exactly one of two processes win a race for the same version', async (context) => {
    if (!(await hasAtomicConditionalUpdates(mongo.db))) {
      context.skip('FerretDB v1 has no atomic conditional update; production runs on MongoDB, which has');
    }
    const other = await MongoClient.connect(testServers().mongoUrl);
    try {
      const there = testStore(other.db(mongo.db.databaseName)).collection(widgetDefinition());
      await widgets.put(id('w-xrace'), { colour: 'c0' });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) => (index % 2 ? widgets : there).put(id('w-xrace'), { colour: `c${index + 1}` })),
      );
      const versions = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.resource.version] : []));
      expect(new Set(versions).size).toBe(versions.length);
      const stored = await rawDocument('t1', 'w-xrace');
      expect(stored?.outbox?.map((event) => event.version)).toEqual(Array.from({ length: stored?.version ?? 0 }, (_, index) => index + 1));
    } finally {
      await other.close();
    }
  });
});

describe('remove', () => {
  it('leaves a tombstone whose event carries the removed state, and a later create continues the versions', async () => {
    await widgets.put(id('w-5'), { colour: 'red' });
    const removed = await widgets.remove(id('w-5'));
    expect(removed).toMatchObject({ version: 1, body: { colour: 'red' } });
    expect(await widgets.get(id('w-5'))).toBeNull();

    const tombstone = await rawDocument('t1', 'w-5');
    expect(tombstone).toMatchObject({ version: 2, deleted: true });
    expect(tombstone?.body).toBeUndefined();
    expect(tombstone?.outbox?.at(-1)).toMatchObject({
      type: 'widget.deleted',
      subject: 'rm.things.t1.widget.deleted',
      version: 2,
      data: { business_id: 'w-5', colour: 'red', version: 1 },
    });

    const again = await widgets.put(id('w-5'), { colour: 'blue' });
    expect(again).toMatchObject({ created: true, resource: { version: 3 } });
    expect((await rawDocument('t1', 'w-5'))?.outbox?.at(-1)).toMatchObject({ type: 'widget.created', version: 3 });
  });

  it('answers 404 for a missing resource and 412 for a stale If-Match', async () => {
    await expect(widgets.remove(id('nothing'))).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(widgets.remove(id('nothing'))).rejects.toMatchObject({ statusCode: 404 });
    await widgets.put(id('w-6'), { colour: 'red' });
    await expect(widgets.remove(id('w-6'), { ifMatch: { versions: [7] } })).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(widgets.remove(id('w-6'), { ifMatch: { versions: [1] } })).resolves.toMatchObject({ version: 1 });
    await expect(widgets.remove(id('w-6'), { ifMatch: { any: true } })).rejects.toBeInstanceOf(PreconditionFailedError);
  });
});

describe('writeKnown', () => {
  const tenant = 't3';
  const published = () => mongo.db.collection<StoredDocument<Widget>>('published_widgets');
  const typesOf = (events: readonly { type: string; version: number }[]) => events.map((event) => [event.type, event.version]);
  let writerWidgets: Widgets;

  beforeAll(async () => {
    const store = testStore(mongo.db);
    writerWidgets = store.collection(widgetDefinition({ name: 'published_widgets', publishedBy: 'writer' }));
    store.outbox.onCommit((events) => committed.push(events));
    await store.declareIndexes();
  });

  it('creates, updates, removes and creates again from the states it returns, handing each event back to publish', async () => {
    const first = await writerWidgets.writeKnown({ tenant }, [
      { key: 'k-a', stored: undefined, body: { colour: 'red' } },
      { key: 'k-b', stored: undefined, body: { colour: 'green' } },
    ]);
    const [a, b] = first.states;
    expect(a).toMatchObject({ key: 'k-a', version: 1, body: { colour: 'red' } });
    expect(typesOf(first.toPublish)).toEqual([['widget.created', 1], ['widget.created', 1]]);

    const second = await writerWidgets.writeKnown({ tenant }, [
      { key: 'k-a', stored: a, body: { colour: 'blue' } },
      { key: 'k-b', stored: b, body: undefined },
    ]);
    const [updated, removed] = second.states;
    expect(updated).toMatchObject({ version: 2, body: { colour: 'blue' } });
    expect(removed).toEqual({ key: 'k-b', tombstone: 2 });
    expect(await writerWidgets.get(id('k-a', tenant))).toMatchObject({ version: 2, body: { colour: 'blue' } });
    expect(await writerWidgets.get(id('k-b', tenant))).toBeNull();
    // the removal's event carries the removed state, as remove's does
    expect(second.toPublish[1]).toMatchObject({ type: 'widget.deleted', version: 2, data: { business_id: 'k-b', colour: 'green', version: 1 } });

    // where a writer starts from: tombstones included
    expect(await writerWidgets.knownStates({ tenant })).toEqual([updated, removed]);

    const third = await writerWidgets.writeKnown({ tenant }, [{ key: 'k-b', stored: removed, body: { colour: 'pink' } }]);
    expect(third.states[0]).toMatchObject({ version: 3, body: { colour: 'pink' } });
    expect(typesOf(third.toPublish)).toEqual([['widget.created', 3]]);

    // nothing waits in the documents, and nothing went to the relay
    expect(await published().countDocuments({ outbox: { $exists: true } })).toBe(0);
    expect(committed.filter((entry) => entry.collection === 'published_widgets')).toEqual([]);
  });

  it('builds the latest event of each resource written since a moment again, under the same ids', async () => {
    const since = new Date();
    const created = await writerWidgets.writeKnown({ tenant: 't5' }, [
      { key: 'k-a', stored: undefined, body: { colour: 'red' } },
      { key: 'k-b', stored: undefined, body: { colour: 'green' } },
      { key: 'k-c', stored: undefined, body: { colour: 'white' } },
    ]);
    const [a, b] = created.states;
    const changed = await writerWidgets.writeKnown({ tenant: 't5' }, [
      { key: 'k-a', stored: a, body: { colour: 'blue' } },
      { key: 'k-b', stored: b, body: undefined },
    ]);
    const { toPublish: [recreated] } = await writerWidgets.writeKnown({ tenant: 't5' }, [
      { key: 'k-b', stored: changed.states[1], body: { colour: 'black' } },
    ]);
    const latest = [changed.toPublish[0], recreated, created.toPublish[2]];
    expect(await writerWidgets.eventsSince({ tenant: 't5' }, since)).toEqual(latest);
    expect(await writerWidgets.eventsSince({ tenant: 't5' }, new Date(Date.now() + 60_000))).toEqual([]);

    // a tombstone gives the deletion's event
    await writerWidgets.writeKnown({ tenant: 't5' }, [{ key: 'k-c', stored: created.states[2], body: undefined }]);
    const [deletion] = (await writerWidgets.eventsSince({ tenant: 't5' }, since)).filter((event) => event.entity_id === 'k-c');
    expect(deletion).toMatchObject({ type: 'widget.deleted', version: 2, data: { business_id: 'k-c', colour: 'white', version: 1 } });
  });

  it('writes nothing for the removal of what is not there', async () => {
    expect(await writerWidgets.writeKnown({ tenant }, [{ key: 'k-none', stored: undefined, body: undefined }])).toEqual({ states: [], toPublish: [] });
    expect(await published().findOne({ _id: `${tenant}/k-none` })).toBeNull();
  });

  it('throws ConcurrentWriteError when a known state is stale, and still writes the others', async () => {
    const { states: [c] } = await writerWidgets.writeKnown({ tenant }, [{ key: 'k-c', stored: undefined, body: { colour: 'red' } }]);
    await writerWidgets.writeKnown({ tenant }, [{ key: 'k-c', stored: c, body: { colour: 'someone else' } }]);
    const stale = writerWidgets.writeKnown({ tenant }, [
      { key: 'k-c', stored: c, body: { colour: 'mine' } },
      { key: 'k-d', stored: undefined, body: { colour: 'new' } },
    ]);
    await expect(stale).rejects.toBeInstanceOf(ConcurrentWriteError);
    expect(await writerWidgets.get(id('k-c', tenant))).toMatchObject({ version: 2, body: { colour: 'someone else' } });
    expect(await writerWidgets.get(id('k-d', tenant))).toMatchObject({ version: 1, body: { colour: 'new' } });
    // a document believed absent that exists
    const present = writerWidgets.writeKnown({ tenant }, [{ key: 'k-d', stored: undefined, body: { colour: 'again' } }]);
    await expect(present).rejects.toBeInstanceOf(ConcurrentWriteError);
  });

  it('inserts more new documents than one statement takes', async () => {
    const keys = Array.from({ length: 450 }, (_, index) => `bulk-${String(index).padStart(3, '0')}`);
    const { states } = await writerWidgets.writeKnown({ tenant: 't4' }, keys.map((key) => ({ key, stored: undefined, body: { colour: key } })));
    expect(states).toHaveLength(450);
    const stored = await writerWidgets.find({ tenant: 't4' });
    expect(stored.map((resource) => resource.body.colour)).toEqual(keys);
  });

  it('refuses the writes whose events no one would publish', async () => {
    await expect(writerWidgets.put(id('k-put', tenant), { colour: 'red' })).rejects.toBeInstanceOf(StoreUsageError);
    await expect(writerWidgets.create({ tenant }, { colour: 'red' })).rejects.toBeInstanceOf(StoreUsageError);
    await expect(writerWidgets.remove(id('k-a', tenant))).rejects.toBeInstanceOf(StoreUsageError);
  });

  it('leaves a relayed collection\'s events to the relay', async () => {
    const { states: [written], toPublish } = await widgets.writeKnown({ tenant }, [{ key: 'k-relayed', stored: undefined, body: { colour: 'red' } }]);
    expect(toPublish).toEqual([]);
    expect(written).toMatchObject({ version: 1 });
    expect(committedTo(`${tenant}/k-relayed`).at(-1)?.events.map((event) => event.type)).toEqual(['widget.created']);
    expect((await rawDocument(tenant, 'k-relayed'))?.outbox).toHaveLength(1);
  });
});

describe('list', () => {
  const tenant = 'paging';
  const keys = ['k01', 'k02', 'k03', 'k04', 'k05'];
  const keysOf = (items: { key: string }[]) => items.map((item) => item.key);
  const ordered = inListOrder(keys);
  const at = (index: number) => listPosition(ordered[index]!);

  beforeAll(async () => {
    for (const key of [...keys].reverse()) await widgets.put(id(key, tenant), { colour: key });
    await widgets.put(id('k00-deleted', tenant), { colour: 'gone' });
    await widgets.remove(id('k00-deleted', tenant));
  });

  it('reads in list order (the hash of the key, then the key) from the start, skipping tombstones', async () => {
    expect(keysOf(await widgets.list({ tenant }, { bound: undefined, descending: false, limit: 3 }))).toEqual(ordered.slice(0, 3));
  });

  it('reads after (exclusive) and from (inclusive) a position', async () => {
    expect(keysOf(await widgets.list({ tenant }, { bound: { after: at(1) }, descending: false, limit: 2 }))).toEqual(ordered.slice(2, 4));
    expect(keysOf(await widgets.list({ tenant }, { bound: { from: at(1) }, descending: false, limit: 2 }))).toEqual(ordered.slice(1, 3));
  });

  it('reads backwards before a position', async () => {
    expect(keysOf(await widgets.list({ tenant }, { bound: { before: at(3) }, descending: true, limit: 2 }))).toEqual([ordered[2], ordered[1]]);
  });

  it('sees nothing of another tenant', async () => {
    expect(await widgets.list({ tenant: 'paging-other' }, { bound: undefined, descending: false, limit: 10 })).toEqual([]);
  });

  // a bare key has no hash to start from: the buckets were read for ever (the http bench's walks hung)
  it('refuses a bound that is a key rather than a list position', async () => {
    await expect(widgets.list({ tenant }, { bound: { after: 'listed-7' }, descending: false, limit: 2 })).rejects.toBeInstanceOf(StoreUsageError);
  });

  // before, FerretDB read the whole tenant for every page: 30 pages of 3,000 read 90,000 documents
  it('pages through a large list both ways, each page reading a bounded part of it', async () => {
    const large = 'paging-large';
    const count = 3_000;
    const all = Array.from({ length: count }, (_, index) => `item-${String(index).padStart(5, '0')}`);
    for (let start = 0; start < count; start += 500) {
      await widgets.writeKnown({ tenant: large }, all.slice(start, start + 500).map((key) => ({ key, stored: undefined, body: { colour: key } })));
    }
    const watched = new MongoClient(testServers().mongoUrl, { monitorCommands: true });
    let documentsRead = 0;
    watched.on('commandSucceeded', ({ reply }) => {
      const cursor = (reply as { cursor?: { firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
      documentsRead += (cursor?.firstBatch ?? cursor?.nextBatch ?? []).length;
    });
    try {
      const reader = testStore(watched.db(mongo.db.databaseName)).collection(widgetDefinition());
      const pages: string[][] = [];
      let bound: { after: string } | undefined;
      for (;;) {
        const page = keysOf(await reader.list({ tenant: large }, { bound, descending: false, limit: 100 }));
        if (page.length === 0) break;
        pages.push(page);
        bound = { after: listPosition(page.at(-1)!) };
      }
      expect(pages.flat()).toEqual(inListOrder(all));
      // every page but the first (which knows nothing of the list yet) reads a few buckets of about its size
      expect(documentsRead).toBeLessThan(3 * count);

      const last = pages.flat().at(-1)!;
      const backwards = keysOf(await reader.list({ tenant: large }, { bound: { before: listPosition(last) }, descending: true, limit: 150 }));
      expect(backwards).toEqual(inListOrder(all).slice(-151, -1).reverse());
    } finally {
      await watched.close();
    }
  });
});

describe('a database outage', () => {
  it('turns every operation into a 503 DatabaseUnavailableError instead of a driver error', async () => {
    // free a moment ago, so no server answers there
    const unreachable = new MongoClient(`mongodb://127.0.0.1:${await findFreePort()}/`, { serverSelectionTimeoutMS: 200 });
    const lost = testStore(unreachable.db('gone')).collection(widgetDefinition());
    try {
      for (const operation of [
        () => lost.get(id('w')),
        () => lost.list({ tenant: 't1' }, { bound: undefined, descending: false, limit: 10 }),
        () => lost.find({ tenant: 't1' }),
        () => lost.create({ tenant: 't1' }, { colour: 'red' }),
        () => lost.put(id('w'), { colour: 'red' }),
        () => lost.remove(id('w')),
        () => lost.removeMany({ tenant: 't1' }),
      ]) {
        const failure = operation();
        await expect(failure).rejects.toBeInstanceOf(DatabaseUnavailableError);
        await expect(failure).rejects.toMatchObject({ statusCode: 503 });
      }
    } finally {
      await unreachable.close();
    }
  });
});

describe('indexes', () => {
  // Reproduced before the fix: FerretDB closed the connection when one createIndexes call named two
  // indexes that existed already, so a service could not start again on its own database.
  it('are declared again when a service starts again on the same database', async () => {
    const definition = widgetDefinition({ name: 'restarted_widgets', cascadeTo: [], tombstones: 'purge' });
    await declareAll(definition);
    await expect(declareAll(definition)).resolves.toBeUndefined();
    const names = (await mongo.db.collection('restarted_widgets').indexes()).map((index) => index.name);
    expect(names).toEqual(expect.arrayContaining(['scope_key', 'outbox_waiting', 'tombstones']));
  });

  async function declareAll(definition: ReturnType<typeof widgetDefinition>): Promise<void> {
    const store = testStore(mongo.db);
    store.collection(definition);
    await store.declareIndexes();
  }
});
