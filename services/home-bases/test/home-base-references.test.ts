import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '@rm/testkit';
import { fresh } from '@rm/testkit/suites/home-base-references';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { json } from './helpers.js';
import {
  availabilityEvent,
  employeeEvent,
  referrerEvent,
  transportResourceData,
  transportResourceEvent,
  useReferenceWorld,
  type InUse,
} from './reference-helpers.js';

// The reference index that a home-base delete consults, filled from the events of the services whose
// entities name home bases, published here onto their real streams.
const [tenant, other] = [uniqueName('tenant'), uniqueName('other')];
const { world, clients: [client, otherClient] } = useReferenceWorld(tenant, other);

/** The single DELETE's answer, the home base created again if it went. */
async function deleteOf(id: string, on = client) {
  const response = await on.tryDelete(id);
  return { status: response.statusCode, body: response.statusCode === 409 ? json<InUse>(response) : undefined };
}

describe('the reference index from employee events', () => {
  it('blocks the delete of the home base an employee names, listing the employee, with a problem+json 409', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    await world.publish(employeeEvent(tenant, employee, 1, home, { action: 'created' }));

    await client.blocked(home!);
    const body = expectProblemWithStatus<InUse>(await client.inject('DELETE', `/home-base/${home}`), 409);
    expect(body).toMatchObject({ status: 409, title: 'Conflict', referrers: [{ entity: 'employee', id: employee }], referrers_total: 1 });
    expect(body.referrers[0]).not.toHaveProperty('pending');
    expect(body.detail).toContain(home);
    // refused: the home base is still there
    expect((await client.inject('GET', `/home-base/${home}`)).statusCode).toBe(200);
  });

  it('moves the block when an update names another home base, and lifts it with the delete event', async () => {
    const [first, second] = await client.createHomeBases(2);
    const employee = fresh('emp');
    await world.publish(employeeEvent(tenant, employee, 1, first, { action: 'created' }));
    await client.blocked(first!);

    await world.publish(employeeEvent(tenant, employee, 2, second));
    await client.free(first!);
    expect((await client.blocked(second!)).referrers).toEqual([{ entity: 'employee', id: employee }]);

    // a delete carries the removed state, home base included: it names nothing any more all the same
    await world.publish(employeeEvent(tenant, employee, 3, second, { action: 'deleted' }));
    await client.free(second!);
    expect((await client.inject('GET', `/home-base/${second}`)).statusCode).toBe(404);
  });

  it('lifts the block when an update names no home base any more', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    await world.publish(employeeEvent(tenant, employee, 1, home, { action: 'created' }));
    await client.blocked(home!);
    await world.publish(employeeEvent(tenant, employee, 2));
    await client.free(home!);
  });

  it("never blocks on another tenant's events, even for a home base of the same id", async () => {
    const [home] = await client.createHomeBases(1);
    await otherClient.create(home!);
    const employee = fresh('emp');
    // the other tenant's employee names it: the other tenant's home base is blocked, ours is not
    await world.publish(employeeEvent(other, employee, 1, home, { action: 'created' }));
    expect((await otherClient.blocked(home!)).referrers).toEqual([{ entity: 'employee', id: employee }]);
    await world.drain(tenant);
    expect((await client.inject('DELETE', `/home-base/${home}`)).statusCode).toBe(204);
    // and our delete left theirs as it was: still there, still blocked
    expect((await deleteOf(home!, otherClient)).status).toBe(409);
  });

  it('ignores an older version delivered after a newer one: it brings no reference back', async () => {
    const [old, current] = await client.createHomeBases(2);
    const employee = fresh('emp');
    await world.publish(employeeEvent(tenant, employee, 1, old, { action: 'created' }));
    await world.publish(employeeEvent(tenant, employee, 3, current));
    await client.blocked(current!);
    await client.free(old!);
    await client.create(old!);

    // version 2 arrives late, naming the old home base again, under an event id of its own
    await world.publish(employeeEvent(tenant, employee, 2, old));
    await world.drain(tenant);
    expect(await deleteOf(old!)).toEqual({ status: 204, body: undefined });
    expect((await deleteOf(current!)).body?.referrers).toEqual([{ entity: 'employee', id: employee }]);
  });

  it('ignores an older delete delivered after a newer update: the newer reference stays', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    await world.publish(employeeEvent(tenant, employee, 5, home));
    await client.blocked(home!);
    await world.publish(employeeEvent(tenant, employee, 4, home, { action: 'deleted' }));
    await world.drain(tenant);
    const refused = await deleteOf(home!);
    expect(refused).toMatchObject({ status: 409, body: { referrers: [{ entity: 'employee', id: employee }], referrers_total: 1 } });
  });

  it('keeps one referrer for the same event delivered twice, under the same message id or another', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    const event = employeeEvent(tenant, employee, 1, home, { action: 'created' });
    expect((await world.publish(event)).duplicate).toBe(false);
    // JetStream drops the same message id within its duplicate window
    expect((await world.publish(event)).duplicate).toBe(true);
    // another id for the same version: the consumer skips it
    expect((await world.publish({ ...event, id: randomUUID() })).duplicate).toBe(false);
    await world.applied(tenant, 'employee', employee, 1);
    await world.drain(tenant);
    expect((await client.blocked(home!)).referrers_total).toBe(1);
    expect((await deleteOf(home!)).body?.referrers).toEqual([{ entity: 'employee', id: employee }]);
  });

  it('counts one referrer for a referrer that names the same home base in several places', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    const availability = randomUUID();
    const event = availabilityEvent(tenant, employee, availability, 1, home);
    const data = { ...event.data, end_location: { home_base: { business_id: home } }, home_base_id: home };
    await world.publish({ ...event, data });
    const body = await client.blocked(home!);
    expect(body).toMatchObject({ referrers: [{ entity: 'availability', id: `${employee}/${availability}` }], referrers_total: 1 });
  });
});

describe('the reference index from other referrers', () => {
  it('blocks on an availability, listed by its entity id <employee>/<availability>, until it names another home base', async () => {
    const [home, other] = await client.createHomeBases(2);
    const employee = fresh('emp');
    const availability = randomUUID();
    await world.publish(availabilityEvent(tenant, employee, availability, 1, home));
    expect((await client.blocked(home!)).referrers).toEqual([{ entity: 'availability', id: `${employee}/${availability}` }]);
    await world.publish(availabilityEvent(tenant, employee, availability, 2, other));
    await client.free(home!);
    await client.blocked(other!);
  });

  it('blocks on the deprecated home_base_id of an availability too', async () => {
    const [home] = await client.createHomeBases(1);
    const employee = fresh('emp');
    const availability = randomUUID();
    const event = availabilityEvent(tenant, employee, availability, 1);
    await world.publish({ ...event, data: { ...event.data, home_base_id: home } });
    expect((await client.blocked(home!)).referrers).toEqual([{ entity: 'availability', id: `${employee}/${availability}` }]);
  });

  it('blocks on a transport resource until its delete event', async () => {
    const [home] = await client.createHomeBases(1);
    const truck = fresh('truck');
    await world.publish(transportResourceEvent(tenant, truck, 1, home, { action: 'created' }));
    expect((await client.blocked(home!)).referrers).toEqual([{ entity: 'transport-resource', id: truck }]);
    await world.publish(transportResourceEvent(tenant, truck, 2, home, { action: 'deleted' }));
    await client.free(home!);
  });

  it("does not take a transport resource's custom_data for a reference", async () => {
    const [home] = await client.createHomeBases(1);
    const truck = fresh('truck');
    const data = transportResourceData(truck, 1, undefined, { custom_data: { home_base: { business_id: home }, home_base_id: home } });
    await world.publish(referrerEvent('transport-resource', tenant, truck, 1, data, { action: 'created' }));
    await world.drain(tenant, 'transport-resource');
    expect(await deleteOf(home!)).toEqual({ status: 204, body: undefined });
  });

  it('lists the referrers of every entity together, by entity and then id', async () => {
    const [home] = await client.createHomeBases(1);
    const employees = [fresh('emp-b'), fresh('emp-a')];
    const truck = fresh('truck');
    const availability = `${fresh('emp')}/${randomUUID()}`;
    const [employeeId, availabilityId] = availability.split('/') as [string, string];
    await world.publish(transportResourceEvent(tenant, truck, 1, home));
    for (const employee of employees) await world.publish(employeeEvent(tenant, employee, 1, home));
    await world.publish(availabilityEvent(tenant, employeeId, availabilityId, 1, home));
    const body = await client.blocked(home!, ({ referrers_total }) => referrers_total === 4);
    expect(body.referrers).toEqual([
      { entity: 'availability', id: availability },
      { entity: 'employee', id: employees[1] },
      { entity: 'employee', id: employees[0] },
      { entity: 'transport-resource', id: truck },
    ]);
  });
});

describe('a refused delete', () => {
  // The listing and the count were two reads side by side: a row an event wrote between them made a 409
  // that listed fewer referrers than it counted ("referred to by 1 resource(s)" listing none).
  it('lists as many referrers as it counts (up to 100), also while events are being applied', async () => {
    const answers: InUse[] = [];
    const agree = ({ referrers, referrers_total }: InUse) => referrers.length === Math.min(referrers_total, 100);
    // the two reads rarely straddle a write: rounds until one does, for at most 20 s
    for (const until = Date.now() + 20_000; Date.now() < until && answers.every(agree); ) {
      const [home] = await client.createHomeBases(1);
      const employees = Array.from({ length: 20 }, () => fresh('emp'));
      // every refusal while 20 rows arrive, and then while they go again
      for (const version of [1, 2]) {
        for (const employee of employees) await world.publish(employeeEvent(tenant, employee, version, version === 1 ? home : undefined));
        for (let total = version === 1 ? 0 : 20; version === 1 ? total < 20 : total > 0; ) {
          const response = await client.tryDelete(home!);
          if (response.statusCode === 409) answers.push(json<InUse>(response));
          total = response.statusCode === 409 ? json<InUse>(response).referrers_total : 0;
        }
      }
    }
    expect(answers.filter((answer) => !agree(answer))).toEqual([]);
  });
});

describe('a home base with many referrers', () => {
  it('lists the first 100 by entity and id, and counts them all in referrers_total', async () => {
    const [home] = await client.createHomeBases(1);
    const prefix = fresh('many');
    const ids = Array.from({ length: 101 }, (_, index) => `${prefix}-${String(index).padStart(3, '0')}`);
    // published in an order of their own, so that the listing's order is the service's
    for (const id of [...ids].reverse()) await world.publish(employeeEvent(tenant, id, 1, home, { action: 'created' }));
    const truck = fresh('a-truck');
    await world.publish(transportResourceEvent(tenant, truck, 1, home, { action: 'created' }));

    await client.blocked(home!, ({ referrers_total }) => referrers_total === 102);
    // read once every event has been applied (a refusal read while rows arrive may list a stale page)
    await world.drain(tenant, 'transport-resource');
    await world.drain(tenant);
    const all = await deleteOf(home!);
    expect(all.status).toBe(409);
    expect(all.body?.referrers_total).toBe(102);
    // employees sort before transport resources whatever their ids: the truck is the 102nd
    expect(all.body?.referrers).toEqual(ids.slice(0, 100).map((id) => ({ entity: 'employee', id })));
    expect(all.body?.detail).toContain('102');

    // one goes: the last employee moves up into the list, still 101 in all
    await world.publish(employeeEvent(tenant, ids[0]!, 2, home, { action: 'deleted' }));
    await world.applied(tenant, 'employee', ids[0]!, 2);
    const fewer = await deleteOf(home!);
    expect(fewer.body?.referrers_total).toBe(101);
    expect(fewer.body?.referrers).toEqual(ids.slice(1, 101).map((id) => ({ entity: 'employee', id })));
  });
});
