import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@rm/testkit';
import { useWorld } from '@rm/testkit/service-helpers';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, employeeBody, json, startEmployees } from './helpers.js';

const { world: harness } = useWorld(startEmployees);
let headers: Record<string, string>;
const tenant = uniqueName('availability');

beforeAll(async () => {
  headers = await harness.as(tenant);
});

type Body = Record<string, unknown>;
const url = (employee: string, rest = '') => `${BASE}/employee/${employee}/availability${rest}`;
/** An availability of `hours` hours from hour `from` of 2026-03-02 (UTC). */
const shift = (from: number, hours = 1, extra: Body = {}): Body => ({
  earliest_start: new Date(Date.UTC(2026, 2, 2, from)).toISOString(),
  max_duration: `PT${hours}H`,
  ...extra,
});
const at = (hour: number) => new Date(Date.UTC(2026, 2, 2, hour)).toISOString();

async function employee(id = uniqueName('emp')): Promise<string> {
  const response = await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${id}`, headers, payload: employeeBody() });
  expect(response.statusCode).toBe(201);
  return id;
}
const post = (employeeId: string, payload: Body, extraHeaders: Record<string, string> = {}) =>
  harness.app.inject({ method: 'POST', url: url(employeeId), headers: { ...headers, ...extraHeaders }, payload });
const put = (employeeId: string, id: string, payload: Body, extraHeaders: Record<string, string> = {}) =>
  harness.app.inject({ method: 'PUT', url: url(employeeId, `/${id}`), headers: { ...headers, ...extraHeaders }, payload });
const list = async (employeeId: string, query = '') => {
  const response = await harness.app.inject({ method: 'GET', url: url(employeeId, query), headers });
  expect(response.statusCode).toBe(200);
  return json<Body[]>(response);
};
async function created(employeeId: string, payload: Body): Promise<Body & { id: string }> {
  const response = await post(employeeId, payload);
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}

describe('availability writes', () => {
  it('creates: 201 with a generated UUIDv7 id, the employee, UTC date-times, ETag, Location and Preference-Applied', async () => {
    const employeeId = await employee();
    const response = await post(employeeId, { earliest_start: '2026-03-02T07:00:00+01:00', max_duration: 'PT8H', mandatory: true });
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/), employee_id: employeeId, earliest_start: '2026-03-02T06:00:00Z', max_duration: 'PT8H', mandatory: true, version: 1 });
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toMatch(new RegExp(`/resource-management/v1/employee/${employeeId}/availability/${String(body.id)}$`));
    expect(response.headers['preference-applied']).toBe('return=representation');
  });

  it('answers 204 without a body for Prefer: return=minimal, the id in Location', async () => {
    const employeeId = await employee();
    const response = await post(employeeId, shift(8), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const location = String(response.headers.location);
    const read = await harness.app.inject({ method: 'GET', url: `${BASE}${location.slice(location.indexOf('/employee/'))}`, headers });
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"1"');
  });

  it('updates with PUT (200, version + 1), ignoring the read-only fields of a GET body, and checks If-Match', async () => {
    const employeeId = await employee();
    const availability = await created(employeeId, shift(8));
    const updated = await put(employeeId, availability.id, { ...availability, max_duration: 'PT2H' }, { 'if-match': 'W/"1"' });
    expect(updated.statusCode).toBe(200);
    expect(json(updated)).toMatchObject({ id: availability.id, max_duration: 'PT2H', version: 2 });
    expect(updated.headers.etag).toBe('W/"2"');
    expect((await put(employeeId, availability.id, shift(8), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
  });

  it('answers 404 to a PUT of an availability that does not exist, and 400 to an id that is no uuid', async () => {
    const employeeId = await employee();
    expect((await put(employeeId, '01a1ff6c-92f8-7452-8073-c80b58fec118', shift(8))).statusCode).toBe(404);
    const malformed = await put(employeeId, 'not-a-uuid', shift(8));
    expect(malformed.statusCode).toBe(400);
    expect(json(malformed).violations).toEqual([expect.objectContaining({ field: 'generated_id' })]);
  });

  it('answers 404 naming the employee to every route of an unknown employee, and writes nothing', async () => {
    const id = '01a1ff6c-92f8-7452-8073-c80b58fec118';
    for (const [method, path, payload] of [
      ['GET', url('nobody'), undefined],
      ['POST', url('nobody'), shift(8)],
      ['DELETE', url('nobody'), undefined],
      ['GET', url('nobody', `/${id}`), undefined],
      ['PUT', url('nobody', `/${id}`), shift(8)],
      ['DELETE', url('nobody', `/${id}`), undefined],
    ] as const) {
      const response = await harness.app.inject({ method, url: path, headers, ...(payload === undefined ? {} : { payload }) });
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(json(response).detail).toBe("employee 'nobody' does not exist");
    }
    expect(await harness.service.store.db.collection('availabilities').countDocuments({ parent: 'nobody' })).toBe(0);
  });

  it('deletes one with an empty 204 (If-Match checked), after which it is 404', async () => {
    const employeeId = await employee();
    const availability = await created(employeeId, shift(8));
    const remove = (extra: Record<string, string> = {}) => harness.app.inject({ method: 'DELETE', url: url(employeeId, `/${availability.id}`), headers: { ...headers, ...extra } });
    expect((await remove({ 'if-match': 'W/"7"' })).statusCode).toBe(412);
    const removed = await remove({ 'if-match': 'W/"1"' });
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await harness.app.inject({ method: 'GET', url: url(employeeId, `/${availability.id}`), headers })).statusCode).toBe(404);
    expect((await remove()).statusCode).toBe(404);
  });

  it("never shows, changes or deletes another tenant's availability", async () => {
    const employeeId = await employee();
    const availability = await created(employeeId, shift(8));
    const other = await harness.as(uniqueName('other'));
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const response = await harness.app.inject({ method, url: url(employeeId, `/${availability.id}`), headers: other, ...(method === 'PUT' ? { payload: shift(9) } : {}) });
      expect(response.statusCode).toBe(404);
    }
    expect(await list(employeeId)).toHaveLength(1);
  });
});

describe('availability rules through HTTP', () => {
  it.each([
    ['earliest_start and max_duration only', shift(8), []],
    ['no earliest_start', { max_duration: 'PT8H' }, ['earliest_start']],
    ['no max_duration', { earliest_start: at(8) }, ['max_duration']],
    ['a date-time without offset', shift(8, 1, { earliest_start: '2026-03-02T08:00:00' }), ['earliest_start']],
    ['a duration in months', shift(8, 1, { max_duration: 'P1M' }), ['max_duration']],
    ['latest_stop within its bounds', shift(8, 8, { min_duration: 'PT4H', latest_stop: at(12) }), []],
    ['latest_stop below earliest_start + min_duration', shift(8, 8, { min_duration: 'PT4H', latest_stop: at(11) }), ['latest_stop']],
    ['latest_stop beyond latest_start + max_duration', shift(8, 8, { latest_start: at(9), latest_stop: at(18) }), ['latest_stop']],
    ['min_duration above max_duration', shift(8, 8, { min_duration: 'PT9H' }), ['min_duration']],
    ['latest_start before earliest_start', shift(8, 8, { latest_start: at(7) }), ['latest_start']],
    ['a start address', shift(8, 1, { start_location: { address: { name: 'Depot', city: 'Gent', zip_code: '9000', country_code: 'BE' } } }), []],
    ['a start address without a name', shift(8, 1, { start_location: { address: { city: 'Gent', zip_code: '9000', country_code: 'BE' } } }), ['start_location.address.name']],
    ['a home base and at_last_end', shift(8, 1, { start_location: { home_base: { business_id: 'hb' }, at_last_end: true } }), ['start_location']],
    ['deprecated flat fields with a name', shift(8, 1, { start_location: { name: 'Depot', geo_point: { latitude: 51, longitude: 3 } } }), []],
    ['deprecated flat fields without a name', shift(8, 1, { start_location: { geo_point: { latitude: 51, longitude: 3 } } }), ['start_location.name']],
    ['home_base_id with an ad-hoc start', shift(8, 1, { home_base_id: 'hb', start_location: { name: 'Depot', geo_point: { latitude: 51, longitude: 3 } } }), ['home_base_id']],
    ['an end geo point out of range', shift(8, 1, { end_location: { address: { geo_point: { latitude: 91, longitude: 3 } } } }), ['end_location.address.geo_point.latitude']],
    ['two end choices', shift(8, 1, { end_location: { home_base: { business_id: 'hb' }, at_last_activity: true } }), ['end_location']],
    ['a mandatory that is a string', shift(8, 1, { mandatory: 'yes' }), ['mandatory']],
    ['an unknown field', shift(8, 1, { colour: 'red' }), ['colour']],
  ])('%s', async (_case, payload, fields) => {
    const employeeId = await employee();
    const response = await post(employeeId, payload);
    if (fields.length === 0) {
      expect(response.statusCode, response.body).toBe(201);
      return;
    }
    const { violations } = expectProblemWithStatus<{ violations: { field: string }[] }>(response, 400);
    expect(violations.map((violation) => violation.field).sort()).toEqual([...fields].sort());
    expect(await list(employeeId)).toEqual([]);
  });
});

describe('no two availabilities of an employee overlap', () => {
  it('refuses an overlapping create and update with 409 naming the other; spans that only touch are fine', async () => {
    const employeeId = await employee();
    const morning = await created(employeeId, shift(8, 4));
    const refused = await post(employeeId, shift(11, 2));
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ conflicting_id: morning.id, detail: expect.stringContaining(morning.id) });
    const afternoon = await created(employeeId, shift(12, 4));
    expect((await put(employeeId, afternoon.id, shift(11, 4))).statusCode).toBe(409);
    // an update is checked against the others only, and frees its old span
    expect((await put(employeeId, morning.id, shift(6, 2))).statusCode).toBe(200);
    await created(employeeId, shift(8, 4));
    // another employee's time is its own
    await created(await employee(), shift(8, 4));
  });

  it('measures the span to latest_stop, or latest_start + max_duration', async () => {
    const employeeId = await employee();
    await created(employeeId, shift(8, 2, { latest_start: at(10) }));
    // ends at 12 (latest_start + max_duration), not at 10
    expect((await post(employeeId, shift(11))).statusCode).toBe(409);
    await created(employeeId, shift(12));
  });

  it('lets exactly one of twenty overlapping creates sent at once in; the others get 409 naming it', async () => {
    const employeeId = await employee();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, index) => post(employeeId, shift(8, 4, { earliest_start: new Date(Date.UTC(2026, 2, 2, 8, index)).toISOString() }))));
    const winners = responses.filter((response) => response.statusCode === 201);
    expect(winners).toHaveLength(1);
    const winner = json(winners[0] as (typeof responses)[number]);
    for (const response of responses.filter((each) => each.statusCode !== 201)) {
      expect(response.statusCode).toBe(409);
      expect(json(response).conflicting_id).toBe(winner.id);
    }
    expect((await list(employeeId)).map((availability) => availability.id)).toEqual([winner.id]);
  });
});

describe('lists and bulk deletes by range', () => {
  // 06–08, 08–10, 12–14: [from, until) is half-open, so spans that only touch the range do not match
  async function three(): Promise<{ employeeId: string; ids: string[] }> {
    const employeeId = await employee();
    const ids: string[] = [];
    for (const from of [6, 8, 12]) ids.push((await created(employeeId, shift(from, 2))).id);
    return { employeeId, ids };
  }
  const range = (from?: number, until?: number) =>
    `?${[from === undefined ? '' : `from=${encodeURIComponent(at(from))}`, until === undefined ? '' : `until=${encodeURIComponent(at(until))}`].filter(Boolean).join('&')}`;

  it.each([
    ['no range: all', undefined, undefined, [0, 1, 2]],
    ['closed, overlapping two partly', 7, 9, [0, 1]],
    ['closed, touching on both sides', 10, 12, []],
    ['open after', 9, undefined, [1, 2]],
    ['open before', undefined, 8, [0]],
  ])('list %s', async (_case, from, until, expected) => {
    const { employeeId, ids } = await three();
    expect((await list(employeeId, range(from, until))).map((availability) => availability.id)).toEqual(expected.map((index) => ids[index]));
  });

  it('deletes all that overlap, including those partly outside the range, with an empty 204', async () => {
    const { employeeId, ids } = await three();
    const response = await harness.app.inject({ method: 'DELETE', url: url(employeeId, range(9, 13)), headers });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await list(employeeId)).map((availability) => availability.id)).toEqual([ids[0]]);
  });

  it('refuses from after until and a malformed from, naming the parameter', async () => {
    const { employeeId } = await three();
    for (const [query, field] of [[range(10, 9), 'until'], ['?from=yesterday', 'from']] as const) {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await harness.app.inject({ method, url: url(employeeId, query), headers });
        expect(response.statusCode).toBe(400);
        expect(json(response).violations).toEqual([expect.objectContaining({ field })]);
      }
    }
    expect(await list(employeeId)).toHaveLength(3);
  });
});

describe('creates with an Idempotency-Key', () => {
  const keyed = (key: string) => ({ 'idempotency-key': key });

  it('answers a retry with the same key and body as the first: 201, the same availability and Location, replayed; one exists', async () => {
    const employeeId = await employee();
    const first = await post(employeeId, shift(8), keyed('retry-1'));
    // the same body written otherwise: the same instant at another offset, fields in another order
    const again = await post(employeeId, { max_duration: 'PT1H', earliest_start: '2026-03-02T09:00:00+01:00' }, keyed('retry-1'));
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(json(again)).toEqual(json(first));
    expect(await list(employeeId)).toHaveLength(1);
  });

  it('creates one of twenty creates with one key sent at once, and answers each with it', async () => {
    const employeeId = await employee();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(employeeId, shift(8), keyed('retry-race'))));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((response) => response.headers.location)).size).toBe(1);
    expect(await list(employeeId)).toHaveLength(1);
  });

  it('refuses the key with another body: 422 problem+json naming the key, creating nothing', async () => {
    const employeeId = await employee();
    await post(employeeId, shift(8), keyed('retry-2'));
    const refused = await post(employeeId, shift(12), keyed('retry-2'));
    expectProblemWithStatus(refused, 422, { detail: expect.stringContaining("Idempotency-Key 'retry-2'") });
    expect(await list(employeeId)).toHaveLength(1);
  });

  it('refuses a retry once the availability it created was deleted: 409, creating nothing', async () => {
    const employeeId = await employee();
    const first = json<{ id: string }>(await post(employeeId, shift(8), keyed('retry-3')));
    expect((await harness.app.inject({ method: 'DELETE', url: url(employeeId, `/${first.id}`), headers })).statusCode).toBe(204);
    const refused = await post(employeeId, shift(8), keyed('retry-3'));
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ conflicting_id: first.id });
    expect(await list(employeeId)).toHaveLength(0);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('refuses a key that is %s: 400 naming the header, creating nothing', async (_case, key) => {
    const employeeId = await employee();
    const refused = await post(employeeId, shift(8), keyed(key));
    expect(refused.statusCode).toBe(400);
    expect(json(refused).violations).toEqual([expect.objectContaining({ field: 'idempotency-key' })]);
    expect(await list(employeeId)).toHaveLength(0);
  });
});
