import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

let harness: EmployeesHarness;
let alice: Record<string, string>;

const EMPLOYEE = 'emp-away';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Headers = Record<string, string>;
const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Headers = {}) =>
  harness.app.inject({ method, url, headers: { ...alice, ...headers }, ...(body === undefined ? {} : { payload: body as object }) });
const putEmployee = (id: string, headers: Headers = {}) => send('PUT', `${BASE}/employee/${id}`, employeeBody(), headers);

beforeAll(async () => {
  harness = await startEmployees();
  alice = await harness.as('tenant-a');
  await putEmployee(EMPLOYEE);
});

afterAll(async () => {
  await harness?.close();
});

const listUrl = (employee = EMPLOYEE) => `${BASE}/employee/${employee}/unavailability`;
const itemUrl = (id: string, employee = EMPLOYEE) => `${listUrl(employee)}/${id}`;
const post = (body: unknown, headers: Headers = {}, employee = EMPLOYEE) => send('POST', listUrl(employee), body, headers);
const put = (id: string, body: unknown, headers: Headers = {}, employee = EMPLOYEE) => send('PUT', itemUrl(id, employee), body, headers);
const get = (id: string, headers: Headers = {}, employee = EMPLOYEE) => send('GET', itemUrl(id, employee), undefined, headers);
const remove = (id: string, headers: Headers = {}, employee = EMPLOYEE) => send('DELETE', itemUrl(id, employee), undefined, headers);
const list = (query: Record<string, string> = {}, employee = EMPLOYEE) =>
  send('GET', `${listUrl(employee)}${Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query).toString()}`}`);

/** An unavailability on 1 May 2024 from `from` to `to` (like `'08:00'`), in UTC. */
const away = (from: string, to: string, description?: string) => ({
  from: `2024-05-01T${from}:00Z`,
  to: `2024-05-01T${to}:00Z`,
  ...(description === undefined ? {} : { description }),
});
const violatedFields = (response: LightMyRequestResponse) => json<{ violations: { field: string }[] }>(response).violations.map((violation) => violation.field);

/** A fresh uuid for a caller-chosen id (version 4, as a source system might make it). */
const newId = () => crypto.randomUUID();

describe('POST /employee/{employee_id}/unavailability', () => {
  it('creates it: 201 with a generated UUIDv7 id and the employee, ETag and Location', async () => {
    const response = await post(away('08:00', '10:00', 'Doctor'));
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(body).toMatchObject({ id: expect.stringMatching(UUID_V7), employee_id: EMPLOYEE, ...away('08:00', '10:00', 'Doctor') });
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=representation');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/employee/${EMPLOYEE}/unavailability/${String(body.id)}$`));
  });

  it('reads it back where Location points, with its ETag', async () => {
    const response = await post(away('08:00', '10:00'));
    const read = await send('GET', new URL(response.headers.location as string).pathname);
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"1"');
    expect(json(read)).toEqual({ id: json(response).id, employee_id: EMPLOYEE, ...away('08:00', '10:00'), version: 1 });
  });

  it('returns date-times with offsets in UTC', async () => {
    const response = await post({ from: '2024-05-01T10:00:00+02:00', to: '2024-05-01T12:30:00-01:00' });
    expect(json(response)).toMatchObject({ from: '2024-05-01T08:00:00Z', to: '2024-05-01T13:30:00Z' });
    expect(json(await get(String(json(response).id)))).toMatchObject({ from: '2024-05-01T08:00:00Z', to: '2024-05-01T13:30:00Z' });
  });

  it('creates once per Idempotency-Key: a retry answers with the same unavailability, replayed; another body is a 422', async () => {
    const employee = 'emp-away-keyed';
    await putEmployee(employee);
    const keyed = { 'idempotency-key': 'away-retry' };
    const first = await post(away('08:00', '10:00'), keyed, employee);
    const again = await post(away('08:00', '10:00'), keyed, employee);
    expect(first.statusCode).toBe(201);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.headers.location]).toEqual([201, 'true', first.headers.location]);
    expect((await post(away('08:00', '11:00'), keyed, employee)).statusCode).toBe(422);
    expect(json<unknown[]>(await list({}, employee))).toHaveLength(1);
  });
});

describe('GET /employee/{employee_id}/unavailability by range', () => {
  const ranged = 'emp-ranged';
  const ids: Record<string, string> = {};
  const listed = async (query: Record<string, string>) => {
    const response = await list(query, ranged);
    expect(response.statusCode).toBe(200);
    return json<{ id: string }[]>(response)
      .map((item) => Object.keys(ids).find((name) => ids[name] === item.id))
      .sort();
  };

  beforeAll(async () => {
    await putEmployee(ranged);
    for (const [name, body] of Object.entries({ morning: away('08:00', '10:00'), noon: away('12:00', '14:00'), night: away('20:00', '23:00') })) {
      ids[name] = json<{ id: string }>(await post(body, {}, ranged)).id;
    }
  });

  it('lists every unavailability with its version without a range', async () => {
    const response = await list({}, ranged);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toHaveLength(3);
    expect(json(response)).toContainEqual({ id: ids.noon, employee_id: ranged, ...away('12:00', '14:00'), version: 1 });
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['open until: from inside one', { from: '2024-05-01T13:00:00Z' }, ['night', 'noon']],
    ['open from: until inside one', { until: '2024-05-01T09:00:00Z' }, ['morning']],
    ['closed, cutting two that extend beyond it', { from: '2024-05-01T09:00:00Z', until: '2024-05-01T13:00:00Z' }, ['morning', 'noon']],
    ['closed, with offsets', { from: '2024-05-01T11:00:00+02:00', until: '2024-05-01T12:30:00+02:00' }, ['morning']],
    ['closed, around one', { from: '2024-05-01T11:00:00Z', until: '2024-05-01T15:00:00Z' }, ['noon']],
    ['closed, only touching two', { from: '2024-05-01T10:00:00Z', until: '2024-05-01T12:00:00Z' }, []],
    ['open until, from where one ends', { from: '2024-05-01T14:00:00Z' }, ['night']],
    ['open from, until where the first starts', { until: '2024-05-01T08:00:00Z' }, []],
  ])('matches the overlapping ones: %s', async (_case, query, names) => {
    expect(await listed(query)).toEqual(names);
  });

  it('refuses from after until with a violation on until', async () => {
    const response = await list({ from: '2024-05-01T13:00:00Z', until: '2024-05-01T09:00:00Z' }, ranged);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(violatedFields(response)).toEqual(['until']);
  });

  it('refuses a malformed from with a violation on from', async () => {
    const response = await list({ from: 'yesterday' }, ranged);
    expect(response.statusCode).toBe(400);
    expect(violatedFields(response)).toEqual(['from']);
  });
});

describe('PUT /employee/{employee_id}/unavailability/{unavailability_id}', () => {
  it('creates with the caller-chosen id (201), then updates (200) and the version grows', async () => {
    const id = newId();
    const createdResponse = await put(id, away('08:00', '10:00'));
    expect(createdResponse.statusCode).toBe(201);
    expect(json(createdResponse)).toMatchObject({ id, employee_id: EMPLOYEE, ...away('08:00', '10:00') });
    expect(createdResponse.headers.etag).toBe('W/"1"');
    expect(createdResponse.headers.location).toMatch(new RegExp(`/employee/${EMPLOYEE}/unavailability/${id}$`));

    const updated = await put(id, away('08:00', '11:00', 'Longer'));
    expect(updated.statusCode).toBe(200);
    expect(json(updated)).toMatchObject({ id, ...away('08:00', '11:00', 'Longer'), version: 2 });
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await get(id))).toMatchObject({ description: 'Longer', version: 2 });
  });

  it('answers 204 without a body for Prefer: return=minimal, with the write headers', async () => {
    const response = await put(newId(), away('08:00', '10:00'), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect(response.headers.location).toMatch(/\/unavailability\/[0-9a-f-]{36}$/);
  });

  it('writes with the current If-Match and answers 412 to a stale one, changing nothing', async () => {
    const id = newId();
    await put(id, away('08:00', '10:00'));
    expect((await put(id, away('08:00', '11:00'), { 'if-match': 'W/"1"' })).statusCode).toBe(200);
    const stale = await put(id, away('08:00', '12:00'), { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    expect(json(stale)).toMatchObject({ title: expect.any(String), detail: expect.stringContaining(id) });
    expect(json(await get(id))).toMatchObject({ ...away('08:00', '11:00'), version: 2 });
  });

  it('answers 412 to an If-Match on an unavailability that does not exist, and creates nothing', async () => {
    const id = newId();
    expect((await put(id, away('08:00', '10:00'), { 'if-match': 'W/"1"' })).statusCode).toBe(412);
    expect((await get(id)).statusCode).toBe(404);
  });

  it('refuses a to that is not after from, naming to', async () => {
    for (const body of [away('10:00', '10:00'), away('10:00', '09:00')]) {
      const response = await put(newId(), body);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(violatedFields(response)).toEqual(['to']);
    }
    expect(violatedFields(await post(away('10:00', '09:00')))).toEqual(['to']);
  });

  it('accepts a description of 1000 characters and refuses a longer one', async () => {
    expect((await put(newId(), away('08:00', '10:00', 'x'.repeat(1000)))).statusCode).toBe(201);
    const response = await put(newId(), away('08:00', '10:00', 'x'.repeat(1001)));
    expect(response.statusCode).toBe(400);
    expect(violatedFields(response)).toEqual(['description']);
  });

  it('refuses an id that is not a uuid with a violation on the path parameter', async () => {
    const response = await put('away-1', away('08:00', '10:00'));
    expect(response.statusCode).toBe(400);
    expect(violatedFields(response)).toEqual(['unavailability_id']);
  });
});

describe('DELETE /employee/{employee_id}/unavailability/{unavailability_id}', () => {
  it('deletes with an empty 204, after which it is gone and a second delete is 404', async () => {
    const id = json<{ id: string }>(await post(away('08:00', '10:00'))).id;
    const response = await remove(id);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get(id)).statusCode).toBe(404);
    expect((await remove(id)).statusCode).toBe(404);
  });
});

describe('unknown employee', () => {
  it('answers 404 naming the employee on every route', async () => {
    const id = newId();
    for (const response of [
      await post(away('08:00', '10:00'), {}, 'nobody'),
      await list({}, 'nobody'),
      await get(id, {}, 'nobody'),
      await put(id, away('08:00', '10:00'), {}, 'nobody'),
      await remove(id, {}, 'nobody'),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(json(response)).toMatchObject({ detail: expect.stringContaining('nobody') });
    }
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's unavailability, even under an employee of the same id", async () => {
    const id = newId();
    await put(id, away('08:00', '10:00', 'Alice'));
    const bob = await harness.as('tenant-b');
    expect((await get(id, bob)).statusCode).toBe(404);
    expect((await remove(id, bob)).statusCode).toBe(404);
    expect((await put(id, away('08:00', '12:00'), bob)).statusCode).toBe(404);

    await putEmployee(EMPLOYEE, bob);
    expect((await get(id, bob)).statusCode).toBe(404);
    expect((await remove(id, bob)).statusCode).toBe(404);
    expect(json(await send('GET', listUrl(), undefined, bob))).toEqual([]);
    // The same id in tenant B is B's own unavailability, not A's.
    expect((await put(id, away('08:00', '12:00', 'Bob'), bob)).statusCode).toBe(201);
    expect(json(await get(id))).toMatchObject({ ...away('08:00', '10:00', 'Alice'), version: 1 });
    expect(json(await get(id, bob))).toMatchObject({ ...away('08:00', '12:00', 'Bob'), version: 1 });
  });
});
