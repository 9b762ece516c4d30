import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '@rm/testkit';
import { json } from './helpers.js';
import { employeeEvent, homeBaseClient, startReferenceWorld, type HomeBaseClient, type InUse } from './reference-helpers.js';
import type { ReferenceWorld } from './reference-helpers.js';

// A claim whose writer never settled it (it crashed, or its write failed in an outage), or settled it
// with a version whose event never comes, goes once the stream of the referrer's service brings an
// event that happened more than 5 minutes after the claim.
// A consumer looks at most every 30 s, the first time with the first event it handles: each test runs
// on a service of its own, so that its future-dated event is that first one.
const tenant = uniqueName('tenant');
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

async function withWorld(test: (world: ReferenceWorld, client: HomeBaseClient) => Promise<void>): Promise<void> {
  const world = await startReferenceWorld();
  try {
    await test(world, homeBaseClient(world.harness, await world.harness.as(tenant)));
  } finally {
    await world.close();
  }
}

async function claimed(client: HomeBaseClient, referrer: { entity: string; id: string }, home: string): Promise<string> {
  const response = await client.claim(referrer, [{ field: 'home_base.business_id', business_id: home }]);
  expect(response.statusCode, response.body).toBe(201);
  return json<{ claim_id: string }>(response).claim_id;
}

/** The referrers a single delete of the home base lists (the home base created again if it went), or 204. */
async function listed(client: HomeBaseClient, home: string) {
  const response = await client.tryDelete(home);
  return response.statusCode === 409 ? json<InUse>(response).referrers : response.statusCode;
}

describe('a claim that is never settled', () => {
  it('stays through an event of its referrer that happened within 5 minutes of it', async () => {
    await withWorld(async (world, client) => {
      const home = `hb-${randomUUID()}`;
      await client.create(home);
      const employee = `emp-${randomUUID()}`;
      await claimed(client, { entity: 'employee', id: employee }, home);
      await world.publish(employeeEvent(tenant, employee, 1, undefined, { action: 'created', occurredAt: minutesFromNow(4) }));
      await world.applied(tenant, 'employee', employee, 1);
      expect(await listed(client, home)).toEqual([{ entity: 'employee', id: employee, pending: true }]);
    });
  });

  // Before, a settled claim stayed: settled with a version never reached, it kept its home base for ever.
  it('goes with an event on its stream that happened over 5 minutes later, whoever it is of, settled or not', async () => {
    await withWorld(async (world, client) => {
      const [lapsed, settled, truck] = [`hb-${randomUUID()}`, `hb-${randomUUID()}`, `hb-${randomUUID()}`];
      for (const home of [lapsed, settled, truck]) await client.create(home);
      const [crashed, slow] = [`emp-${randomUUID()}`, `emp-${randomUUID()}`];
      await claimed(client, { entity: 'employee', id: crashed }, lapsed);
      const settling = await claimed(client, { entity: 'employee', id: slow }, settled);
      expect((await client.settle(settling, 3)).statusCode).toBe(204);
      // a claim of a transport resource waits for the transport resources' stream
      const truckId = `truck-${randomUUID()}`;
      await claimed(client, { entity: 'transport-resource', id: truckId }, truck);

      // an event of another employee, of another tenant, that happened 6 minutes from now
      const bystander = `emp-${randomUUID()}`;
      const other = uniqueName('other');
      await world.publish(employeeEvent(other, bystander, 1, undefined, { action: 'created', occurredAt: minutesFromNow(6) }));
      await world.applied(other, 'employee', bystander, 1);

      expect(await listed(client, lapsed)).toBe(204);
      expect(await listed(client, settled)).toBe(204);
      expect(await listed(client, truck)).toEqual([{ entity: 'transport-resource', id: truckId, pending: true }]);
    });
  });
});
