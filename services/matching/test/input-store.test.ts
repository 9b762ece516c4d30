// The engine's record of its inputs: what a replica rebuilds a tenant from.
import { randomUUID } from 'node:crypto';
import { createStore } from '@rm/store';
import { connectTestMongo, type TestMongo } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Input } from '../src/domain/tenant-matching.js';
import { createInputStore, type InputStore } from '../src/store/inputs.js';

let mongo: TestMongo;
let inputs: InputStore;

beforeAll(async () => {
  mongo = await connectTestMongo('matching_inputs');
  const store = createStore(mongo.db, { maxEventBytes: 1024 ** 2 });
  inputs = createInputStore(store);
  await store.declareIndexes();
});

afterAll(async () => {
  await mongo?.close();
});

const employee = (id: string, version: number, name = `v${version}`): Input => ({ entity: 'employee', id, version, deleted: false, data: { business_id: id, name } });
const versionsOf = async (tenant: string) => Object.fromEntries(((await inputs.ofTenant(tenant)) ?? []).map((input) => [input.id, input.version]));

describe('the input store', () => {
  it('inserts the inputs of entities it holds no row of, more than one statement takes, and reads them up to a limit', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const fresh = Array.from({ length: 250 }, (_, index) => ({ input: employee(`e${index}`, 1), stored: false }));
    await inputs.record(tenant, fresh);
    expect(await inputs.ofTenant(tenant, 250)).toHaveLength(250);
    expect(await inputs.ofTenant(tenant, 249)).toBeUndefined();
    expect((await inputs.ofTenant(tenant))?.find((input) => input.id === 'e7')).toEqual(employee('e7', 1));
  });

  it('raises a row to a newer version and never lowers it, whether or not the engine knew of the row', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    await inputs.record(tenant, [{ input: employee('a', 2), stored: false }, { input: employee('b', 1), stored: false }]);
    await inputs.record(tenant, [
      // known: raised; an older one: kept as it is
      { input: employee('a', 3), stored: true },
      { input: employee('b', 1, 'again'), stored: true },
      // believed new but there (another replica's, while a partition changed hands): raised, not refused
      { input: employee('c', 1), stored: false },
    ]);
    await inputs.record(tenant, [{ input: employee('b', 2), stored: false }, { input: employee('c', 1, 'late'), stored: false }]);
    expect(await versionsOf(tenant)).toEqual({ a: 3, b: 2, c: 1 });
    expect((await inputs.ofTenant(tenant))?.find((input) => input.id === 'c')?.data).toEqual({ business_id: 'c', name: 'v1' });
  });
});
