import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceStream, type EventEnvelope } from '@rm/contracts';
import { recordEvents, uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import { BASE, signIn, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

/**
 * Home bases across services, end to end through the gateway with every owner running (issue 9): the
 * delete guard fed by the other services' real events, the race of a delete with new references, and
 * a home-base change reaching a consumer that holds copies of its address.
 */

let gateway: GatewayHarness;
let token: string;
let tenant: string;

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const init = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const response = await gateway.fetch(`${BASE}${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

const address = (city: string) => ({ name: `Depot ${city}`, address_line: 'Dok Noord 1', city, zip_code: '9000', country_code: 'BE' });
const homeBase = (city = 'Gent') => ({ name: `Depot ${city}`, address: address(city) });
const adHoc = { start_location: address('Brugge') };
const employeeAt = (homeBaseId: string) => ({ name: { first_name: 'Ada', last_name: 'Peeters' }, home_base: { business_id: homeBaseId } });
const truckAt = (homeBaseId: string) => ({ type: 'TRUCK', home_base: { business_id: homeBaseId } });
const availabilityAt = (homeBaseId: string, earliest_start: string) => ({
  earliest_start,
  max_duration: 'PT8H',
  start_location: { home_base: { business_id: homeBaseId } },
});
const scheduleAt = (homeBaseId: string) => ({
  name: 'Early',
  start: { start_date: '2026-01-05', start_week: 1 },
  templates: [
    {
      index: 1,
      shifts: [
        {
          start: { earliest: { day: 'MONDAY', time: '06:00' } },
          duration: { at_most: 'PT8H' },
          start_location: { home_base: { business_id: homeBaseId } },
        },
      ],
    },
  ],
});

const deploymentAt = (homeBaseId: string, employee: string, truck: string) => ({
  employee,
  transport_resources: [truck],
  start: { at: '2030-03-02T06:00:00Z', location: { home_base: { business_id: homeBaseId } } },
  end: { at: '2030-03-02T14:00:00Z' },
});

async function created(method: 'PUT' | 'POST', path: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await call(method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body ?? {};
}

/** The delete's 409 once every reference has come through its owner's events (no claim still pending). */
async function settledRefusal(homeBaseId: string): Promise<Record<string, unknown>> {
  return waitFor(`the references to ${homeBaseId} to settle`, async () => {
    const answer = await call('DELETE', `/home-base/${homeBaseId}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    const referrers = answer.body?.referrers as { pending?: true }[];
    return referrers.every((referrer) => referrer.pending === undefined) ? answer.body : undefined;
  });
}

/** What a consumer holding copies of addresses keeps (the matching engine's snapshots, issue 11): one per availability. */
interface Snapshot {
  earliestStart: string;
  homeBase: string;
  address: unknown;
}

/**
 * A consumer of the employees' and home-bases' events, in stream order per stream: availabilities
 * take the address their home base has, and a home-base update reaches the snapshots of
 * availabilities that have not started when it happens (spec rule 8); past ones keep what they had.
 */
function snapshotsFrom(availabilityEvents: EventEnvelope[], homeBaseEvents: EventEnvelope[]): Map<string, Snapshot> {
  const firstAddress = new Map<string, unknown>();
  for (const event of homeBaseEvents) if (event.type === 'home-base.created') firstAddress.set(event.entity_id, event.data.address);
  const snapshots = new Map<string, Snapshot>();
  for (const event of availabilityEvents) {
    const homeBase = (event.data.start_location as { home_base: { business_id: string } }).home_base.business_id;
    const earliestStart = event.data.earliest_start as string;
    snapshots.set(event.entity_id, { earliestStart, homeBase, address: firstAddress.get(homeBase) });
  }
  for (const event of homeBaseEvents) {
    if (event.type !== 'home-base.updated') continue;
    for (const snapshot of snapshots.values()) {
      if (snapshot.homeBase === event.entity_id && snapshot.earliestStart > event.occurred_at) snapshot.address = event.data.address;
    }
  }
  return snapshots;
}

/** Home-base references across the services: the delete guard, its race with new references, and a home-base change. */
export function describeHomeBaseReferences(stack: () => Stack): void {
  describe('home-base references', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ tenant, token } = await signIn(gateway));
    });

    describe('the delete guard, fed by the other services\' events', () => {
      it('refuses while an employee, availability, shift schedule, transport resource or deployment refers to it, listing them', async () => {
        const hb = uniqueName('hb');
        await created('PUT', `/home-base/${hb}`, homeBase());
        const [employee, other, truck] = [uniqueName('e'), uniqueName('e'), uniqueName('t')];
        await created('PUT', `/employee/${employee}`, employeeAt(hb));
        await created('PUT', `/employee/${other}`, { name: { first_name: 'Bo', last_name: 'Maes' }, ...adHoc });
        const availability = await created('POST', `/employee/${other}/availability`, availabilityAt(hb, '2030-03-02T06:00:00Z'));
        const schedule = await created('POST', `/employee/${other}/shift-schedule`, scheduleAt(hb));
        await created('PUT', `/transport-resource/${truck}`, truckAt(hb));
        // the deployments service learns of the employee and the truck from their events
        const deployment = uniqueName('d');
        const putDeployment = () => call('PUT', `/deployment/${deployment}`, deploymentAt(hb, other, truck));
        await waitFor('the deployment', async () => (await putDeployment()).status === 201);

        const refusal = await settledRefusal(hb);
        expect(refusal).toMatchObject({ status: 409, referrers_total: 5 });
        expect(refusal.detail).toContain(hb);
        expect(refusal.referrers).toEqual([
          { entity: 'availability', id: `${other}/${availability.id}` },
          { entity: 'deployment', id: deployment },
          { entity: 'employee', id: employee },
          { entity: 'shift-schedule', id: `${other}/${schedule.id}` },
          { entity: 'transport-resource', id: truck },
        ]);
        expect((await call('GET', `/home-base/${hb}`)).status).toBe(200);

        // every reference goes: one moved away; two with their employee, and the deployment after its delete; one deleted
        expect((await call('PUT', `/employee/${employee}`, { name: { first_name: 'Ada', last_name: 'Peeters' }, ...adHoc })).status).toBe(200);
        expect((await call('DELETE', `/employee/${other}`)).status).toBe(204);
        expect((await call('DELETE', `/transport-resource/${truck}`)).status).toBe(204);
        await waitFor(`the delete of ${hb}`, async () => (await call('DELETE', `/home-base/${hb}`)).status === 204);
        expect((await call('GET', `/home-base/${hb}`)).status).toBe(404);

        // and a deleted home base can no longer be named
        const refused = await call('PUT', `/employee/${employee}`, employeeAt(hb));
        expect(refused.status).toBe(400);
        expect(refused.body?.violations).toEqual([{ field: 'home_base.business_id', message: `home base '${hb}' does not exist` }]);
      });

      it('refuses a reference to a home base that does not exist, naming the field, and writes nothing', async () => {
        const employee = uniqueName('e');
        const answer = await call('PUT', `/employee/${employee}`, employeeAt('nowhere'));
        expect(answer.status).toBe(400);
        expect(answer.body?.violations).toEqual([{ field: 'home_base.business_id', message: "home base 'nowhere' does not exist" }]);
        expect((await call('GET', `/employee/${employee}`)).status).toBe(404);
      });
    });

    describe('a delete racing new references', () => {
      it('leaves no reference to a deleted home base, whoever wins', async () => {
        for (let round = 0; round < 8; round += 1) {
          const hb = uniqueName('hb');
          await created('PUT', `/home-base/${hb}`, homeBase());
          const employees = Array.from({ length: 6 }, () => uniqueName('e'));
          const trucks = Array.from({ length: 4 }, () => uniqueName('t'));
          // the delete goes out somewhere among the writes (both outcomes come up over the rounds)
          const deletion = new Promise<Answer>((resolve) => setTimeout(() => resolve(call('DELETE', `/home-base/${hb}`)), round * 3));
          const [deleted, ...writes] = await Promise.all([
            deletion,
            ...employees.map((id) => call('PUT', `/employee/${id}`, employeeAt(hb))),
            ...trucks.map((id) => call('PUT', `/transport-resource/${id}`, truckAt(hb))),
          ]);
          expect([204, 409]).toContain(deleted!.status);
          for (const write of writes) expect([201, 400], JSON.stringify(write.body)).toContain(write.status);
          const referring = writes.filter((write) => write.status === 201).length;
          if (deleted!.status === 204) {
            // nothing that was acknowledged names it: every write that got through was refused, or none got through
            expect(referring).toBe(0);
            expect((await call('GET', `/home-base/${hb}`)).status).toBe(404);
          } else {
            expect((await call('GET', `/home-base/${hb}`)).status).toBe(200);
            if (referring === 0) {
              // a claim and the delete saw each other, and both gave way: nothing refers to it now
              expect((await call('DELETE', `/home-base/${hb}`)).status).toBe(204);
            } else {
              // it stays undeletable exactly as long as they refer to it
              const refusal = await settledRefusal(hb);
              expect(refusal.referrers_total).toBe(referring);
            }
          }
        }
      });
    });

    describe('a home-base change (spec rule 8)', () => {
      let homeBaseEvents: RecordedEvents<EventEnvelope>;
      let employeeEvents: RecordedEvents<EventEnvelope>;

      beforeAll(async () => {
        const record = (service: string, subject: string) => recordEvents<EventEnvelope>(serviceStream(service).name, subject, stack().natsUrl);
        homeBaseEvents = await record('home-bases', `rm.home-bases.${tenant}.home-base.>`);
        employeeEvents = await record('employees', `rm.employees.${tenant}.availability.>`);
      });

      afterAll(async () => {
        await homeBaseEvents?.close();
        await employeeEvents?.close();
      });

      it('is published with the new address, and reaches the copies of availabilities not yet started; past ones keep theirs', async () => {
        const hb = uniqueName('hb');
        await created('PUT', `/home-base/${hb}`, homeBase('Gent'));
        const employee = uniqueName('e');
        await created('PUT', `/employee/${employee}`, { name: { first_name: 'Ada', last_name: 'Peeters' }, ...adHoc });
        const past = await created('POST', `/employee/${employee}/availability`, availabilityAt(hb, '2020-03-02T06:00:00Z'));
        const future = await created('POST', `/employee/${employee}/availability`, availabilityAt(hb, '2099-03-02T06:00:00Z'));
        const moved = await call('PUT', `/home-base/${hb}`, homeBase('Antwerpen'));
        expect(moved.status).toBe(200);

        const ofHomeBase = () => homeBaseEvents.received.map(({ event }) => event).filter((event) => event.entity_id === hb);
        const ofEmployee = () =>
          employeeEvents.received.map(({ event }) => event).filter((event) => event.entity_id.startsWith(`${employee}/`));
        await waitFor('the events', async () => ofHomeBase().length >= 2 && ofEmployee().length >= 2);
        const update = ofHomeBase().find((event) => event.type === 'home-base.updated');
        expect(update).toMatchObject({ tenant, version: 2, data: { business_id: hb, address: address('Antwerpen'), version: 2 } });

        const snapshots = snapshotsFrom(ofEmployee(), ofHomeBase());
        expect(snapshots.get(`${employee}/${future.id}`)?.address).toEqual(address('Antwerpen'));
        expect(snapshots.get(`${employee}/${past.id}`)?.address).toEqual(address('Gent'));
      });
    });
  });
}
