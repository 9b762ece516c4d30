import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { NOBODY_LISTENS_URL, startSilentServer } from '@rm/testkit';
import { useWorld } from '@rm/testkit/service-helpers';
import { actualBody, actualClient, liveActualCount, newTenant, type ActualClient, type ConsumedEntity } from './helpers.js';
import {
  calendarEntries,
  deploymentBody,
  deploymentClient,
  expectProblem,
  pauseAt,
  startDeploymentWorld,
  useDeploymentWorldWithOwners,
  violatedFields,
} from './deployment-helpers.js';

// Read-your-writes across services (issue 28): the service knows employees and transport resources
// from their owners' events, which come a moment after the owner's write, so a write naming one it
// does not know asks the owner. The harness's owners publish where the service never reads
// (helpers.ts): what a test creates at an owner, the service knows only by asking.

const tenant = newTenant('read_your_writes');
const { world: dw, clients: [deployments] } = useDeploymentWorldWithOwners(tenant);
let actuals: ActualClient;

beforeAll(async () => {
  actuals = actualClient(dw.harness, await dw.harness.as(tenant));
});

/** An employee and a transport resource created at their owners only. */
async function createdAtOwners(): Promise<{ employee: string; truck: string }> {
  const made = { employee: `emp-${randomUUID()}`, truck: `truck-${randomUUID()}` };
  await dw.harness.writeAtOwner(tenant, 'employee', made.employee);
  await dw.harness.writeAtOwner(tenant, 'transport-resource', made.truck);
  return made;
}

/** What the service has recorded of a resource of the tenant (known_resources), if anything. */
const recorded = (entity: ConsumedEntity, id: string) =>
  dw.harness.service.store.db.collection<{ _id: string }>('known_resources').findOne({ _id: `${tenant}|${entity}|${id}` });

describe('a resource the service has no event of', () => {
  it('is asked of its owner: an actual of an employee created there a moment ago is written, and kept', async () => {
    const { employee } = await createdAtOwners();
    const put = await actuals.put(employee, 'a1', actualBody());
    expect(put.statusCode, put.body).toBe(201);
    // the check again after the write, which reads this copy only, found what the owner said
    expect((await actuals.get(employee, 'a1')).statusCode).toBe(200);
    expect((await actuals.list(employee)).statusCode).toBe(200);
    expect(await recorded('employee', employee)).toMatchObject({ version: 1, deleted: false });
  });

  it('is asked of its owner: a deployment naming an employee and a transport resource created there a moment ago is written', async () => {
    const { employee, truck } = await createdAtOwners();
    const put = await deployments.put('d-fresh', deploymentBody(employee, [truck]));
    expect(put.statusCode, put.body).toBe(201);
    expect((await deployments.get('d-fresh')).statusCode).toBe(200);
    expect(await recorded('transport-resource', truck)).toMatchObject({ version: 1, deleted: false });
  });

  it('is still unknown when its owner does not have it either: 404 and 400 naming it, nothing written', async () => {
    const { employee, truck } = await createdAtOwners();
    const writes = dw.harness.writes();
    expect(expectProblem(await actuals.put('nobody', 'a1', actualBody()), 404).detail).toBe("employee 'nobody' does not exist");
    expectProblem(await actuals.list('nobody'), 404);
    expect(violatedFields(await deployments.put('d-unknown', deploymentBody('nobody', [truck, 'no-truck'])))).toEqual([
      'employee',
      'transport_resources[1]',
    ]);
    expect(violatedFields(await deployments.put('d-unknown', deploymentBody(employee, ['no-truck'])))).toEqual(['transport_resources[0]']);
    // valid ids that no URL can name, so nothing has them: not a 503 for an owner asked about another path
    expect(violatedFields(await deployments.put('d-unknown', deploymentBody('.', ['..'])))).toEqual(['employee', 'transport_resources[0]']);
    expect(dw.harness.writes()).toBe(writes);
    expect((await deployments.get('d-unknown')).statusCode).toBe(404);
    expect(await recorded('employee', 'nobody')).toBeNull();
  });

  it("records the owner's version from its ETag, which a late event of an older version never undoes", async () => {
    const { employee } = await createdAtOwners();
    await dw.harness.writeAtOwner(tenant, 'employee', employee, { name: { first_name: 'Ada', last_name: 'Janssens' } }); // version 2 there
    expect((await actuals.put(employee, 'a1', actualBody())).statusCode).toBe(201);
    expect(await recorded('employee', employee)).toMatchObject({ version: 2, deleted: false });
    await dw.employee(tenant, employee, 1, 'created');
    expect(await recorded('employee', employee)).toMatchObject({ version: 2, deleted: false });
    expect((await actuals.get(employee, 'a1')).statusCode).toBe(200);
  });

  it('refuses a resource its owner has deleted once the delete event came, and removes what named it', async () => {
    const { employee, truck } = await createdAtOwners();
    expect((await actuals.put(employee, 'a1', actualBody())).statusCode).toBe(201);
    expect((await deployments.put('d-deleted', deploymentBody(employee, [truck]))).statusCode).toBe(201);
    await dw.harness.deleteAtOwner(tenant, 'employee', employee);
    await dw.harness.deleteAtOwner(tenant, 'transport-resource', truck);
    await dw.employee(tenant, employee, 2, 'deleted');
    await dw.transportResource(tenant, truck, 2, 'deleted');
    expect(await liveActualCount(dw.harness, tenant, employee)).toBe(0);
    expect((await deployments.get('d-deleted')).statusCode).toBe(404);

    const writes = dw.harness.writes();
    expectProblem(await actuals.put(employee, 'a2', actualBody()), 404);
    expect(violatedFields(await deployments.put('d-deleted-2', deploymentBody(employee, [truck])))).toEqual(['employee', 'transport_resources[0]']);
    expect(dw.harness.writes()).toBe(writes);
  });

  it("keeps a write that named a resource its owner deleted and created again, when the delete's event comes after", async () => {
    const { employee } = await createdAtOwners();
    await dw.harness.deleteAtOwner(tenant, 'employee', employee);
    await dw.harness.writeAtOwner(tenant, 'employee', employee);
    const put = await actuals.put(employee, 'a-again', actualBody());
    expect(put.statusCode, put.body).toBe(201);
    const { version } = (await recorded('employee', employee)) as unknown as { version: number };
    // the delete's event, older than what the owner said, arrives only now: what names the new one stays
    await dw.employee(tenant, employee, version - 1, 'deleted');
    expect((await actuals.get(employee, 'a-again')).statusCode).toBe(200);
    expect(await liveActualCount(dw.harness, tenant, employee)).toBe(1);
  });

  it('never lets an older answer of the owner undo a delete event: a write that read it is refused, writing nothing', async () => {
    // the owner answered with version 1 just before its delete, whose event (version 2) was recorded first
    const { employee, truck } = await createdAtOwners();
    await dw.employee(tenant, employee, 2, 'deleted');
    await dw.transportResource(tenant, truck, 2, 'deleted');
    const writes = dw.harness.writes();
    expectProblem(await actuals.put(employee, 'a1', actualBody()), 404);
    expect(violatedFields(await deployments.put('d-stale', deploymentBody(employee, [truck])))).toEqual(['employee', 'transport_resources[0]']);
    expect(dw.harness.writes()).toBe(writes);
    expect(await recorded('employee', employee)).toMatchObject({ version: 2, deleted: true });
    expect(await liveActualCount(dw.harness, tenant, employee)).toBe(0);
    expect((await deployments.get('d-stale')).statusCode).toBe(404);
  });
});

describe('an owner that cannot answer', () => {
  const outageTenant = newTenant('read_your_writes_outage');
  // the employees service takes the connection and never answers; nobody listens for the transport-resources service
  const { world: silent } = useWorld(startSilentServer);
  const { world: outage, clients: [outageDeployments] } = useWorld(
    () => startDeploymentWorld({ variables: { EMPLOYEES_URL: silent.url, TRANSPORT_RESOURCES_URL: NOBODY_LISTENS_URL, OWNERS_TIMEOUT_MS: '300' } }),
    deploymentClient,
    outageTenant,
  );
  let outageActuals: ActualClient;

  beforeAll(async () => {
    outageActuals = actualClient(outage.harness, await outage.harness.as(outageTenant));
  });

  it('makes a write that needs its answer a 503, which writes nothing', async () => {
    await outage.known(outageTenant, { employees: ['e-known'], trucks: ['t-known'] });
    const writes = outage.harness.writes();

    const actual = expectProblem(await outageActuals.put('e-new', 'a1', actualBody()), 503);
    expect(actual.detail).toBe('employees cannot be checked right now; retry later');
    expect(expectProblem(await outageActuals.list('e-new'), 503).detail).toBe('employees cannot be checked right now; retry later');
    expect(await liveActualCount(outage.harness, outageTenant, 'e-new')).toBe(0);

    const truck = expectProblem(await outageDeployments.put('d1', deploymentBody('e-known', ['t-known', 't-new'])), 503);
    expect(truck.detail).toBe('transport resources cannot be checked right now; retry later');
    expectProblem(await outageDeployments.put('d1', deploymentBody('e-new', ['t-known'])), 503);
    expect((await outageDeployments.get('d1')).statusCode).toBe(404);
    expect(await calendarEntries(outage.harness, outageTenant, 'employee', 'e-known')).toEqual([]);
    expect(await calendarEntries(outage.harness, outageTenant, 'transport-resource', 't-known')).toEqual([]);
    expect(outage.harness.writes()).toBe(writes);
  });

  it('is not asked again after the write: a delete event that came meanwhile undoes the write, not a 503', async () => {
    await outage.known(outageTenant, { employees: ['e-gone', 'e-stays'], trucks: ['t-gone'] });
    const { actuals, deployments } = outage.harness.service.collections;
    // each write held up just before its commit, while the delete event is recorded and its dependants removed
    const actualPut = pauseAt(actuals, 'put', (id: { parent: string }) => id.parent === 'e-gone');
    const [actual] = await actualPut.interleave(
      () => outageActuals.put('e-gone', 'a1', actualBody()),
      () => outage.employee(outageTenant, 'e-gone', 2, 'deleted'),
    );
    expectProblem(actual, 404);
    expect(await liveActualCount(outage.harness, outageTenant, 'e-gone')).toBe(0);

    const deploymentPut = pauseAt(deployments, 'put', (id: { key: string }) => id.key === 'd-gone');
    const [deployment] = await deploymentPut.interleave(
      () => outageDeployments.put('d-gone', deploymentBody('e-stays', ['t-gone'])),
      () => outage.transportResource(outageTenant, 't-gone', 2, 'deleted'),
    );
    expect(violatedFields(deployment)).toEqual(['transport_resources[0]']);
    expect((await outageDeployments.get('d-gone')).statusCode).toBe(404);
  });

  it('is not asked about what the service knows from its events', async () => {
    await outage.known(outageTenant, { employees: ['e-events'], trucks: ['t-events'] });
    expect((await outageActuals.put('e-events', 'a1', actualBody())).statusCode).toBe(201);
    expect((await outageDeployments.put('d-events', deploymentBody('e-events', ['t-events']))).statusCode).toBe(201);
  });
});
