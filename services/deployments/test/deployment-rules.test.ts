import { describe, expect, it } from 'vitest';
import { json, newTenant } from './helpers.js';
import {
  at,
  deploymentBody,
  expectProblem,
  spanBody,
  storedFields,
  useDeploymentWorldWithOwners,
  violatedFields,
  type Deployment,
  type DeploymentClient,
} from './deployment-helpers.js';

const tenant = newTenant('deployment_rules');
// resources unknown here (or deleted) are asked of their owners, whose 404 is what makes them unknown
const { world: dw, clients: [alice] } = useDeploymentWorldWithOwners(tenant);

/** `employees` fresh employees and `trucks` fresh transport resources of the tenant, known to the service. */
const fresh = (employees: number, trucks: number) => dw.fresh(tenant, employees, trucks);

/** Expects a 409 naming `other` as the conflicting deployment. */
function expectConflict(response: Awaited<ReturnType<DeploymentClient['put']>>, other: string): void {
  const problem = expectProblem(response, 409);
  expect(problem.conflicting_id).toBe(other);
  expect(problem.detail).toContain(other);
}

describe('the domain rules of a deployment', () => {
  it('wants exactly one of start.location.home_base and start.location.address', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    const address = { name: 'Depot', city: 'Gent', country_code: 'BE' };
    const both = deploymentBody(employee!, trucks, { start: { at: at(6), location: { home_base: { business_id: 'hb' }, address } } });
    expect(violatedFields(await alice.put('dep-loc', both))).toEqual(['start.location']);
    const neither = deploymentBody(employee!, trucks, { start: { at: at(6), location: {} } });
    expect(violatedFields(await alice.put('dep-loc', neither))).toEqual(['start.location']);
    expect((await alice.get('dep-loc')).statusCode).toBe(404);
    const byAddress = deploymentBody(employee!, trucks, { start: { at: at(6), location: { address } } });
    expect((await alice.put('dep-loc', byAddress)).statusCode).toBe(201);
  });

  it('wants end.at after start.at', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    expect(violatedFields(await alice.put('dep-end', spanBody(employee!, trucks, at(8), at(8))))).toEqual(['end.at']);
    expect(violatedFields(await alice.put('dep-end', spanBody(employee!, trucks, at(8), at(7))))).toEqual(['end.at']);
    // the same instant in another offset is not after it either
    const sameInstant = spanBody(employee!, trucks, '2031-05-05T10:00:00+02:00', '2031-05-05T08:00:00Z');
    expect(violatedFields(await alice.put('dep-end', sameInstant))).toEqual(['end.at']);
    expect((await alice.get('dep-end')).statusCode).toBe(404);
  });

  it('wants total_break_time to fit between start.at and end.at', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    const tooLong = spanBody(employee!, trucks, at(8), at(10), { total_break_time: 'PT2H1M' });
    expect(violatedFields(await alice.put('dep-break', tooLong))).toEqual(['total_break_time']);
    const fits = spanBody(employee!, trucks, at(8), at(10), { total_break_time: 'PT2H' });
    expect((await alice.put('dep-break', fits)).statusCode).toBe(201);
  });

  it('names every unknown employee and transport resource, and writes nothing', async () => {
    const { employees: [employee], trucks: [truck] } = await fresh(1, 1);
    const response = await alice.put('dep-unknown', deploymentBody('nobody', [truck!, 'no-truck', 'no-truck-2']));
    expect(violatedFields(response)).toEqual(['employee', 'transport_resources[1]', 'transport_resources[2]']);
    expect(violatedFields(await alice.put('dep-unknown', deploymentBody(employee!, ['no-truck'])))).toEqual(['transport_resources[0]']);
    expect((await alice.get('dep-unknown')).statusCode).toBe(404);
    expect((await alice.put('dep-unknown', deploymentBody(employee!, [truck!]))).statusCode).toBe(201);
  });

  it('treats an employee or transport resource whose delete event came as unknown', async () => {
    const { employees: [gone, kept], trucks: [goneTruck, keptTruck] } = await fresh(2, 2);
    await dw.employee(tenant, gone!, 2, 'deleted');
    await dw.transportResource(tenant, goneTruck!, 2, 'deleted');
    expect(violatedFields(await alice.put('dep-gone', deploymentBody(gone!, [keptTruck!])))).toEqual(['employee']);
    const withGoneTruck = deploymentBody(kept!, [keptTruck!, goneTruck!]);
    expect(violatedFields(await alice.put('dep-gone', withGoneTruck))).toEqual(['transport_resources[1]']);
    expect((await alice.get('dep-gone')).statusCode).toBe(404);
    // a later create event brings it back
    await dw.employee(tenant, gone!, 3, 'created');
    expect((await alice.put('dep-gone', deploymentBody(gone!, [keptTruck!]))).statusCode).toBe(201);
  });

  it('validates an update as a create, leaving the deployment as it was', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    await alice.put('dep-bad-update', spanBody(employee!, trucks, at(8), at(10)));
    expect(violatedFields(await alice.put('dep-bad-update', spanBody(employee!, trucks, at(10), at(9))))).toEqual(['end.at']);
    const unknownTruck = spanBody(employee!, ['nope'], at(8), at(10));
    expect(violatedFields(await alice.put('dep-bad-update', unknownTruck))).toEqual(['transport_resources[0]']);
    expect(json(await alice.get('dep-bad-update'))).toMatchObject({ version: 1, start: { at: at(8) }, end: { at: at(10) } });
  });
});

describe('no overlap', () => {
  it("refuses a deployment that overlaps another of the same employee: 409 naming it, and writes nothing", async () => {
    const { employees: [employee], trucks: [t1, t2] } = await fresh(1, 2);
    expect((await alice.put('ov-emp-a', spanBody(employee!, [t1!], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await alice.put('ov-emp-b', spanBody(employee!, [t2!], at(11), at(13))), 'ov-emp-a');
    expectConflict(await alice.put('ov-emp-b', spanBody(employee!, [t2!], at(6), at(20))), 'ov-emp-a');
    expectConflict(await alice.put('ov-emp-b', spanBody(employee!, [t2!], at(9), at(10))), 'ov-emp-a');
    expect((await alice.get('ov-emp-b')).statusCode).toBe(404);
  });

  it('refuses a deployment that overlaps another on any one of its transport resources', async () => {
    const { employees: [e1, e2], trucks: [t1, t2, t3] } = await fresh(2, 3);
    expect((await alice.put('ov-tr-a', spanBody(e1!, [t1!, t2!], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await alice.put('ov-tr-b', spanBody(e2!, [t3!, t2!], at(7), at(9))), 'ov-tr-a');
    expect((await alice.get('ov-tr-b')).statusCode).toBe(404);
    // the free truck was not left held by the refused write
    expect((await alice.put('ov-tr-c', spanBody(e2!, [t3!], at(7), at(9)))).statusCode).toBe(201);
  });

  it('lets deployments that touch ([start, end) spans) share resources', async () => {
    const { employees: [employee], trucks } = await fresh(1, 2);
    expect((await alice.put('touch-a', spanBody(employee!, trucks, at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('touch-b', spanBody(employee!, trucks, at(12), at(16)))).statusCode).toBe(201);
    expect((await alice.put('touch-c', spanBody(employee!, trucks, at(4), at(8)))).statusCode).toBe(201);
    // the same instants in another offset
    expect((await alice.put('touch-d', spanBody(employee!, trucks, '2031-05-05T18:00:00+02:00', at(20)))).statusCode).toBe(201);
    expectConflict(await alice.put('touch-e', spanBody(employee!, trucks, at(11.99), at(12.5))), 'touch-a');
  });

  it('lets an update overlap its own earlier span', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    expect((await alice.put('self', spanBody(employee!, trucks, at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('self', spanBody(employee!, trucks, at(10), at(14)))).statusCode).toBe(200);
    expect((await alice.put('self', spanBody(employee!, trucks, at(9), at(15)))).statusCode).toBe(200);
  });

  it('refuses an update that would overlap another deployment, leaving both as they were', async () => {
    const { employees: [e1, e2], trucks: [t1, t2] } = await fresh(2, 2);
    await alice.put('upd-a', spanBody(e1!, [t1!], at(8), at(12)));
    await alice.put('upd-b', spanBody(e2!, [t2!], at(12), at(16)));
    expectConflict(await alice.put('upd-b', spanBody(e2!, [t2!, t1!], at(11), at(16))), 'upd-a');
    expectConflict(await alice.put('upd-b', spanBody(e1!, [t2!], at(11), at(16))), 'upd-a');
    const unchanged = { employee_id: e2, transport_resource_ids: [t2], start: { at: at(12) }, version: 1 };
    expect(json(await alice.get('upd-b'))).toMatchObject(unchanged);
    // upd-b still holds what it had: a third one cannot take it
    const { employees: [e3] } = await fresh(1, 0);
    expectConflict(await alice.put('upd-c', spanBody(e3!, [t2!], at(13), at(14))), 'upd-b');
  });

  it('frees the old span when a deployment moves to another time', async () => {
    const { employees: [e1, e2], trucks: [t1, t2, t3] } = await fresh(2, 3);
    await alice.put('move-a', spanBody(e1!, [t1!, t2!], at(8), at(12)));
    expect((await alice.put('move-a', spanBody(e1!, [t1!, t2!], at(14), at(18)))).statusCode).toBe(200);
    // the trucks and the employee are free at the old time, taken at the new one
    expect((await alice.put('move-b', spanBody(e2!, [t1!, t2!], at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('move-c', spanBody(e1!, [t3!], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await alice.put('move-d', spanBody(e2!, [t2!], at(17), at(19))), 'move-a');
  });

  it('frees the old transport resources when a deployment moves to others, and keeps the ones it still takes', async () => {
    const { employees: [e1, e2, e3], trucks: [t1, t2, t3] } = await fresh(3, 3);
    await alice.put('swap-a', spanBody(e1!, [t1!, t2!], at(8), at(12)));
    expect((await alice.put('swap-a', spanBody(e1!, [t2!, t3!], at(8), at(12)))).statusCode).toBe(200);
    expect((await alice.put('swap-b', spanBody(e2!, [t1!], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await alice.put('swap-c', spanBody(e3!, [t2!], at(8), at(12))), 'swap-a');
    expectConflict(await alice.put('swap-c', spanBody(e3!, [t3!], at(8), at(12))), 'swap-a');
  });

  it('frees the old employee when a deployment moves to another employee', async () => {
    const { employees: [e1, e2], trucks: [t1, t2, t3] } = await fresh(2, 3);
    await alice.put('emp-move', spanBody(e1!, [t1!], at(8), at(12)));
    expect((await alice.put('emp-move', spanBody(e2!, [t1!], at(8), at(12)))).statusCode).toBe(200);
    expect((await alice.put('emp-other', spanBody(e1!, [t2!], at(8), at(12)))).statusCode).toBe(201);
    expectConflict(await alice.put('emp-third', spanBody(e2!, [t3!], at(9), at(10))), 'emp-move');
    expect((await alice.get('emp-third')).statusCode).toBe(404);
  });

  it('frees everything a deployment took when it is deleted', async () => {
    const { employees: [e1, e2], trucks } = await fresh(2, 2);
    await alice.put('del-a', spanBody(e1!, trucks, at(8), at(12)));
    expectConflict(await alice.put('del-b', spanBody(e2!, trucks, at(8), at(12))), 'del-a');
    expect((await alice.remove('del-a')).statusCode).toBe(204);
    expect((await alice.put('del-b', spanBody(e2!, trucks, at(8), at(12)))).statusCode).toBe(201);
  });

  it('keeps holding a deployment whose update was refused with 412 or whose delete was refused with 412', async () => {
    const { employees: [e1, e2], trucks } = await fresh(2, 1);
    await alice.put('hold-a', spanBody(e1!, trucks, at(8), at(12)));
    expectProblem(await alice.put('hold-a', spanBody(e1!, trucks, at(14), at(18)), { 'if-match': 'W/"7"' }), 412);
    expectConflict(await alice.put('hold-b', spanBody(e2!, trucks, at(8), at(12))), 'hold-a');
    // the refused update held nothing either
    expect((await alice.put('hold-c', spanBody(e2!, trucks, at(14), at(18)))).statusCode).toBe(201);
    expectProblem(await alice.remove('hold-a', { 'if-match': 'W/"7"' }), 412);
    expectConflict(await alice.put('hold-b', spanBody(e2!, trucks, at(8), at(12))), 'hold-a');
  });
});

describe('planning-bound deployments', () => {
  it('answers 409 to PUT and DELETE, explaining to unrelease the route; it is listed and read', async () => {
    const { employees: [employee], trucks } = await fresh(1, 1);
    const fields = storedFields(employee!, trucks, at(8), at(12), { planning_id: 'p-1', resource_combination_id: 'rc-1' });
    await dw.harness.service.collections.deployments.put({ tenant, key: 'planned' }, fields);

    const put = expectProblem(await alice.put('planned', spanBody(employee!, trucks, at(13), at(14))), 409);
    expect(put.detail).toMatch(/unreleas/);
    expect(put.detail).toContain('p-1');
    const removed = expectProblem(await alice.remove('planned'), 409);
    expect(removed.detail).toMatch(/unreleas/);
    const read = await alice.get('planned');
    expect(read.statusCode).toBe(200);
    expect(json<Deployment>(read)).toEqual({ id: 'planned', ...fields, version: 1 });
    expect((await alice.all()).find(({ id }) => id === 'planned')).toEqual({ id: 'planned', ...fields, version: 1 });
    // an If-Match that matches does not make it writable
    expectProblem(await alice.put('planned', spanBody(employee!, trucks, at(13), at(14)), { 'if-match': 'W/"1"' }), 409);
    expectProblem(await alice.remove('planned', { 'if-match': '*' }), 409);
    expect(json(await alice.get('planned'))).toMatchObject({ version: 1, planning_id: 'p-1' });
  });
});
