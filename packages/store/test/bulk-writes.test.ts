import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestMongo, startMongoServer, type TestMongo } from '@rm/testkit';
import { BULK_CHUNK, createBulkWrites } from '../src/bulk-writes.js';

let mongo: TestMongo;

beforeAll(async () => {
  mongo = await connectTestMongo('store_bulk');
});

afterAll(async () => {
  await mongo?.close();
});

describe('bulk writes', () => {
  it('writes more operations than one chunk holds, in chunks, counting every one', async () => {
    const bulk = createBulkWrites();
    const counters = mongo.db.collection<{ _id: string; n: number }>('counters');
    const operations = Array.from({ length: BULK_CHUNK * 3 + 7 }, (_, index) => ({
      updateOne: { filter: { _id: `c-${index}` }, update: { $inc: { n: 1 } }, upsert: true },
    }));
    expect(await bulk(counters, operations)).toEqual({ matched: 0, modified: 0, upserted: operations.length });
    expect(await bulk(counters, operations)).toEqual({ matched: operations.length, modified: operations.length, upserted: 0 });
    expect(await counters.countDocuments({ n: 2 })).toBe(operations.length);
  });

  // FerretDB's PostgreSQL handler hangs on bulk writes running side by side (4 × 49 never answered)
  it('runs callers one at a time, so that concurrent bulk writes never meet on the server', async () => {
    const bulk = createBulkWrites();
    const collection = mongo.db.collection<{ _id: string; n: number }>('concurrent');
    const writes = Array.from({ length: 4 }, (_, caller) =>
      bulk(
        collection,
        Array.from({ length: BULK_CHUNK }, (_, index) => ({ updateOne: { filter: { _id: `${caller}-${index}` }, update: { $set: { n: caller } }, upsert: true } })),
      ),
    );
    const counts = await Promise.all(writes);
    expect(counts.map((count) => count.upserted)).toEqual([BULK_CHUNK, BULK_CHUNK, BULK_CHUNK, BULK_CHUNK]);
    expect(await collection.countDocuments({})).toBe(4 * BULK_CHUNK);
  });

  // FerretDB holds a PostgreSQL connection per updated document until a bulk write ends: two services' chunks
  // of 40 side by side took its 48 and it never answered again
  it('keeps two services updating existing documents in bulk side by side within what FerretDB can hold', async () => {
    const server = await startMongoServer();
    const client = new MongoClient(server.url, { socketTimeoutMS: 10_000 });
    try {
      const collection = client.db('bulk_side_by_side').collection<{ _id: string; n: number }>('documents');
      await collection.insertMany(Array.from({ length: 200 }, (_, index) => ({ _id: `d${index}`, n: 0 })));
      const service = (first: number) =>
        createBulkWrites()(
          collection,
          Array.from({ length: 100 }, (_, index) => ({ updateOne: { filter: { _id: `d${first + index}` }, update: { $inc: { n: 1 } } } })),
        );
      const counts = await Promise.all([service(0), service(100)]);
      expect(counts.map((count) => count.modified)).toEqual([100, 100]);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
