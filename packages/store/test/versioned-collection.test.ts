import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestMongo, findFreePort, testServers } from '@rm/testkit';
import { MongoClient } from 'mongodb';
import {
  ConcurrentWriteError,
  DatabaseUnavailableError,
  createDocumentLocks,
  PreconditionFailedError,
  ResourceNotFoundError,
  createVersionedCollection,
  type VersionedCollection,
  type VersionedDocument,
} from '../src/index.js';

interface Widget {
  colour: string;
  tags?: string[];
}

let mongo: Awaited<ReturnType<typeof connectTestMongo>>;
let widgets: VersionedCollection<Widget>;
let writes = 0;

beforeAll(async () => {
  mongo = await connectTestMongo('store');
  widgets = createVersionedCollection<Widget>(mongo.db, {
    name: 'widgets',
    service: 'things',
    entity: 'widget',
    eventData: (resource) => ({ business_id: resource.key, ...resource.body, version: resource.version }),
    deletedEventData: (_tenant, key) => ({ business_id: key }),
    locks: createDocumentLocks(),
    onWrite: () => {
      writes += 1;
    },
  });
  await widgets.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const rawDocument = (tenant: string, key: string) =>
  widgets.collection.findOne({ _id: `${tenant}/${key}` }) as Promise<VersionedDocument<Widget> | null>;

describe('put', () => {
  it('creates at version 1 with a created event in the same document', async () => {
    const before = writes;
    const { resource, created } = await widgets.put('t1', 'w-1', { colour: 'red' });
    expect(created).toBe(true);
    expect(resource).toMatchObject({ tenant: 't1', key: 'w-1', version: 1, body: { colour: 'red' } });
    expect(writes).toBe(before + 1);

    const stored = await rawDocument('t1', 'w-1');
    expect(stored?.outbox).toHaveLength(1);
    expect(stored?.outbox?.[0]).toMatchObject({
      type: 'widget.created',
      subject: 'rm.things.widget.created',
      tenant: 't1',
      entity_id: 'w-1',
      version: 1,
      data: { business_id: 'w-1', colour: 'red', version: 1 },
    });
    expect(stored?.outbox?.[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces the body, bumps the version by one and queues an updated event after the first', async () => {
    await widgets.put('t1', 'w-2', { colour: 'red' });
    const { resource, created } = await widgets.put('t1', 'w-2', { colour: 'blue', tags: ['a'] });
    expect(created).toBe(false);
    expect(resource.version).toBe(2);
    const stored = await rawDocument('t1', 'w-2');
    expect(stored?.body).toEqual({ colour: 'blue', tags: ['a'] });
    expect(stored?.outbox?.map((event) => [event.type, event.version])).toEqual([
      ['widget.created', 1],
      ['widget.updated', 2],
    ]);
  });

  it('writes nothing when the body is unchanged, whatever the key order', async () => {
    await widgets.put('t1', 'w-3', { colour: 'red', tags: ['x'] });
    const before = writes;
    const { resource } = await widgets.put('t1', 'w-3', { tags: ['x'], colour: 'red' });
    expect(resource.version).toBe(1);
    expect(writes).toBe(before);
    expect((await rawDocument('t1', 'w-3'))?.outbox).toHaveLength(1);
  });

  it('honours If-Match: the current version and * pass, a stale one or a missing resource gives 412', async () => {
    await widgets.put('t1', 'w-4', { colour: 'red' });
    await expect(widgets.put('t1', 'w-4', { colour: 'blue' }, { ifMatch: { versions: [1] } })).resolves.toMatchObject({
      resource: { version: 2 },
    });
    await expect(widgets.put('t1', 'w-4', { colour: 'green' }, { ifMatch: { any: true } })).resolves.toMatchObject({
      resource: { version: 3 },
    });
    await expect(widgets.put('t1', 'w-4', { colour: 'amber' }, { ifMatch: { versions: [1, 3] } })).resolves.toMatchObject({
      resource: { version: 4 },
    });
    const stale = widgets.put('t1', 'w-4', { colour: 'grey' }, { ifMatch: { versions: [2, 3] } });
    await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(stale).rejects.toMatchObject({ statusCode: 412 });
    await expect(widgets.put('t1', 'w-missing', { colour: 'red' }, { ifMatch: { any: true } })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    expect(await widgets.get('t1', 'w-missing')).toBeNull();
    expect((await widgets.get('t1', 'w-4'))?.body.colour).toBe('amber');
  });

  it('keeps tenants apart: the same key in two tenants is two resources', async () => {
    await widgets.put('t-a', 'shared', { colour: 'red' });
    await widgets.put('t-b', 'shared', { colour: 'blue' });
    expect((await widgets.get('t-a', 'shared'))?.body.colour).toBe('red');
    expect((await widgets.get('t-b', 'shared'))?.body.colour).toBe('blue');
    await widgets.remove('t-a', 'shared');
    expect(await widgets.get('t-a', 'shared')).toBeNull();
    expect((await widgets.get('t-b', 'shared'))?.version).toBe(1);
  });

  it('serialises concurrent writers of one process: every write gets its own version and event', async () => {
    await widgets.put('t1', 'w-race', { colour: 'c0' });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => widgets.put('t1', 'w-race', { colour: `c${index + 1}` })),
    );
    const versions = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.resource.version] : []));
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConcurrentWriteError);
    }
    expect(new Set(versions).size).toBe(versions.length);
    const stored = await rawDocument('t1', 'w-race');
    expect(stored?.version).toBe(1 + versions.length);
    expect(stored?.outbox?.map((event) => event.version)).toEqual(
      Array.from({ length: stored?.version ?? 0 }, (_, index) => index + 1),
    );
  });
});

/** FerretDB v1 reports every racing conditional update as done (verified here), MongoDB makes one win. */
async function hasAtomicConditionalUpdates(): Promise<boolean> {
  const info = await mongo.db.admin().command({ buildInfo: 1 });
  return info.ferretdbVersion === undefined;
}

describe('put across processes', () => {
  it('lets exactly one of two processes win a race for the same version', async (context) => {
    if (!(await hasAtomicConditionalUpdates())) {
      context.skip('FerretDB v1 has no atomic conditional update; production runs on MongoDB, which has');
    }
    const other = await MongoClient.connect(testServers().mongoUrl);
    try {
      const options = {
        name: 'widgets', service: 'things', entity: 'widget',
        eventData: () => ({}), deletedEventData: () => ({}), locks: createDocumentLocks(),
      };
      const here = widgets;
      const there = createVersionedCollection<Widget>(other.db(mongo.db.databaseName), options);
      await here.put('t1', 'w-xrace', { colour: 'c0' });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) => (index % 2 ? here : there).put('t1', 'w-xrace', { colour: `c${index + 1}` })),
      );
      const versions = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.resource.version] : []));
      expect(new Set(versions).size).toBe(versions.length);
      const stored = await rawDocument('t1', 'w-xrace');
      expect(stored?.outbox?.map((event) => event.version)).toEqual(
        Array.from({ length: stored?.version ?? 0 }, (_, index) => index + 1),
      );
    } finally {
      await other.close();
    }
  });
});

describe('remove', () => {
  it('leaves a tombstone with a deleted event, and a later create continues the versions', async () => {
    await widgets.put('t1', 'w-5', { colour: 'red' });
    const removed = await widgets.remove('t1', 'w-5');
    expect(removed).toMatchObject({ version: 1, body: { colour: 'red' } });
    expect(await widgets.get('t1', 'w-5')).toBeNull();

    const tombstone = await rawDocument('t1', 'w-5');
    expect(tombstone).toMatchObject({ version: 2, deleted: true });
    expect(tombstone?.body).toBeUndefined();
    expect(tombstone?.outbox?.at(-1)).toMatchObject({
      type: 'widget.deleted',
      subject: 'rm.things.widget.deleted',
      version: 2,
      data: { business_id: 'w-5' },
    });

    const again = await widgets.put('t1', 'w-5', { colour: 'blue' });
    expect(again).toMatchObject({ created: true, resource: { version: 3 } });
    expect((await rawDocument('t1', 'w-5'))?.outbox?.at(-1)).toMatchObject({ type: 'widget.created', version: 3 });
  });

  it('answers 404 for a missing resource and 412 for a stale If-Match', async () => {
    await expect(widgets.remove('t1', 'nothing')).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(widgets.remove('t1', 'nothing')).rejects.toMatchObject({ statusCode: 404 });
    await widgets.put('t1', 'w-6', { colour: 'red' });
    await expect(widgets.remove('t1', 'w-6', { ifMatch: { versions: [7] } })).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(widgets.remove('t1', 'w-6', { ifMatch: { versions: [1] } })).resolves.toMatchObject({ version: 1 });
    await expect(widgets.remove('t1', 'w-6', { ifMatch: { any: true } })).rejects.toBeInstanceOf(PreconditionFailedError);
  });
});

describe('list', () => {
  const tenant = 'paging';
  const keys = ['k01', 'k02', 'k03', 'k04', 'k05'];
  const keysOf = (items: { key: string }[]) => items.map((item) => item.key);

  beforeAll(async () => {
    for (const key of [...keys].reverse()) await widgets.put(tenant, key, { colour: key });
    await widgets.put(tenant, 'k00-deleted', { colour: 'gone' });
    await widgets.remove(tenant, 'k00-deleted');
  });

  it('reads in key order from the start, skipping tombstones', async () => {
    expect(keysOf(await widgets.list(tenant, { bound: undefined, descending: false, limit: 3 }))).toEqual(['k01', 'k02', 'k03']);
  });

  it('reads after (exclusive) and from (inclusive) a key', async () => {
    expect(keysOf(await widgets.list(tenant, { bound: { after: 'k02' }, descending: false, limit: 2 }))).toEqual(['k03', 'k04']);
    expect(keysOf(await widgets.list(tenant, { bound: { from: 'k02' }, descending: false, limit: 2 }))).toEqual(['k02', 'k03']);
  });

  it('reads backwards before a key', async () => {
    expect(keysOf(await widgets.list(tenant, { bound: { before: 'k04' }, descending: true, limit: 2 }))).toEqual(['k03', 'k02']);
  });

  it('sees nothing of another tenant', async () => {
    expect(await widgets.list('paging-other', { bound: undefined, descending: false, limit: 10 })).toEqual([]);
  });
});

describe('a database outage', () => {
  it('turns every operation into a 503 DatabaseUnavailableError instead of a driver error', async () => {
    // free a moment ago, so no server answers there
    const unreachable = new MongoClient(`mongodb://127.0.0.1:${await findFreePort()}/`, { serverSelectionTimeoutMS: 200 });
    const lost = createVersionedCollection<Widget>(unreachable.db('gone'), {
      name: 'widgets', service: 'things', entity: 'widget',
      eventData: () => ({}), deletedEventData: () => ({}), locks: createDocumentLocks(),
    });
    try {
      for (const operation of [
        () => lost.get('t1', 'w'),
        () => lost.list('t1', { bound: undefined, descending: false, limit: 10 }),
        () => lost.put('t1', 'w', { colour: 'red' }),
        () => lost.remove('t1', 'w'),
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
