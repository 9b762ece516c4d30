import { describe, expect, it } from 'vitest';
import { uniqueName } from '@rm/testkit';
import { useWorld } from '@rm/testkit/service-helpers';
import { expectProblemWithStatus } from '@rm/testkit/suites/service-under-test';
import { BASE, employeeBody, startEmployees } from './helpers.js';

const { world: harness } = useWorld(startEmployees);

/** A client of a fresh tenant whose token carries these limits, as the gateway issues them. */
async function tenantWith(limits: Record<string, number>): Promise<Record<string, string>> {
  return harness.env.bearer(uniqueName('quota'), { claims: { limits } });
}

const putEmployee = (headers: Record<string, string>, id: string) =>
  harness.app.inject({ method: 'PUT', url: `${BASE}/employee/${id}`, headers, payload: employeeBody() });
const postAvailability = (headers: Record<string, string>, employee: string, hour: number) =>
  harness.app.inject({
    method: 'POST',
    url: `${BASE}/employee/${employee}/availability`,
    headers,
    payload: { earliest_start: new Date(Date.UTC(2026, 2, 2, hour)).toISOString(), max_duration: 'PT1H' },
  });

describe("a tenant's quotas", () => {
  it('refuses an employee beyond the quota with a 409 problem, still updates the ones stored, and takes one again after a delete', async () => {
    const headers = await tenantWith({ employees: 2 });
    expect((await putEmployee(headers, 'e1')).statusCode).toBe(201);
    expect((await putEmployee(headers, 'e2')).statusCode).toBe(201);

    const refused = expectProblemWithStatus(await putEmployee(headers, 'e3'), 409, {
      title: 'Quota reached',
      detail: expect.stringContaining('stores 2 employees, its quota'),
    });
    expect(refused).toMatchObject({ status: 409, quota: 2 });
    expect((await harness.app.inject({ method: 'GET', url: `${BASE}/employee/e3`, headers })).statusCode).toBe(404);

    expect((await putEmployee(headers, 'e2')).statusCode).toBe(200);
    expect((await harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/e1`, headers })).statusCode).toBe(204);
    // at its quota, the tenant is counted again within a second: the delete makes room
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await putEmployee(headers, 'e3')).statusCode).toBe(201);
    expect((await putEmployee(headers, 'e4')).statusCode).toBe(409);
  });

  it('refuses an availability beyond the quota, counted over all the tenant’s employees', async () => {
    const headers = await tenantWith({ availabilities: 3 });
    await putEmployee(headers, 'a');
    await putEmployee(headers, 'b');
    expect((await postAvailability(headers, 'a', 1)).statusCode).toBe(201);
    expect((await postAvailability(headers, 'a', 3)).statusCode).toBe(201);
    expect((await postAvailability(headers, 'b', 1)).statusCode).toBe(201);
    const refused = expectProblemWithStatus(await postAvailability(headers, 'b', 3), 409, { detail: expect.stringContaining('3 availabilities') });
    expect(refused).toMatchObject({ quota: 3 });
  });

  it('does not limit a tenant whose token states no quota, nor other tenants', async () => {
    const limited = await tenantWith({ employees: 1 });
    const unlimited = await harness.as(uniqueName('quota'));
    expect((await putEmployee(limited, 'x1')).statusCode).toBe(201);
    expect((await putEmployee(limited, 'x2')).statusCode).toBe(409);
    for (const id of ['x1', 'x2', 'x3']) expect((await putEmployee(unlimited, id)).statusCode).toBe(201);
  });
});
