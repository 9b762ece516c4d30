import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityRefKey, type EntityVersion } from '@rm/contracts';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import { APPLIED_VERSIONS_COLLECTION, type Store } from '../src/index.js';
import { testStore } from './fixtures.js';

let mongo: TestMongo;
let store: Store;

beforeAll(async () => {
  mongo = await connectTestMongo('store_ledger');
  store = testStore(mongo.db);
});

afterAll(async () => {
  await mongo?.close();
});

const entity = (entityId: string, version: number, tenant = 'acme'): EntityVersion => ({ tenant, entity: 'employee', entityId, version });

describe('applied versions', () => {
  it('reads back what was recorded, and nothing for entities never seen', async () => {
    const ledger = store.appliedVersions('durable-a');
    await ledger.record([entity('e-1', 3), entity('e-2', 1)]);
    const versions = await ledger.read([entity('e-1', 0), entity('e-2', 0), entity('e-3', 0)]);
    expect(versions).toEqual(new Map([[entityRefKey(entity('e-1', 0)), 3], [entityRefKey(entity('e-2', 0)), 1]]));
  });

  it('only ever raises a version', async () => {
    const ledger = store.appliedVersions('durable-b');
    await ledger.record([entity('e-1', 5)]);
    await ledger.record([entity('e-1', 4), entity('e-1', 2)]);
    expect((await ledger.read([entity('e-1', 0)])).get(entityRefKey(entity('e-1', 0)))).toBe(5);
  });

  it('keeps consumers, tenants and ids with dots or dollars apart', async () => {
    const a = store.appliedVersions('durable-c');
    const b = store.appliedVersions('durable-d');
    const odd = ['e.1', 'e%2E1', '$e', 'parent/e~1'];
    await a.record(odd.map((entityId, index) => entity(entityId, index + 1)));
    await a.record([entity('e.1', 9, 'other')]);
    const read = await a.read(odd.map((entityId) => entity(entityId, 0)));
    expect(odd.map((entityId) => read.get(entityRefKey(entity(entityId, 0))))).toEqual([1, 2, 3, 4]);
    expect((await a.read([entity('e.1', 0, 'other')])).get(entityRefKey(entity('e.1', 0, 'other')))).toBe(9);
    expect(await b.read(odd.map((entityId) => entity(entityId, 0)))).toEqual(new Map());
  });

  // buckets of many entities grew with the tenant, and FerretDB read and rewrote them whole for every event
  it('keeps each entity in a document of its own, as small at 500 entities as at one', async () => {
    const ledger = store.appliedVersions('durable-e');
    const batch = Array.from({ length: 500 }, (_, index) => entity(`e-${index}`, index + 1));
    await ledger.record(batch);
    const read = await ledger.read(batch);
    expect(batch.every((item) => read.get(entityRefKey(item)) === item.version)).toBe(true);
    const documents = await mongo.db.collection<{ _id: string }>(APPLIED_VERSIONS_COLLECTION).find({ _id: { $regex: '^durable-e\\|' } as never }).toArray();
    expect(documents).toHaveLength(500);
    expect(documents.find((document) => document._id === `durable-e|${entityRefKey(entity('e-7', 0))}`)).toEqual({ _id: expect.any(String), version: 8 });
  });
});
