import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestMongo, testServers, type TestMongo } from '@rm/testkit';
import { Binary, BSON, MongoClient } from 'mongodb';
import {
  CREATE_BATCH,
  GUARDS_COLLECTION,
  newKey,
  ResourceConflictError,
  type GuardDocument,
  StoreUsageError,
  type Store,
  type StoredDocument,
  TooManyItemsError,
} from '../src/index.js';
import { hasAtomicConditionalUpdates, hours, noOverlappingParts, partDefinition, readable, testStore, widgetDefinition, type Part, type Parts } from './fixtures.js';

let mongo: TestMongo;
let store: Store;
let parts: Parts;

beforeAll(async () => {
  mongo = await connectTestMongo('store_guard');
  store = testStore(mongo.db, { staleAfterMs: 0 });
  parts = store.collection(partDefinition({ guard: noOverlappingParts }));
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const tenant = 't1';
const under = (parent: string) => ({ tenant, parent });
const rawGuard = (parent: string) => mongo.db.collection<GuardDocument>(GUARDS_COLLECTION).findOne({ _id: `${parts.name}/${tenant}/${parent}` });
const unpackedItems = (guard: GuardDocument | null) => (guard === null ? [] : BSON.deserialize(guard.items.buffer).items);
const rawPart = async (db: typeof mongo.db, parent: string, key: string) =>
  readable(await db.collection<StoredDocument<Part>>(parts.name).findOne({ _id: `${tenant}/${parent}/${key}` }));

describe('a guarded invariant (no two parts of a widget overlap)', () => {
  it('refuses an overlapping create with 409 naming the part it overlaps, and writes nothing', async () => {
    const first = await parts.create(under('w-1'), hours(8, 12));
    const refused = parts.create(under('w-1'), hours(11, 13));
    await expect(refused).rejects.toBeInstanceOf(ResourceConflictError);
    await expect(refused).rejects.toMatchObject({ statusCode: 409, extensions: { conflicting_id: first.key }, message: `the part overlaps part '${first.key}'` });
    expect((await parts.find(under('w-1'))).map((part) => part.key)).toEqual([first.key]);
  });

  it('lets parts that only touch, and parts of other widgets, be', async () => {
    await parts.create(under('w-2'), hours(8, 12));
    await expect(parts.create(under('w-2'), hours(12, 14))).resolves.toMatchObject({ version: 1 });
    await expect(parts.create(under('w-2'), hours(6, 8))).resolves.toMatchObject({ version: 1 });
    await expect(parts.create(under('w-2-other'), hours(8, 12))).resolves.toMatchObject({ version: 1 });
  });

  it('checks an update against the other parts only, and frees the old span', async () => {
    const morning = await parts.create(under('w-3'), hours(8, 12));
    const afternoon = await parts.create(under('w-3'), hours(13, 17));
    // moving within its own old span is no conflict with itself
    await expect(parts.put({ ...under('w-3'), key: morning.key }, hours(9, 12), { mode: 'update' })).resolves.toMatchObject({ resource: { version: 2 } });
    await expect(parts.put({ ...under('w-3'), key: morning.key }, hours(9, 14), { mode: 'update' })).rejects.toMatchObject({
      statusCode: 409,
      extensions: { conflicting_id: afternoon.key },
    });
    // the freed hour 8 can be taken by another part
    await expect(parts.create(under('w-3'), hours(8, 9))).resolves.toMatchObject({ version: 1 });
  });

  it('frees the span of a removed part, one by one or in bulk', async () => {
    const part = await parts.create(under('w-4'), hours(8, 12));
    await parts.remove({ ...under('w-4'), key: part.key });
    const again = await parts.create(under('w-4'), hours(8, 12));
    await parts.create(under('w-4'), hours(12, 13));
    await parts.removeMany(under('w-4'));
    await expect(parts.create(under('w-4'), hours(7, 14))).resolves.toMatchObject({ version: 1 });
    expect(await parts.get({ ...under('w-4'), key: again.key })).toBeNull();
  });

  it('lets exactly one of many concurrent overlapping creates in, and all that do not overlap', async () => {
    const results = await Promise.allSettled([
      ...Array.from({ length: 6 }, () => parts.create(under('w-5'), hours(8, 12))),
      parts.create(under('w-5'), hours(12, 13)),
      parts.create(under('w-5'), hours(14, 15)),
    ]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const result of refused) expect(result.reason).toBeInstanceOf(ResourceConflictError);
    const spans = (await parts.find(under('w-5'))).map((part) => [part.body.from, part.body.until]);
    expect(spans.sort()).toEqual([hours(8, 12), hours(12, 13), hours(14, 15)].map((part) => [part.from, part.until]).sort());
  });

  it('rolls forward the write of a writer that died after its guard commit, before anyone decides again', async () => {
    const part = await parts.create(under('w-6'), hours(8, 12));
    // what a writer that died between committing the guard and writing the part leaves: the guard
    // holds the part and its intent, the part document does not exist
    await mongo.db.collection(parts.name).deleteOne({ _id: `${tenant}/w-6/${part.key}` as never });
    const restarted = testStore(mongo.db, { staleAfterMs: 0 }).collection(partDefinition({ name: parts.name, guard: noOverlappingParts }));

    await expect(restarted.create(under('w-6'), hours(10, 11))).rejects.toMatchObject({ extensions: { conflicting_id: part.key } });
    expect(await rawPart(mongo.db, 'w-6', part.key)).toMatchObject({ version: 1, body: hours(8, 12), outbox: [{ type: 'part.created', version: 1 }] });
  });

  it('lets maintenance finish intents nobody wrote after, and clear them', async () => {
    const part = await parts.create(under('w-7'), hours(8, 12));
    await mongo.db.collection(parts.name).deleteOne({ _id: `${tenant}/w-7/${part.key}` as never });
    const restarted = testStore(mongo.db, { staleAfterMs: 0 });
    restarted.collection(partDefinition({ name: parts.name, guard: noOverlappingParts }));
    // what maintenance finds it by
    expect(await rawGuard('w-7')).toMatchObject({ intents_of: parts.name });

    const report = await restarted.maintain();
    expect(report.intentsFinished).toBeGreaterThanOrEqual(1);
    expect(await rawPart(mongo.db, 'w-7', part.key)).toMatchObject({ version: 1, body: hours(8, 12) });
    const guard = await rawGuard('w-7');
    expect(guard?.intents).toBeUndefined();
    expect(guard?.intents_of).toBeUndefined();
    expect(unpackedItems(guard)).toMatchObject([{ key: part.key }]);
  });

  it('applies an intent found twice only once: the second application changes nothing, and counts as nothing finished', async () => {
    const part = await parts.create(under('w-8'), hours(8, 12));
    const restarted = testStore(mongo.db, { staleAfterMs: 0 });
    restarted.collection(partDefinition({ name: parts.name, guard: noOverlappingParts }));
    // its writer applied it: maintenance only clears it, and reports no crash to recover from
    expect((await restarted.maintain()).intentsFinished).toBe(0);
    expect(await rawPart(mongo.db, 'w-8', part.key)).toMatchObject({ version: 1, outbox: [{ type: 'part.created' }] });
    expect((await rawGuard('w-8'))?.intents).toBeUndefined();
  });

  // past about 80,000 availabilities the guard document would outgrow MongoDB's 16 MiB, and every write fail with a 500
  it('refuses an item past the most a parent may hold with 409, and still lets its items change and go', async () => {
    const capped = store.collection(partDefinition({ name: 'capped_parts', guard: { ...noOverlappingParts, maxItems: 2 } }));
    const [first] = [await capped.create(under('w-cap'), hours(1, 2)), await capped.create(under('w-cap'), hours(2, 3))];
    const refused = capped.create(under('w-cap'), hours(3, 4));
    await expect(refused).rejects.toBeInstanceOf(TooManyItemsError);
    const message = "parent 'w-cap' has 2 part resources, the most it may have; delete some first";
    await expect(refused).rejects.toMatchObject({ statusCode: 409, message });
    const changed = capped.put({ ...under('w-cap'), key: first!.key }, hours(5, 6), { mode: 'update' });
    await expect(changed).resolves.toMatchObject({ created: false });
    await capped.remove({ ...under('w-cap'), key: first!.key });
    await expect(capped.create(under('w-cap'), hours(3, 4))).resolves.toMatchObject({ version: 1 });
    expect(await capped.find(under('w-cap'))).toHaveLength(2);
  });

  it('is refused on a collection without parents, where one guard would hold a whole tenant', () => {
    expect(() => testStore(mongo.db).collection(widgetDefinition({ name: 'guarded_widgets', guard: noOverlappingParts as never }))).toThrow(
      StoreUsageError,
    );
  });
});

describe('createMany', () => {
  const created = (...spans: ReturnType<typeof hours>[]) => spans.map((body) => ({ key: newKey(), body }));

  it('creates parts in one commit of their guard, each with its own created event', async () => {
    const before = (await rawGuard('w-many'))?.version ?? 0;
    const batch = created(hours(8, 9), hours(9, 10), hours(11, 12));
    const written = await parts.createMany(under('w-many'), batch);
    expect(written.map((part) => [part.key, part.version])).toEqual(batch.map(({ key }) => [key, 1]));
    expect((await rawGuard('w-many'))?.version).toBe(before + 1);
    for (const { key, body } of batch) {
      expect(await rawPart(mongo.db, 'w-many', key)).toMatchObject({ version: 1, body, outbox: [{ type: 'part.created', version: 1 }] });
    }
  });

  it('creates none when one overlaps a stored part or another of them: 409 naming the part', async () => {
    const [stored] = await parts.createMany(under('w-many-refused'), created(hours(8, 10)));
    await expect(parts.createMany(under('w-many-refused'), created(hours(12, 13), hours(9, 11)))).rejects.toMatchObject({
      extensions: { conflicting_id: stored!.key },
    });
    const among = created(hours(14, 16), hours(15, 17));
    await expect(parts.createMany(under('w-many-refused'), among)).rejects.toMatchObject({ extensions: { conflicting_id: among[0]!.key } });
    expect((await parts.find(under('w-many-refused'))).map((part) => part.key)).toEqual([stored!.key]);
  });

  it('clears its intent once applied, so that nobody tries its writes again', async () => {
    await parts.createMany(under('w-many-cleared'), created(hours(8, 9), hours(9, 10)));
    const guard = await rawGuard('w-many-cleared');
    expect(guard?.intents).toBeUndefined();
    expect(guard?.intents_of).toBeUndefined();
    expect(unpackedItems(guard)).toHaveLength(2);
  });

  it('is rolled forward whole when its writer died after the guard commit, with some documents written', async () => {
    const batch = created(hours(8, 9), hours(9, 10), hours(10, 11));
    await parts.createMany(under('w-many-crash'), batch);
    // What a writer that died part way through inserting leaves: its intent in the guard (built again
    // from the documents it wrote), one document of three.
    const documents = await mongo.db.collection<StoredDocument<Part>>(parts.name).find({ parent: 'w-many-crash' } as never).toArray();
    const writes = documents.map(({ _id, outbox, outbox_waiting: _waiting, ...next }) => ({ _id, from: 0, next, event: outbox![0] }));
    const intents = new Binary(BSON.serialize({ intents: [{ id: newKey(), writes }] }));
    await mongo.db.collection<GuardDocument>(GUARDS_COLLECTION).updateOne({ _id: `${parts.name}/${tenant}/w-many-crash` }, { $set: { intents, intents_of: parts.name } });
    await mongo.db.collection(parts.name).deleteMany({ _id: { $in: batch.slice(1).map(({ key }) => `${tenant}/w-many-crash/${key}`) } } as never);

    const restarted = testStore(mongo.db, { staleAfterMs: 0 });
    restarted.collection(partDefinition({ name: parts.name, guard: noOverlappingParts }));
    expect((await restarted.maintain()).intentsFinished).toBeGreaterThanOrEqual(1);
    for (const { key, body } of batch) {
      expect(await rawPart(mongo.db, 'w-many-crash', key)).toMatchObject({ version: 1, body, outbox: [{ type: 'part.created', version: 1 }] });
    }
  });

  it('is refused past CREATE_BATCH, with a key twice, and on a collection without a guard', async () => {
    await expect(parts.createMany(under('w-many-big'), Array.from({ length: CREATE_BATCH + 1 }, (_, hour) => ({ key: newKey(), body: hours(hour, hour + 1) })))).rejects.toBeInstanceOf(
      StoreUsageError,
    );
    const [once] = created(hours(8, 9));
    await expect(parts.createMany(under('w-many-twice'), [once!, { key: once!.key, body: hours(10, 11) }])).rejects.toBeInstanceOf(StoreUsageError);
    const unguarded = store.collection(partDefinition({ name: 'unguarded_parts' }));
    await expect(unguarded.createMany(under('w-1'), created(hours(8, 9)))).rejects.toBeInstanceOf(StoreUsageError);
  });
});

describe('a guard this process remembers from its last commit', () => {
  const elsewhere = () => testStore(mongo.db).collection(partDefinition({ name: parts.name, guard: noOverlappingParts }));

  it('does not refuse on what another process has removed since', async () => {
    const part = await parts.create(under('w-9'), hours(8, 12));
    await elsewhere().remove({ ...under('w-9'), key: part.key });
    await expect(parts.create(under('w-9'), hours(9, 10))).resolves.toMatchObject({ version: 1 });
  });

  it('does not let in what conflicts with what another process has written since', async () => {
    await parts.create(under('w-10'), hours(8, 9));
    const there = await elsewhere().create(under('w-10'), hours(10, 12));
    await expect(parts.create(under('w-10'), hours(11, 13))).rejects.toMatchObject({ statusCode: 409, extensions: { conflicting_id: there.key } });
  });

  it('keeps the items packed in one value, and no intents once they are applied and cleared', async () => {
    const part = await parts.create(under('w-11'), hours(8, 12));
    const guard = await rawGuard('w-11');
    expect(guard?.items).toBeInstanceOf(Binary);
    expect(unpackedItems(guard)).toEqual([{ key: part.key, summary: { start: new Date(hours(8, 12).from), end: new Date(hours(8, 12).until) } }]);
  });
});

describe('a guarded invariant across processes', () => {
  it('holds when two processes create overlapping parts at once', async (context) => {
    if (!(await hasAtomicConditionalUpdates(mongo.db))) {
      context.skip('FerretDB v1 has no atomic conditional update; production runs on MongoDB, which has');
    }
    const other = await MongoClient.connect(testServers().mongoUrl);
    try {
      const there = testStore(other.db(mongo.db.databaseName)).collection(partDefinition({ guard: noOverlappingParts }));
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, index) => (index % 2 ? parts : there).create(under('w-x'), hours(8, 12))));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(await parts.find(under('w-x'))).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
