import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@rm/testkit';
import { useWorld } from '@rm/testkit/service-helpers';
import { HOUR, inputs, startMatchingWorld, type MatchingHarness } from './world.js';

const { world } = useWorld(startMatchingWorld);

const at = (hours: number) => new Date(Date.UTC(2030, 0, 1) + hours * HOUR).toISOString();
const place = { start_location: { name: 'Depot', city: 'Gent', country_code: 'BE' } };

/** Who holds each partition, by the leases in the replicas' database. */
async function owners(replica: MatchingHarness): Promise<Map<number, string>> {
  const leases = await replica.service.collections.partitions.leases.find({ expires_at: { $gt: new Date() } }).toArray();
  return new Map(leases.map((lease) => [lease._id, lease.owner]));
}

/** A tenant with employees competing for fewer trucks at one depot: the pairing depends on the order of events. */
async function publishContendedTenant(tenant: string, employees: number, trucks: number): Promise<void> {
  for (let truck = 0; truck < trucks; truck++) {
    const costs = { fixed: (truck * 7) % 5 };
    await world.publish(tenant, 'transport-resource', `tr${truck}`, inputs.transportResource(`tr${truck}`, { ...place, costs }));
  }
  for (let employee = 0; employee < employees; employee++) {
    await world.publish(tenant, 'employee', `e${employee}`, inputs.employee(`e${employee}`, place));
    for (let day = 0; day < 3; day++) {
      const id = randomUUID();
      const mandatory = (employee + day) % 3 === 0;
      const shift = inputs.availability(`e${employee}`, id, at(day * 24 + employee), { mandatory, max_duration: `PT${6 + (employee % 4)}H` });
      await world.publish(tenant, 'availability', `e${employee}/${id}`, shift);
    }
  }
}

const pairing = (combinations: Map<string, { transport_resource_ids: string[] }>) =>
  Object.fromEntries([...combinations].map(([id, combination]) => [id, combination.transport_resource_ids]).sort());

describe('scale-out', () => {
  // lease rounds, a start, a stop and a takeover: seconds on an idle machine, many on a loaded one
  it('spreads the partitions over two replicas, and one takes them all over when the other stops', { timeout: 90_000 }, async () => {
    const first = world.harness;
    await waitFor('the first replica holds every partition', async () => (await owners(first)).size === 4);
    const second = await world.startReplica({ MONGO_DB: first.env.variables.MONGO_DB! });
    await waitFor('two replicas sharing the partitions', async () => {
      const held = [...(await owners(first)).values()];
      return held.length === 4 && new Set(held).size === 2 && held.filter((owner) => owner === held[0]).length === 2;
    });

    const tenants = Array.from({ length: 8 }, () => `t-${randomUUID().slice(0, 8)}`);
    for (const tenant of tenants) await publishContendedTenant(tenant, 3, 2);
    for (const tenant of tenants) await world.until(tenant, 'its combinations', (found) => found.size === 6);

    await second.service.stop();
    await waitFor('the first replica holds every partition again', async () => {
      const held = [...(await owners(first)).values()];
      return held.length === 4 && held.every((owner) => owner === held[0]);
    });
    // each tenant's next shift is matched by the replica that took it over, from what the database held
    for (const tenant of tenants) {
      const id = randomUUID();
      await world.publish(tenant, 'availability', `e0/${id}`, inputs.availability('e0', id, at(24 * 10)));
      const combinations = await world.until(tenant, 'the new shift combined', (found) => found.has(id));
      expect(combinations.size).toBe(7);
    }
  });

  it('reaches the same combinations in a fresh engine that replays the streams into an empty database', async () => {
    const tenants = Array.from({ length: 3 }, () => `t-${randomUUID().slice(0, 8)}`);
    for (const tenant of tenants) await publishContendedTenant(tenant, 6, 3);
    const expected = new Map<string, Record<string, string[]>>();
    for (const tenant of tenants) {
      // every shift that can be matched is, once the last event is in
      await waitFor('the tenant settled', async () => {
        const before = pairing(await world.combinations(tenant));
        await new Promise((resolve) => setTimeout(resolve, 300));
        return JSON.stringify(before) === JSON.stringify(pairing(await world.combinations(tenant))) && Object.keys(before).length > 0;
      });
      expected.set(tenant, pairing(await world.combinations(tenant)));
    }
    const fresh = await world.startReplica();
    for (const tenant of tenants) {
      const want = expected.get(tenant)!;
      const same = (found: Map<string, { transport_resource_ids: string[] }>) => JSON.stringify(pairing(found)) === JSON.stringify(want);
      expect(pairing(await world.until(tenant, 'the replay reaching the same combinations', same, fresh))).toEqual(want);
    }
  });
});
