import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from '@rm/testkit';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

// Every write of the employees service that names home bases, against a real home-bases service beside it:
// the home bases must exist in the caller's tenant, and while something names one it cannot be deleted.

type Body = Record<string, unknown>;
type Headers = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Violation {
  field: string;
  message: string;
}
interface InUse {
  status: number;
  detail: string;
  referrers: { entity: string; id: string; pending?: true }[];
  referrers_total: number;
}

const fresh = (prefix: string) => `${prefix}-${randomUUID()}`;
const homeBase = (id: string) => ({ business_id: id });
const doesNotExist = (field: string, id: string): Violation => ({ field, message: `home base '${id}' does not exist` });
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
const startAt = (id: string) => ({ start_location: { home_base: homeBase(id) } });
const endAt = (id: string) => ({ end_location: { home_base: homeBase(id) } });
const START = 'start_location.home_base.business_id';
const END = 'end_location.home_base.business_id';
/** An employee at a home base instead of an ad-hoc start location. */
const employeeAt = (id: string): Body => {
  const { start_location: _omitted, ...body } = employeeBody();
  return { ...body, home_base: homeBase(id) };
};

function expectProblem(response: LightMyRequestResponse, status: number): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** A 400 with exactly these violations, in any order. */
function expectRefused(response: LightMyRequestResponse, violations: Violation[]): void {
  expectProblem(response, 400);
  const byField = (a: Violation, b: Violation) => a.field.localeCompare(b.field);
  expect(json<{ violations: Violation[] }>(response).violations.toSorted(byField)).toEqual(violations.toSorted(byField));
}

/** The requests of one tenant to a harness, and what its home-bases service answers. */
function client(of: () => EmployeesHarness, headers: () => Headers, tenant: () => string) {
  const send = (method: Method, path: string, payload?: Body, extra: Headers = {}) =>
    of().app.inject({ method, url: `${BASE}${path}`, headers: { ...headers(), ...extra }, ...(payload === undefined ? {} : { payload }) });
  return {
    send,
    putEmployee: (id: string, body: Body, extra: Headers = {}) => send('PUT', `/employee/${id}`, body, extra),
    getEmployee: (id: string) => send('GET', `/employee/${id}`),
    postAvailability: (employee: string, body: Body) => send('POST', `/employee/${employee}/availability`, body),
    putAvailability: (employee: string, id: string, body: Body) => send('PUT', `/employee/${employee}/availability/${id}`, body),
    getAvailability: (employee: string, id: string) => send('GET', `/employee/${employee}/availability/${id}`),
    postSchedule: (employee: string, body: Body) => send('POST', `/employee/${employee}/shift-schedule`, body),
    putSchedule: (employee: string, id: string, body: Body) => send('PUT', `/employee/${employee}/shift-schedule/${id}`, body),
    getSchedule: (employee: string, id: string) => send('GET', `/employee/${employee}/shift-schedule/${id}`),
    /** Fresh home bases of the tenant (or of `inTenant`), by id. */
    homeBases: async (count: number, inTenant = tenant()) => {
      const ids = Array.from({ length: count }, () => fresh('hb'));
      await of().createHomeBases(inTenant, ...ids);
      return ids;
    },
    deleteHomeBase: (id: string) => of().homeBases.inject({ method: 'DELETE', url: `${BASE}/home-base/${id}`, headers: headers() }),
    getHomeBase: (id: string) => of().homeBases.inject({ method: 'GET', url: `${BASE}/home-base/${id}`, headers: headers() }),
  };
}

describe('with the home-bases service up', () => {
  let harness: EmployeesHarness;
  let headers: Headers;
  const tenant = uniqueName('hb-refs');
  const other = uniqueName('hb-other');
  const api = client(() => harness, () => headers, () => tenant);

  beforeAll(async () => {
    harness = await startEmployees();
    headers = await harness.as(tenant);
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** A new employee at an ad-hoc start location. */
  async function employee(): Promise<string> {
    const id = fresh('emp');
    expect((await api.putEmployee(id, employeeBody())).statusCode).toBe(201);
    return id;
  }

  async function createdAvailability(employeeId: string, body: Body): Promise<Body & { id: string }> {
    const response = await api.postAvailability(employeeId, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  async function createdSchedule(employeeId: string, body: Body): Promise<Body & { id: string }> {
    const response = await api.postSchedule(employeeId, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  describe('a write naming a home base that does not exist', () => {
    it('refuses an employee PUT with a 400 on home_base.business_id, and creates nothing', async () => {
      const [id, missing] = [fresh('emp'), fresh('hb')];
      const before = harness.writes();
      expectRefused(await api.putEmployee(id, employeeAt(missing)), [doesNotExist('home_base.business_id', missing)]);
      expect((await api.getEmployee(id)).statusCode).toBe(404);
      expect(harness.writes()).toBe(before);
    });

    it('refuses an employee PUT that moves an employee to it, and leaves the employee unchanged', async () => {
      const id = await employee();
      const read = json(await api.getEmployee(id));
      const missing = fresh('hb');
      const before = harness.writes();
      expectRefused(await api.putEmployee(id, employeeAt(missing)), [doesNotExist('home_base.business_id', missing)]);
      expect(json(await api.getEmployee(id))).toEqual(read);
      expect(harness.writes()).toBe(before);
    });

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
      const before = harness.writes();
      expectRefused(await api.postAvailability(employeeId, availability(fields(missing))), violations(missing));
      expect(json(await api.send('GET', `/employee/${employeeId}/availability`))).toEqual([]);
      expect(harness.writes()).toBe(before);
    });

    it('refuses an availability PUT naming unknown ones, and leaves the availability unchanged', async () => {
      const employeeId = await employee();
      const created = await createdAvailability(employeeId, availability());
      const [start, end] = [fresh('hb'), fresh('hb')];
      const before = harness.writes();
      const body = availability({ ...startAt(start), ...endAt(end) });
      expectRefused(await api.putAvailability(employeeId, created.id, body), [doesNotExist(START, start), doesNotExist(END, end)]);
      expect(json(await api.getAvailability(employeeId, created.id))).toEqual(created);
      expect(harness.writes()).toBe(before);
    });

    it('reports only the unknown ones of an availability that names a known and an unknown home base', async () => {
      const employeeId = await employee();
      const [known] = await api.homeBases(1);
      const missing = fresh('hb');
      const body = availability({ ...startAt(known!), ...endAt(missing) });
      expectRefused(await api.postAvailability(employeeId, body), [doesNotExist(END, missing)]);
    });

    it('refuses a shift schedule POST naming unknown ones, each by the path of its shift, and reports only those', async () => {
      const employeeId = await employee();
      const [known] = await api.homeBases(1);
      const [a, b, c] = [fresh('hb'), fresh('hb'), fresh('hb')];
      const body = {
        name: 'Two weeks',
        start: { start_date: '2030-01-07', start_week: 1 },
        templates: [
          { index: 1, shifts: [shift(6, { ...startAt(known!), ...endAt(a) })] },
          { index: 2, shifts: [shift(6), shift(12, { ...startAt(b), ...endAt(c) })] },
        ],
      };
      const before = harness.writes();
      expectRefused(await api.postSchedule(employeeId, body), [
        doesNotExist('templates[0].shifts[0].end_location.home_base.business_id', a),
        doesNotExist('templates[1].shifts[1].start_location.home_base.business_id', b),
        doesNotExist('templates[1].shifts[1].end_location.home_base.business_id', c),
      ]);
      expect(json(await api.send('GET', `/employee/${employeeId}/shift-schedule`))).toEqual([]);
      expect(harness.writes()).toBe(before);
    });

    it('refuses a shift schedule PUT naming an unknown one, and leaves the schedule unchanged', async () => {
      const employeeId = await employee();
      const created = await createdSchedule(employeeId, schedule(shift(6)));
      const read = json(await api.getSchedule(employeeId, created.id));
      const missing = fresh('hb');
      const before = harness.writes();
      const body = schedule(shift(6), shift(12, startAt(missing)));
      expectRefused(await api.putSchedule(employeeId, created.id, body), [
        doesNotExist('templates[0].shifts[1].start_location.home_base.business_id', missing),
      ]);
      expect(json(await api.getSchedule(employeeId, created.id))).toEqual(read);
      expect(harness.writes()).toBe(before);
    });

    it("counts a home base of another tenant as unknown, whichever write names it", async () => {
      const [theirs] = await api.homeBases(1, other);
      const id = fresh('emp');
      expectRefused(await api.putEmployee(id, employeeAt(theirs!)), [doesNotExist('home_base.business_id', theirs!)]);
      expect((await api.getEmployee(id)).statusCode).toBe(404);
      const employeeId = await employee();
      expectRefused(await api.postAvailability(employeeId, availability(startAt(theirs!))), [doesNotExist(START, theirs!)]);
      expectRefused(await api.postSchedule(employeeId, schedule(shift(6, startAt(theirs!)))), [
        doesNotExist(`templates[0].shifts[0].${START}`, theirs!),
      ]);
      // the other tenant may name it
      const bob = await harness.as(other);
      const theirEmployee = await api.putEmployee(id, employeeAt(theirs!), bob);
      expect(theirEmployee.statusCode, theirEmployee.body).toBe(201);
    });

    it('counts a deleted home base as unknown', async () => {
      const [gone] = await api.homeBases(1);
      expect((await api.deleteHomeBase(gone!)).statusCode).toBe(204);
      const id = fresh('emp');
      const before = harness.writes();
      expectRefused(await api.putEmployee(id, employeeAt(gone!)), [doesNotExist('home_base.business_id', gone!)]);
      expect((await api.getEmployee(id)).statusCode).toBe(404);
      const employeeId = await employee();
      const after = harness.writes();
      expectRefused(await api.postAvailability(employeeId, availability({ home_base_id: gone })), [doesNotExist('home_base_id', gone!)]);
      expect(harness.writes()).toBe(after);
      expect(after).toBe(before + 1);
    });
  });

  describe('a write naming home bases that exist', () => {
    it('creates and updates an employee at one, and shows it', async () => {
      const [first, second] = await api.homeBases(2);
      const id = fresh('emp');
      const created = await api.putEmployee(id, employeeAt(first!));
      expect(created.statusCode, created.body).toBe(201);
      expect(json(created)).toEqual({ business_id: id, ...employeeAt(first!), version: 1 });
      const updated = await api.putEmployee(id, employeeAt(second!));
      expect(updated.statusCode, updated.body).toBe(200);
      expect(json(await api.getEmployee(id))).toEqual({ business_id: id, ...employeeAt(second!), version: 2 });
    });

    it('creates and updates an availability naming them, and shows them', async () => {
      const employeeId = await employee();
      const [start, end, deprecated] = await api.homeBases(3);
      const body = availability({ ...startAt(start!), ...endAt(end!) });
      const created = await createdAvailability(employeeId, body);
      expect(created).toEqual({ id: created.id, employee_id: employeeId, ...body, version: 1 });
      const changed = availability({ home_base_id: deprecated, ...endAt(end!) });
      const updated = await api.putAvailability(employeeId, created.id, changed);
      expect(updated.statusCode, updated.body).toBe(200);
      const read = json(await api.getAvailability(employeeId, created.id));
      expect(read).toEqual({ id: created.id, employee_id: employeeId, ...changed, version: 2 });
    });

    it('creates and updates a shift schedule whose shifts name them, and shows them', async () => {
      const employeeId = await employee();
      const [start, end] = await api.homeBases(2);
      const body = schedule(shift(6, startAt(start!)), shift(12, endAt(end!)));
      const created = await createdSchedule(employeeId, body);
      expect(created).toEqual({ id: created.id, employee_id: employeeId, ...body });
      const changed = schedule(shift(6, { ...startAt(end!), ...endAt(start!) }));
      const updated = await api.putSchedule(employeeId, created.id, changed);
      expect(updated.statusCode, updated.body).toBe(201);
      const read = json(await api.getSchedule(employeeId, created.id));
      expect(read).toEqual({ id: created.id, employee_id: employeeId, ...changed, version: 2 });
    });
  });

  describe('a home base named by a resource', () => {
    /** The DELETE of a home base that something names: a problem+json 409 listing what does. */
    async function refusedDelete(id: string): Promise<InUse> {
      const response = await api.deleteHomeBase(id);
      expectProblem(response, 409);
      return json<InUse>(response);
    }

    /** Waits until the home base's reference index holds the referrer from its event (no longer a pending claim alone). */
    async function indexed(homeBaseId: string, referrer: { entity: string; id: string }): Promise<void> {
      await waitFor(`${referrer.entity} ${referrer.id} in the reference index of ${homeBaseId}`, async () => {
        const body = await refusedDelete(homeBaseId);
        return body.referrers_total === 1 && body.referrers.length === 1 && body.referrers[0]?.pending === undefined;
      });
      expect(await refusedDelete(homeBaseId)).toMatchObject({ status: 409, referrers: [referrer], referrers_total: 1 });
    }

    async function deletedOnceFree(id: string): Promise<void> {
      await waitFor(`the delete of home base ${id}`, async () => {
        const response = await api.deleteHomeBase(id);
        if (response.statusCode !== 204) expectProblem(response, 409);
        return response.statusCode === 204;
      });
      expect((await api.getHomeBase(id)).statusCode).toBe(404);
    }

    it('cannot be deleted while an employee is at it, and can once the employee moved away', async () => {
      const [home] = await api.homeBases(1);
      const id = fresh('emp');
      expect((await api.putEmployee(id, employeeAt(home!))).statusCode).toBe(201);
      // the claim blocks it at once, before the employee's event arrives
      const refused = await refusedDelete(home!);
      expect(refused.referrers).toContainEqual(expect.objectContaining({ entity: 'employee', id }));
      expect(refused.referrers_total).toBeGreaterThanOrEqual(1);
      expect(refused.detail).toContain(home);
      await indexed(home!, { entity: 'employee', id });
      expect((await api.getHomeBase(home!)).statusCode).toBe(200);

      expect((await api.putEmployee(id, employeeBody())).statusCode).toBe(200);
      await deletedOnceFree(home!);
    });

    it('cannot be deleted while an employee is at it, and can once the employee is deleted', async () => {
      const [home] = await api.homeBases(1);
      const id = fresh('emp');
      expect((await api.putEmployee(id, employeeAt(home!))).statusCode).toBe(201);
      await indexed(home!, { entity: 'employee', id });
      expect((await api.send('DELETE', `/employee/${id}`)).statusCode).toBe(204);
      await deletedOnceFree(home!);
    });

    it('cannot be deleted while an availability names it, listed as <employee>/<availability>, and can once it is deleted', async () => {
      const employeeId = await employee();
      const [home] = await api.homeBases(1);
      const created = await createdAvailability(employeeId, availability(endAt(home!)));
      const referrer = { entity: 'availability', id: `${employeeId}/${created.id}` };
      expect((await refusedDelete(home!)).referrers).toContainEqual(expect.objectContaining(referrer));
      await indexed(home!, referrer);

      expect((await api.send('DELETE', `/employee/${employeeId}/availability/${created.id}`)).statusCode).toBe(204);
      await deletedOnceFree(home!);
    });

    it('cannot be deleted while availabilities and schedules of an employee name it, and can once the employee is deleted', async () => {
      const employeeId = await employee();
      const [home] = await api.homeBases(1);
      const first = await createdAvailability(employeeId, availability(startAt(home!)));
      const second = await createdAvailability(employeeId, availability({ earliest_start: '2030-01-08T06:00:00Z', home_base_id: home }));
      const week = await createdSchedule(employeeId, schedule(shift(6, endAt(home!))));
      const referrers = [
        { entity: 'availability', id: `${employeeId}/${first.id}` },
        { entity: 'availability', id: `${employeeId}/${second.id}` },
        { entity: 'shift-schedule', id: `${employeeId}/${week.id}` },
      ];
      await waitFor('the three referrers in the reference index', async () => {
        const body = await refusedDelete(home!);
        return body.referrers_total === 3 && body.referrers.every((referrer) => referrer.pending === undefined);
      });
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      expect((await refusedDelete(home!)).referrers.toSorted(byId)).toEqual(referrers.toSorted(byId));

      // the delete of the employee takes its availabilities and schedules with it
      expect((await api.send('DELETE', `/employee/${employeeId}`)).statusCode).toBe(204);
      await deletedOnceFree(home!);
    });

    it('cannot be deleted while an availability names it by the deprecated home_base_id, and can once it names another', async () => {
      const employeeId = await employee();
      const [home, next] = await api.homeBases(2);
      const created = await createdAvailability(employeeId, availability({ home_base_id: home }));
      await indexed(home!, { entity: 'availability', id: `${employeeId}/${created.id}` });

      expect((await api.putAvailability(employeeId, created.id, availability({ home_base_id: next }))).statusCode).toBe(200);
      await deletedOnceFree(home!);
      await indexed(next!, { entity: 'availability', id: `${employeeId}/${created.id}` });
    });

    it('cannot be deleted while a shift schedule names it, and can once the schedule no longer does', async () => {
      const employeeId = await employee();
      const [home] = await api.homeBases(1);
      const created = await createdSchedule(employeeId, schedule(shift(6), shift(12, startAt(home!))));
      const referrer = { entity: 'shift-schedule', id: `${employeeId}/${created.id}` };
      expect((await refusedDelete(home!)).referrers).toContainEqual(expect.objectContaining(referrer));
      await indexed(home!, referrer);

      expect((await api.putSchedule(employeeId, created.id, schedule(shift(6), shift(12)))).statusCode).toBe(201);
      await deletedOnceFree(home!);
    });

    it('can be deleted at once after a write naming it was refused for another reason: its claim is dropped', async () => {
      const employeeId = await employee();
      const [home] = await api.homeBases(1);
      const named = startAt(home!);
      const before = harness.writes();
      // no such availability; a stale If-Match on a new employee
      expect((await api.putAvailability(employeeId, '01a1ff6c-92f8-7452-8073-c80b58fec118', availability(named))).statusCode).toBe(404);
      expect((await api.putEmployee(fresh('emp'), employeeAt(home!), { 'if-match': 'W/"9"' })).statusCode).toBe(412);
      expect(harness.writes()).toBe(before);
      expect((await api.deleteHomeBase(home!)).statusCode).toBe(204);
    });
  });
});

describe('with a home-bases service that does not answer', () => {
  let silent: Server;
  let harness: EmployeesHarness;
  let headers: Headers;
  const tenant = uniqueName('hb-silent');
  const api = client(() => harness, () => headers, () => tenant);

  beforeAll(async () => {
    // accepts connections and never answers
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    harness = await startEmployees({ HOME_BASES_URL: `http://127.0.0.1:${port}${BASE}`, HOME_BASES_TIMEOUT_MS: '500' });
    headers = await harness.as(tenant);
  });

  afterAll(async () => {
    await harness?.close();
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
  });

  it('refuses a write naming a home base with a problem+json 503 once HOME_BASES_TIMEOUT_MS has passed, and writes nothing', async () => {
    const id = fresh('emp');
    const before = harness.writes();
    const started = Date.now();
    expectProblem(await api.putEmployee(id, employeeAt(fresh('hb'))), 503);
    // the timeout, not a refused connection; and not the default 5 s
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await api.getEmployee(id)).statusCode).toBe(404);
    expect(harness.writes()).toBe(before);
  });
});

describe('with the home-bases service down', () => {
  let harness: EmployeesHarness;
  let headers: Headers;
  let known: string;
  const tenant = uniqueName('hb-down');
  const api = client(() => harness, () => headers, () => tenant);

  beforeAll(async () => {
    harness = await startEmployees();
    headers = await harness.as(tenant);
    [known] = (await api.homeBases(1)) as [string];
    // it stops listening: the employees service cannot reach it any more
    await harness.homeBases.close();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('still takes writes that name no home base', async () => {
    const id = fresh('emp');
    expect((await api.putEmployee(id, employeeBody())).statusCode).toBe(201);
    expect((await api.postAvailability(id, availability())).statusCode).toBe(201);
    expect((await api.postSchedule(id, schedule(shift(6)))).statusCode).toBe(201);
  });

  it('refuses every write naming a home base with a problem+json 503, and writes nothing', async () => {
    const id = fresh('emp');
    const before = harness.writes();
    expectProblem(await api.putEmployee(id, employeeAt(known)), 503);
    expect((await api.getEmployee(id)).statusCode).toBe(404);
    expect(harness.writes()).toBe(before);

    expect((await api.putEmployee(id, employeeBody())).statusCode).toBe(201);
    const written = harness.writes();
    const named = startAt(known);
    expectProblem(await api.putEmployee(id, employeeAt(known)), 503);
    expectProblem(await api.postAvailability(id, availability(named)), 503);
    expectProblem(await api.postSchedule(id, schedule(shift(6, named))), 503);
    expect(harness.writes()).toBe(written);
    expect(json(await api.getEmployee(id))).toEqual({ business_id: id, ...employeeBody(), version: 1 });
    expect(json(await api.send('GET', `/employee/${id}/availability`))).toEqual([]);
    expect(json(await api.send('GET', `/employee/${id}/shift-schedule`))).toEqual([]);
  });

  it('refuses the updates of availabilities and shift schedules naming a home base with a 503, and leaves them unchanged', async () => {
    const id = fresh('emp');
    expect((await api.putEmployee(id, employeeBody())).statusCode).toBe(201);
    const availabilityRead = json<Body & { id: string }>(await api.postAvailability(id, availability()));
    const scheduleId = json<{ id: string }>(await api.postSchedule(id, schedule(shift(6)))).id;
    const scheduleRead = json(await api.getSchedule(id, scheduleId));
    const named = startAt(known);
    const before = harness.writes();
    expectProblem(await api.putAvailability(id, availabilityRead.id, availability(named)), 503);
    expectProblem(await api.putSchedule(id, scheduleId, schedule(shift(6, named))), 503);
    expect(harness.writes()).toBe(before);
    expect(json(await api.getAvailability(id, availabilityRead.id))).toEqual(availabilityRead);
    expect(json(await api.getSchedule(id, scheduleId))).toEqual(scheduleRead);
  });
});
