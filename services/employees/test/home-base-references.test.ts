import { describe, expect, it } from 'vitest';
import { uniqueName } from '@rm/testkit';
import {
  describeHomeBaseReferences,
  doesNotExist,
  expectRefused,
  fresh,
  useHomeBasesDown,
  useHomeBasesHarness,
  type HomeBasesApi,
} from '@rm/testkit/suites/home-base-references';
import { expectProblemWithStatus, json, type Body, type Violation } from '@rm/testkit/suites/service-under-test';
import { employeeBody, startEmployees } from './helpers.js';

describeHomeBaseReferences({ start: startEmployees, resource: { name: 'employee', body: employeeBody } });

// The employee's own writes that name home bases: its availabilities and shift schedules.

/** An availability of 8 hours on 2030-01-07, with extra fields. */
const availability = (extra: Body = {}): Body => ({ earliest_start: '2030-01-07T06:00:00Z', max_duration: 'PT8H', ...extra });
/** A Monday shift from `hour` for 4 hours, with extra fields (start_location, end_location). */
const shift = (hour: number, extra: Body = {}): Body => ({
  start: { earliest: { day: 'MONDAY', time: `${String(hour).padStart(2, '0')}:00` } },
  duration: { at_most: 'PT4H' },
  ...extra,
});
const schedule = (...shifts: Body[]): Body => ({
  name: 'Week',
  start: { start_date: '2030-01-07', start_week: 1 },
  templates: [{ index: 1, shifts }],
});
/** The start or end location of an availability or a shift at a home base. */
const startAt = (id: string) => ({ start_location: { home_base: { business_id: id } } });
const endAt = (id: string) => ({ end_location: { home_base: { business_id: id } } });
const START = 'start_location.home_base.business_id';
const END = 'end_location.home_base.business_id';

/** The requests of one tenant to an employee's availabilities and shift schedules. */
function employeeRequests(api: HomeBasesApi) {
  return {
    /** A new employee at an ad-hoc start location. */
    async employee(): Promise<string> {
      const id = fresh('emp');
      expect((await api.send('PUT', `/employee/${id}`, employeeBody())).statusCode).toBe(201);
      return id;
    },
    postAvailability: (employee: string, body: Body) => api.send('POST', `/employee/${employee}/availability`, body),
    putAvailability: (employee: string, id: string, body: Body) => api.send('PUT', `/employee/${employee}/availability/${id}`, body),
    getAvailability: (employee: string, id: string) => api.send('GET', `/employee/${employee}/availability/${id}`),
    listAvailabilities: async (employee: string) => json<Body[]>(await api.send('GET', `/employee/${employee}/availability`)),
    postSchedule: (employee: string, body: Body) => api.send('POST', `/employee/${employee}/shift-schedule`, body),
    putSchedule: (employee: string, id: string, body: Body) => api.send('PUT', `/employee/${employee}/shift-schedule/${id}`, body),
    getSchedule: (employee: string, id: string) => api.send('GET', `/employee/${employee}/shift-schedule/${id}`),
    listSchedules: async (employee: string) => json<Body[]>(await api.send('GET', `/employee/${employee}/shift-schedule`)),
  };
}

describe('availabilities and shift schedules naming home bases, with the home-bases service up', () => {
  const api = useHomeBasesHarness(startEmployees, uniqueName('hb-refs'));
  const other = uniqueName('hb-other');
  const { employee, ...requests } = employeeRequests(api);

  async function createdAvailability(employeeId: string, body: Body): Promise<Body & { id: string }> {
    const response = await requests.postAvailability(employeeId, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  async function createdSchedule(employeeId: string, body: Body): Promise<Body & { id: string }> {
    const response = await requests.postSchedule(employeeId, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  describe('naming a home base that does not exist', () => {
    it.each<[string, (missing: string[]) => Body, (missing: string[]) => Violation[]]>([
      ['a start home base', ([a]) => startAt(a!), ([a]) => [doesNotExist(START, a!)]],
      ['an end home base', ([a]) => endAt(a!), ([a]) => [doesNotExist(END, a!)]],
      ['the deprecated home_base_id', ([a]) => ({ home_base_id: a }), ([a]) => [doesNotExist('home_base_id', a!)]],
      [
        'a start and an end home base',
        ([a, b]) => ({ ...startAt(a!), ...endAt(b!) }),
        ([a, b]) => [doesNotExist(START, a!), doesNotExist(END, b!)],
      ],
      [
        'the deprecated home_base_id and an end home base',
        ([a, b]) => ({ home_base_id: a, ...endAt(b!) }),
        ([a, b]) => [doesNotExist('home_base_id', a!), doesNotExist(END, b!)],
      ],
    ])('refuses an availability POST naming %s, every unknown one named, and creates nothing', async (_case, fields, violations) => {
      const employeeId = await employee();
      const missing = [fresh('hb'), fresh('hb')];
      const before = api.harness().writes();
      expectRefused(await requests.postAvailability(employeeId, availability(fields(missing))), violations(missing));
      expect(await requests.listAvailabilities(employeeId)).toEqual([]);
      expect(api.harness().writes()).toBe(before);
    });

    it('refuses an availability PUT naming unknown ones, and leaves the availability unchanged', async () => {
      const employeeId = await employee();
      const created = await createdAvailability(employeeId, availability());
      const [start, end] = [fresh('hb'), fresh('hb')];
      const before = api.harness().writes();
      const body = availability({ ...startAt(start), ...endAt(end) });
      expectRefused(await requests.putAvailability(employeeId, created.id, body), [doesNotExist(START, start), doesNotExist(END, end)]);
      expect(json(await requests.getAvailability(employeeId, created.id))).toEqual(created);
      expect(api.harness().writes()).toBe(before);
    });

    it('reports only the unknown ones of an availability that names a known and an unknown home base', async () => {
      const employeeId = await employee();
      const [known] = (await api.homeBases(1)) as [string];
      const missing = fresh('hb');
      const body = availability({ ...startAt(known), ...endAt(missing) });
      expectRefused(await requests.postAvailability(employeeId, body), [doesNotExist(END, missing)]);
    });

    it('refuses a shift schedule POST naming unknown ones, each by the path of its shift, and reports only those', async () => {
      const employeeId = await employee();
      const [known] = (await api.homeBases(1)) as [string];
      const [a, b, c] = [fresh('hb'), fresh('hb'), fresh('hb')];
      const body = {
        name: 'Two weeks',
        start: { start_date: '2030-01-07', start_week: 1 },
        templates: [
          { index: 1, shifts: [shift(6, { ...startAt(known), ...endAt(a) })] },
          { index: 2, shifts: [shift(6), shift(12, { ...startAt(b), ...endAt(c) })] },
        ],
      };
      const before = api.harness().writes();
      expectRefused(await requests.postSchedule(employeeId, body), [
        doesNotExist('templates[0].shifts[0].end_location.home_base.business_id', a),
        doesNotExist('templates[1].shifts[1].start_location.home_base.business_id', b),
        doesNotExist('templates[1].shifts[1].end_location.home_base.business_id', c),
      ]);
      expect(await requests.listSchedules(employeeId)).toEqual([]);
      expect(api.harness().writes()).toBe(before);
    });

    it('refuses a shift schedule PUT naming an unknown one, and leaves the schedule unchanged', async () => {
      const employeeId = await employee();
      const created = await createdSchedule(employeeId, schedule(shift(6)));
      const read = json(await requests.getSchedule(employeeId, created.id));
      const missing = fresh('hb');
      const before = api.harness().writes();
      const body = schedule(shift(6), shift(12, startAt(missing)));
      expectRefused(await requests.putSchedule(employeeId, created.id, body), [
        doesNotExist('templates[0].shifts[1].start_location.home_base.business_id', missing),
      ]);
      expect(json(await requests.getSchedule(employeeId, created.id))).toEqual(read);
      expect(api.harness().writes()).toBe(before);
    });

    it('counts a home base of another tenant as unknown', async () => {
      const [theirs] = (await api.homeBases(1, other)) as [string];
      const employeeId = await employee();
      expectRefused(await requests.postAvailability(employeeId, availability(startAt(theirs))), [doesNotExist(START, theirs)]);
      expectRefused(await requests.postSchedule(employeeId, schedule(shift(6, startAt(theirs)))), [
        doesNotExist(`templates[0].shifts[0].${START}`, theirs),
      ]);
    });

    it('counts a deleted home base as unknown', async () => {
      const employeeId = await employee();
      const [gone] = (await api.homeBases(1)) as [string];
      expect((await api.deleteHomeBase(gone)).statusCode).toBe(204);
      const before = api.harness().writes();
      expectRefused(await requests.postAvailability(employeeId, availability({ home_base_id: gone })), [doesNotExist('home_base_id', gone)]);
      expect(api.harness().writes()).toBe(before);
    });
  });

  describe('naming home bases that exist', () => {
    it('creates and updates an availability naming them, and shows them', async () => {
      const employeeId = await employee();
      const [start, end, deprecated] = (await api.homeBases(3)) as [string, string, string];
      const body = availability({ ...startAt(start), ...endAt(end) });
      const created = await createdAvailability(employeeId, body);
      expect(created).toEqual({ id: created.id, employee_id: employeeId, ...body, version: 1 });
      const changed = availability({ home_base_id: deprecated, ...endAt(end) });
      const updated = await requests.putAvailability(employeeId, created.id, changed);
      expect(updated.statusCode, updated.body).toBe(200);
      const read = json(await requests.getAvailability(employeeId, created.id));
      expect(read).toEqual({ id: created.id, employee_id: employeeId, ...changed, version: 2 });
    });

    it('creates and updates a shift schedule whose shifts name them, and shows them', async () => {
      const employeeId = await employee();
      const [start, end] = (await api.homeBases(2)) as [string, string];
      const body = schedule(shift(6, startAt(start)), shift(12, endAt(end)));
      const created = await createdSchedule(employeeId, body);
      expect(created).toEqual({ id: created.id, employee_id: employeeId, ...body });
      const changed = schedule(shift(6, { ...startAt(end), ...endAt(start) }));
      const updated = await requests.putSchedule(employeeId, created.id, changed);
      expect(updated.statusCode, updated.body).toBe(201);
      const read = json(await requests.getSchedule(employeeId, created.id));
      expect(read).toEqual({ id: created.id, employee_id: employeeId, ...changed, version: 2 });
    });
  });

  describe('the home base they name', () => {
    it('cannot be deleted while an availability names it, listed as <employee>/<availability>, and can once it is deleted', async () => {
      const employeeId = await employee();
      const [home] = (await api.homeBases(1)) as [string];
      const created = await createdAvailability(employeeId, availability(endAt(home)));
      const referrer = { entity: 'availability', id: `${employeeId}/${created.id}` };
      expect((await api.refusedDelete(home)).referrers).toContainEqual(expect.objectContaining(referrer));
      await api.indexed(home, referrer);

      expect((await api.send('DELETE', `/employee/${employeeId}/availability/${created.id}`)).statusCode).toBe(204);
      await api.deletedOnceFree(home);
    });

    it('cannot be deleted while availabilities and schedules of an employee name it, and can once the employee is deleted', async () => {
      const employeeId = await employee();
      const [home] = (await api.homeBases(1)) as [string];
      const first = await createdAvailability(employeeId, availability(startAt(home)));
      const second = await createdAvailability(employeeId, availability({ earliest_start: '2030-01-08T06:00:00Z', home_base_id: home }));
      const week = await createdSchedule(employeeId, schedule(shift(6, endAt(home))));
      const referrers = [
        { entity: 'availability', id: `${employeeId}/${first.id}` },
        { entity: 'availability', id: `${employeeId}/${second.id}` },
        { entity: 'shift-schedule', id: `${employeeId}/${week.id}` },
      ];
      await api.indexed(home, ...referrers);

      // the delete of the employee takes its availabilities and schedules with it
      expect((await api.send('DELETE', `/employee/${employeeId}`)).statusCode).toBe(204);
      await api.deletedOnceFree(home);
    });

    it('cannot be deleted while availabilities generated from a schedule name it, each a referrer of its own', async () => {
      const employeeId = await employee();
      const [home] = (await api.homeBases(1)) as [string];
      const week = await createdSchedule(employeeId, schedule(shift(6, startAt(home)), shift(12, endAt(home))));
      const range = { from: '2030-01-07T00:00:00Z', until: '2030-01-21T00:00:00Z' };
      const answer = await api.send('POST', `/employee/${employeeId}/availability-generation`, range);
      expect(answer.statusCode, answer.body).toBe(200);
      const { created } = json<{ created: { availability_id: string }[] }>(answer);
      expect(created).toHaveLength(4);
      const generated = created.map(({ availability_id }) => ({ entity: 'availability', id: `${employeeId}/${availability_id}` }));
      await api.indexed(home, { entity: 'shift-schedule', id: `${employeeId}/${week.id}` }, ...generated);
    });

    it('cannot be deleted while an availability names it by the deprecated home_base_id, and can once it names another', async () => {
      const employeeId = await employee();
      const [home, next] = (await api.homeBases(2)) as [string, string];
      const created = await createdAvailability(employeeId, availability({ home_base_id: home }));
      await api.indexed(home, { entity: 'availability', id: `${employeeId}/${created.id}` });

      expect((await requests.putAvailability(employeeId, created.id, availability({ home_base_id: next }))).statusCode).toBe(200);
      await api.deletedOnceFree(home);
      await api.indexed(next, { entity: 'availability', id: `${employeeId}/${created.id}` });
    });

    it('cannot be deleted while a shift schedule names it, and can once the schedule no longer does', async () => {
      const employeeId = await employee();
      const [home] = (await api.homeBases(1)) as [string];
      const created = await createdSchedule(employeeId, schedule(shift(6), shift(12, startAt(home))));
      const referrer = { entity: 'shift-schedule', id: `${employeeId}/${created.id}` };
      expect((await api.refusedDelete(home)).referrers).toContainEqual(expect.objectContaining(referrer));
      await api.indexed(home, referrer);

      expect((await requests.putSchedule(employeeId, created.id, schedule(shift(6), shift(12)))).statusCode).toBe(201);
      await api.deletedOnceFree(home);
    });

    it('can be deleted at once after an availability PUT naming it was refused for another reason: its claim is dropped', async () => {
      const employeeId = await employee();
      const [home] = (await api.homeBases(1)) as [string];
      const before = api.harness().writes();
      // no such availability
      expect((await requests.putAvailability(employeeId, '01a1ff6c-92f8-7452-8073-c80b58fec118', availability(startAt(home)))).statusCode).toBe(404);
      expect(api.harness().writes()).toBe(before);
      expect((await api.deleteHomeBase(home)).statusCode).toBe(204);
    });
  });
});

describe('availabilities and shift schedules naming home bases, with the home-bases service down', () => {
  const api = useHomeBasesDown(startEmployees, uniqueName('hb-down'));
  const { employee, ...requests } = employeeRequests(api);

  it('still takes those that name no home base', async () => {
    const id = await employee();
    expect((await requests.postAvailability(id, availability())).statusCode).toBe(201);
    expect((await requests.postSchedule(id, schedule(shift(6)))).statusCode).toBe(201);
  });

  it('refuses the creates naming a home base with a problem+json 503, and writes nothing', async () => {
    const id = await employee();
    const named = startAt(api.known());
    const before = api.harness().writes();
    expectProblemWithStatus(await requests.postAvailability(id, availability(named)), 503);
    expectProblemWithStatus(await requests.postSchedule(id, schedule(shift(6, named))), 503);
    expect(api.harness().writes()).toBe(before);
    expect(await requests.listAvailabilities(id)).toEqual([]);
    expect(await requests.listSchedules(id)).toEqual([]);
  });

  it('refuses the updates naming a home base with a 503, and leaves them unchanged', async () => {
    const id = await employee();
    const availabilityRead = json<Body & { id: string }>(await requests.postAvailability(id, availability()));
    const scheduleId = json<{ id: string }>(await requests.postSchedule(id, schedule(shift(6)))).id;
    const scheduleRead = json(await requests.getSchedule(id, scheduleId));
    const named = startAt(api.known());
    const before = api.harness().writes();
    expectProblemWithStatus(await requests.putAvailability(id, availabilityRead.id, availability(named)), 503);
    expectProblemWithStatus(await requests.putSchedule(id, scheduleId, schedule(shift(6, named))), 503);
    expect(api.harness().writes()).toBe(before);
    expect(json(await requests.getAvailability(id, availabilityRead.id))).toEqual(availabilityRead);
    expect(json(await requests.getSchedule(id, scheduleId))).toEqual(scheduleRead);
  });
});
