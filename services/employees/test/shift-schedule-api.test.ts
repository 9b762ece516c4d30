import { beforeAll, describe, expect, it } from 'vitest';
import { useWorld } from '@rm/testkit/service-helpers';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, employeeBody, json, startEmployees } from './helpers.js';

const { world: harness } = useWorld(startEmployees);
let alice: Record<string, string>;

const EMPLOYEE = 'emp-schedules';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '0190a3c4-1234-7abc-8def-0123456789ab';

beforeAll(async () => {
  alice = await harness.as('tenant-a');
  await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${EMPLOYEE}`, headers: alice, payload: employeeBody() });
});

type Headers = Record<string, string>;
const schedulesUrl = (employee = EMPLOYEE) => `${BASE}/employee/${employee}/shift-schedule`;
const scheduleUrl = (id: string, employee = EMPLOYEE) => `${schedulesUrl(employee)}/${id}`;
const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Headers = {}) =>
  harness.app.inject({ method, url, headers: { ...alice, ...headers }, ...(body === undefined ? {} : { payload: body as object }) });
const post = (body: unknown, headers: Headers = {}, employee = EMPLOYEE) => send('POST', schedulesUrl(employee), body, headers);
const put = (id: string, body: unknown, headers: Headers = {}, employee = EMPLOYEE) => send('PUT', scheduleUrl(id, employee), body, headers);
const get = (id: string, headers: Headers = {}, employee = EMPLOYEE) => send('GET', scheduleUrl(id, employee), undefined, headers);
const remove = (id: string, headers: Headers = {}, employee = EMPLOYEE) => send('DELETE', scheduleUrl(id, employee), undefined, headers);

/** `'MONDAY 08:00'` as a week moment. */
const moment = (text: string) => {
  const [day, time] = text.split(' ');
  return { day, time };
};

interface ShiftOptions {
  window?: string;
  at_least?: string;
  latest?: string;
  [field: string]: unknown;
}

/** A shift starting at `earliest` (like `'MONDAY 08:00'`) for at most `at_most`; other options are shift fields. */
function shift(earliest: string, at_most = 'PT8H', { window, at_least, latest, ...fields }: ShiftOptions = {}): Record<string, unknown> {
  return {
    start: { earliest: moment(earliest), ...(window === undefined ? {} : { window }) },
    ...(latest === undefined ? {} : { stop: { latest: moment(latest) } }),
    duration: { at_most, ...(at_least === undefined ? {} : { at_least }) },
    ...fields,
  };
}

/** A schedule of one template per list of shifts, indexed 1, 2, 3, … */
const schedule = (...weeks: unknown[][]): Record<string, unknown> => ({
  name: 'Early',
  start: { start_date: '2024-05-06', start_week: 1 },
  templates: weeks.map((shifts, position) => ({ index: position + 1, shifts })),
});
const withTemplates = (templates: unknown[], start_week = 1) => ({ start: { start_date: '2024-05-06', start_week }, templates });
const day = shift('MONDAY 08:00');
const tuesday = shift('TUESDAY 08:00');

/** Creates a schedule of the employee and answers its id. */
async function created(body: unknown = schedule([day, tuesday])): Promise<string> {
  const response = await post(body);
  expect(response.statusCode).toBe(201);
  return json<{ id: string }>(response).id;
}

describe('POST /employee/{employee_id}/shift-schedule', () => {
  it('creates the schedule: 201 with a UUIDv7 id and the employee, no version, ETag, Location and Preference-Applied', async () => {
    const response = await post(schedule([day, tuesday]));
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(body).toEqual({ id: expect.stringMatching(UUID_V7), employee_id: EMPLOYEE, ...schedule([day, tuesday]) });
    expect(body).not.toHaveProperty('version');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/employee/${EMPLOYEE}/shift-schedule/${String(body.id)}$`));
    expect(response.headers['preference-applied']).toBe('return=representation');
  });

  it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
    const response = await post(schedule([day]), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect(response.headers.location).toMatch(new RegExp(`/employee/${EMPLOYEE}/shift-schedule/[0-9a-f-]{36}$`));
  });

  it('creates once per Idempotency-Key: a retry answers with the same schedule, replayed; another body is a 422', async () => {
    const employee = 'emp-schedules-keyed';
    await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${employee}`, headers: alice, payload: employeeBody() });
    const keyed = { 'idempotency-key': 'schedule-retry' };
    const first = await post(schedule([day]), keyed, employee);
    const again = await post(schedule([day]), keyed, employee);
    expect(first.statusCode).toBe(201);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.headers.location]).toEqual([201, 'true', first.headers.location]);
    expect((await post({ ...schedule([day]), name: 'Late' }, keyed, employee)).statusCode).toBe(422);
    expect(json<unknown[]>(await send('GET', schedulesUrl(employee)))).toHaveLength(1);
  });
});

describe('GET /employee/{employee_id}/shift-schedule', () => {
  it('lists the schedules of the employee with their versions', async () => {
    const listed = 'emp-listed';
    await send('PUT', `${BASE}/employee/${listed}`, employeeBody());
    const first = json<{ id: string }>(await post(schedule([day]), {}, listed)).id;
    const second = json<{ id: string }>(await post(schedule([tuesday]), {}, listed)).id;
    const response = await send('GET', schedulesUrl(listed));
    expect(response.statusCode).toBe(200);
    const schedules = json<{ id: string }[]>(response);
    expect(schedules).toHaveLength(2);
    expect(schedules).toEqual(
      expect.arrayContaining([
        { id: first, employee_id: listed, ...schedule([day]), version: 1 },
        { id: second, employee_id: listed, ...schedule([tuesday]), version: 1 },
      ]),
    );
  });

  it('reads one schedule where Location points, with its ETag and version', async () => {
    const response = await post(schedule([day]));
    const location = new URL(response.headers.location as string);
    const read = await send('GET', location.pathname);
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"1"');
    expect(json(read)).toEqual({ ...json(response), version: 1 });
  });
});

describe('PUT /employee/{employee_id}/shift-schedule/{id}', () => {
  it('updates the schedule: 201 with it and no version, and the version grows', async () => {
    const id = await created();
    const response = await put(id, schedule([tuesday]));
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ id, employee_id: EMPLOYEE, ...schedule([tuesday]) });
    expect(response.headers.etag).toBe('W/"2"');
    expect(response.headers.location).toMatch(new RegExp(`/employee/${EMPLOYEE}/shift-schedule/${id}$`));
    expect(json(await get(id))).toMatchObject({ templates: [{ index: 1, shifts: [tuesday] }], version: 2 });
  });

  it('answers 204 without a body for Prefer: return=minimal', async () => {
    const id = await created();
    const response = await put(id, schedule([tuesday]), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"2"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
  });

  it('writes with the current If-Match and answers 412 to a stale one, changing nothing', async () => {
    const id = await created();
    expect((await put(id, schedule([tuesday]), { 'if-match': 'W/"1"' })).statusCode).toBe(201);
    expectProblemWithStatus(await put(id, schedule([day]), { 'if-match': 'W/"1"' }), 412, { detail: expect.stringContaining(id) });
    expect(json(await get(id))).toMatchObject({ templates: [{ shifts: [tuesday] }], version: 2 });
  });

  it('ignores the read-only id, employee_id and version sent back from a GET', async () => {
    const id = await created();
    const read = json(await get(id));
    const response = await put(id, { ...read, id: UNKNOWN_ID, employee_id: 'someone-else', version: 99, name: 'Late' });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ ...schedule([day, tuesday]), id, employee_id: EMPLOYEE, name: 'Late' });
    expect(json(await get(id))).toMatchObject({ id, employee_id: EMPLOYEE, name: 'Late', version: 2 });
    expect((await get(UNKNOWN_ID)).statusCode).toBe(404);
  });

  it('answers 404 for a schedule that does not exist, and creates nothing', async () => {
    expectProblemWithStatus(await put(UNKNOWN_ID, schedule([day])), 404, { detail: expect.stringContaining(UNKNOWN_ID) });
    expect((await get(UNKNOWN_ID)).statusCode).toBe(404);
  });
});

describe('DELETE /employee/{employee_id}/shift-schedule/{id}', () => {
  it('deletes with an empty 204, after which the schedule is gone and a second delete is 404', async () => {
    const id = await created();
    const response = await remove(id);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get(id)).statusCode).toBe(404);
    expect((await remove(id)).statusCode).toBe(404);
    expect((await put(id, schedule([day]))).statusCode).toBe(404);
  });

  it('answers 412 to a stale If-Match and deletes with the current one', async () => {
    const id = await created();
    expect((await remove(id, { 'if-match': 'W/"2"' })).statusCode).toBe(412);
    expect((await get(id)).statusCode).toBe(200);
    expect((await remove(id, { 'if-match': 'W/"1"' })).statusCode).toBe(204);
  });
});

describe('paths', () => {
  it('answers 404 naming the employee on every route under an unknown employee', async () => {
    const id = await created();
    for (const response of [
      await post(schedule([day]), {}, 'nobody'),
      await send('GET', schedulesUrl('nobody')),
      await get(id, {}, 'nobody'),
      await put(id, schedule([day]), {}, 'nobody'),
      await remove(id, {}, 'nobody'),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(json(response)).toMatchObject({ detail: expect.stringContaining('nobody') });
    }
  });

  it('refuses a schedule id that is not a uuid with a violation on the path parameter', async () => {
    for (const response of [await get('not-a-uuid'), await put('not-a-uuid', schedule([day])), await remove('not-a-uuid')]) {
      expect(response.statusCode).toBe(400);
      expect(json<{ violations: { field: string }[] }>(response).violations.map((violation) => violation.field)).toEqual(['generated_id']);
    }
  });
});

describe('rules', () => {
  const [first, second] = ['templates[0].shifts[0]', 'templates[0].shifts[1]'];
  const depot = { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' };
  const home_base = { business_id: 'hb-1' };
  const paid = (earliest: string) => shift(earliest, 'PT8H', { contractual_work_time: 'PT7H' });
  const paidWeek = (index: number, ...shifts: unknown[]) => ({ index, shifts, acceptable_additional_work_time: 'PT1H' });

  // a valid shift may name a home base only when it exists
  beforeAll(() => harness.createHomeBases('tenant-a', home_base.business_id));

  it.each<[string, unknown, string[]]>([
    ['indices 1 and 2', schedule([day], [tuesday]), []],
    ['indices that skip one', withTemplates([{ index: 1, shifts: [] }, { index: 3, shifts: [] }]), ['templates[1].index']],
    ['indices starting at 2', withTemplates([{ index: 2, shifts: [day] }]), ['templates[0].index']],
    ['index 0', withTemplates([{ index: 0, shifts: [day] }]), ['templates[0].index']],
    ['a start week within the templates', withTemplates([{ index: 1, shifts: [day] }, { index: 2, shifts: [] }], 2), []],
    ['a start week beyond the templates', withTemplates([{ index: 1, shifts: [day] }, { index: 2, shifts: [] }], 3), ['start.start_week']],
    ['a start week of 0', withTemplates([{ index: 1, shifts: [day] }], 0), ['start.start_week']],
    ['times 00:00 and 23:59', schedule([shift('MONDAY 00:00', 'PT1H'), shift('TUESDAY 23:59', 'PT1H')]), []],
    ['time 24:00', schedule([shift('MONDAY 24:00')]), [`${first}.start.earliest.time`]],
    ['time 7:5', schedule([shift('MONDAY 7:5')]), [`${first}.start.earliest.time`]],
    ['day SUNDAY', schedule([shift('SUNDAY 08:00')]), []],
    ['day monday', schedule([shift('monday 08:00')]), [`${first}.start.earliest.day`]],
    ['a positive window', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H' })]), []],
    ['a window of zero', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT0S' })]), [`${first}.start.window`]],
    ['at_least equal to the window', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT1H' })]), []],
    ['at_least of zero', schedule([shift('MONDAY 08:00', 'PT8H', { at_least: 'PT0S' })]), [`${first}.duration.at_least`]],
    ['at_least below the window', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT30M' })]), [`${first}.duration.at_least`]],
    ['at_most equal to the window and at_least', schedule([shift('MONDAY 08:00', 'PT2H', { window: 'PT2H', at_least: 'PT2H' })]), []],
    ['at_most of zero', schedule([shift('MONDAY 08:00', 'PT0S')]), [`${first}.duration.at_most`]],
    ['at_most below the window', schedule([shift('MONDAY 08:00', 'PT30M', { window: 'PT1H' })]), [`${first}.duration.at_most`]],
    ['at_most below at_least', schedule([shift('MONDAY 08:00', 'PT4H', { at_least: 'PT5H' })]), [`${first}.duration.at_most`]],
    ['at_most of P6DT23H59M', schedule([shift('MONDAY 00:00', 'P6DT23H59M')]), []],
    ['at_most of P7D', schedule([shift('MONDAY 00:00', 'P7D')]), [`${first}.duration.at_most`]],
    ['at_most in months', schedule([shift('MONDAY 08:00', 'P1M')]), [`${first}.duration.at_most`]],
    ['stop.latest on the earliest stop', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT6H', latest: 'MONDAY 14:00' })]), []],
    ['stop.latest on the latest stop', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT6H', latest: 'MONDAY 17:00' })]), []],
    ['stop.latest before the earliest stop', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT6H', latest: 'MONDAY 13:59' })]), [`${first}.stop.latest`]],
    ['stop.latest after the latest stop', schedule([shift('MONDAY 08:00', 'PT8H', { window: 'PT1H', at_least: 'PT6H', latest: 'MONDAY 17:01' })]), [`${first}.stop.latest`]],
    ['stop.latest before at_most without at_least', schedule([shift('MONDAY 08:00', 'PT8H', { latest: 'MONDAY 15:00' })]), [`${first}.stop.latest`]],
    ['contractual work time on every shift and week', withTemplates([paidWeek(1, paid('MONDAY 08:00')), paidWeek(2)]), []],
    ['a shift without contractual work time beside one with it', withTemplates([paidWeek(1, paid('MONDAY 08:00'), tuesday)]), [`${second}.contractual_work_time`]],
    ['a week without acceptable additional work time', withTemplates([paidWeek(1, paid('MONDAY 08:00')), { index: 2, shifts: [] }]), ['templates[1].acceptable_additional_work_time']],
    ['a start address', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { address: depot } })]), []],
    ['a start home base', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { home_base } })]), []],
    ['a start at the last end', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { at_last_end: true } })]), []],
    ['deprecated flat start fields with a name', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: depot })]), []],
    ['deprecated flat start fields without a name', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { ...depot, name: undefined } })]), [`${first}.start_location.name`]],
    ['a start address without a name', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { address: { ...depot, name: undefined } } })]), [`${first}.start_location.address.name`]],
    ['a start address and a home base', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { address: depot, home_base } })]), [`${first}.start_location`]],
    ['a start home base at the last end', schedule([shift('MONDAY 08:00', 'PT8H', { start_location: { home_base, at_last_end: true } })]), [`${first}.start_location`]],
    ['an end at the last activity', schedule([shift('MONDAY 08:00', 'PT8H', { end_location: { at_last_activity: true } })]), []],
    ['an end address with a geo point', schedule([shift('MONDAY 08:00', 'PT8H', { end_location: { address: { geo_point: { latitude: 51, longitude: 3.7 } } } })]), []],
    ['an end home base at the last activity', schedule([shift('MONDAY 08:00', 'PT8H', { end_location: { home_base, at_last_activity: true } })]), [`${first}.end_location`]],
    ['an end address and a home base', schedule([shift('MONDAY 08:00', 'PT8H', { end_location: { address: depot, home_base } })]), [`${first}.end_location`]],
    ['a null template', withTemplates([null]), ['templates[0]']],
    ['a null shift', schedule([day, null]), [second]],
    ['shifts that only touch', schedule([day, shift('MONDAY 16:00')]), []],
    ['shifts overlapping within a week', schedule([day, shift('MONDAY 15:00')]), [second]],
    ['a Sunday shift ending as the next week starts', schedule([shift('SUNDAY 22:00', 'PT10H')], [day]), []],
    ['a Sunday shift running into the next week', schedule([shift('SUNDAY 22:00', 'PT12H')], [day]), ['templates[1].shifts[0]']],
    ['the last week ending as the first starts', schedule([day], [shift('SUNDAY 23:00', 'PT9H')]), []],
    ['the last week running into the first', schedule([day], [shift('SUNDAY 23:00', 'PT10H')]), [first]],
    ['a one-week schedule touching past Sunday midnight', schedule([day, shift('SUNDAY 22:00', 'PT10H')]), []],
    ['a one-week schedule overlapping past Sunday midnight', schedule([day, shift('SUNDAY 22:00', 'PT11H')]), [first]],
    ['an unknown field', { ...schedule([day]), colour: 'red' }, ['colour']],
    ['an unknown field on a shift', schedule([{ ...day, break: 'PT30M' }]), [`${first}.break`]],
  ])('%s', async (_case, body, fields) => {
    const response = await post(body);
    if (fields.length === 0) {
      expect(response.statusCode).toBe(201);
      return;
    }
    const { violations } = expectProblemWithStatus<{ violations: { field: string }[] }>(response, 400);
    expect([...new Set(violations.map((violation) => violation.field))]).toEqual(fields);
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's schedule, even under an employee of the same id", async () => {
    const id = await created();
    const bob = await harness.as('tenant-b');
    expect((await get(id, bob)).statusCode).toBe(404);
    expect((await put(id, schedule([tuesday]), bob)).statusCode).toBe(404);
    expect((await remove(id, bob)).statusCode).toBe(404);

    await send('PUT', `${BASE}/employee/${EMPLOYEE}`, employeeBody(), bob);
    expect((await get(id, bob)).statusCode).toBe(404);
    expect(json(await send('GET', schedulesUrl(), undefined, bob))).toEqual([]);
    expect((await put(id, schedule([tuesday]), bob)).statusCode).toBe(404);
    expect((await remove(id, bob)).statusCode).toBe(404);
    expect(json(await get(id))).toMatchObject({ templates: [{ shifts: [day, tuesday] }], version: 1 });
  });
});
