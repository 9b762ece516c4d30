import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityOfType, eventSubject, type EntityEvents, type EventAction, type EventEnvelope } from '@rm/contracts';
import { inListOrder } from '@rm/store';
import { connectTestNats, waitFor, type TestNats } from '@rm/testkit';
import { INPUT_EVENTS, INPUTS_STREAM } from '../src/events.js';
import { atHomeBase, BASE, HOUR, inputs, startMatchingWorld, type CombinationBody, type MatchingWorld } from './world.js';

/*
 * The rules of the matching engine (spec: resources-api "Behaviour that follows from writes", DESIGN §6),
 * each behaviour in a tenant of its own, through real events and the read API.
 */

let world: MatchingWorld;
let nats: TestNats;
let js: JetStreamClient;

beforeAll(async () => {
  world = await startMatchingWorld();
  nats = await connectTestNats({ url: world.natsUrl });
  js = jetstream(nats.nc);
});
afterAll(async () => {
  await nats?.close();
  await world?.close();
});

type Data = Record<string, unknown>;
type PublishOptions = Parameters<MatchingWorld['publish']>[4];
/** A combination with the fields CombinationBody leaves out. */
type Combination = CombinationBody & { mandatory: boolean; shift: { start: string; end: string } };

/** A snapshot as the read API shows it. */
interface AvailableEmployeeBody {
  id: string;
  employee_id: string;
  shift: { start: string; end: string };
  guaranteed_working_time?: { start: string; end: string };
  location: { home_base_id?: string; name?: string; at_last_end?: true; transport_resource_ids?: string[] };
  mandatory: boolean;
  driver_skills: string[];
  skills: string[];
  linked_transport_resource?: string;
  costs?: Data;
  unavailabilities: { from: string; to: string }[];
  address?: Data;
  version: number;
}

const newTenant = () => `t-${randomUUID().slice(0, 8)}`;
/** Hours after 2030-01-01T00:00Z, as the engine writes date-times. */
const at = (hours: number) => new Date(Date.UTC(2030, 0, 1) + hours * HOUR).toISOString();
const iso = (time: number) => new Date(time).toISOString();

async function get(tenant: string, url: string) {
  const response = await world.harness.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: await world.harness.as(tenant) });
  return { status: response.statusCode, contentType: String(response.headers['content-type']), body: response.json() as Data };
}

async function snapshotOf(tenant: string, availabilityId: string): Promise<AvailableEmployeeBody | undefined> {
  const response = await get(tenant, `/available-employee/${availabilityId}`);
  if (response.status === 404) return undefined;
  if (response.status !== 200) throw new Error(`reading snapshot ${availabilityId}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as unknown as AvailableEmployeeBody;
}

/** The snapshot once every event published so far has been handled (the engine writes a batch's snapshots before its combinations). */
async function settledSnapshot(tenant: string, availabilityId: string): Promise<AvailableEmployeeBody | undefined> {
  await settle(tenant);
  return snapshotOf(tenant, availabilityId);
}

/** Waits until the availability's snapshot satisfies `check`; returns it. */
async function snapshotUntil(
  tenant: string,
  availabilityId: string,
  what: string,
  check: (snapshot: AvailableEmployeeBody | undefined) => boolean,
) {
  let last: AvailableEmployeeBody | undefined;
  await waitFor(what, async () => check((last = await snapshotOf(tenant, availabilityId))));
  return last;
}

const trOf = (combinations: Map<string, CombinationBody>, availabilityId: string) =>
  combinations.get(availabilityId)?.transport_resource_ids;
const onlyOn = (combinations: Map<string, CombinationBody>, availabilityId: string, resourceId: string) =>
  JSON.stringify(trOf(combinations, availabilityId)) === JSON.stringify([resourceId]);
/** Waits until the availability is combined with `resourceId` alone; returns the tenant's combinations. */
const untilOnlyOn = (tenant: string, availabilityId: string, resourceId: string) =>
  world.until(tenant, `${availabilityId} on ${resourceId} alone`, (found) => onlyOn(found, availabilityId, resourceId));
/** Waits until the availability has no combination; returns the tenant's combinations. */
const untilUncombined = (tenant: string, availabilityId: string) =>
  world.until(tenant, `${availabilityId} without a combination`, (found) => !found.has(availabilityId));

let sentinels = 0;
/**
 * Publishes a transport resource, an employee and an availability of their own (a home base nobody
 * else uses) and waits for their combination: as each publisher's events are handled in order, every
 * employees' and transport-resources' event published before has been handled then. Returns the
 * tenant's combinations apart from the sentinels'.
 */
async function settle(tenant: string, { deployments = false } = {}): Promise<Map<string, CombinationBody>> {
  const id = `sentinel-${++sentinels}`;
  const availabilityId = randomUUID();
  await world.publish(tenant, 'transport-resource', id, inputs.transportResource(id, atHomeBase(id)));
  await world.publish(tenant, 'employee', id, inputs.employee(id, atHomeBase(id)));
  await world.publish(tenant, 'availability', `${id}/${availabilityId}`, inputs.availability(id, availabilityId, at(0)));
  let all = await world.until(tenant, `sentinel ${id}`, (found) => found.has(availabilityId));
  if (deployments) {
    // and the deployments' events too: a deployment of the sentinel's shift shows on its combination
    await world.publish(tenant, 'deployment', id, deployment(id, id, availabilityId, [id], at(0), at(8)));
    all = await world.until(tenant, `sentinel deployment ${id}`, (found) => found.get(availabilityId)?.deployment_id === id);
  }
  return new Map([...all].filter(([, combination]) => !combination.employee_id.startsWith('sentinel-')));
}

/** Publishes a transport resource at home base `hb` (or wherever `fields` say). */
const resource = (tenant: string, id: string, fields: Data = {}, options?: PublishOptions) =>
  world.publish(tenant, 'transport-resource', id, inputs.transportResource(id, { ...atHomeBase('hb'), ...fields }), options);
/** Publishes an employee at home base `hb` (or wherever `fields` say). */
const employee = (tenant: string, id: string, fields: Data = {}, options?: PublishOptions) =>
  world.publish(tenant, 'employee', id, inputs.employee(id, { ...atHomeBase('hb'), ...fields }), options);
/** Publishes a home base in `city`. */
const homeBase = (tenant: string, id: string, city: string) => world.publish(tenant, 'home-base', id, inputs.homeBase(id, city));

/** Ids, each with the fields it is published with; a bare id has none. */
type WithFields = string[] | Record<string, Data>;
const withFields = (all: WithFields): [string, Data][] => (Array.isArray(all) ? all.map((id) => [id, {}]) : Object.entries(all));

/** A new tenant with these home bases (id → city), then transport resources, then employees, published in that order. */
async function tenantWith({ homeBases = {}, resources = [], employees = [] }: {
  homeBases?: Record<string, string>;
  resources?: WithFields;
  employees?: WithFields;
}): Promise<string> {
  const tenant = newTenant();
  for (const [id, city] of Object.entries(homeBases)) await homeBase(tenant, id, city);
  for (const [id, fields] of withFields(resources)) await resource(tenant, id, fields);
  for (const [id, fields] of withFields(employees)) await employee(tenant, id, fields);
  return tenant;
}

/** Publishes an unavailability of an employee or a transport resource; returns its id and body. */
async function unavailable(tenant: string, parent: 'employee' | 'transport-resource', parentId: string, from: string, to: string) {
  const id = randomUUID();
  const body = inputs.unavailability(parent === 'employee' ? 'employee_id' : 'transport_resource_id', parentId, id, from, to);
  await world.publish(tenant, `${parent}-unavailability`, `${parentId}/${id}`, body);
  return { entityId: `${parentId}/${id}`, body };
}

/** Publishes an employee's availability; returns its id. */
async function availability(tenant: string, employeeId: string, start: string, fields: Data = {}, id = randomUUID()): Promise<string> {
  await world.publish(tenant, 'availability', `${employeeId}/${id}`, inputs.availability(employeeId, id, start, fields));
  return id;
}

/** The same event once more, as a redelivery would bring it (another message id, so that JetStream keeps it). */
async function republish(event: EventEnvelope): Promise<void> {
  const entity = entityOfType(event.type);
  const events = INPUT_EVENTS.find((candidate) => candidate.entity === entity) as EntityEvents;
  const action = event.type.slice(event.type.lastIndexOf('.') + 1) as EventAction;
  await js.publish(eventSubject(events, event.tenant, action), JSON.stringify(event), { msgID: randomUUID() });
}

/** The input partition the tenant's events go to, as the engine's input stream names it. */
async function partitionOf(tenant: string): Promise<number> {
  const consumer = await js.consumers.get(INPUTS_STREAM, { filter_subjects: [`matching-inputs.*.*.${tenant}.>`] });
  const message = await consumer.next({ expires: 10_000 });
  if (message === null) throw new Error(`no input of ${tenant}`);
  return Number(message.subject.split('.')[1]);
}

/** A deployment of a released route (planning-bound: it has a planning_id). */
const deployment = (id: string, employeeId: string, availabilityId: string, resourceIds: string[], start: string, end: string): Data => ({
  id,
  employee_id: employeeId,
  transport_resource_ids: resourceIds,
  start: { at: start, location: { home_base: { business_id: 'hb' } } },
  end: { at: end },
  availability_id: availabilityId,
  planning_id: 'planning-1',
});

/** Publishes a deployment as the deployments service does. */
const deploy = (tenant: string, body: Data, options?: PublishOptions) => world.publish(tenant, 'deployment', String(body['id']), body, options);

/** Waits until the availability's snapshot has its address in `city`. */
const snapshotIn = (tenant: string, availabilityId: string, city: string) =>
  snapshotUntil(tenant, availabilityId, `a snapshot in ${city}`, (found) => found?.address?.['city'] === city);

/** Rule 8's cast: e1 at home base hb with a shift that started an hour ago and one in two days; e2 at home base `marker` with one in two days. */
async function startedAndFutureShifts(tenant: string) {
  const now = Date.now();
  await employee(tenant, 'e1');
  await employee(tenant, 'e2', atHomeBase('marker'));
  const started = await availability(tenant, 'e1', iso(now - HOUR), { max_duration: 'PT10H' });
  const future = await availability(tenant, 'e1', iso(now + 48 * HOUR));
  const marker = await availability(tenant, 'e2', iso(now + 48 * HOUR));
  return { started, future, marker };
}

/**
 * Moves hb to `city`, then the home base `marker` to `markerCity`, and waits until e2's shift there shows
 * the marker's move: home-base events are handled in order, so hb's move is done by then.
 */
async function moveHomeBase(tenant: string, city: string, { markerShift, markerCity }: { markerShift: string; markerCity: string }) {
  await homeBase(tenant, 'hb', city);
  await homeBase(tenant, 'marker', markerCity);
  await snapshotIn(tenant, markerShift, markerCity);
}

describe('matching rules', { timeout: 90_000 }, () => {
  describe('rule 2: the AvailableEmployee snapshot', () => {
    it('consolidates availability, employee, unavailabilities and home base address; rebuilt when the employee changes', async () => {
      const tenant = await tenantWith({ homeBases: { hb: 'Gent' } });
      const e1 = { driver_skills: ['C'], skills: ['ADR'], costs: { fixed: 7 } };
      await employee(tenant, 'e1', e1);
      // one unavailability in the window but after the guaranteed time, one far from the shift
      await unavailable(tenant, 'employee', 'e1', at(6), at(7));
      await unavailable(tenant, 'employee', 'e1', at(48), at(49));
      const shift = await availability(tenant, 'e1', at(0), { min_duration: 'PT4H', mandatory: true });
      await resource(tenant, 'tr1', { requirements: ['CE'], capabilities: ['tail-lift'], skilled_capabilities: ['CE', 'X'] });

      const snapshot = await snapshotUntil(tenant, shift, 'the snapshot with its unavailability and address', (found) =>
        Boolean(found && found.unavailabilities.length > 0 && found.address !== undefined),
      );
      expect(snapshot).toEqual({
        id: shift,
        employee_id: 'e1',
        shift: { start: at(0), end: at(8) },
        guaranteed_working_time: { start: at(0), end: at(4) },
        location: { home_base_id: 'hb' },
        mandatory: true,
        driver_skills: ['C'],
        skills: ['ADR'],
        costs: { fixed: 7 },
        unavailabilities: [{ from: at(6), to: at(7) }],
        address: { city: 'Gent', country_code: 'BE' },
        version: expect.any(Number),
      });
      // the transport resource requires CE, which the employee lacks
      expect((await settle(tenant)).has(shift)).toBe(false);

      await employee(tenant, 'e1', { ...e1, driver_skills: ['C', 'CE'] });
      const combinations = await world.until(tenant, 'a combination once the employee can drive tr1', (found) => found.has(shift));
      expect(combinations.get(shift)).toMatchObject({
        employee_id: 'e1',
        transport_resource_ids: ['tr1'],
        mandatory: true,
        capabilities: ['ADR', 'CE', 'tail-lift'],
        linked: false,
        shift: { start: at(0), end: at(8) },
        guaranteed_working_time: { start: at(0), end: at(4) },
      });
      expect((await settledSnapshot(tenant, shift))?.driver_skills).toEqual(['C', 'CE']);
    });
  });

  describe('rule 8: home base updates', () => {
    it('reach the snapshot of a future availability and leave a started one with the address it had', async () => {
      const tenant = await tenantWith({ homeBases: { hb: 'Gent', marker: 'Brugge' } });
      const { started, future, marker } = await startedAndFutureShifts(tenant);
      for (const id of [started, future]) await snapshotIn(tenant, id, 'Gent');
      await snapshotIn(tenant, marker, 'Brugge');

      await moveHomeBase(tenant, 'Antwerpen', { markerShift: marker, markerCity: 'Oostende' });
      expect((await snapshotOf(tenant, future))?.address).toEqual({ city: 'Antwerpen', country_code: 'BE' });
      expect((await snapshotOf(tenant, started))?.address).toEqual({ city: 'Gent', country_code: 'BE' });
    });
  });

  describe('rules 4 and 6: transport resources and their unavailabilities', () => {
    it('matches a transport resource with no unavailability', async () => {
      const tenant = await tenantWith({ employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await resource(tenant, 'tr1');
      const combinations = await world.until(tenant, 'a combination', (found) => found.has(shift));
      expect([...combinations.values()]).toEqual([
        expect.objectContaining({ id: shift, employee_id: 'e1', transport_resource_ids: ['tr1'], linked: false, mandatory: false }),
      ]);
    });

    it('keeps a combination when an unavailability overlaps only the window outside the guaranteed time', async () => {
      const tenant = await tenantWith({ resources: { tr1: { costs: { fixed: 1 } }, tr2: { costs: { fixed: 9 } } }, employees: ['e1'] });
      // window [0h, 8h), guaranteed [0h, 4h)
      const shift = await availability(tenant, 'e1', at(0), { min_duration: 'PT4H' });
      const before = await untilOnlyOn(tenant, shift, 'tr1');
      await unavailable(tenant, 'transport-resource', 'tr1', at(5), at(6));
      const after = await settle(tenant);
      expect(after.get(shift)).toMatchObject({ transport_resource_ids: ['tr1'], version: before.get(shift)?.version });
    });

    it('deletes a combination whose guaranteed time an unavailability overlaps, and moves the employee to a free resource', async () => {
      const tenant = await tenantWith({
        resources: { tr1: { costs: { fixed: 1 } }, tr2: { costs: { fixed: 9 } }, tr3: atHomeBase('hb3') },
        employees: { e1: {}, e3: atHomeBase('hb3') },
      });
      const moving = await availability(tenant, 'e1', at(0), { min_duration: 'PT4H' });
      const alone = await availability(tenant, 'e3', at(0), { min_duration: 'PT4H' });
      await world.until(tenant, 'both combined', (found) => onlyOn(found, moving, 'tr1') && onlyOn(found, alone, 'tr3'));

      for (const resource of ['tr1', 'tr3']) await unavailable(tenant, 'transport-resource', resource, at(3), at(5));
      const combinations = await world.until(tenant, 'e1 on tr2, e3 without', (found) => onlyOn(found, moving, 'tr2') && !found.has(alone));
      expect([...combinations.keys()]).toEqual([moving]);
      expect([...(await settle(tenant)).values()].map((found) => [found.id, found.transport_resource_ids])).toEqual([[moving, ['tr2']]]);
    });
  });

  describe('rule 5: employee unavailabilities', () => {
    it('removes the combination while one overlaps the guaranteed time, and brings it back when it is deleted', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, shift, 'tr1');

      const { entityId, body } = await unavailable(tenant, 'employee', 'e1', at(2), at(3));
      await untilUncombined(tenant, shift);
      expect((await settledSnapshot(tenant, shift))?.unavailabilities).toEqual([{ from: at(2), to: at(3) }]);
      expect((await settle(tenant)).has(shift)).toBe(false);

      await world.publish(tenant, 'employee-unavailability', entityId, body, { action: 'deleted' });
      const combinations = await world.until(tenant, 'the combination back', (found) => found.has(shift));
      expect(trOf(combinations, shift)).toEqual(['tr1']);
      expect((await settledSnapshot(tenant, shift))?.unavailabilities).toEqual([]);
    });
  });

  describe('deletions', () => {
    it('deleting a transport resource removes its combinations and finds replacements', async () => {
      const [tr1, tr2] = [{ costs: { fixed: 1 } }, { costs: { fixed: 5 } }];
      const tenant = await tenantWith({ resources: { tr1, tr2 }, employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, shift, 'tr1');

      await resource(tenant, 'tr1', tr1, { action: 'deleted' });
      await untilOnlyOn(tenant, shift, 'tr2');
      expect((await get(tenant, '/resource-combination?transport_resource_id=tr1')).body['resource_combinations']).toEqual([]);

      await resource(tenant, 'tr2', tr2, { action: 'deleted' });
      await world.until(tenant, 'no combination left', (found) => found.size === 0);
      expect((await settle(tenant)).size).toBe(0);
      // the snapshot stays: only the resources went
      expect((await snapshotOf(tenant, shift))?.employee_id).toBe('e1');
    });

    it('deleting an availability removes its combination and snapshot, and frees the resource for another shift', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1', 'e2'] });
      const first = randomUUID();
      const firstBody = inputs.availability('e1', first, at(0), { mandatory: true });
      await world.publish(tenant, 'availability', `e1/${first}`, firstBody);
      const second = await availability(tenant, 'e2', at(1));
      await world.until(tenant, 'the mandatory shift on tr1', (found) => onlyOn(found, first, 'tr1') && !found.has(second));

      await world.publish(tenant, 'availability', `e1/${first}`, firstBody, { action: 'deleted' });
      const combinations = await world.until(tenant, 'the other on tr1', (found) => !found.has(first) && onlyOn(found, second, 'tr1'));
      expect([...combinations.keys()]).toEqual([second]);
      expect(await settledSnapshot(tenant, first)).toBeUndefined();
      expect((await get(tenant, `/resource-combination/${first}`)).status).toBe(404);
    });

    it('deleting an employee removes the combinations and snapshots of its availabilities', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1', 'e2'] });
      const monday = await availability(tenant, 'e1', at(0), { mandatory: true });
      const tuesday = await availability(tenant, 'e1', at(24), { mandatory: true });
      const waiting = await availability(tenant, 'e2', at(2));
      await world.until(tenant, "e1's shifts on tr1", (found) => onlyOn(found, monday, 'tr1') && onlyOn(found, tuesday, 'tr1'));
      expect((await settle(tenant)).has(waiting)).toBe(false);

      await employee(tenant, 'e1', {}, { action: 'deleted' });
      await world.until(tenant, "e1's combinations gone, e2 on tr1", (found) =>
        !found.has(monday) && !found.has(tuesday) && onlyOn(found, waiting, 'tr1'),
      );
      expect([...(await settle(tenant)).keys()]).toEqual([waiting]);
      expect(await snapshotOf(tenant, monday)).toBeUndefined();
      expect(await snapshotOf(tenant, tuesday)).toBeUndefined();
      expect((await get(tenant, '/available-employee?employee_id=e1')).body['available_employees']).toEqual([]);
    });
  });

  describe('ad-hoc start locations', () => {
    it('match transport resources whose start location has the same name, and no others', async () => {
      const tenant = newTenant();
      // published without the helpers' home base: a start location alone
      const north = inputs.transportResource('north', { start_location: { name: 'Depot Noord' } });
      await world.publish(tenant, 'transport-resource', 'north', north);
      const south = inputs.transportResource('south', { start_location: { name: 'Depot Zuid', city: 'Gent' }, costs: { fixed: 0 } });
      await world.publish(tenant, 'transport-resource', 'south', south);
      await resource(tenant, 'at-hb', atHomeBase('Depot-West'));
      await world.publish(tenant, 'employee', 'e1', inputs.employee('e1', { start_location: { name: 'Depot Noord', city: 'Gent' } }));
      await world.publish(tenant, 'employee', 'e2', inputs.employee('e2', { start_location: { name: 'Depot-West' } }));
      const northShift = await availability(tenant, 'e1', at(0));
      // the availability's own start location overrides the employee's
      const southShift = await availability(tenant, 'e1', at(24), { start_location: { address: { name: 'Depot Zuid' } } });
      const west = await availability(tenant, 'e2', at(0));

      await world.until(tenant, 'both shifts of e1', (found) => onlyOn(found, northShift, 'north') && onlyOn(found, southShift, 'south'));
      const combinations = await settle(tenant);
      // 'Depot-West' is a name, not the home base 'Depot-West'
      expect(combinations.has(west)).toBe(false);
      expect(combinations.size).toBe(2);
      expect(await snapshotOf(tenant, northShift)).toMatchObject({
        location: { name: 'Depot Noord' },
        address: { name: 'Depot Noord', city: 'Gent' },
      });
      expect(await snapshotOf(tenant, southShift)).toMatchObject({ location: { name: 'Depot Zuid' }, address: { name: 'Depot Zuid' } });
    });
  });

  describe('transport resources that are never combined', () => {
    const cases: [string, Data][] = [
      ['a TRAILER', { type: 'TRAILER' }],
      ['an inactive one', { inactive: true }],
      ['one whose requirements the employee lacks', { requirements: ['CE'] }],
      ['one whose required capabilities the employee lacks', { required_capabilities: ['ADR'] }],
    ];
    it.each(cases)('%s', async (_name, fields) => {
      const tenant = await tenantWith({ employees: { e1: { driver_skills: ['C'] } } });
      const shift = await availability(tenant, 'e1', at(0));
      await resource(tenant, 'tr1', { ...fields });
      expect((await settle(tenant)).has(shift)).toBe(false);
      // the same resource without the obstacle is combined
      await resource(tenant, 'tr1');
      await untilOnlyOn(tenant, shift, 'tr1');
      // and loses it when the obstacle comes back
      await resource(tenant, 'tr1', { ...fields });
      await untilUncombined(tenant, shift);
      expect((await settle(tenant)).has(shift)).toBe(false);
    });
  });

  describe('the objective', () => {
    it('gives the only transport resource to a mandatory availability over an optional overlapping one', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['optional', 'mandatory'] });
      const optional = await availability(tenant, 'optional', at(0));
      await untilOnlyOn(tenant, optional, 'tr1');
      const mandatory = await availability(tenant, 'mandatory', at(2), { mandatory: true });
      await untilOnlyOn(tenant, mandatory, 'tr1');
      const combinations = await settle(tenant);
      expect([...combinations.keys()]).toEqual([mandatory]);
      expect((combinations.get(mandatory) as Combination).mandatory).toBe(true);
    });

    it("prefers the employee's linked transport resource over a cheaper one", async () => {
      const tenant = await tenantWith({
        resources: { cheap: { costs: { fixed: 0 } }, linked: { costs: { fixed: 100 } } },
        employees: { e1: { linked_transport_resource: 'linked' }, e2: {} },
      });
      const linked = await availability(tenant, 'e1', at(0));
      const other = await availability(tenant, 'e2', at(0));
      await world.until(tenant, 'e1 on its linked resource', (found) => onlyOn(found, linked, 'linked') && onlyOn(found, other, 'cheap'));
      const combinations = await settle(tenant);
      expect(combinations.get(linked)).toMatchObject({ transport_resource_ids: ['linked'], linked: true });
      expect(combinations.get(other)).toMatchObject({ transport_resource_ids: ['cheap'], linked: false });
      expect((await snapshotOf(tenant, linked))?.linked_transport_resource).toBe('linked');
    });

    it('prefers the lower fixed cost', async () => {
      const tenant = await tenantWith({
        resources: { dear: { costs: { fixed: 50 } }, 'a-mid': { costs: { fixed: 20 } }, 'z-cheap': { costs: { fixed: 10 } } },
        employees: ['e1'],
      });
      const shift = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, shift, 'z-cheap');
      expect(trOf(await settle(tenant), shift)).toEqual(['z-cheap']);
    });
  });

  describe('planning-bound deployments', () => {
    it('freeze the combination of their availability and keep its transport resource from other shifts until deleted', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1', 'e2'] });
      const deployed = await availability(tenant, 'e1', at(0));
      const other = await availability(tenant, 'e2', at(1), { mandatory: true });
      await world.until(tenant, 'the mandatory shift on tr1', (found) => onlyOn(found, other, 'tr1') && !found.has(deployed));

      const body = deployment('d1', 'e1', deployed, ['tr1'], at(0), at(8));
      await deploy(tenant, body);
      const frozen = await world.until(tenant, 'frozen', (found) => found.get(deployed)?.deployment_id === 'd1' && !found.has(other));
      expect(frozen.get(deployed)).toMatchObject({ employee_id: 'e1', transport_resource_ids: ['tr1'], deployment_id: 'd1' });
      // a new shift overlapping the deployment finds tr1 taken
      await employee(tenant, 'e3');
      const late = await availability(tenant, 'e3', at(7), { mandatory: true });
      const settled = await settle(tenant);
      expect([...settled.keys()]).toEqual([deployed]);
      expect(settled.has(late)).toBe(false);

      await deploy(tenant, body, { action: 'deleted' });
      // one event changes several combinations, written side by side: wait for all of them
      const unfrozen = (found: Map<string, CombinationBody>) =>
        [...found.values()].some((one) => onlyOn(found, one.id, 'tr1')) && [...found.values()].every((one) => !one.deployment_id);
      const freed = await world.until(tenant, 'tr1 free again', unfrozen);
      expect(freed.get(deployed)?.deployment_id).toBeUndefined();
      const after = await settle(tenant);
      // one of the overlapping mandatory shifts has tr1 now, no combination is frozen
      expect([...after.values()].filter((one) => (one as Combination).mandatory).length).toBe(1);
      expect([...after.values()].every((one) => one.deployment_id === undefined && one.transport_resource_ids[0] === 'tr1')).toBe(true);
      expect(after.size).toBe(1);
    });

    it('a journey (start_location at_last_end) goes on only with the transport resources of the preceding deployment', async () => {
      const tenant = await tenantWith({ resources: { tr1: { costs: { fixed: 50 } }, tr2: { costs: { fixed: 0 } } }, employees: ['e1'] });
      const first = await availability(tenant, 'e1', at(0));
      await deploy(tenant, deployment('d1', 'e1', first, ['tr1'], at(0), at(8)));
      const journey = await availability(tenant, 'e1', at(10), { start_location: { at_last_end: true } });

      const combinations = await world.until(tenant, 'the journey on tr1', (found) =>
        onlyOn(found, journey, 'tr1') && found.get(first)?.deployment_id === 'd1',
      );
      expect(combinations.get(first)).toMatchObject({ transport_resource_ids: ['tr1'], deployment_id: 'd1' });
      expect(combinations.get(journey)?.deployment_id).toBeUndefined();
      expect((await settledSnapshot(tenant, journey))?.location).toEqual({ at_last_end: true, transport_resource_ids: ['tr1'] });

      // tr1 unavailable: the journey has nothing else, though tr2 is free at the home base
      await unavailable(tenant, 'transport-resource', 'tr1', at(11), at(12));
      await untilUncombined(tenant, journey);
      const settled = await settle(tenant);
      expect([...settled.keys()]).toEqual([first]);
    });
  });

  describe('events out of order and duplicates', () => {
    it('an availability (and an unavailability) before its employee are matched once the employee comes', async () => {
      const tenant = newTenant();
      const shift = await availability(tenant, 'e1', at(0), { min_duration: 'PT4H' });
      await unavailable(tenant, 'employee', 'e1', at(5), at(6));
      await resource(tenant, 'tr1');
      expect((await settle(tenant)).has(shift)).toBe(false);
      expect(await snapshotOf(tenant, shift)).toBeUndefined();

      await employee(tenant, 'e1');
      await untilOnlyOn(tenant, shift, 'tr1');
      expect((await settledSnapshot(tenant, shift))?.unavailabilities).toEqual([{ from: at(5), to: at(6) }]);
    });

    it('an older version of a transport resource after a newer one changes nothing', async () => {
      const tenant = await tenantWith({ employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await resource(tenant, 'tr1', {}, { version: 1 });
      await untilOnlyOn(tenant, shift, 'tr1');

      await resource(tenant, 'tr1', { inactive: true }, { version: 3 });
      await untilUncombined(tenant, shift);
      await resource(tenant, 'tr1', {}, { version: 2, action: 'updated' });
      expect((await settle(tenant)).has(shift)).toBe(false);

      // version 4, newer than the inactive version 3, brings the combination back
      await resource(tenant, 'tr1', {}, { version: 4 });
      await untilOnlyOn(tenant, shift, 'tr1');
    });

    it('the same event twice gives the same result', async () => {
      const tenant = await tenantWith({ resources: ['tr1'] });
      const employeeEvent = await employee(tenant, 'e1', { skills: ['ADR'] });
      const shift = randomUUID();
      const body = inputs.availability('e1', shift, at(0));
      const created = await world.publish(tenant, 'availability', `e1/${shift}`, body);
      const before = await untilOnlyOn(tenant, shift, 'tr1');
      const snapshotBefore = await settledSnapshot(tenant, shift);

      await republish(employeeEvent);
      await republish(created);
      const after = await settle(tenant);
      expect(after.get(shift)).toEqual(before.get(shift));
      expect(await snapshotOf(tenant, shift)).toEqual(snapshotBefore);

      // once deleted, a late copy of its creation does not bring it back
      await world.publish(tenant, 'availability', `e1/${shift}`, body, { action: 'deleted' });
      await untilUncombined(tenant, shift);
      await republish(created);
      expect((await settle(tenant)).has(shift)).toBe(false);
      expect(await snapshotOf(tenant, shift)).toBeUndefined();
    });
  });

  describe('edges of the same rules', () => {
    it('rule 6: an unavailability moved off the guaranteed time (touching its end) gives the combination back', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1'] });
      // window [0h, 8h), guaranteed [0h, 4h)
      const shift = await availability(tenant, 'e1', at(0), { min_duration: 'PT4H' });
      await untilOnlyOn(tenant, shift, 'tr1');
      const { entityId, body } = await unavailable(tenant, 'transport-resource', 'tr1', at(1), at(2));
      await untilUncombined(tenant, shift);
      const moved = { ...body, from: at(4), to: at(5) };
      await world.publish(tenant, 'transport-resource-unavailability', entityId, moved);
      await untilOnlyOn(tenant, shift, 'tr1');
      await world.publish(tenant, 'transport-resource-unavailability', entityId, moved, { action: 'deleted' });
      expect(trOf(await settle(tenant), shift)).toEqual(['tr1']);
    });

    it('rule 6: an unavailability that comes before its transport resource holds once the resource comes', async () => {
      const tenant = await tenantWith({ employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await unavailable(tenant, 'transport-resource', 'tr1', at(1), at(2));
      await resource(tenant, 'tr1', { costs: { fixed: 0 } });
      await resource(tenant, 'tr2', { costs: { fixed: 10 } });
      await untilOnlyOn(tenant, shift, 'tr2');
      expect(trOf(await settle(tenant), shift)).toEqual(['tr2']);
    });

    it('rule 2: an employee moving to another home base takes its shifts to the resources there', async () => {
      const tenant = await tenantWith({
        homeBases: { hb1: 'Gent', hb2: 'Luik' },
        resources: { tr1: atHomeBase('hb1'), tr2: atHomeBase('hb2') },
        employees: { e1: atHomeBase('hb1') },
      });
      const shift = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, shift, 'tr1');
      await employee(tenant, 'e1', atHomeBase('hb2'));
      await untilOnlyOn(tenant, shift, 'tr2');
      expect(await settledSnapshot(tenant, shift)).toMatchObject({ location: { home_base_id: 'hb2' }, address: { city: 'Luik' } });
    });

    it('a planning-bound deployment moved to another employee frees the first shift and freezes the other', async () => {
      const tenant = await tenantWith({ resources: ['tr1', 'tr2'], employees: ['e1', 'e2'] });
      const first = await availability(tenant, 'e1', at(0));
      const second = await availability(tenant, 'e2', at(0));
      await world.until(tenant, 'both combined', (found) => found.has(first) && found.has(second));
      await deploy(tenant, deployment('d1', 'e1', first, ['tr1'], at(0), at(8)));
      await world.until(tenant, 'e1 frozen', (found) => found.get(first)?.deployment_id === 'd1' && onlyOn(found, second, 'tr2'));
      await deploy(tenant, deployment('d1', 'e2', second, ['tr1'], at(0), at(8)));
      const combinations = await world.until(tenant, 'e2 frozen, e1 on tr2', (found) =>
        found.get(second)?.deployment_id === 'd1' && onlyOn(found, first, 'tr2') && found.get(first)?.deployment_id === undefined,
      );
      expect(combinations.get(second)?.transport_resource_ids).toEqual(['tr1']);
    });

    it('a planning-bound deployment that changes its transport resource frees the one it took', async () => {
      const tenant = await tenantWith({ resources: { tr1: {}, tr2: {}, tr9: atHomeBase('elsewhere') }, employees: ['e1', 'e2', 'e3'] });
      const first = await availability(tenant, 'e1', at(0));
      await deploy(tenant, deployment('d1', 'e1', first, ['tr1'], at(0), at(8)));
      const second = await availability(tenant, 'e2', at(1));
      const third = await availability(tenant, 'e3', at(2));
      await world.until(tenant, 'one of e2 and e3 on tr2', (found) => found.get(first)?.deployment_id === 'd1' && found.size === 2);
      const before = await settle(tenant);
      expect(before.size).toBe(2);
      await deploy(tenant, deployment('d1', 'e1', first, ['tr9'], at(0), at(8)));
      const after = await world.until(tenant, 'placed', (found) => found.has(second) && found.has(third) && onlyOn(found, first, 'tr9'));
      expect([trOf(after, second)?.[0], trOf(after, third)?.[0]].sort()).toEqual(['tr1', 'tr2']);
    });

    /** e1's shift on tr2, the cheaper, leaving tr1 free for a deployment to take. */
    async function shiftOnTheCheaperResource() {
      const tenant = await tenantWith({ resources: { tr1: { costs: { fixed: 10 } }, tr2: { costs: { fixed: 0 } } }, employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, shift, 'tr2');
      return { tenant, shift };
    }

    it('a planning-bound deployment naming no availability holds the overlapping shift of its employee', async () => {
      const { tenant, shift } = await shiftOnTheCheaperResource();
      const { availability_id: _none, ...body } = deployment('d1', 'e1', shift, ['tr1'], at(1), at(5));
      await deploy(tenant, body);
      const combinations = await world.until(tenant, 'frozen on tr1', (found) => found.get(shift)?.deployment_id === 'd1');
      expect(trOf(combinations, shift)).toEqual(['tr1']);
    });

    it('an external deployment (no planning_id) freezes nothing', async () => {
      const { tenant, shift } = await shiftOnTheCheaperResource();
      const { availability_id: _a, planning_id: _p, ...external } = deployment('d1', 'e1', shift, ['tr1'], at(0), at(8));
      await deploy(tenant, external);
      await employee(tenant, 'e2');
      const other = await availability(tenant, 'e2', at(0));
      const combinations = await settle(tenant, { deployments: true });
      expect(trOf(combinations, other)).toEqual(['tr1']);
      expect(combinations.get(shift)).toMatchObject({ transport_resource_ids: ['tr2'] });
      expect(combinations.get(shift)?.deployment_id).toBeUndefined();
    });

    it('a journey waits for the deployment it continues, and loses its resource when that deployment goes', async () => {
      const tenant = await tenantWith({ resources: { tr1: { costs: { fixed: 50 } }, tr2: { costs: { fixed: 0 } } }, employees: ['e1'] });
      const first = await availability(tenant, 'e1', at(0));
      const journey = await availability(tenant, 'e1', at(10), { start_location: { at_last_end: true } });
      await untilOnlyOn(tenant, first, 'tr2');
      expect((await settle(tenant)).has(journey)).toBe(false);
      expect((await snapshotOf(tenant, journey))?.location).toEqual({ at_last_end: true, transport_resource_ids: [] });

      const body = deployment('d1', 'e1', first, ['tr1'], at(0), at(8));
      await deploy(tenant, body);
      await world.until(tenant, 'the journey on tr1', (found) => onlyOn(found, journey, 'tr1') && found.get(first)?.deployment_id === 'd1');
      await deploy(tenant, body, { action: 'deleted' });
      const after = await world.until(tenant, 'the journey without', (found) => !found.has(journey) && onlyOn(found, first, 'tr2'));
      expect(after.get(first)?.deployment_id).toBeUndefined();
      expect((await settledSnapshot(tenant, journey))?.location).toEqual({ at_last_end: true, transport_resource_ids: [] });
    });

    it('most matched: a new shift moves a placed one to a dearer free resource', async () => {
      const tenant = await tenantWith({
        resources: { tr1: { costs: { fixed: 0 } }, tr2: { costs: { fixed: 5 }, requirements: ['CE'] } },
        employees: { e1: { driver_skills: ['CE'] }, e2: {} },
      });
      const skilled = await availability(tenant, 'e1', at(0));
      await untilOnlyOn(tenant, skilled, 'tr1');
      const plain = await availability(tenant, 'e2', at(2));
      await world.until(tenant, 'e1 on tr2, e2 on tr1', (found) => onlyOn(found, skilled, 'tr2') && onlyOn(found, plain, 'tr1'));
    });

    it('a mandatory shift makes the optional ones on both sides give way, and they come back when it goes', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1', 'e2'] });
      const morning = await availability(tenant, 'e1', at(0));
      const evening = await availability(tenant, 'e1', at(10));
      await world.until(tenant, 'both optional on tr1', (found) => onlyOn(found, morning, 'tr1') && onlyOn(found, evening, 'tr1'));
      const id = randomUUID();
      const body = inputs.availability('e2', id, at(6), { mandatory: true });
      await world.publish(tenant, 'availability', `e2/${id}`, body);
      await world.until(tenant, 'mandatory alone', (found) => onlyOn(found, id, 'tr1') && !found.has(morning) && !found.has(evening));
      await world.publish(tenant, 'availability', `e2/${id}`, body, { action: 'deleted' });
      await world.until(tenant, 'both back', (found) => onlyOn(found, morning, 'tr1') && onlyOn(found, evening, 'tr1') && !found.has(id));
    });

    it('rule 8: a started shift whose home base comes after it takes the address once, then keeps it', async () => {
      const tenant = newTenant();
      const { started, marker } = await startedAndFutureShifts(tenant);
      await snapshotUntil(tenant, started, 'a snapshot', (found) => found !== undefined);
      expect((await settledSnapshot(tenant, started))?.address).toBeUndefined();
      await homeBase(tenant, 'hb', 'Gent');
      await snapshotIn(tenant, started, 'Gent');
      await moveHomeBase(tenant, 'Antwerpen', { markerShift: marker, markerCity: 'Brugge' });
      expect((await snapshotOf(tenant, started))?.address).toEqual({ city: 'Gent', country_code: 'BE' });
    });

    /** Runs `scenario` once for each order, each time in a new tenant with e1's shift at 0h; returns what each run gave. */
    async function inEachOrder<T>(orders: T[][], scenario: (tenant: string, shift: string, order: T[]) => Promise<unknown>) {
      const results: unknown[] = [];
      for (const order of orders) {
        const tenant = await tenantWith({ employees: ['e1'] });
        results.push(await scenario(tenant, await availability(tenant, 'e1', at(0)), order));
      }
      return results;
    }

    it('rule 2: unavailabilities that start together are listed the same whatever order they came in', async () => {
      const listed = await inEachOrder([[6, 7], [7, 6]], async (tenant, shift, order) => {
        for (const end of order) await unavailable(tenant, 'employee', 'e1', at(5), at(end));
        await snapshotUntil(tenant, shift, 'both unavailabilities', (found) => found?.unavailabilities.length === 2);
        return (await settledSnapshot(tenant, shift))?.unavailabilities;
      });
      expect(listed[0]).toEqual([{ from: at(5), to: at(6) }, { from: at(5), to: at(7) }]);
      expect(listed[1]).toEqual(listed[0]);
    });

    it('a frozen combination follows the capabilities of its transport resource', async () => {
      const tenant = await tenantWith({ resources: ['tr1'], employees: ['e1'] });
      const shift = await availability(tenant, 'e1', at(0));
      await deploy(tenant, deployment('d1', 'e1', shift, ['tr1'], at(0), at(8)));
      await world.until(tenant, 'frozen', (found) => found.get(shift)?.deployment_id === 'd1');
      await resource(tenant, 'tr1', { capabilities: ['tail-lift'] });
      const combinations = await world.until(tenant, 'with the capability', (found) => found.get(shift)?.capabilities[0] === 'tail-lift');
      expect(combinations.get(shift)).toMatchObject({ deployment_id: 'd1', transport_resource_ids: ['tr1'], capabilities: ['tail-lift'] });
    });

    it('of two planning-bound deployments holding one availability, the same one shows whatever order they came in', async () => {
      const shown = await inEachOrder([['d-late', 'd-early'], ['d-early', 'd-late']], async (tenant, shift, order) => {
        const bodies: Record<string, Data> = {
          'd-early': deployment('d-early', 'e1', shift, ['tr1'], at(0), at(4)),
          'd-late': deployment('d-late', 'e1', shift, ['tr2'], at(4), at(8)),
        };
        for (const id of order) await deploy(tenant, bodies[id] as Data);
        await world.until(tenant, 'frozen', (found) => found.get(shift)?.deployment_id !== undefined);
        const combination = (await settle(tenant, { deployments: true })).get(shift);
        return [combination?.deployment_id, combination?.transport_resource_ids];
      });
      expect(shown[0]).toEqual(['d-early', ['tr1']]);
      expect(shown[1]).toEqual(shown[0]);
    });
  });

  describe('the read API', () => {
    let tenant: string;
    let monday: string;
    let tuesday: string;
    let other: string;
    beforeAll(async () => {
      tenant = await tenantWith({
        resources: { tr1: atHomeBase('hb1'), tr2: atHomeBase('hb2') },
        employees: { e1: atHomeBase('hb1'), e2: { ...atHomeBase('hb2'), linked_transport_resource: 'tr2' } },
      });
      monday = await availability(tenant, 'e1', at(0));
      tuesday = await availability(tenant, 'e1', at(24));
      other = await availability(tenant, 'e2', at(2));
      await world.until(tenant, 'three combinations', (found) =>
        onlyOn(found, monday, 'tr1') && onlyOn(found, tuesday, 'tr1') && onlyOn(found, other, 'tr2'),
      );
      for (const id of [monday, tuesday, other]) await snapshotUntil(tenant, id, 'the snapshots', (found) => found !== undefined);
    });

    const ids = async (url: string, list = 'resource_combinations') => {
      const response = await get(tenant, url);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body[list] as { id: string }[]).map((item) => item.id).sort();
    };

    it('filters the combinations by employee, transport resource and time', async () => {
      const sorted = (...values: string[]) => [...values].sort();
      expect(await ids('/resource-combination')).toEqual(sorted(monday, tuesday, other));
      expect(await ids('/resource-combination?employee_id=e1')).toEqual(sorted(monday, tuesday));
      expect(await ids('/resource-combination?employee_id=nobody')).toEqual([]);
      expect(await ids('/resource-combination?transport_resource_id=tr2')).toEqual([other]);
      expect(await ids('/resource-combination?transport_resource_id=tr1&employee_id=e2')).toEqual([]);
      // windows: monday [0h, 8h), other [2h, 10h), tuesday [24h, 32h)
      expect(await ids(`/resource-combination?from=${at(20)}&until=${at(30)}`)).toEqual([tuesday]);
      expect(await ids(`/resource-combination?from=${at(8)}`)).toEqual(sorted(other, tuesday));
      expect(await ids(`/resource-combination?until=${at(2)}`)).toEqual([monday]);
      expect(await ids(`/resource-combination?from=${at(9)}&until=${at(9)}`)).toEqual([other]);
      expect(await ids(`/resource-combination?from=${at(32)}`)).toEqual([]);
      expect(await ids('/available-employee?employee_id=e2', 'available_employees')).toEqual([other]);
      // a snapshot's transport resource is its linked one
      expect(await ids('/available-employee?transport_resource_id=tr2', 'available_employees')).toEqual([other]);
      expect(await ids('/available-employee?transport_resource_id=tr1', 'available_employees')).toEqual([]);
    });

    it('pages with limit=1 through cursors.next', async () => {
      const seen: string[] = [];
      let url: string | undefined = '/resource-combination?limit=1';
      for (let pages = 0; url !== undefined && pages < 10; pages++) {
        const response = await get(tenant, url);
        expect(response.status).toBe(200);
        const page = response.body as { resource_combinations: { id: string }[]; cursors: { next?: string } };
        expect(page.resource_combinations).toHaveLength(1);
        seen.push(...page.resource_combinations.map((item) => item.id));
        url = page.cursors.next === undefined ? undefined : `/resource-combination?limit=1&cursor=${encodeURIComponent(page.cursors.next)}`;
      }
      expect(url).toBeUndefined();
      expect(seen).toEqual(inListOrder([monday, tuesday, other]));

      const first = await get(tenant, '/resource-combination?employee_id=e1&limit=1');
      const next = (first.body['cursors'] as { next?: string }).next;
      expect(next).toBeDefined();
      const same = await get(tenant, `/resource-combination?employee_id=e1&limit=1&cursor=${encodeURIComponent(String(next))}`);
      expect(same.status).toBe(200);
      expect((same.body['resource_combinations'] as { id: string }[]).map((item) => item.id)).toEqual([inListOrder([monday, tuesday])[1]]);
      // the cursor of one filter is refused under another
      for (const filter of ['employee_id=e2&', 'transport_resource_id=tr1&', '']) {
        const refused = await get(tenant, `/resource-combination?${filter}limit=1&cursor=${encodeURIComponent(String(next))}`);
        expect(refused.status, filter).toBe(400);
        expect(refused.contentType).toContain('application/problem+json');
      }
    });

    it('reads one combination and one snapshot by id', async () => {
      const combination = await get(tenant, `/resource-combination/${monday}`);
      expect(combination.status).toBe(200);
      expect(combination.body).toMatchObject({ id: monday, employee_id: 'e1', transport_resource_ids: ['tr1'] });
      expect(combination.body['shift']).toEqual({ start: at(0), end: at(8) });
      const snapshot = await get(tenant, `/available-employee/${other}`);
      expect(snapshot.status).toBe(200);
      expect(snapshot.body).toMatchObject({ id: other, employee_id: 'e2', linked_transport_resource: 'tr2' });
      expect(snapshot.body['location']).toEqual({ home_base_id: 'hb2' });
      expect((await get(tenant, `/resource-combination/${other}`)).body).toMatchObject({ linked: true });
    });

    it('answers 404 problem+json for an unknown id, 400 for a malformed id and for from after until', async () => {
      for (const path of ['/resource-combination', '/available-employee']) {
        const unknown = await get(tenant, `${path}/${randomUUID()}`);
        expect(unknown.status).toBe(404);
        expect(unknown.contentType).toContain('application/problem+json');
        expect(unknown.body).toMatchObject({ title: expect.any(String), detail: expect.any(String) });

        const malformed = await get(tenant, `${path}/not-a-uuid`);
        expect(malformed.status).toBe(400);
        expect(malformed.contentType).toContain('application/problem+json');

        const backwards = await get(tenant, `${path}?from=${at(10)}&until=${at(9)}`);
        expect(backwards.status).toBe(400);
        expect(backwards.contentType).toContain('application/problem+json');
      }
    });

    it('shows another tenant nothing', async () => {
      const stranger = newTenant();
      expect((await get(stranger, `/resource-combination/${monday}`)).status).toBe(404);
      expect((await get(stranger, `/available-employee/${monday}`)).status).toBe(404);
      expect((await get(stranger, '/resource-combination')).body['resource_combinations']).toEqual([]);
      expect((await get(stranger, '/available-employee?employee_id=e1')).body['available_employees']).toEqual([]);
      // nor takes its cursors
      const first = await get(tenant, '/resource-combination?limit=1');
      const next = String((first.body['cursors'] as { next?: string }).next);
      expect((await get(stranger, `/resource-combination?limit=1&cursor=${encodeURIComponent(next)}`)).status).toBe(400);
    });
  });

  describe('published events', () => {
    it('rm.matching.<tenant>.resource-combination.created, updated and deleted follow the combination', async () => {
      const tenant = newTenant();
      const consumer = await jetstream(nats.nc).consumers.get('RM_MATCHING', { filter_subjects: [`rm.matching.${tenant}.>`] });
      const messages = await consumer.consume();
      const received: { subject: string; event: EventEnvelope }[] = [];
      void (async () => {
        for await (const message of messages) received.push({ subject: message.subject, event: message.json<EventEnvelope>() });
      })();
      try {
        const tr1 = { costs: { fixed: 1 } };
        await resource(tenant, 'tr1', tr1);
        await employee(tenant, 'e1');
        const shift = randomUUID();
        const body = inputs.availability('e1', shift, at(0));
        await world.publish(tenant, 'availability', `e1/${shift}`, body);
        await untilOnlyOn(tenant, shift, 'tr1');
        await resource(tenant, 'tr2', { costs: { fixed: 9 } });
        await resource(tenant, 'tr1', { ...tr1, capabilities: ['tail-lift'] });
        await world.until(tenant, 'with the capability', (found) => found.get(shift)?.capabilities.includes('tail-lift') === true);
        await resource(tenant, 'tr1', { ...tr1, capabilities: ['tail-lift'] }, { action: 'deleted' });
        await untilOnlyOn(tenant, shift, 'tr2');
        await world.publish(tenant, 'availability', `e1/${shift}`, body, { action: 'deleted' });
        await untilUncombined(tenant, shift);

        const ofCombination = () =>
          received.filter(({ event }) => event.type.startsWith('resource-combination.') && event.entity_id === shift);
        await waitFor('four combination events', async () => ofCombination().length >= 4);
        const combinationEvents = ofCombination();
        expect(combinationEvents.map(({ subject }) => subject)).toEqual(
          ['created', 'updated', 'updated', 'deleted'].map((action) => `rm.matching.${tenant}.resource-combination.${action}`),
        );
        expect(combinationEvents.map(({ event }) => event.type)).toEqual([
          'resource-combination.created',
          'resource-combination.updated',
          'resource-combination.updated',
          'resource-combination.deleted',
        ]);
        const data = combinationEvents.map(({ event }) => event.data as unknown as CombinationBody);
        expect(data.map((one) => one.transport_resource_ids)).toEqual([['tr1'], ['tr1'], ['tr2'], ['tr2']]);
        expect(data.map((one) => one.capabilities)).toEqual([[], ['tail-lift'], [], []]);
        expect(data.every((one) => one.id === shift && one.employee_id === 'e1')).toBe(true);
        const versions = combinationEvents.map(({ event }) => event.version);
        expect(versions).toEqual([...versions].sort((a, b) => a - b));
        expect(new Set(versions).size).toBe(4);
        expect(combinationEvents.every(({ event }) => event.tenant === tenant)).toBe(true);

        await waitFor('the snapshot events', async () =>
          received.some(({ event }) => event.type === 'available-employee.deleted' && event.entity_id === shift),
        );
        const snapshotTypes = received.filter(({ event }) => event.entity_id === shift && event.type.startsWith('available-employee.'));
        expect(snapshotTypes[0]?.subject).toBe(`rm.matching.${tenant}.available-employee.created`);
        expect(snapshotTypes.at(-1)?.subject).toBe(`rm.matching.${tenant}.available-employee.deleted`);
      } finally {
        await messages.close();
      }
    });
  });

  // last: it starts a second replica, which then holds half of the partitions
  describe('rule 8 when another replica takes the tenant over', () => {
    it('the started shift keeps the address it had when its tenant is rebuilt from the database', async () => {
      const first = world.harness;
      const owners = async () => {
        const leases = await first.service.collections.partitions.leases.find({ expires_at: { $gt: new Date() } }).toArray();
        return new Map(leases.map((lease) => [lease._id, lease.owner]));
      };
      await waitFor('the first replica holds every partition', async () => (await owners()).size === 4);
      // a second replica takes the partitions beyond the first's fair share: the highest, 2 and 3
      let tenant = '';
      let partition = -1;
      for (let tries = 0; tries < 40 && partition < 2; tries++) {
        tenant = await tenantWith({ homeBases: { hb: 'Gent' } });
        partition = await partitionOf(tenant);
      }
      expect(partition).toBeGreaterThanOrEqual(2);

      await homeBase(tenant, 'marker', 'Brugge');
      const { started, future, marker } = await startedAndFutureShifts(tenant);
      for (const id of [started, future]) await snapshotIn(tenant, id, 'Gent');
      await moveHomeBase(tenant, 'Antwerpen', { markerShift: marker, markerCity: 'Oostende' });
      expect((await snapshotOf(tenant, started))?.address).toEqual({ city: 'Gent', country_code: 'BE' });

      await world.startReplica({ MONGO_DB: String(first.env.variables['MONGO_DB']), MATCHING_REPLICA_ID: 'second' });
      await waitFor("the second replica holds the tenant's partition", async () => (await owners()).get(partition) === 'second');
      // the next event of the tenant is handled by the second replica, which loads the tenant from the database
      await homeBase(tenant, 'marker', 'Namen');
      await snapshotIn(tenant, marker, 'Namen');
      expect((await snapshotOf(tenant, future))?.address).toEqual({ city: 'Antwerpen', country_code: 'BE' });
      expect((await snapshotOf(tenant, started))?.address).toEqual({ city: 'Gent', country_code: 'BE' });
    });
  });
});
