import { inListOrder, keyBetween } from '@rm/store';
import { describePaging } from '@rm/testkit/suites/paging';
import { expectProblem, withTenantSetup, type Headers } from '@rm/testkit/suites/service-under-test';
import { beforeAll, describe, expect, it } from 'vitest';
import { actualBody, actualClient, BASE, json, startDeploymentsWorld, stored, type ActualClient } from './helpers.js';

const EMPLOYEE = 'emp-paging';
const NEIGHBOUR = 'emp-neighbour';
/** The actuals in list order (lists read by listPosition, not by id). */
const ids = inListOrder(['a01', 'a02', 'a03', 'a04', 'a05']);
/** A neighbour's actuals: one before this employee's first, one between its second and third, one after its last. */
const neighbourIds = [keyBetween('a00', undefined, ids[0]), keyBetween('a00', ids[1], ids[2]), keyBetween('a00', ids[4], undefined)];
const body = (id: string) => actualBody({ work_time: `PT${id.slice(1)}M` });

const paging = describePaging('GET /means/{employee_id}/actual', {
  async start() {
    const world = await startDeploymentsWorld();
    // a neighbour's actuals lie between and around the ones each test lists: never listed with them
    const setUp = async (tenant: string, headers: Headers) => {
      await world.employee(tenant, EMPLOYEE);
      await world.employee(tenant, NEIGHBOUR);
      for (const id of neighbourIds) expect((await actualClient(world.harness, headers).put(NEIGHBOUR, id, actualBody())).statusCode).toBe(201);
    };
    return withTenantSetup(world.harness, setUp, () => world.close());
  },
  body,
  listed: (id) => ({ ...stored(EMPLOYEE, id, 1, body(id)), etag: 'W/"1"' }),
  path: `${BASE}/means/${EMPLOYEE}/actual`,
  listProperty: 'actuals',
  ids,
  listOrder: { inListOrder, keyBetween },
});

describe('GET /means/{employee_id}/actual, of one employee among others', () => {
  let client: ActualClient;

  beforeAll(async () => {
    const service = paging.service();
    client = actualClient(service, await service.as('tenant-neighbours'));
  });

  it("lists only the named employee's actuals", async () => {
    const page = json<{ actuals: { employee_id: string; business_id: string }[] }>(await client.list(NEIGHBOUR));
    expect(page.actuals.map((actual) => actual.business_id)).toEqual(neighbourIds);
    expect(page.actuals.every((actual) => actual.employee_id === NEIGHBOUR)).toBe(true);
  });

  it("refuses another employee's cursor, naming cursor", async () => {
    const { cursors } = json<{ cursors: { next: string } }>(await client.list(NEIGHBOUR, '?limit=2'));
    const response = await client.list(EMPLOYEE, `?cursor=${encodeURIComponent(cursors.next)}`);
    expect(expectProblem(response)).toEqual([{ field: 'cursor', message: expect.any(String) }]);
  });
});
