import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeWriteEvents } from '@rm/testkit/suites/write-events';
import { arrived as arrivedOf, eventsOf as eventsOfEntity, subjectOf, summary, topLevel } from '@rm/testkit/suites/tenant-service';
import { json, newTenant } from './helpers.js';
import {
  at,
  deploymentClient,
  expectProblem,
  shownDeployment,
  spanBody,
  startDeploymentWorld,
  storedFields,
  worldTenant,
  type Deployment,
  type DeploymentClient,
  type DeploymentWorld,
} from './deployment-helpers.js';

const tenant = newTenant('deployment_events');
let dw: DeploymentWorld;
let alice: DeploymentClient;

const service = describeWriteEvents({
  start: async () => {
    // a deleted employee or truck is asked of its owner, whose 404 makes a write naming it a 400
    dw = await startDeploymentWorld({ owners: true });
    alice = deploymentClient(dw.harness, await dw.harness.as(tenant));
    return worldTenant(dw.world, tenant, () => dw.close());
  },
  resources: [
    {
      entity: 'deployment',
      collection: 'deployments',
      place: async ({ request }) => {
        const { employees: [employee, other], trucks: [t1, t2, spare] } = await dw.fresh(tenant, 2, 3);
        const trucks = [t1!, t2!];
        return {
          ...topLevel('/deployment', 'dep'),
          body: spanBody(employee!, trucks, at(8), at(12)),
          changed: spanBody(employee!, trucks.slice(1), at(9), at(12), { total_break_time: 'PT15M' }),
          another: spanBody(other!, [spare!], at(14), at(15)),
          shown: shownDeployment,
          // its body names the employee and the trucks otherwise than its representation
          acceptsRepresentation: false,
          refusals: (item) => [
            [409, () => request('PUT', `/deployment/overlap-${randomUUID()}`, spanBody(other!, trucks, at(9), at(10)))],
            [400, () => request('PUT', item, spanBody(employee!, trucks, at(10), at(9)))],
          ],
        };
      },
    },
  ],
});

const subject = (action: string) => subjectOf(service(), 'deployment', action);
const eventsOf = (id: string) => eventsOfEntity(service(), id);
const arrived = (id: string, count: number) => arrivedOf(service(), id, count);

describe('a planning-bound deployment', () => {
  it('publishes nothing for a PUT or DELETE it refuses (409)', async () => {
    const { employees: [employee], trucks } = await dw.fresh(tenant, 1, 1);
    const planned = storedFields(employee!, trucks, at(20), at(22), { planning_id: 'p' });
    await dw.harness.service.collections.deployments.put({ tenant, key: 'ev-planned' }, planned);
    expectProblem(await alice.put('ev-planned', spanBody(employee!, trucks, at(20), at(23))), 409);
    expectProblem(await alice.remove('ev-planned'), 409);
    await arrived('ev-planned', 1);
    await dw.world.settle(tenant);
    expect(summary(eventsOf('ev-planned'))).toEqual([[subject('created'), 'deployment.created', 'ev-planned', 1]]);
  });
});

describe("an owner's delete", () => {
  it("removes the employee's external deployments, each with a deleted event, frees what they took, keeps planned ones", async () => {
    const { employees: [gone, other, spare], trucks: [t1, t2, t3] } = await dw.fresh(tenant, 3, 3);
    expect((await alice.put('emp-del-1', spanBody(gone!, [t1!, t2!], at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('emp-del-2', spanBody(gone!, [t3!], at(14), at(16)))).statusCode).toBe(201);
    expect((await alice.put('emp-del-other', spanBody(other!, [t3!], at(8), at(12)))).statusCode).toBe(201);
    const planned = storedFields(gone!, [t1!], at(20), at(22), { planning_id: 'p-emp' });
    await dw.harness.service.collections.deployments.put({ tenant, key: 'emp-del-planned' }, planned);
    const kept = json<Deployment>(await alice.get('emp-del-other'));

    await dw.employee(tenant, gone!, 2, 'deleted');

    for (const id of ['emp-del-1', 'emp-del-2']) expect((await alice.get(id)).statusCode, id).toBe(404);
    expect(json(await alice.get('emp-del-other'))).toEqual(kept);
    expect(json(await alice.get('emp-del-planned'))).toEqual({ id: 'emp-del-planned', ...planned, version: 1 });
    // the trucks they took are free again
    expect((await alice.put('emp-del-new-1', spanBody(spare!, [t1!, t2!], at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('emp-del-new-2', spanBody(other!, [t3!], at(14), at(16)))).statusCode).toBe(201);

    await arrived('emp-del-1', 2);
    await arrived('emp-del-2', 2);
    await dw.world.settle(tenant);
    expect(summary(eventsOf('emp-del-1'))).toEqual([
      [subject('created'), 'deployment.created', 'emp-del-1', 1],
      [subject('deleted'), 'deployment.deleted', 'emp-del-1', 2],
    ]);
    expect(eventsOf('emp-del-1')[1]?.event.data).toMatchObject({ id: 'emp-del-1', employee_id: gone, transport_resource_ids: [t1, t2] });
    expect(summary(eventsOf('emp-del-2')).map(([, type]) => type)).toEqual(['deployment.created', 'deployment.deleted']);
    expect(summary(eventsOf('emp-del-other')).map(([, type]) => type)).toEqual(['deployment.created']);
    expect(summary(eventsOf('emp-del-planned')).map(([, type]) => type)).toEqual(['deployment.created']);
  });

  it("removes a transport resource's external deployments and frees their employees and other trucks", async () => {
    const { employees: [e1, e2, e3], trucks: [gone, t2, t3] } = await dw.fresh(tenant, 3, 3);
    expect((await alice.put('tr-del-1', spanBody(e1!, [t2!, gone!], at(8), at(12)))).statusCode).toBe(201);
    expect((await alice.put('tr-del-2', spanBody(e2!, [t3!], at(8), at(12)))).statusCode).toBe(201);
    const planned = storedFields(e3!, [gone!], at(20), at(22), { planning_id: 'p-tr' });
    await dw.harness.service.collections.deployments.put({ tenant, key: 'tr-del-planned' }, planned);

    await dw.transportResource(tenant, gone!, 2, 'deleted');

    expect((await alice.get('tr-del-1')).statusCode).toBe(404);
    expect(json(await alice.get('tr-del-2'))).toMatchObject({ version: 1, employee_id: e2 });
    expect(json(await alice.get('tr-del-planned'))).toEqual({ id: 'tr-del-planned', ...planned, version: 1 });
    expect((await alice.put('tr-del-new', spanBody(e1!, [t2!], at(8), at(12)))).statusCode).toBe(201);
    expect(json(await alice.put('tr-del-gone', spanBody(e3!, [gone!], at(8), at(12))))).toMatchObject({
      violations: [expect.objectContaining({ field: 'transport_resources[0]' })],
    });

    await arrived('tr-del-1', 2);
    await dw.world.settle(tenant);
    expect(summary(eventsOf('tr-del-1'))).toEqual([
      [subject('created'), 'deployment.created', 'tr-del-1', 1],
      [subject('deleted'), 'deployment.deleted', 'tr-del-1', 2],
    ]);
    expect(summary(eventsOf('tr-del-2')).map(([, type]) => type)).toEqual(['deployment.created']);
  });

  it('removes a deployment written while its employee was being deleted: none of a deleted employee survives', async () => {
    const { employees: [employee], trucks } = await dw.fresh(tenant, 1, 6);
    // writes racing the delete event: each either is refused or is removed by the time both have settled
    const racing = trucks.map((truck, n) => alice.put(`race-${n}`, spanBody(employee!, [truck], at(2 * n), at(2 * n + 1))));
    const deleted = dw.employee(tenant, employee!, 2, 'deleted');
    const responses = await Promise.all(racing);
    await deleted;
    for (const response of responses) expect([201, 400]).toContain(response.statusCode);
    expect((await alice.all()).filter((deployment) => deployment.employee_id === employee)).toEqual([]);
    // and the trucks are free again
    const { employees: [other] } = await dw.fresh(tenant, 1, 0);
    expect((await alice.put('race-after', spanBody(other!, trucks, at(0), at(12)))).statusCode).toBe(201);
  });
});
