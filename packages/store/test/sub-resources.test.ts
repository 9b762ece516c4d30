import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '@rm/contracts';
import type { Db } from 'mongodb';
import { connectTestMongo, waitFor, type TestMongo } from '@rm/testkit';
import { ResourceNotFoundError, StoreUsageError, type Store, type StoredDocument } from '../src/index.js';
import { hours, partDefinition, partsOverlapping, readable, testStore, widgetDefinition, type Part, type Parts, type Widgets } from './fixtures.js';

let mongo: TestMongo;
let store: Store;
let widgets: Widgets;
let parts: Parts;
/** Parts that belong to a widget: written only under a widget that is there, removed with it. */
let widgetParts: Parts;
const WIDGET_PARENT = { collection: 'widgets', entity: 'widget' };

beforeAll(async () => {
  mongo = await connectTestMongo('store_children');
  // no wait before maintenance may finish or purge, so that tests can call it at once
  store = testStore(mongo.db, { staleAfterMs: 0, tombstoneGraceMs: 0 });
  parts = store.collection(partDefinition({ tombstones: 'purge' }));
  widgetParts = store.collection(partDefinition({ name: 'widget_parts', parent: WIDGET_PARENT }));
  widgets = store.collection(widgetDefinition({ cascadeTo: [widgetParts] }));
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const tenant = 't1';
const under = (parent: string) => ({ tenant, parent });
const outboxOf = async (documentId: string, collection = parts.name): Promise<OutboxEntry[]> =>
  readable(await mongo.db.collection<StoredDocument<unknown>>(collection).findOne({ _id: documentId }))?.outbox ?? [];
const keysOf = (items: { key: string }[]) => items.map((item) => item.key);

describe('sub-resources', () => {
  it('are reached only under their own parent, and listed per parent', async () => {
    const part = await parts.create(under('w-a'), hours(8, 10));
    await parts.create(under('w-b'), hours(8, 10));
    expect(await parts.get({ ...under('w-a'), key: part.key })).toMatchObject({ parent: 'w-a', key: part.key, body: hours(8, 10) });
    expect(await parts.get({ ...under('w-b'), key: part.key })).toBeNull();
    await expect(parts.put({ ...under('w-b'), key: part.key }, hours(9, 10), { mode: 'update' })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(parts.remove({ ...under('w-b'), key: part.key })).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(keysOf(await parts.list(under('w-a'), { bound: undefined, descending: false, limit: 10 }))).toEqual([part.key]);
    expect(keysOf(await parts.find({ tenant: 't-other', parent: 'w-a' }))).toEqual([]);
  });

  it('are read a batch at a time by findEach, as find reads them, within a range too', { timeout: 120_000 }, async () => {
    const parent = 'w-each';
    // more than a batch (500), so that the cursor goes back for more
    for (let hour = 0; hour < 620; hour += 1) await parts.create(under(parent), hours(hour, hour + 1));
    const each = async (where?: ReturnType<typeof partsOverlapping>) => {
      const found = [];
      for await (const part of parts.findEach(under(parent), where)) found.push(part);
      return found;
    };
    const all = await each();
    expect(all).toHaveLength(620);
    expect(all).toEqual(await parts.find(under(parent)));
    const range = partsOverlapping({ from: hours(10, 11).from, until: hours(590, 591).from });
    expect(await each(range)).toEqual(await parts.find(under(parent), range));
    expect(await each(range)).toHaveLength(580);
  });

  it("are counted per parent and per tenant, the removed ones not, another tenant's not", async () => {
    const countTenant = 't-count';
    const first = await parts.create({ tenant: countTenant, parent: 'w-1' }, hours(1, 2));
    await parts.create({ tenant: countTenant, parent: 'w-1' }, hours(2, 3));
    await parts.create({ tenant: countTenant, parent: 'w-2' }, hours(1, 2));
    await parts.create({ tenant: 't-count-other', parent: 'w-1' }, hours(1, 2));
    await parts.remove({ tenant: countTenant, parent: 'w-1', key: first.key });
    expect(await parts.count({ tenant: countTenant })).toBe(2);
    expect(await parts.count({ tenant: countTenant, parent: 'w-1' })).toBe(1);
    expect(await parts.count({ tenant: 't-count-none' })).toBe(0);
  });

  it('name their parent in their events, whose entity id is <parent>/<key>', async () => {
    const part = await parts.create(under('w-ev'), hours(1, 2, 'first'));
    const [created] = await outboxOf(`${tenant}/w-ev/${part.key}`);
    expect(created).toMatchObject({
      type: 'part.created',
      subject: 'rm.things.t1.part.created',
      entity_id: `w-ev/${part.key}`,
      data: { id: part.key, widget_id: 'w-ev', ...hours(1, 2, 'first'), version: 1 },
    });
  });

  // Reproduced before the fix: the envelope allowed 512 characters of entity id, a business id alone may take them.
  it('take a parent of the longest business id, whose events name it', async () => {
    const parent = 'p'.repeat(512);
    const part = await parts.create(under(parent), hours(1, 2));
    expect((await outboxOf(`${tenant}/${parent}/${part.key}`))[0]?.entity_id).toBe(`${parent}/${part.key}`);
  });

  it('refuse a scope that does not fit the collection', async () => {
    await expect(parts.create({ tenant }, hours(1, 2))).rejects.toBeInstanceOf(StoreUsageError);
    await expect(widgets.get({ tenant, parent: 'x', key: 'y' })).rejects.toBeInstanceOf(StoreUsageError);
  });

  it('cannot be upserted where tombstones are purged, since a purged id would start again at version 1', async () => {
    await expect(parts.put({ ...under('w-a'), key: 'chosen' }, hours(1, 2))).rejects.toBeInstanceOf(StoreUsageError);
  });
});

describe('indexed spans', () => {
  const parent = 'w-spans';
  let keyOf: Record<string, string>;

  beforeAll(async () => {
    keyOf = {};
    for (const [name, part] of Object.entries({ early: hours(6, 8), morning: hours(8, 12), noon: hours(12, 13), late: hours(18, 22) })) {
      keyOf[name] = (await parts.create(under(parent), part)).key;
    }
  });

  const found = async (range: { from?: string; until?: string }) =>
    (await parts.find(under(parent), partsOverlapping(range))).map((part) => Object.entries(keyOf).find(([, key]) => key === part.key)?.[0]);

  it('find every part that overlaps [from, until), where parts that only touch do not overlap', async () => {
    expect(await found({ from: hours(8, 12).from, until: hours(8, 12).until })).toEqual(['morning']);
    expect(await found({ from: hours(7, 9).from, until: hours(7, 9).until })).toEqual(['early', 'morning']);
    expect(await found({ from: hours(13, 18).from, until: hours(13, 18).until })).toEqual([]);
  });

  it('take an open range on either side', async () => {
    expect(await found({ from: hours(12, 13).from })).toEqual(['noon', 'late']);
    expect(await found({ until: hours(8, 9).from })).toEqual(['early']);
    expect(await found({})).toEqual(['early', 'morning', 'noon', 'late']);
  });

  it('compare instants, whatever the offset the range was given in', async () => {
    expect(await found({ from: '2024-05-01T14:30:00+02:00', until: '2024-05-01T13:00:00-01:00' })).toEqual(['noon']);
  });

  it('follow an update of the span', async () => {
    await parts.put({ ...under(parent), key: keyOf.late as string }, hours(20, 23), { mode: 'update' });
    expect(await found({ from: hours(18, 20).from, until: hours(18, 20).until })).toEqual([]);
  });
});

describe('removeMany', () => {
  it('removes the matching parts of one parent, each with its own deleted event carrying the removed state', async () => {
    const parent = 'w-range';
    const a = await parts.create(under(parent), hours(1, 2));
    const b = await parts.create(under(parent), hours(3, 4));
    const c = await parts.create(under(parent), hours(5, 6));
    const elsewhere = await parts.create(under('w-range-other'), hours(3, 4));

    const removed = await parts.removeMany(under(parent), partsOverlapping({ from: hours(1, 4).from, until: hours(1, 4).until }));
    expect(keysOf(removed).sort()).toEqual([a.key, b.key].sort());
    expect(keysOf(await parts.find(under(parent)))).toEqual([c.key]);
    expect(await parts.get({ ...under('w-range-other'), key: elsewhere.key })).not.toBeNull();
    for (const part of [a, b]) {
      expect((await outboxOf(`${tenant}/${parent}/${part.key}`)).map((event) => [event.type, event.version, event.data])).toEqual([
        ['part.created', 1, { id: part.key, widget_id: parent, ...part.body, version: 1 }],
        ['part.deleted', 2, { id: part.key, widget_id: parent, ...part.body, version: 1 }],
      ]);
    }
  });

  it('removes hundreds in batches, and answers an empty list when nothing matches', async () => {
    const parent = 'w-many';
    const created = [];
    for (let index = 0; index < 450; index += 1) created.push(await parts.create(under(parent), hours(0, 1)));
    const removed = await parts.removeMany(under(parent));
    expect(keysOf(removed).sort()).toEqual(keysOf(created).sort());
    expect(await parts.find(under(parent))).toEqual([]);
    expect(await parts.removeMany(under(parent))).toEqual([]);
  });
});

describe('sub-resources of a parent collection', () => {
  it('are written only under a parent that is there: 404 naming the parent otherwise', async () => {
    const missing = widgetParts.create(under('w-never'), hours(1, 2));
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(missing).rejects.toMatchObject({ statusCode: 404, message: expect.stringContaining("widget 'w-never'") });

    await widgets.put({ tenant, key: 'w-gone' }, { colour: 'red' });
    const part = await widgetParts.create(under('w-gone'), hours(1, 2));
    await widgets.remove({ tenant, key: 'w-gone' });
    await expect(widgetParts.create(under('w-gone'), hours(3, 4))).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(widgetParts.put({ ...under('w-gone'), key: part.key }, hours(5, 6))).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(await widgetParts.find(under('w-gone'))).toEqual([]);
  });

  // Reproduced before the fix (a cascade that ended without sealing the guard): the part was left
  // behind under a removed widget.
  it('leave no part behind when one is decided while its widget is there and committed after the cascade', async () => {
    await widgets.put({ tenant, key: 'w-race' }, { colour: 'red' });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let checked: () => void = () => {};
    const parentChecked = new Promise<void>((resolve) => (checked = resolve));
    // the writer's first look at the widget finds it, then waits until the widget is removed
    let holdOnce = true;
    const slowDb = dbWithSlowParentReads(mongo.db, 'widgets', async () => {
      if (!holdOnce) return;
      holdOnce = false;
      checked();
      await held;
    });
    const writer = testStore(slowDb).collection(partDefinition({ name: widgetParts.name, parent: WIDGET_PARENT }));

    const writing = writer.create(under('w-race'), hours(1, 2));
    await parentChecked;
    await widgets.remove({ tenant, key: 'w-race' });
    release();

    await expect(writing).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(await widgetParts.collection.countDocuments({ tenant, parent: 'w-race', deleted: { $exists: false } })).toBe(0);
  });
});

/** The database, except that reads of `parentCollection` wait for `pause` after they found what they found. */
function dbWithSlowParentReads(db: Db, parentCollection: string, pause: () => Promise<void>): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property !== 'collection') {
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (name: string, ...rest: unknown[]) => {
        const collection = target.collection(name, ...(rest as []));
        if (name !== parentCollection) return collection;
        return new Proxy(collection, {
          get(inner, innerProperty) {
            const value = Reflect.get(inner, innerProperty, inner) as unknown;
            if (innerProperty !== 'findOne' || typeof value !== 'function') return typeof value === 'function' ? value.bind(inner) : value;
            return async (...args: unknown[]) => {
              const found = await (value as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
              await pause();
              return found;
            };
          },
        });
      };
    },
  });
}

describe('cascade', () => {
  it('removes the sub-resources of a removed resource, each with its own event', async () => {
    await widgets.put({ tenant, key: 'w-cascade' }, { colour: 'red' });
    const first = await widgetParts.create(under('w-cascade'), hours(1, 2));
    const second = await widgetParts.create(under('w-cascade'), hours(3, 4));
    await widgets.remove({ tenant, key: 'w-cascade' });

    expect(await widgetParts.find(under('w-cascade'))).toEqual([]);
    for (const part of [first, second]) expect((await outboxOf(`${tenant}/w-cascade/${part.key}`, widgetParts.name)).at(-1)?.type).toBe('part.deleted');
    expect(await widgets.collection.findOne({ _id: `${tenant}/w-cascade` })).not.toHaveProperty('cascading');
  });

  // Reproduced before the fix: a cascade that ran late removed a part created after the widget came back.
  it('never removes what was created under the resource after it came back', async () => {
    let release: () => void = () => {};
    let holdFirst: Promise<void> | undefined = new Promise<void>((resolve) => (release = resolve));
    // a cascade slowed down (a large one, a slow database): its first call waits for the test
    const slowParts = {
      async removeChildrenOf(...args: Parameters<Parts['removeChildrenOf']>) {
        const hold = holdFirst;
        holdFirst = undefined;
        if (hold !== undefined) await hold;
        return widgetParts.removeChildrenOf(...args);
      },
    };
    const slowStore = testStore(mongo.db, { staleAfterMs: 0, tombstoneGraceMs: 0 });
    const slowWidgets = slowStore.collection(widgetDefinition({ cascadeTo: [slowParts] }));
    await slowWidgets.put({ tenant, key: 'w-back' }, { colour: 'red' });
    const old = await widgetParts.create(under('w-back'), hours(1, 2));

    const removing = slowWidgets.remove({ tenant, key: 'w-back' });
    await waitFor('the tombstone to be written', async () => (await slowWidgets.collection.findOne({ _id: `${tenant}/w-back` }))?.deleted === true);
    // created again: this finishes the old cascade itself, then a new part comes
    await slowWidgets.put({ tenant, key: 'w-back' }, { colour: 'blue' });
    const fresh = await widgetParts.create(under('w-back'), hours(3, 4));
    release();
    await removing;

    expect(await widgetParts.get({ ...under('w-back'), key: old.key })).toBeNull();
    expect(await widgetParts.get({ ...under('w-back'), key: fresh.key })).toMatchObject({ version: 1 });
  });

  it('is finished by maintenance when a crash stopped it half way', async () => {
    await widgets.put({ tenant, key: 'w-crash' }, { colour: 'red' });
    const orphan = await widgetParts.create(under('w-crash'), hours(1, 2));
    // what a process that died right after writing the tombstone leaves behind
    await widgets.collection.updateOne({ _id: `${tenant}/w-crash` }, { $set: { deleted: true, cascading: true, updated_at: new Date() }, $inc: { version: 1 }, $unset: { body: '' } });

    expect((await store.maintain()).cascadesFinished).toBeGreaterThanOrEqual(1);
    expect(await widgetParts.get({ ...under('w-crash'), key: orphan.key })).toBeNull();
    expect(await widgets.collection.findOne({ _id: `${tenant}/w-crash` })).not.toHaveProperty('cascading');
  });

  it('is finished first when the resource is created again, so that the new one starts without the old sub-resources', async () => {
    await widgets.put({ tenant, key: 'w-again' }, { colour: 'red' });
    const old = await widgetParts.create(under('w-again'), hours(1, 2));
    await widgets.collection.updateOne({ _id: `${tenant}/w-again` }, { $set: { deleted: true, cascading: true, updated_at: new Date() }, $inc: { version: 1 }, $unset: { body: '' } });

    await expect(widgets.put({ tenant, key: 'w-again' }, { colour: 'blue' })).resolves.toMatchObject({ created: true, resource: { version: 3 } });
    expect(await widgetParts.get({ ...under('w-again'), key: old.key })).toBeNull();
    expect(await widgets.collection.findOne({ _id: `${tenant}/w-again` })).not.toHaveProperty('cascading');
  });
});

describe('tombstones', () => {
  it('of ids that never come back are purged once their event is out, not before', async () => {
    const part = await parts.create(under('w-purge'), hours(1, 2));
    await parts.remove({ ...under('w-purge'), key: part.key });
    const documentId = `${tenant}/w-purge/${part.key}`;
    const raw = () => mongo.db.collection<StoredDocument<Part>>(parts.name).findOne({ _id: documentId });

    await store.maintain();
    expect(await raw()).toMatchObject({ deleted: true });

    await store.outbox.clear([{ collection: parts.name, documentId, eventIds: (await outboxOf(documentId)).map((event) => event.id) }]);
    expect((await store.maintain()).tombstonesPurged).toBeGreaterThanOrEqual(1);
    expect(await raw()).toBeNull();
    expect(await parts.get({ ...under('w-purge'), key: part.key })).toBeNull();
  });

  it('of resources that can be created again are kept, with their version', async () => {
    await widgets.put({ tenant, key: 'w-keep' }, { colour: 'red' });
    await widgets.remove({ tenant, key: 'w-keep' });
    const documentId = `${tenant}/w-keep`;
    const tombstone = await widgets.collection.findOne({ _id: documentId });
    await store.outbox.clear([{ collection: widgets.name, documentId, eventIds: (tombstone?.outbox ?? []).map((event) => event.id) }]);
    await store.maintain();
    expect(await widgets.collection.findOne({ _id: documentId })).toMatchObject({ deleted: true, version: 2 });
  });
});
