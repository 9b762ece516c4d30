import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestMongo, uniqueName, type TestMongo } from '@rm/testkit';
import {
  ConcurrentWriteError,
  DatabaseUnavailableError,
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENCY_KEYS_COLLECTION,
  IdempotencyKeyReusedError,
  IdempotentResourceGoneError,
  ResourceNotFoundError,
  type Store,
} from '../src/index.js';
import { createIdempotencyKeys } from '../src/idempotent-creates.js';
import { hours, noOverlappingParts, partDefinition, testStore, type Parts, type Part } from './fixtures.js';

let mongo: TestMongo;
let store: Store;
/** Guarded as availabilities are: no two parts of a widget overlap. */
let parts: Parts;

beforeAll(async () => {
  mongo = await connectTestMongo('store_idempotent');
  store = testStore(mongo.db);
  parts = store.collection(partDefinition({ name: 'guarded_parts', guard: noOverlappingParts, tombstones: 'purge' }));
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const tenant = 't1';
let widgets = 0;
/** A list of its own for each test: keys are per list. */
const newWidget = () => ({ tenant, parent: `w-${++widgets}` });
const keysOf = async (scope: Widget) => (await parts.find(scope)).map(({ key }) => key);
/** The store's record of a key, as a test reaches into it to play a crash or the passing of a day. */
const records = () => mongo.db.collection<{ _id: string }>(IDEMPOTENCY_KEYS_COLLECTION);
type Widget = { tenant: string; parent: string };
const recordId = (scope: Widget, idempotencyKey: string) => `${parts.name}/${scope.tenant}/${scope.parent}/${idempotencyKey}`;
/** Plays the passing of a day and a minute since the key's first use. */
const age = async (scope: Widget, idempotencyKey: string) => {
  const at = new Date(Date.now() - IDEMPOTENCY_KEY_TTL_MS - 61_000);
  await records().updateOne({ _id: recordId(scope, idempotencyKey) }, { $set: { at, minute: Math.floor(at.getTime() / 60_000) } });
};
const createOnce = (scope: Widget, body: Part, idempotencyKey: string | undefined, create?: (key: string) => Promise<never>) =>
  parts.createOnce(scope, body, { idempotencyKey, ...(create === undefined ? {} : { create }) });

describe('creates with an idempotency key', () => {
  it('create once: the same key and body again return what the first created, replayed', async () => {
    const scope = newWidget();
    const first = await createOnce(scope, hours(8, 10), 'key-1');
    const again = await createOnce(scope, hours(8, 10), 'key-1');
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ resource: first.resource, replayed: true });
    // the second would have overlapped the first had it been created
    expect(await keysOf(scope)).toEqual([first.resource.key]);
  });

  it('take the same body in another order of its fields for the same body', async () => {
    const scope = newWidget();
    const first = await createOnce(scope, { from: hours(8, 10).from, until: hours(8, 10).until, label: 'x' }, 'key-order');
    const again = await createOnce(scope, { label: 'x', until: hours(8, 10).until, from: hours(8, 10).from }, 'key-order');
    expect(again.resource.key).toBe(first.resource.key);
  });

  it('refuse the key with another body (422), creating nothing', async () => {
    const scope = newWidget();
    const first = await createOnce(scope, hours(8, 10), 'key-2');
    const refused = createOnce(scope, hours(11, 12), 'key-2');
    await expect(refused).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(refused).rejects.toMatchObject({ statusCode: 422 });
    expect(await keysOf(scope)).toEqual([first.resource.key]);
  });

  it('create once when ten uses of one key run side by side', async () => {
    const scope = newWidget();
    const results = await Promise.all(Array.from({ length: 10 }, () => createOnce(scope, hours(8, 10), 'key-race')));
    const [key] = await keysOf(scope);
    expect(await keysOf(scope)).toHaveLength(1);
    expect(results.map(({ resource }) => resource.key)).toEqual(Array(10).fill(key));
    expect(results.filter(({ replayed }) => !replayed)).toHaveLength(1);
  });

  it('create on a retry what a first use whose outcome is unknown did not create', async () => {
    const scope = newWidget();
    const outage = () => Promise.reject(new DatabaseUnavailableError('the database went away'));
    await expect(createOnce(scope, hours(8, 10), 'key-lost', outage)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(await keysOf(scope)).toEqual([]);
    const retried = await createOnce(scope, hours(8, 10), 'key-lost');
    expect(await keysOf(scope)).toEqual([retried.resource.key]);
  });

  it('return on a retry what a first use created before it could record so (a crash between the two)', async () => {
    const scope = newWidget();
    const first = await createOnce(scope, hours(8, 10), 'key-crash');
    await records().updateOne({ _id: recordId(scope, 'key-crash') }, { $set: { created: false } });
    expect(await createOnce(scope, hours(8, 10), 'key-crash')).toMatchObject({ resource: { key: first.resource.key }, replayed: true });
    expect(await keysOf(scope)).toEqual([first.resource.key]);
  });

  it('free the key when the first use was refused (4xx), so that another body may use it', async () => {
    const scope = newWidget();
    const refused = () => Promise.reject(new ResourceNotFoundError('widget', scope.parent));
    await expect(createOnce(scope, hours(8, 10), 'key-refused', refused)).rejects.toBeInstanceOf(ResourceNotFoundError);
    const created = await createOnce(scope, hours(11, 12), 'key-refused');
    expect(created.replayed).toBe(false);
    expect(await keysOf(scope)).toEqual([created.resource.key]);
  });

  it('refuse a retry once what the key created has been deleted (409), creating nothing', async () => {
    const scope = newWidget();
    const { resource } = await createOnce(scope, hours(8, 10), 'key-deleted');
    await parts.remove({ ...scope, key: resource.key });
    await expect(createOnce(scope, hours(8, 10), 'key-deleted')).rejects.toBeInstanceOf(IdempotentResourceGoneError);
    expect(await keysOf(scope)).toEqual([]);
  });

  it('refuse a retry (409) when what the key created was deleted before the first use could record it', async () => {
    const scope = newWidget();
    const { resource } = await createOnce(scope, hours(8, 10), 'key-deleted-unrecorded');
    await records().updateOne({ _id: recordId(scope, 'key-deleted-unrecorded') }, { $set: { created: false } });
    await parts.remove({ ...scope, key: resource.key });
    await expect(createOnce(scope, hours(8, 10), 'key-deleted-unrecorded')).rejects.toBeInstanceOf(IdempotentResourceGoneError);
    expect(await keysOf(scope)).toEqual([]);
  });

  it('keep keys per list: the same key under another parent creates there', async () => {
    const [one, other] = [newWidget(), newWidget()];
    const first = await createOnce(one, hours(8, 10), 'key-shared');
    const second = await createOnce(other, hours(8, 10), 'key-shared');
    expect(second.replayed).toBe(false);
    expect(second.resource.key).not.toBe(first.resource.key);
  });

  it('forget a key a day after its first use (maintenance)', async () => {
    const scope = newWidget();
    await createOnce(scope, hours(8, 10), 'key-old');
    await age(scope, 'key-old');
    // as the first pass of a process that starts now
    expect((await testStore(mongo.db).maintain()).idempotencyKeysExpired).toBe(1);
    const later = await createOnce(scope, hours(11, 12), 'key-old');
    expect(later.replayed).toBe(false);
    expect(await keysOf(scope)).toHaveLength(2);
  });

  it('forget, after a first pass over every key, the minutes that have expired since, one by one', async () => {
    const own = mongo.client.db(uniqueName('store_idempotency_expiry'));
    try {
      const keys = createIdempotencyKeys(own);
      const minute = (at: number) => Math.floor(at / 60_000);
      const start = Date.now();
      const stored = own.collection<{ _id: string; minute: number }>(IDEMPOTENCY_KEYS_COLLECTION);
      await stored.insertMany([{ _id: 'long-gone', minute: minute(start) - 90 }]);
      expect(await keys.expire(new Date(start))).toBe(1);
      await stored.insertMany([
        { _id: 'this-minute', minute: minute(start) },
        { _id: 'next-minute', minute: minute(start) + 1 },
      ]);
      expect(await keys.expire(new Date(start + 60_000))).toBe(1);
      expect(await stored.find().map(({ _id }) => _id).toArray()).toEqual(['next-minute']);
    } finally {
      await own.dropDatabase();
    }
  });

  // before, the guard took it for a fresh key and answered with a resource it had not written
  it('rest on create refusing a key its parent already holds, leaving the resource as it was', async () => {
    const scope = newWidget();
    const { resource } = await createOnce(scope, hours(8, 10), 'key-held');
    await expect(parts.create(scope, hours(8, 10, 'again'), resource.key)).rejects.toBeInstanceOf(ConcurrentWriteError);
    expect(await parts.get({ ...scope, key: resource.key })).toEqual(resource);
  });

  it('create every time without a key', async () => {
    const scope = newWidget();
    await createOnce(scope, hours(8, 9), undefined);
    await createOnce(scope, hours(9, 10), undefined);
    expect(await keysOf(scope)).toHaveLength(2);
  });
});
