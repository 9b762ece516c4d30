import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EMPLOYEE_EVENTS } from '@rm/contracts';
import { waitFor } from '@rm/testkit';
import { describeWriteEvents } from '@rm/testkit/suites/write-events';
import { arrived as arrivedOf, eventsOf as eventsOfEntity, subjectOf, subResource, summary } from '@rm/testkit/suites/tenant-service';
import {
  actualBody,
  actualClient,
  employeeEvent,
  json,
  liveActualCount,
  newTenant,
  startDeploymentsWorld,
  stored,
  type ActualClient,
  type DeploymentsWorld,
} from './helpers.js';
import { worldTenant } from './deployment-helpers.js';

const tenant = newTenant('actual_events');
let world: DeploymentsWorld;
let alice: ActualClient;

/** The actuals of an employee, ids of the caller's choosing. */
const actualsOf = (employee: string) => subResource(`/means/${employee}/actual`, employee, { newId: () => `act-${randomUUID()}`, badId: 'bad!id' });

const service = describeWriteEvents({
  start: async () => {
    // an employee unknown here (or deleted) is asked of the employees service, whose 404 makes a write of its actuals a 404
    world = await startDeploymentsWorld({ owners: true });
    alice = actualClient(world.harness, await world.harness.as(tenant));
    return worldTenant(world, tenant, () => world.close());
  },
  resources: [
    {
      entity: 'actual',
      collection: 'actuals',
      // a new employee each time, so that each test starts with no actuals
      place: async ({ request }) => {
        const employee = await knownEmployee();
        return {
          ...actualsOf(employee),
          body: actualBody(),
          changed: actualBody({ end: '2024-03-01T17:00:00+01:00', work_time: 'PT6H' }),
          // a date-time is kept in UTC
          changedKept: actualBody({ end: '2024-03-01T16:00:00Z', work_time: 'PT6H' }),
          shown: (id, body, version) => stored(employee, id, version, body),
          // an employee the service has no event of
          orphan: actualsOf(`nobody-${randomUUID()}`),
          refusals: (item) => [[400, () => request('PUT', item, actualBody({ work_time: 'PT0S' }))]],
        };
      },
    },
  ],
});

let counter = 0;
/** A fresh employee id (not yet known: `world.employee` makes it so). */
const nextEmployee = () => `emp-${(counter += 1)}`;
async function knownEmployee(): Promise<string> {
  const id = nextEmployee();
  await world.employee(tenant, id);
  return id;
}

const subject = (action: string) => subjectOf(service(), 'actual', action);
const eventsOf = (employeeId: string, actualId: string) => eventsOfEntity(service(), `${employeeId}/${actualId}`);
/** The events of every actual of an employee. */
const employeeEvents = (employeeId: string) => service().published().filter(({ event }) => event.entity_id.startsWith(`${employeeId}/`));

/** The events of the actual once `count` of them have arrived. */
const arrived = (employeeId: string, actualId: string, count: number) => arrivedOf(service(), `${employeeId}/${actualId}`, count);

describe("an employee's delete", () => {
  it('removes all its actuals, each with its own actual.deleted event carrying its last state, and nothing of others', async () => {
    const employee = await knownEmployee();
    const neighbour = await knownEmployee();
    const ids = ['a', 'b', 'c'];
    for (const id of ids) expect((await alice.put(employee, id, actualBody())).statusCode).toBe(201);
    expect((await alice.put(employee, 'b', actualBody({ work_time: 'PT1H' }))).statusCode).toBe(200);
    expect((await alice.put(employee, 'gone', actualBody())).statusCode).toBe(201);
    expect((await alice.remove(employee, 'gone')).statusCode).toBe(204);
    expect((await alice.put(neighbour, 'a', actualBody())).statusCode).toBe(201);
    await arrived(employee, 'gone', 2);

    await world.employee(tenant, employee, 2, 'deleted');
    expect((await alice.list(employee)).statusCode).toBe(404);
    for (const id of [...ids, 'gone']) expect((await alice.get(employee, id)).statusCode, id).toBe(404);
    expect(await liveActualCount(world.harness, tenant, employee)).toBe(0);
    expect(json(await alice.get(neighbour, 'a'))).toEqual(stored(neighbour, 'a', 1));

    const deleteEvents = () => employeeEvents(employee).filter(({ event }) => event.type === 'actual.deleted');
    await waitFor('the cascade events', async () => deleteEvents().length >= 4);
    await world.settle(tenant);
    const deletes = deleteEvents();
    expect(deletes.map(({ subject: on, event }) => [on, event.entity_id, event.version]).sort()).toEqual([
      [subject('deleted'), `${employee}/a`, 2],
      [subject('deleted'), `${employee}/b`, 3],
      [subject('deleted'), `${employee}/c`, 2],
      [subject('deleted'), `${employee}/gone`, 2], // its own delete, before: no second one
    ]);
    const dataOf = (id: string) => deletes.find(({ event }) => event.entity_id === `${employee}/${id}`)?.event.data;
    expect(dataOf('a')).toEqual(stored(employee, 'a', 1));
    expect(dataOf('b')).toEqual(stored(employee, 'b', 2, actualBody({ work_time: 'PT1H' })));
    expect(employeeEvents(neighbour).map(({ event }) => event.type)).toEqual(['actual.created']);
  });

  it('leaves no tombstone behind as a live document: the database holds them deleted', async () => {
    const employee = await knownEmployee();
    for (const id of ['a', 'b']) await alice.put(employee, id, actualBody());
    await world.employee(tenant, employee, 2, 'deleted');
    const documents = await world.harness.service.store.db.collection('actuals').find({ tenant, parent: employee }).toArray();
    expect(documents.map((document) => [document.key, document.deleted, document.version]).sort()).toEqual([
      ['a', true, 2],
      ['b', true, 2],
    ]);
  });

  it('removes more actuals than one commit holds (over 200), each with one event', async () => {
    const employee = await knownEmployee();
    const ids = Array.from({ length: 230 }, (_, index) => `m${String(index).padStart(3, '0')}`);
    for (const id of ids) expect((await alice.put(employee, id, actualBody(), { prefer: 'return=minimal' })).statusCode).toBe(204);
    await world.employee(tenant, employee, 2, 'deleted');
    expect(await liveActualCount(world.harness, tenant, employee)).toBe(0);
    const deletes = () => employeeEvents(employee).filter(({ event }) => event.type === 'actual.deleted');
    await waitFor('a delete event per actual', async () => deletes().length >= ids.length);
    await world.settle(tenant);
    expect(deletes().map(({ event }) => event.entity_id).sort()).toEqual(ids.map((id) => `${employee}/${id}`));
  });

  it('publishes nothing again for a later delete, a duplicate or a redelivered one', async () => {
    const employee = await knownEmployee();
    await alice.put(employee, 'a', actualBody());
    const deleted = employeeEvent(tenant, employee, 2, 'deleted');
    await world.handled(await world.publish(deleted));
    // the same event again beyond the dedup window (another message id), and a newer delete
    await world.publish({ ...deleted, id: randomUUID() });
    await world.employee(tenant, employee, 3, 'deleted');
    await world.drain(tenant);
    await world.settle(tenant);
    expect(summary(employeeEvents(employee))).toEqual([
      [subject('created'), 'actual.created', `${employee}/a`, 1],
      [subject('deleted'), 'actual.deleted', `${employee}/a`, 2],
    ]);
  });
});

describe('the order of employee events', () => {
  it('never brings a deleted employee back with a late older event', async () => {
    const employee = nextEmployee();
    await world.employee(tenant, employee, 2, 'deleted');
    await world.publish(employeeEvent(tenant, employee, 1, 'created'));
    await world.drain(tenant);
    expect((await alice.list(employee)).statusCode).toBe(404);
    expect((await alice.put(employee, 'a', actualBody())).statusCode).toBe(404);
  });

  it('keeps an employee whose late older delete comes after a newer update', async () => {
    const employee = nextEmployee();
    await world.employee(tenant, employee, 1, 'created');
    await world.employee(tenant, employee, 3, 'updated');
    await alice.put(employee, 'a', actualBody());
    await world.publish(employeeEvent(tenant, employee, 2, 'deleted'));
    await world.drain(tenant);
    expect((await alice.list(employee)).statusCode).toBe(200);
    expect(json(await alice.get(employee, 'a'))).toEqual(stored(employee, 'a', 1));
  });

  it('knows an employee created again after its delete (a newer version), with none of its old actuals', async () => {
    const employee = await knownEmployee();
    await alice.put(employee, 'a', actualBody());
    await world.employee(tenant, employee, 2, 'deleted');
    await world.employee(tenant, employee, 3, 'created');
    expect(json(await alice.list(employee))).toEqual({ actuals: [], cursors: {} });
    // the actual written again continues its versions after the cascade's tombstone
    const again = await alice.put(employee, 'a', actualBody());
    expect(again.statusCode).toBe(201);
    expect(json(again)).toEqual(stored(employee, 'a', 3));
  });

  it('applies the events of one batch in stream order: created, deleted and created again at once', async () => {
    const employee = nextEmployee();
    const published = [];
    for (const [version, action] of [[1, 'created'], [2, 'deleted'], [3, 'created'], [4, 'deleted']] as const) {
      published.push(await world.publish(employeeEvent(tenant, employee, version, action)));
    }
    await world.handled(published.at(-1)!);
    expect((await alice.list(employee)).statusCode).toBe(404);
  });

  it("keeps no ledger of the owners' events: KnownResources holds their versions", async () => {
    const employee = await knownEmployee();
    const ref = { tenant, entity: EMPLOYEE_EVENTS.entity, entityId: employee };
    expect(await world.harness.service.store.appliedVersions('deployments-known-employees').read([ref])).toEqual(new Map());
  });

  it('records an older state never over a newer one (KnownResources.apply)', async () => {
    const { known } = world.harness.service.collections;
    const employee = nextEmployee();
    const isLive = async () => (await known.missingHere(tenant, EMPLOYEE_EVENTS.entity, [employee])).size === 0;
    await known.apply(employeeEvent(tenant, employee, 2, 'deleted'), EMPLOYEE_EVENTS.entity);
    await known.apply(employeeEvent(tenant, employee, 1, 'created'), EMPLOYEE_EVENTS.entity);
    expect(await isLive()).toBe(false);
    await known.apply(employeeEvent(tenant, employee, 3, 'updated'), EMPLOYEE_EVENTS.entity);
    expect(await isLive()).toBe(true);
    await known.apply(employeeEvent(tenant, employee, 3, 'deleted'), EMPLOYEE_EVENTS.entity); // the same version: kept
    expect(await isLive()).toBe(true);
  });

  it('records first versions handed over side by side, many per statement, each on its own', async () => {
    const { known } = world.harness.service.collections;
    const employees = Array.from({ length: 40 }, () => nextEmployee());
    const [deletedFirst, liveBefore] = employees as [string, string];
    await known.apply(employeeEvent(tenant, deletedFirst, 2, 'deleted'), EMPLOYEE_EVENTS.entity);
    await known.apply(employeeEvent(tenant, liveBefore, 1, 'created'), EMPLOYEE_EVENTS.entity);
    await Promise.all(employees.map((employee) => known.apply(employeeEvent(tenant, employee, 1, 'created'), EMPLOYEE_EVENTS.entity)));
    expect(await known.missingHere(tenant, EMPLOYEE_EVENTS.entity, employees)).toEqual(new Set([deletedFirst]));
  });
});

describe('an employee deleted while its actuals are written', () => {
  /**
   * Workers PUT actuals of the employee (new ones, and updates of those written before) until they are
   * refused, while its delete event is published; once everything has settled, none may be left.
   */
  async function race(round: number): Promise<{ statuses: number[]; written: Set<string> }> {
    const employee = `race-${round}-${nextEmployee()}`;
    await world.employee(tenant, employee);
    const existing = ['x0', 'x1', 'x2', 'x3'];
    for (const id of existing) expect((await alice.put(employee, id, actualBody())).statusCode).toBe(201);

    const statuses: number[] = [];
    const written = new Set(existing);
    let refused = false;
    const deadline = Date.now() + 20_000;
    const worker = async (index: number) => {
      for (let n = 0; !refused && Date.now() < deadline; n += 1) {
        const id = n % 3 === 2 ? existing[(index + n) % existing.length]! : `w${index}-${n}`;
        const response = await alice.put(employee, id, actualBody({ work_time: `PT${(n % 400) + 1}M` }));
        statuses.push(response.statusCode);
        if (response.statusCode === 201 || response.statusCode === 200) written.add(id);
        if (response.statusCode === 404) refused = true;
      }
    };
    const publishing = (async () => {
      // the delete lands among writes under way: after the first new actual, however loaded the machine is
      await waitFor('a first actual written', async () => statuses.includes(201));
      await sleep((round % 4) * 15);
      return world.publish(employeeEvent(tenant, employee, 2, 'deleted'));
    })();
    const [deleted] = await Promise.all([publishing, ...Array.from({ length: 8 }, (_, index) => worker(index))]);
    await world.handled(deleted);

    expect(refused, 'the workers ran until the delete refused them').toBe(true);
    expect((await alice.list(employee)).statusCode).toBe(404);
    expect((await alice.put(employee, 'after', actualBody())).statusCode).toBe(404);
    expect(await liveActualCount(world.harness, tenant, employee)).toBe(0);
    for (const id of [...written].slice(0, 20)) expect((await alice.get(employee, id)).statusCode, id).toBe(404);

    // every actual that was written has ended with a delete event, its versions one after another; so has
    // every one a refused PUT wrote before it found the employee gone (created, then removed again)
    const lastTypes = () => [...written].map((id) => eventsOf(employee, id).at(-1)?.event.type);
    await waitFor('a delete event for every written actual', async () => lastTypes().every((type) => type === 'actual.deleted'));
    await world.settle(tenant);
    const byActual = Map.groupBy(employeeEvents(employee), ({ event }) => event.entity_id);
    expect([...byActual.keys()]).toEqual(expect.arrayContaining([...written].map((id) => `${employee}/${id}`)));
    for (const [entityId, published] of byActual) {
      const types = published.map(({ event }) => event.type);
      expect(types.at(-1), entityId).toBe('actual.deleted');
      expect(published.map(({ event }) => event.version), entityId).toEqual(published.map((_, index) => index + 1));
    }
    return { statuses, written };
  }

  it('leaves none of its actuals, and answers every PUT 201, 200 or 404', { timeout: 180_000 }, async () => {
    for (let round = 0; round < 5; round += 1) {
      const { statuses } = await race(round);
      expect(new Set(statuses.filter((status) => ![200, 201, 404].includes(status))), `round ${round}`).toEqual(new Set());
      expect(statuses.filter((status) => status === 201).length, `round ${round}`).toBeGreaterThan(0);
    }
  });
});
