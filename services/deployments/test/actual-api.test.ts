import { inListOrder } from '@rm/store';
import { describe, expect, it } from 'vitest';
import { actualBody, BASE, json, newTenant, stored, useDeploymentsWorldWithOwners } from './helpers.js';
import { expectProblem } from './deployment-helpers.js';

const tenant = newTenant('actual_api');
const otherTenant = newTenant('actual_api_b');
// alice works in the tenant, bob in the other one; an employee unknown here (or deleted) is asked of the
// employees service, whose 404 is what makes it unknown
const { world, clients: [alice, bob] } = useDeploymentsWorldWithOwners(tenant, otherTenant);

let counter = 0;
/** A fresh employee, known to the service, so that every test works on actuals of its own. */
async function newEmployee(): Promise<string> {
  const id = `emp-${(counter += 1)}`;
  await world.employee(tenant, id);
  return id;
}

describe('PUT /means/{employee_id}/actual/{actual_id}', () => {
  it('creates the actual: 201 with the representation, version 1, ETag and an absolute Location', async () => {
    const employee = await newEmployee();
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
    const response = await alice.put(employee, 'shift-1', actualBody(), forwarded);
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual(stored(employee, 'shift-1', 1));
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}/means/${employee}/actual/shift-1`);
    expect(response.headers['preference-applied']).toBe('return=representation');
  });

  it('updates it: 200, the version grows by one, and a GET shows the new state', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const changed = actualBody({ work_time: 'PT6H' });
    const response = await alice.put(employee, 'a', changed);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"2"');
    expect(json(response)).toEqual(stored(employee, 'a', 2, changed));
    const read = await alice.get(employee, 'a');
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"2"');
    expect(json(read)).toEqual(stored(employee, 'a', 2, changed));
  });

  it('drops end when an update leaves it out', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const response = await alice.put(employee, 'a', { start: '2024-03-01T08:00:00Z', work_time: 'PT7H30M' });
    expect(response.statusCode).toBe(200);
    const withoutEnd = { start: '2024-03-01T08:00:00Z', work_time: 'PT7H30M' };
    expect(json(response)).toEqual({ employee_id: employee, business_id: 'a', ...withoutEnd, version: 2 });
  });

  it('keeps the version and writes nothing when the body sent back from a GET is unchanged, offsets or field order aside', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const read = json(await alice.get(employee, 'a'));
    const before = world.harness.writes();
    const again = await alice.put(employee, 'a', read);
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe('W/"1"');
    expect(json(again)).toEqual(stored(employee, 'a', 1));
    // the same instants with an offset, and the fields in another order
    const offset = { work_time: 'PT7H30M', end: '2024-03-01T17:00:00+01:00', start: '2024-03-01T10:00:00+02:00' };
    const reordered = await alice.put(employee, 'a', offset);
    expect(reordered.statusCode).toBe(200);
    expect(reordered.headers.etag).toBe('W/"1"');
    expect(world.harness.writes()).toBe(before);
  });

  it('stores and returns date-times in UTC', async () => {
    const employee = await newEmployee();
    const response = await alice.put(employee, 'a', actualBody({ start: '2024-03-01T09:00:00+01:00', end: '2024-03-01T12:30:00-04:00' }));
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toMatchObject({ start: '2024-03-01T08:00:00Z', end: '2024-03-01T16:30:00Z' });
    expect(json(await alice.get(employee, 'a'))).toMatchObject({ start: '2024-03-01T08:00:00Z', end: '2024-03-01T16:30:00Z' });
  });

  it('answers 204 without a body for Prefer: return=minimal, with ETag and Location', async () => {
    const employee = await newEmployee();
    const created = await alice.put(employee, 'a', actualBody(), { prefer: 'return=minimal' });
    expect(created.statusCode).toBe(204);
    expect(created.body).toBe('');
    expect(created.headers.etag).toBe('W/"1"');
    expect(created.headers['preference-applied']).toBe('return=minimal');
    expect(created.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/means/${employee}/actual/a$`));
    const updated = await alice.put(employee, 'a', actualBody({ work_time: 'PT1H' }), { prefer: 'return=minimal' });
    expect(updated.statusCode).toBe(204);
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await alice.get(employee, 'a'))).toMatchObject({ work_time: 'PT1H', version: 2 });
  });

  it('ignores the read-only employee_id, business_id, version and etag in the body', async () => {
    const employee = await newEmployee();
    const readOnly = { employee_id: 'someone-else', business_id: 'other', version: 42, etag: 'W/"42"' };
    const response = await alice.put(employee, 'a', { ...actualBody(), ...readOnly });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual(stored(employee, 'a', 1));
    expect((await alice.get(employee, 'other')).statusCode).toBe(404);
    expect((await alice.get('someone-else', 'a')).statusCode).toBe(404);
    // only read-only fields differ: unchanged
    const again = await alice.put(employee, 'a', { ...actualBody(), employee_id: 'x', business_id: 'y', version: 7, etag: 'W/"7"' });
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe('W/"1"');
  });

  it('refuses unknown properties, naming them, and writes nothing', async () => {
    const employee = await newEmployee();
    const before = world.harness.writes();
    const problem = expectProblem(await alice.put(employee, 'a', { ...actualBody(), colour: 'red' }), 400);
    expect(problem.violations).toEqual([{ field: 'colour', message: 'is not allowed' }]);
    expect(world.harness.writes()).toBe(before);
    expect((await alice.get(employee, 'a')).statusCode).toBe(404);
  });

  it('accepts every character of the business id pattern and 512 characters, and refuses others in the path', async () => {
    const employee = await newEmployee();
    expect((await alice.put(employee, 'A.b~c-d_9', actualBody())).statusCode).toBe(201);
    expect(json(await alice.get(employee, 'A.b~c-d_9'))).toMatchObject({ business_id: 'A.b~c-d_9' });
    expect((await alice.put(employee, 'x'.repeat(512), actualBody())).statusCode).toBe(201);
    for (const id of ['x'.repeat(513), 'a%20b', 'a%2Fb', 'caf%C3%A9']) {
      const violations = expectProblem(await alice.put(employee, id, actualBody()), 400).violations as { field: string }[];
      expect(new Set(violations.map((violation) => violation.field)), id).toEqual(new Set(['actual_id']));
    }
  });

  it('answers 404 naming an employee the service never heard of, and writes nothing', async () => {
    const before = world.harness.writes();
    const problem = expectProblem(await alice.put('nobody', 'a', actualBody()), 404);
    expect(problem.detail).toContain('nobody');
    expect(problem.violations).toBeUndefined();
    expect(world.harness.writes()).toBe(before);
    expect((await alice.get('nobody', 'a')).statusCode).toBe(404);
  });

  it('answers 404 for an employee whose delete event came, and writes nothing', async () => {
    const employee = await newEmployee();
    await world.employee(tenant, employee, 2, 'deleted');
    const before = world.harness.writes();
    expectProblem(await alice.put(employee, 'a', actualBody()), 404);
    expect(world.harness.writes()).toBe(before);
  });

  it('accepts an employee known from an updated event only (created may have been missed)', async () => {
    await world.employee(tenant, 'emp-updated-only', 3, 'updated');
    expect((await alice.put('emp-updated-only', 'a', actualBody())).statusCode).toBe(201);
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('writes with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const matching = await alice.put(employee, 'a', actualBody({ work_time: 'PT1H' }), { 'if-match': 'W/"1"' });
    expect(matching.statusCode).toBe(200);
    expect(matching.headers.etag).toBe('W/"2"');
    expect((await alice.put(employee, 'a', actualBody({ work_time: 'PT2H' }), { 'if-match': '*' })).statusCode).toBe(200);

    const before = world.harness.writes();
    const stale = expectProblem(await alice.put(employee, 'a', actualBody({ work_time: 'PT3H' }), { 'if-match': 'W/"1"' }), 412);
    expect(stale.violations).toBeUndefined();
    expect(world.harness.writes()).toBe(before);
    expect(json(await alice.get(employee, 'a'))).toMatchObject({ work_time: 'PT2H', version: 3 });
  });

  it('answers 412 to an If-Match on an actual that does not exist or was deleted, and creates nothing', async () => {
    const employee = await newEmployee();
    const before = world.harness.writes();
    for (const ifMatch of ['W/"1"', '*']) expectProblem(await alice.put(employee, 'none', actualBody(), { 'if-match': ifMatch }), 412);
    expect(world.harness.writes()).toBe(before);
    expect((await alice.get(employee, 'none')).statusCode).toBe(404);

    await alice.put(employee, 'tomb', actualBody());
    expect((await alice.remove(employee, 'tomb')).statusCode).toBe(204);
    for (const ifMatch of ['W/"2"', 'W/"1"', '*']) {
      expect((await alice.put(employee, 'tomb', actualBody(), { 'if-match': ifMatch })).statusCode).toBe(412);
    }
    expect((await alice.get(employee, 'tomb')).statusCode).toBe(404);
  });

  it('deletes only with the current version', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    await alice.put(employee, 'a', actualBody({ work_time: 'PT1H' }));
    expectProblem(await alice.remove(employee, 'a', { 'if-match': 'W/"1"' }), 412);
    expect((await alice.get(employee, 'a')).statusCode).toBe(200);
    expect((await alice.remove(employee, 'a', { 'if-match': 'W/"2"' })).statusCode).toBe(204);
    expect((await alice.get(employee, 'a')).statusCode).toBe(404);
  });

  it('refuses a malformed If-Match with a violation on the header', async () => {
    const employee = await newEmployee();
    const problem = expectProblem(await alice.put(employee, 'a', actualBody(), { 'if-match': 'version 3' }), 400);
    expect(problem.violations).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
  });
});

describe('GET and DELETE /means/{employee_id}/actual/{actual_id}', () => {
  it('reads the actual with its ETag', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const response = await alice.get(employee, 'a');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('W/"1"');
    expect(json(response)).toEqual(stored(employee, 'a', 1));
  });

  it("answers 404 naming a missing actual, and never shows an actual under another employee's path", async () => {
    const employee = await newEmployee();
    const other = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const problem = expectProblem(await alice.get(employee, 'missing'), 404);
    expect(problem.detail).toContain('missing');
    expect((await alice.get(other, 'a')).statusCode).toBe(404);
    expect((await alice.remove(other, 'a')).statusCode).toBe(404);
    expect((await alice.get(employee, 'a')).statusCode).toBe(200);
  });

  it('deletes with an empty 204, after which it is gone; a second delete is 404; a new PUT continues the versions', async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'a', actualBody());
    const response = await alice.remove(employee, 'a');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await alice.get(employee, 'a')).statusCode).toBe(404);
    expectProblem(await alice.remove(employee, 'a'), 404);
    const again = await alice.put(employee, 'a', actualBody());
    expect(again.statusCode).toBe(201);
    expect(json(again)).toEqual(stored(employee, 'a', 3));
  });

  it('answers 404 to a delete of an actual that never existed, writing nothing', async () => {
    const employee = await newEmployee();
    const before = world.harness.writes();
    expectProblem(await alice.remove(employee, 'never-there'), 404);
    expect(world.harness.writes()).toBe(before);
  });
});

describe('GET /means/{employee_id}/actual', () => {
  it('lists the actuals of the employee in list order, each with its etag', async () => {
    const employee = await newEmployee();
    const other = await newEmployee();
    await alice.put(employee, 'b', actualBody({ work_time: 'PT1H' }));
    await alice.put(employee, 'a', actualBody());
    await alice.put(employee, 'a', actualBody({ work_time: 'PT2H' }));
    await alice.put(other, 'c', actualBody());
    const response = await alice.list(employee);
    expect(response.statusCode).toBe(200);
    const expected: Record<string, unknown> = {
      a: { ...stored(employee, 'a', 2, actualBody({ work_time: 'PT2H' })), etag: 'W/"2"' },
      b: { ...stored(employee, 'b', 1, actualBody({ work_time: 'PT1H' })), etag: 'W/"1"' },
    };
    expect(json(response)).toEqual({
      actuals: inListOrder(['a', 'b']).map((id) => expected[id]),
      cursors: { self: expect.any(String) },
    });
  });

  it('answers an empty list without cursors for a known employee without actuals', async () => {
    const employee = await newEmployee();
    expect(json(await alice.list(employee))).toEqual({ actuals: [], cursors: {} });
  });

  it('answers 404 for an unknown employee and for a deleted one', async () => {
    expect(expectProblem(await alice.list('nobody'), 404).detail).toContain('nobody');
    const employee = await newEmployee();
    await world.employee(tenant, employee, 2, 'deleted');
    expectProblem(await alice.list(employee), 404);
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's actuals; its employees are unknown there", async () => {
    const employee = await newEmployee();
    await alice.put(employee, 'shared', actualBody());
    expectProblem(await bob.list(employee), 404);
    expect((await bob.get(employee, 'shared')).statusCode).toBe(404);
    expect((await bob.remove(employee, 'shared')).statusCode).toBe(404);
    const before = world.harness.writes();
    expectProblem(await bob.put(employee, 'shared', actualBody()), 404);
    expect(world.harness.writes()).toBe(before);

    // once B knows an employee of the same id, it is another one, with actuals of its own
    await world.employee(otherTenant, employee);
    expect(json(await bob.list(employee))).toEqual({ actuals: [], cursors: {} });
    const own = await bob.put(employee, 'shared', actualBody({ work_time: 'PT1H' }));
    expect(own.statusCode).toBe(201);
    expect(json(own)).toEqual(stored(employee, 'shared', 1, actualBody({ work_time: 'PT1H' })));
    expect(json(await alice.get(employee, 'shared'))).toEqual(stored(employee, 'shared', 1));
    // B's delete of its employee leaves A's actuals alone
    await world.employee(otherTenant, employee, 2, 'deleted');
    expectProblem(await bob.list(employee), 404);
    expect(json(await alice.list(employee)).actuals).toHaveLength(1);
  });
});

describe('authentication', () => {
  it('answers 401 without a token', async () => {
    const response = await world.harness.app.inject({ method: 'GET', url: `${BASE}/means/emp-1/actual` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
