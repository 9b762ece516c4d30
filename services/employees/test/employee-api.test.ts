import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

let harness: EmployeesHarness;
let alice: Record<string, string>;

beforeAll(async () => {
  harness = await startEmployees();
  alice = await harness.as('tenant-a');
});

afterAll(async () => {
  await harness?.close();
});

const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${id}`, headers: { ...alice, ...headers }, payload: body as object });
const get = (id: string, headers = alice) => harness.app.inject({ method: 'GET', url: `${BASE}/employee/${id}`, headers });
const remove = (id: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/${id}`, headers: { ...alice, ...headers } });

describe('PUT /employee/{employee_id}', () => {
  it('creates the employee: 201 with the body, version 1, ETag, Location and Preference-Applied', async () => {
    const response = await put('emp-1', employeeBody(), {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ business_id: 'emp-1', ...employeeBody(), version: 1 });
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}/employee/emp-1`);
    expect(response.headers['preference-applied']).toBe('return=representation');
    expect(response.headers.vary).toContain('Prefer');
  });

  it('updates it: 200 and the version grows by one', async () => {
    await put('emp-2', employeeBody());
    const response = await put('emp-2', employeeBody({ labels: ['day'] }));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ business_id: 'emp-2', labels: ['day'], version: 2 });
    expect(response.headers.etag).toBe('W/"2"');
  });

  it('keeps the version when the body sent back from a GET is unchanged', async () => {
    await put('emp-3', employeeBody());
    const read = json(await get('emp-3'));
    const before = harness.writes();
    const response = await put('emp-3', read);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual(read);
    expect(harness.writes()).toBe(before);
  });

  it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
    const response = await put('emp-4', employeeBody(), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/employee/emp-4$`));
  });

  it('rounds costs to 4 decimals', async () => {
    const response = await put('emp-5', employeeBody({ costs: { per_hour: 28.123456, per_km: 0.00004 } }));
    expect(json(response)).toMatchObject({ costs: { per_hour: 28.1235, per_km: 0 } });
  });

  it('accepts a home base instead of a start location', async () => {
    await harness.createHomeBases('tenant-a', 'hb.gent-1');
    const { start_location: _omitted, ...body } = employeeBody();
    const response = await put('emp-6', { ...body, home_base: { business_id: 'hb.gent-1' } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ home_base: { business_id: 'hb.gent-1' } });
  });

  it('accepts every character of the business id pattern and 512 characters', async () => {
    expect((await put('A.b~c-d_9', employeeBody())).statusCode).toBe(201);
    expect((await put('x'.repeat(512), employeeBody())).statusCode).toBe(201);
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('writes with the current version or *, and answers 412 to a stale one', async () => {
    await put('emp-m', employeeBody());
    expect((await put('emp-m', employeeBody({ labels: ['a'] }), { 'if-match': 'W/"1"' })).statusCode).toBe(200);
    expect((await put('emp-m', employeeBody({ labels: ['b'] }), { 'if-match': '*' })).statusCode).toBe(200);

    const stale = await put('emp-m', employeeBody({ labels: ['c'] }), { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(stale)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('emp-m') });
    expect(json(await get('emp-m'))).toMatchObject({ labels: ['b'], version: 3 });
  });

  it('answers 412 to an If-Match on an employee that does not exist, and creates nothing', async () => {
    expect((await put('emp-none', employeeBody(), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
    expect((await put('emp-none', employeeBody(), { 'if-match': '*' })).statusCode).toBe(412);
    expect((await get('emp-none')).statusCode).toBe(404);
  });

  it('deletes only with the current version', async () => {
    await put('emp-dm', employeeBody());
    expect((await remove('emp-dm', { 'if-match': 'W/"7"' })).statusCode).toBe(412);
    expect((await remove('emp-dm', { 'if-match': 'W/"1"' })).statusCode).toBe(204);
  });

  it('refuses a malformed If-Match with a violation on the header', async () => {
    const response = await put('emp-m', employeeBody(), { 'if-match': 'version 3' });
    expect(response.statusCode).toBe(400);
    expect(json(response).violations).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
  });
});

describe('GET and DELETE /employee/{employee_id}', () => {
  it('reads the employee with its ETag', async () => {
    await put('emp-g', employeeBody());
    const response = await get('emp-g');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual({ business_id: 'emp-g', ...employeeBody(), version: 1 });
  });

  it('answers 404 with a problem for a missing employee', async () => {
    const response = await get('nobody');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining('nobody') });
  });

  it('deletes with an empty 204, after which the employee is gone and a second delete is 404', async () => {
    await put('emp-d', employeeBody());
    const response = await remove('emp-d');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get('emp-d')).statusCode).toBe(404);
    expect((await remove('emp-d')).statusCode).toBe(404);
  });

  it('creates a deleted employee again, continuing its versions', async () => {
    await put('emp-again', employeeBody());
    await remove('emp-again');
    const response = await put('emp-again', employeeBody());
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ version: 3 });
  });
});

describe('validation', () => {
  const violationsOf = async (id: string, body: unknown) => {
    const response = await put(id, body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = json<{ title: string; detail: string; violations: { field: string; message: string }[] }>(response);
    expect(problem.title).toEqual(expect.any(String));
    expect(problem.detail).toEqual(expect.any(String));
    return problem.violations;
  };

  it('names an unknown field', async () => {
    expect(await violationsOf('emp-v', employeeBody({ nickname: 'Ada' }))).toEqual([
      { field: 'nickname', message: 'is not allowed' },
    ]);
  });

  it('names unknown and mistyped nested fields with their paths, all at once', async () => {
    const violations = await violationsOf(
      'emp-v',
      employeeBody({
        name: { first_name: 'Ada', middle_name: 'B' },
        skills: ['nl', 3],
        route_settings: { driving_speed_factor: 3, max_stops_per_shift: 1.5 },
      }),
    );
    expect(violations.map((violation) => violation.field).sort()).toEqual([
      'name.middle_name',
      'route_settings.driving_speed_factor',
      'route_settings.max_stops_per_shift',
      'skills[1]',
    ]);
  });

  it('does not coerce types in the body', async () => {
    const violations = await violationsOf('emp-v', employeeBody({ route_settings: { max_stops_per_shift: '3' } }));
    expect(violations).toEqual([{ field: 'route_settings.max_stops_per_shift', message: expect.stringMatching(/integer/) }]);
  });

  it('refuses duplicate and empty skills', async () => {
    expect((await violationsOf('emp-v', employeeBody({ skills: ['nl', 'nl'] }))).map((v) => v.field)).toEqual(['skills']);
    expect((await violationsOf('emp-v', employeeBody({ labels: [''] }))).map((v) => v.field)).toEqual(['labels[0]']);
  });

  it('requires exactly one of start_location and home_base', async () => {
    const { start_location: _omitted, ...withoutLocation } = employeeBody();
    expect(await violationsOf('emp-v', withoutLocation)).toEqual([
      { field: 'start_location', message: 'start_location or home_base is required' },
    ]);
    expect(await violationsOf('emp-v', employeeBody({ home_base: { business_id: 'hb' } }))).toEqual([
      { field: 'home_base', message: 'must not be given together with start_location' },
    ]);
  });

  it('requires the start location name and address information or a geo point', async () => {
    expect(await violationsOf('emp-v', employeeBody({ start_location: { city: 'Gent', zip_code: '9000', country_code: 'BE' } }))).toEqual([
      { field: 'start_location.name', message: 'is required' },
    ]);
    expect(await violationsOf('emp-v', employeeBody({ start_location: { name: 'Yard', country_code: 'QQ' } }))).toEqual([
      { field: 'start_location.city', message: 'is required when no geo_point is given' },
      { field: 'start_location.zip_code', message: 'is required when no geo_point is given' },
      { field: 'start_location.country_code', message: 'must be an ISO 3166-1 alpha-2 country code' },
    ]);
    const outOfRange = await violationsOf('emp-v', employeeBody({ start_location: { name: 'Yard', geo_point: { latitude: 91, longitude: 0 } } }));
    expect(outOfRange.map((violation) => violation.field)).toEqual(['start_location.geo_point.latitude']);
  });

  it('refuses a negative cost and a linked transport resource outside the business id pattern', async () => {
    const violations = await violationsOf('emp-v', employeeBody({ costs: { fixed: -1 }, linked_transport_resource: 'truck 7' }));
    expect(violations.map((violation) => violation.field).sort()).toEqual(['costs.fixed', 'linked_transport_resource']);
  });

  it('refuses an employee id outside the business id pattern or longer than 512 characters', async () => {
    for (const id of ['bad%20id', 'a'.repeat(513), 'caf%C3%A9']) {
      const response = await put(id, employeeBody());
      expect(response.statusCode).toBe(400);
      // One violation per broken rule: a 513-character id breaks both the length and the pattern.
      const violations = json<{ violations: { field: string }[] }>(response).violations;
      expect(violations.length).toBeGreaterThan(0);
      expect(new Set(violations.map((violation) => violation.field))).toEqual(new Set(['employee_id']));
    }
  });

  it('refuses malformed JSON and a body that is not an object', async () => {
    const malformed = await harness.app.inject({
      method: 'PUT',
      url: `${BASE}/employee/emp-v`,
      headers: { ...alice, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(json(malformed).violations).toEqual([{ field: 'body', message: expect.any(String) }]);
    expect((await put('emp-v', [1, 2])).statusCode).toBe(400);
  });

  it('writes nothing for a refused request', async () => {
    const before = harness.writes();
    await put('emp-v', employeeBody({ nickname: 'x' }));
    expect(harness.writes()).toBe(before);
    expect((await get('emp-v')).statusCode).toBe(404);
  });
});

describe('tenants', () => {
  it('never shows, changes or deletes another tenant\'s employee', async () => {
    const bob = await harness.as('tenant-b');
    await put('shared-id', employeeBody({ labels: ['a'] }));
    expect((await get('shared-id', bob)).statusCode).toBe(404);
    expect((await remove('shared-id', bob)).statusCode).toBe(404);

    const created = await harness.app.inject({
      method: 'PUT',
      url: `${BASE}/employee/shared-id`,
      headers: bob,
      payload: employeeBody({ labels: ['b'] }),
    });
    expect(created.statusCode).toBe(201);
    expect(json(await get('shared-id'))).toMatchObject({ labels: ['a'], version: 1 });
    expect(json(await get('shared-id', bob))).toMatchObject({ labels: ['b'], version: 1 });
  });
});

describe('authentication', () => {
  it('answers 401 without a token, with WWW-Authenticate and no body fields', async () => {
    const response = await harness.app.inject({ method: 'GET', url: `${BASE}/employee/emp-1` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body).toBe('');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const token = await harness.env.issuer.mint({ tenant: 'tenant-a', expiresInSeconds: -60 });
    const response = await get('emp-1', { authorization: `Bearer ${token}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('answers pong on /ping to an authenticated caller', async () => {
    const response = await harness.app.inject({ method: 'GET', url: `${BASE}/ping`, headers: alice });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('pong');
  });
});

describe('probes', () => {
  it('answers /healthz and /readyz without a token', async () => {
    expect((await harness.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await harness.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(json(ready)).toMatchObject({ status: 'ready' });
  });
});
