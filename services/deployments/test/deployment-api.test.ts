import { inListOrder } from '@rm/store';
import { describe, expect, it } from 'vitest';
import { BASE, json, newTenant } from './helpers.js';
import {
  at,
  DEPOT,
  deploymentBody,
  deploymentClient,
  expectProblem,
  spanBody,
  storedFields,
  useDeploymentWorldWithOwners,
  type Deployment,
} from './deployment-helpers.js';

const tenant = newTenant('deployment_api');
const otherTenant = newTenant('deployment_api_b');
// alice works in the tenant, bob in the other one; resources unknown in bob's tenant are asked of their
// owners, whose 404 is what makes them unknown
const { world: dw, clients: [alice, bob] } = useDeploymentWorldWithOwners(tenant, otherTenant);

let counter = 0;
/** A fresh employee and `trucks` fresh transport resources, known to the service. */
async function newResources(trucks = 2): Promise<{ employee: string; trucks: string[] }> {
  counter += 1;
  const resources = { employee: `emp-${counter}`, trucks: Array.from({ length: trucks }, (_, n) => `truck-${counter}-${n}`) };
  await dw.known(tenant, { employees: [resources.employee], trucks: resources.trucks });
  return resources;
}

describe('PUT /deployment/{id}', () => {
  it('creates it: 201 with the representation, version 1, ETag and an absolute Location', async () => {
    const { employee, trucks } = await newResources();
    await dw.harness.createHomeBases(tenant, 'hb-gent');
    const start = { at: '2031-05-05T06:00:00Z', location: { home_base: { business_id: 'hb-gent' } } };
    const body = deploymentBody(employee, trucks, { start, total_break_time: 'PT30M' });
    const response = await alice.put('dep-create', body, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toEqual({
      id: 'dep-create',
      employee_id: employee,
      transport_resource_ids: trucks,
      start: { at: '2031-05-05T06:00:00Z', location: { home_base: { business_id: 'hb-gent' } } },
      end: { at: '2031-05-05T14:00:00Z' },
      total_break_time: 'PT30M',
      version: 1,
    });
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toBe(`https://api.example.com${BASE}/deployment/dep-create`);
    expect(response.headers['preference-applied']).toBe('return=representation');
    const read = await alice.get('dep-create');
    expect(read.statusCode).toBe(200);
    expect(json(read)).toEqual(json(response));
    expect(read.headers.etag).toBe('W/"1"');
  });

  it('stores date-times in UTC and keeps an address start location with its name', async () => {
    const { employee, trucks } = await newResources(1);
    const address = { name: 'Depot Noord', address_line: 'Kaai 1', city: 'Antwerpen', zip_code: '2000', country_code: 'BE' };
    const body = deploymentBody(employee, trucks, {
      start: { at: '2031-06-01T08:00:00+02:00', location: { address } },
      end: { at: '2031-06-01T17:30:00+02:00' },
    });
    const response = await alice.put('dep-utc', body);
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response)).toMatchObject({
      start: { at: '2031-06-01T06:00:00Z', location: { address } },
      end: { at: '2031-06-01T15:30:00Z' },
    });
    expect(json(response)).not.toHaveProperty('total_break_time');
  });

  it('updates it: 200, the version grows by one, a GET shows the new state; the same body again changes nothing', async () => {
    const { employee, trucks } = await newResources(3);
    expect((await alice.put('dep-update', deploymentBody(employee, trucks.slice(0, 2)))).statusCode).toBe(201);
    const changed = deploymentBody(employee, trucks.slice(1), { end: { at: '2031-05-05T16:00:00Z' } });
    const updated = await alice.put('dep-update', changed);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(json(updated)).toMatchObject({ transport_resource_ids: trucks.slice(1), end: { at: '2031-05-05T16:00:00Z' }, version: 2 });
    expect(updated.headers.etag).toBe('W/"2"');
    expect(json(await alice.get('dep-update'))).toEqual(json(updated));
    const again = await alice.put('dep-update', changed);
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ version: 2 });
  });

  it('ignores the read-only fields of a GET body', async () => {
    const { employee, trucks } = await newResources();
    const created = json<Deployment>(await alice.put('dep-readonly', deploymentBody(employee, trucks)));
    const body = {
      ...deploymentBody(employee, trucks, { end: { at: '2031-05-05T15:00:00Z' } }),
      id: 'something-else',
      employee_id: 'nobody',
      transport_resource_ids: ['x'],
      resource_combination_id: 'rc-1',
      availability_id: 'av-1',
      planning_id: 'p-9',
      version: 99,
    };
    const response = await alice.put('dep-readonly', body);
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual({ ...created, end: { at: '2031-05-05T15:00:00Z' }, version: 2 });
    // not planning-bound: it can still be changed and deleted
    expect((await alice.remove('dep-readonly')).statusCode).toBe(204);
  });

  it('answers 204 without a body for Prefer: return=minimal, with ETag and Location', async () => {
    const { employee, trucks } = await newResources();
    const response = await alice.put('dep-minimal', deploymentBody(employee, trucks), { prefer: 'return=minimal' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers.location).toMatch(new RegExp(`^http://[^/]+${BASE}/deployment/dep-minimal$`));
    expect(response.headers['preference-applied']).toBe('return=minimal');
    expect((await alice.get('dep-minimal')).statusCode).toBe(200);
  });

  it('writes with the current version or *, and answers 412 to a stale one, changing nothing', async () => {
    const { employee, trucks } = await newResources();
    await alice.put('dep-match', deploymentBody(employee, trucks));
    const second = deploymentBody(employee, trucks, { end: { at: '2031-05-05T15:00:00Z' } });
    expect((await alice.put('dep-match', second, { 'if-match': 'W/"1"' })).statusCode).toBe(200);
    const third = deploymentBody(employee, trucks, { end: { at: '2031-05-05T16:00:00Z' } });
    expect((await alice.put('dep-match', third, { 'if-match': '*' })).statusCode).toBe(200);
    const stale = deploymentBody(employee, trucks, { end: { at: '2031-05-05T20:00:00Z' } });
    expectProblem(await alice.put('dep-match', stale, { 'if-match': 'W/"1"' }), 412);
    expect(json(await alice.get('dep-match'))).toMatchObject({ end: { at: '2031-05-05T16:00:00Z' }, version: 3 });
  });

  it('answers 412 to an If-Match on a deployment that does not exist, creating nothing', async () => {
    const { employee, trucks } = await newResources();
    for (const ifMatch of ['W/"1"', '*']) {
      expectProblem(await alice.put('dep-none', deploymentBody(employee, trucks), { 'if-match': ifMatch }), 412);
    }
    expect((await alice.get('dep-none')).statusCode).toBe(404);
    // and it held nothing: another deployment takes the same resources at the same time
    expect((await alice.put('dep-none-2', deploymentBody(employee, trucks))).statusCode).toBe(201);
  });

  it('refuses a malformed body or id with 400', async () => {
    const { employee, trucks } = await newResources();
    const valid = deploymentBody(employee, trucks);
    const bodies = [
      { ...valid, employee: undefined },
      { ...valid, transport_resources: [] },
      { ...valid, transport_resources: [trucks[0], trucks[0]] },
      { ...valid, transport_resources: Array.from({ length: 11 }, (_, n) => `t-${n}`) },
      { ...valid, start: { at: 'tomorrow', location: { home_base: { business_id: 'hb' } } } },
      { ...valid, end: undefined },
      { ...valid, total_break_time: 'half an hour' },
      { ...valid, unknown_field: 1 },
    ];
    for (const body of bodies) expectProblem(await alice.put('dep-bad', body), 400);
    expectProblem(await alice.put('has space', valid), 400);
    expect((await alice.get('dep-bad')).statusCode).toBe(404);
  });

  it('refuses a start home base that does not exist in the tenant with 400, writing nothing', async () => {
    const { employee, trucks } = await newResources();
    const start = { at: '2031-05-05T06:00:00Z', location: { home_base: { business_id: 'hb-nowhere' } } };
    const problem = expectProblem(await alice.put('dep-no-hb', deploymentBody(employee, trucks, { start })), 400);
    expect(problem.violations).toEqual([expect.objectContaining({ field: 'start.location.home_base.business_id' })]);
    expect((await alice.get('dep-no-hb')).statusCode).toBe(404);
    // and held nothing
    expect((await alice.put('dep-no-hb-2', deploymentBody(employee, trucks))).statusCode).toBe(201);
  });

  it('takes up to ten transport resources', async () => {
    const { employee, trucks } = await newResources(10);
    const response = await alice.put('dep-ten', deploymentBody(employee, trucks));
    expect(response.statusCode, response.body).toBe(201);
    expect(json<Deployment>(response).transport_resource_ids).toEqual(trucks);
  });
});

describe('GET and DELETE /deployment/{id}', () => {
  it('answers 404 naming a missing deployment', async () => {
    const problem = expectProblem(await alice.get('dep-missing'), 404);
    expect(problem.detail).toContain('dep-missing');
  });

  it('deletes with an empty 204, after which it is gone; a second delete is 404; a new PUT continues the versions', async () => {
    const { employee, trucks } = await newResources();
    await alice.put('dep-del', deploymentBody(employee, trucks));
    const removed = await alice.remove('dep-del');
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await alice.get('dep-del')).statusCode).toBe(404);
    expectProblem(await alice.remove('dep-del'), 404);
    expect((await alice.all()).map(({ id }) => id)).not.toContain('dep-del');
    const again = await alice.put('dep-del', deploymentBody(employee, trucks));
    expect(again.statusCode).toBe(201);
    expect(json(again)).toMatchObject({ version: 3 });
  });

  it('answers 404 to a delete of a deployment that never existed', async () => {
    expectProblem(await alice.remove('dep-never'), 404);
  });

  it('deletes with the current version only: a stale If-Match is 412 and leaves it', async () => {
    const { employee, trucks } = await newResources();
    await alice.put('dep-del-match', deploymentBody(employee, trucks));
    await alice.put('dep-del-match', deploymentBody(employee, trucks, { total_break_time: 'PT1H' }));
    expectProblem(await alice.remove('dep-del-match', { 'if-match': 'W/"1"' }), 412);
    expect((await alice.get('dep-del-match')).statusCode).toBe(200);
    expect((await alice.remove('dep-del-match', { 'if-match': 'W/"2"' })).statusCode).toBe(204);
    expect((await alice.get('dep-del-match')).statusCode).toBe(404);
  });
});

describe('GET /deployment', () => {
  it("pages through all of the tenant's deployments, external and planning-bound, each once, in list order", async () => {
    const pagingTenant = newTenant('deployment_paging');
    const carol = deploymentClient(dw.harness, await dw.harness.as(pagingTenant));
    const employees = Array.from({ length: 7 }, (_, n) => `pe-${n}`);
    await dw.known(pagingTenant, { employees, trucks: ['pt'] });
    // one truck all day long, each deployment an hour of it
    for (const [n, employee] of employees.entries()) {
      expect((await carol.put(`d-${n}`, spanBody(employee, ['pt'], at(n), at(n + 1)))).statusCode).toBe(201);
    }
    const fields = storedFields('pe-0', ['pt'], at(30), at(31), { planning_id: 'p-1' });
    await dw.harness.service.collections.deployments.put({ tenant: pagingTenant, key: 'd-planned' }, fields);

    const ids = inListOrder([...employees.map((_, n) => `d-${n}`), 'd-planned']);
    const first = await carol.list('?limit=3');
    expect(first.statusCode).toBe(200);
    const page = json<{ deployments: Deployment[]; cursors: { next?: string } }>(first);
    expect(page.deployments.map(({ id }) => id)).toEqual(ids.slice(0, 3));
    expect(page.cursors.next).toEqual(expect.any(String));
    const all = await carol.all(3);
    expect(all.map(({ id }) => id)).toEqual(ids);
    expect(all.find(({ id }) => id === 'd-planned')).toMatchObject({ planning_id: 'p-1', employee_id: 'pe-0', version: 1 });
    expect(all.find(({ id }) => id === 'd-3')).toEqual({
      id: 'd-3',
      employee_id: 'pe-3',
      transport_resource_ids: ['pt'],
      start: { at: at(3), location: DEPOT },
      end: { at: at(4) },
      version: 1,
    });
    const empty = json<{ deployments: Deployment[] }>(await deploymentClient(dw.harness, await dw.harness.as(newTenant('empty'))).list());
    expect(empty.deployments).toEqual([]);
  });

  it('refuses a bad limit or cursor with 400', async () => {
    expectProblem(await alice.list('?limit=0'), 400);
    expectProblem(await alice.list('?limit=1001'), 400);
    expectProblem(await alice.list('?cursor=not-a-cursor'), 400);
  });
});

describe('tenants', () => {
  it("never shows, changes or deletes another tenant's deployments; its resources are not known there, and not taken", async () => {
    const { employee, trucks } = await newResources();
    expect((await alice.put('dep-tenant', deploymentBody(employee, trucks))).statusCode).toBe(201);
    expect((await bob.get('dep-tenant')).statusCode).toBe(404);
    expect((await bob.remove('dep-tenant')).statusCode).toBe(404);
    expect((await bob.all()).map(({ id }) => id)).not.toContain('dep-tenant');
    // the same ids in the other tenant are other resources: unknown until their events come, then free
    const refused = expectProblem(await bob.put('dep-tenant', deploymentBody(employee, trucks)), 400);
    expect(refused.violations).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'employee' })]));
    await dw.known(otherTenant, { employees: [employee], trucks });
    expect((await bob.put('dep-tenant-b', deploymentBody(employee, trucks))).statusCode).toBe(201);
    expect((await bob.put('dep-tenant', spanBody(employee, trucks, at(30), at(31)))).statusCode).toBe(201);
    expect(json(await alice.get('dep-tenant'))).toMatchObject({ employee_id: employee, version: 1, end: { at: '2031-05-05T14:00:00Z' } });
  });
});
