import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityRefKey, PLANNED_ROUTE_EVENTS, type PlannedDeployment } from '@rm/contracts';
import { connectTestNats, waitFor, type TestNats } from '@rm/testkit';
import { planningMessage, publishPlanningMessage, type PlanningMessage } from '../src/planning-messages.js';
import { transportResourceEvent } from './deployment-helpers.js';
import { BASE, json, newTenant, startDeploymentsWorld, type DeploymentsWorld } from './helpers.js';

// Planning-bound deployments: the planning platform's releases and unreleases of a route, consumed
// from RM_PLANNING, converge to the latest revision whatever the order and duplication; through the
// API they are read, never changed.

const PLANNED_DURABLE = 'deployments-planned-routes';
const tenant = newTenant('planned');
let world: DeploymentsWorld;
let nats: TestNats;

beforeAll(async () => {
  world = await startDeploymentsWorld();
  nats = await connectTestNats({ url: world.harness.env.variables.NATS_URL! });
});

afterAll(async () => {
  await nats?.close();
  await world?.close();
});

function planned(id: string, hour: number, overrides: Partial<PlannedDeployment> = {}): PlannedDeployment {
  return {
    id,
    employee_id: `emp-${id}`,
    transport_resource_ids: [`truck-${id}`],
    start: { at: `2026-03-02T${String(hour).padStart(2, '0')}:00:00+01:00`, location: { address: { name: 'Depot Gent', city: 'Gent' } } },
    end: { at: `2026-03-02T${String(hour + 4).padStart(2, '0')}:00:00+01:00` },
    resource_combination_id: `rc-${id}`,
    ...overrides,
  };
}

async function publish(message: PlanningMessage): Promise<void> {
  await publishPlanningMessage(jetstream(nats.nc), message);
}

/** Waits until the consumer has applied the route at `revision` or later. */
async function applied(planningId: string, revision: number): Promise<void> {
  const ref = { tenant, entity: PLANNED_ROUTE_EVENTS.entity, entityId: planningId };
  const ledger = world.harness.service.store.appliedVersions(PLANNED_DURABLE);
  await waitFor(`route ${planningId} at revision ${revision}`, async () => ((await ledger.read([ref])).get(entityRefKey(ref)) ?? 0) >= revision);
}

async function call(method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: object) {
  const headers = await world.harness.as(tenant);
  return world.harness.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload === undefined ? {} : { payload }) });
}

/** The tenant's deployments of a planning_id, by id, as the list shows them. */
async function deploymentsOf(planningId: string): Promise<Record<string, Record<string, unknown>>> {
  const page = json<{ deployments: Record<string, unknown>[] }>(await call('GET', '/deployment?limit=1000'));
  return Object.fromEntries(page.deployments.filter((deployment) => deployment.planning_id === planningId).map((d) => [d.id, d]));
}

describe('a released route', () => {
  it('creates its deployments, bound to its planning_id, in UTC; read through the API', async () => {
    const route = `route-${randomUUID()}`;
    const [a, b] = [`dep-${randomUUID()}`, `dep-${randomUUID()}`];
    await publish(planningMessage(tenant, route, 1, [planned(a, 8), planned(b, 13)]));
    await applied(route, 1);
    const found = await deploymentsOf(route);
    expect(Object.keys(found).sort()).toEqual([a, b].sort());
    expect(found[a]).toEqual({
      id: a,
      employee_id: `emp-${a}`,
      transport_resource_ids: [`truck-${a}`],
      start: { at: '2026-03-02T07:00:00Z', location: { address: { name: 'Depot Gent', city: 'Gent' } } },
      end: { at: '2026-03-02T11:00:00Z' },
      resource_combination_id: `rc-${a}`,
      planning_id: route,
      version: 1,
    });
    const one = await call('GET', `/deployment/${a}`);
    expect(one.statusCode).toBe(200);
    expect(one.headers.etag).toBe('W/"1"');
  });

  it('cannot be changed or deleted through the API: 409 naming the planning_id', async () => {
    const route = `route-${randomUUID()}`;
    const id = `dep-${randomUUID()}`;
    await publish(planningMessage(tenant, route, 1, [planned(id, 8)]));
    await applied(route, 1);
    for (const response of [await call('DELETE', `/deployment/${id}`), await call('PUT', `/deployment/${id}`, externalBody())]) {
      expect(response.statusCode).toBe(409);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json(response)).toMatchObject({ planning_id: route, detail: expect.stringContaining(`planning_id '${route}'`) });
    }
    expect((await call('GET', `/deployment/${id}`)).statusCode).toBe(200);
  });

  it('is replaced by its next release: gone, changed and new deployments', async () => {
    const route = `route-${randomUUID()}`;
    const [kept, dropped, added] = [`dep-${randomUUID()}`, `dep-${randomUUID()}`, `dep-${randomUUID()}`];
    await publish(planningMessage(tenant, route, 1, [planned(kept, 8), planned(dropped, 13)]));
    await applied(route, 1);
    await publish(planningMessage(tenant, route, 2, [planned(kept, 9), planned(added, 15)]));
    await applied(route, 2);
    const found = await deploymentsOf(route);
    expect(Object.keys(found).sort()).toEqual([kept, added].sort());
    expect(found[kept]).toMatchObject({ start: { at: '2026-03-02T08:00:00Z' }, version: 2 });
    expect((await call('GET', `/deployment/${dropped}`)).statusCode).toBe(404);
  });

  it('converges to the latest revision whatever the order and duplication of the messages', async () => {
    const route = `route-${randomUUID()}`;
    const ids = Array.from({ length: 4 }, () => `dep-${randomUUID()}`);
    const releases = [1, 2, 3].map((revision) => planningMessage(tenant, route, revision, [planned(ids[revision]!, 6 + revision)]));
    // the latest first, then older ones, one of them twice, and the latest again under a new message id
    await publish(releases[2]!);
    await publish(releases[0]!);
    await publish(releases[1]!);
    await publish(releases[0]!);
    await publish({ ...releases[2]!, event: { ...releases[2]!.event, id: randomUUID() } });
    await applied(route, 3);
    await world.drain(tenant);
    const found = await deploymentsOf(route);
    expect(Object.keys(found)).toEqual([ids[3]]);
    expect(found[ids[3]!]).toMatchObject({ start: { at: '2026-03-02T08:00:00Z' }, version: 1 });
  });

  it('is unreleased: its deployments go, and an older release arriving late brings none back', async () => {
    const route = `route-${randomUUID()}`;
    const [a, b] = [`dep-${randomUUID()}`, `dep-${randomUUID()}`];
    await publish(planningMessage(tenant, route, 1, [planned(a, 8), planned(b, 13)]));
    await applied(route, 1);
    await publish(planningMessage(tenant, route, 3, 'unreleased'));
    await applied(route, 3);
    await publish(planningMessage(tenant, route, 2, [planned(a, 8)]));
    await world.drain(tenant);
    expect(await deploymentsOf(route)).toEqual({});
    for (const id of [a, b]) expect((await call('GET', `/deployment/${id}`)).statusCode).toBe(404);
    await world.settle(tenant);
    expect(world.eventsOf(tenant, a).map(({ event }) => event.type)).toEqual(['deployment.created', 'deployment.deleted']);
  });

  it('stays when its employee is deleted (deployed combinations are not removed)', async () => {
    const route = `route-${randomUUID()}`;
    const id = `dep-${randomUUID()}`;
    await world.employee(tenant, `emp-${id}`, 1);
    await publish(planningMessage(tenant, route, 1, [planned(id, 8)]));
    await applied(route, 1);
    await world.employee(tenant, `emp-${id}`, 2, 'deleted');
    expect((await call('GET', `/deployment/${id}`)).statusCode).toBe(200);
  });
});

/** An external deployment of the planned one's employee and truck at the same time. */
function externalBody(id = 'x'): Record<string, unknown> {
  return {
    employee: `emp-${id}`,
    transport_resources: [`truck-${id}`],
    start: { at: '2026-03-02T08:00:00+01:00', location: { address: { name: 'Depot Gent', city: 'Gent' } } },
    end: { at: '2026-03-02T10:00:00+01:00' },
  };
}

describe('an external deployment beside a planned one', () => {
  it('may not overlap it on its employee or its truck: 409 naming it', async () => {
    const route = `route-${randomUUID()}`;
    const id = `dep-${randomUUID()}`;
    await world.employee(tenant, `emp-${id}`, 1);
    await knownTruck(`truck-${id}`);
    await publish(planningMessage(tenant, route, 1, [planned(id, 8)]));
    await applied(route, 1);
    const response = await call('PUT', `/deployment/ext-${randomUUID()}`, externalBody(id));
    expect(response.statusCode, response.body).toBe(409);
    expect(json(response)).toMatchObject({ conflicting_id: id });
  });
});

/** Makes a truck known as the transport-resources service's event would. */
async function knownTruck(id: string): Promise<void> {
  await world.handled(await world.publish(transportResourceEvent(tenant, id, 1, 'created')), 'transport-resource');
}

describe('npm run planning', () => {
  it('publishes a release and an unrelease that the service applies', async () => {
    const route = `route-${randomUUID()}`;
    const id = `dep-${randomUUID()}`;
    const file = join(tmpdir(), `${route}.json`);
    await writeFile(file, JSON.stringify([planned(id, 8)]));
    const cli = join(import.meta.dirname, '../dist/cli/planning.js');
    // the planning platform's own NATS user (NATS_USER's default in the CLI)
    const env = { ...process.env, NATS_URL: world.harness.env.variables.NATS_URL!, NATS_PASSWORD: world.harness.env.variables.NATS_PASSWORD! };
    const run = promisify(execFile);
    const released = await run(process.execPath, [cli, 'release', tenant, route, file, '--revision', '5'], { env });
    expect(released.stdout).toContain(`released route ${route} of tenant ${tenant} at revision 5`);
    await applied(route, 5);
    expect(Object.keys(await deploymentsOf(route))).toEqual([id]);
    await run(process.execPath, [cli, 'unrelease', tenant, route, '--revision', '6'], { env });
    await applied(route, 6);
    expect(await deploymentsOf(route)).toEqual({});
  });

  it('refuses a file of deployments that breaks the contract, naming what is wrong, and publishes nothing', async () => {
    const file = join(tmpdir(), `bad-${randomUUID()}.json`);
    await writeFile(file, JSON.stringify([{ id: 'x', employee_id: 'e' }]));
    const cli = join(import.meta.dirname, '../dist/cli/planning.js');
    const env = { ...process.env, NATS_URL: world.harness.env.variables.NATS_URL!, NATS_PASSWORD: world.harness.env.variables.NATS_PASSWORD! };
    const failed = await promisify(execFile)(process.execPath, [cli, 'release', tenant, 'r', file], { env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining('not a valid planning message') });
  });
});
