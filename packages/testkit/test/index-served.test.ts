import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectTestMongo, planNodes, unservedLookups, type TestMongo } from '../src/index.js';

describe('lookups served by an index', () => {
  let declared: TestMongo;
  let scratch: TestMongo;

  beforeAll(async () => {
    [declared, scratch] = await Promise.all([connectTestMongo('declared'), connectTestMongo('scratch')]);
  });

  afterAll(async () => {
    await Promise.all([declared.close(), scratch.close()]);
  });

  test('`_id`, a unique compound index and an index over a nested field each serve their equalities', async () => {
    const things = declared.db.collection('things');
    await things.createIndexes([{ key: { tenant: 1, key: 1 }, name: 'scope_key', unique: true }]);
    await things.createIndexes([{ key: { tenant: 1, 'indexed.home_base': 1 }, name: 'home_base' }]);

    expect(await unservedLookups(declared.db, scratch.db)).toEqual([]);
  });

  test('a lookup on a field no index names reads the whole collection, and the plan says so', async () => {
    const others = scratch.db.collection('others');
    await others.insertMany(Array.from({ length: 2_000 }, (_, row) => ({ _id: `row-${row}` as never, unindexed: `value-${row}` })));
    const nodes = planNodes((await others.find({ unindexed: 'value-7' }).explain()).queryPlanner);
    expect(nodes.some((node) => node === 'Seq Scan' || node === 'COLLSCAN')).toBe(true);
  });
});
