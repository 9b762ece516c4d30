import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { DeploymentFields, EventAction, EventEnvelope } from '@rm/contracts';
import { useWorld } from '@rm/testkit/service-helpers';
import type { TenantService } from '@rm/testkit/suites/tenant-service';
import {
  json,
  newTenant,
  startDeploymentsWorld,
  tenantInject,
  type DeploymentsHarness,
  type DeploymentsOptions,
  type DeploymentsWorld,
} from './helpers.js';

type Body = Record<string, unknown>;

/** A valid transport resource as its events carry it. */
export function transportResourceData(id: string, version: number): Body {
  return { business_id: id, type: 'TRUCK', inactive: false, version };
}

/** The envelope of `transport-resource.<action>` at `version`, as the transport-resources service publishes it. */
export function transportResourceEvent(tenant: string, id: string, version: number, action: EventAction = 'updated'): EventEnvelope {
  const occurred_at = new Date().toISOString();
  const data = transportResourceData(id, version);
  return { id: randomUUID(), type: `transport-resource.${action}`, tenant, entity_id: id, version, occurred_at, data };
}

/** Employees and transport resources by id. */
interface Resources {
  employees: string[];
  trucks: string[];
}

/**
 * The deployments world of helpers.ts (its own nats-server, employee and transport-resource events,
 * the recording of RM_DEPLOYMENTS), with employees and transport resources made known to the service.
 */
export interface DeploymentWorld {
  world: DeploymentsWorld;
  harness: DeploymentsHarness;
  /** Publishes `employee.<action>` at `version` and waits until it is applied. */
  employee(tenant: string, id: string, version?: number, action?: EventAction): Promise<void>;
  /** Publishes `transport-resource.<action>` at `version` and waits until it is applied (its handler has run). */
  transportResource(tenant: string, id: string, version?: number, action?: EventAction): Promise<void>;
  /** Makes the employees and transport resources known (created at version 1), all at once. */
  known(tenant: string, resources: Partial<Resources>): Promise<void>;
  /** `employees` new employees and `trucks` new transport resources, known to the service. */
  fresh(tenant: string, employees: number, trucks: number): Promise<Resources>;
  /** A tenant of its own with employees `e-<n>` and trucks `t-<n>` known to the service, and a client of it. */
  tenantWith(prefix: string, employees: number, trucks: number): Promise<{ tenant: string; client: DeploymentClient } & Resources>;
  close(): Promise<void>;
}

export async function startDeploymentWorld(options: DeploymentsOptions = {}): Promise<DeploymentWorld> {
  const world = await startDeploymentsWorld(options);
  const { harness } = world;

  const transportResource = async (tenant: string, id: string, version = 1, action: EventAction = version === 1 ? 'created' : 'updated') => {
    await world.handled(await world.publish(transportResourceEvent(tenant, id, version, action)), 'transport-resource');
  };

  const known = async (tenant: string, { employees = [], trucks = [] }: Partial<Resources>) => {
    await Promise.all([...employees.map((id) => world.employee(tenant, id)), ...trucks.map((id) => transportResource(tenant, id))]);
  };

  return {
    world,
    harness,
    employee: (tenant, id, version, action) => world.employee(tenant, id, version, action),
    transportResource,
    known,
    async fresh(tenant, employees, trucks) {
      const made = {
        employees: Array.from({ length: employees }, () => `emp-${randomUUID()}`),
        trucks: Array.from({ length: trucks }, () => `truck-${randomUUID()}`),
      };
      await known(tenant, made);
      return made;
    },
    async tenantWith(prefix, employees, trucks) {
      const tenant = newTenant(prefix);
      const made = {
        employees: Array.from({ length: employees }, (_, n) => `e-${n}`),
        trucks: Array.from({ length: trucks }, (_, n) => `t-${n}`),
      };
      await known(tenant, made);
      return { tenant, client: deploymentClient(harness, await harness.as(tenant)), ...made };
    },
    close: () => world.close(),
  };
}

/** A deployment world shared by the tests of the file, with a deployments client of each of `tenants`. */
export const useDeploymentWorld = <Tenants extends string[]>(...tenants: Tenants) => useWorld(startDeploymentWorld, deploymentClient, ...tenants);

/** The same, with the owners of employees and transport resources answering (DeploymentsOptions.owners). */
export const useDeploymentWorldWithOwners = <Tenants extends string[]>(...tenants: Tenants) =>
  useWorld(() => startDeploymentWorld({ owners: true }), deploymentClient, ...tenants);

/** The start location of the bodies below: an address (a home base would have to exist in the home-bases service). */
export const DEPOT = { address: { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' } };

/** A valid PUT body: `employee` with `trucks` from `start` to `end` (an 8-hour day in 2031 by default). */
export function deploymentBody(employee: string, trucks: string[], overrides: Body = {}): Body {
  return {
    employee,
    transport_resources: trucks,
    start: { at: '2031-05-05T06:00:00Z', location: DEPOT },
    end: { at: '2031-05-05T14:00:00Z' },
    ...overrides,
  };
}

/** A body whose span is `[start, end)` (ISO date-times). */
export const spanBody = (employee: string, trucks: string[], start: string, end: string, extra: Body = {}): Body =>
  deploymentBody(employee, trucks, { start: { at: start, location: DEPOT }, end: { at: end }, ...extra });

/** A UTC date-time `hours` hours after 2031-05-05T00:00Z (fractions allowed). */
export const at = (hours: number) => new Date(Date.UTC(2031, 4, 5) + hours * 3_600_000).toISOString().replace('.000Z', 'Z');

/** HTTP calls on one tenant's deployments. */
export function deploymentClient(harness: DeploymentsHarness, headers: Record<string, string>) {
  const inject = tenantInject(harness, headers);
  return {
    inject,
    put: (id: string, body: unknown, extra: Record<string, string> = {}) => inject('PUT', `/deployment/${id}`, body, extra),
    get: (id: string, extra: Record<string, string> = {}) => inject('GET', `/deployment/${id}`, undefined, extra),
    remove: (id: string, extra: Record<string, string> = {}) => inject('DELETE', `/deployment/${id}`, undefined, extra),
    list: (query = '', extra: Record<string, string> = {}) => inject('GET', `/deployment${query}`, undefined, extra),
    /** Every deployment of the tenant, following `cursors.next`. */
    async all(limit = 100): Promise<Deployment[]> {
      const found: Deployment[] = [];
      let query = `?limit=${limit}`;
      for (let page = 0; page < 1000; page += 1) {
        const response = await inject('GET', `/deployment${query}`);
        if (response.statusCode !== 200) throw new Error(`list: ${response.statusCode} ${response.body}`);
        const body = json<{ deployments: Deployment[]; cursors: { next?: string } }>(response);
        found.push(...body.deployments);
        if (body.cursors.next === undefined) return found;
        query = `?limit=${limit}&cursor=${encodeURIComponent(body.cursors.next)}`;
      }
      throw new Error('the list never ended');
    },
  };
}

export type DeploymentClient = ReturnType<typeof deploymentClient>;

/** A deployment as the API shows it. */
export interface Deployment {
  id: string;
  employee_id: string;
  transport_resource_ids: string[];
  start: { at: string; location: Body };
  end: { at: string };
  total_break_time?: string;
  planning_id?: string;
  version: number;
}

/** Checks that the response is a problem+json of `status`; returns its body. */
export function expectProblem(response: LightMyRequestResponse, status: number): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = json(response);
  expect(problem).toMatchObject({ title: expect.any(String), detail: expect.any(String) });
  return problem;
}

/** The fields of the violations of a 400. */
export function violatedFields(response: LightMyRequestResponse): string[] {
  const problem = expectProblem(response, 400);
  return ((problem.violations ?? []) as { field: string }[]).map(({ field }) => field);
}

/** The resources a deployment takes, as `employee|<id>` and `transport-resource|<id>`. */
export const resourcesOf = (deployment: Pick<Deployment, 'employee_id' | 'transport_resource_ids'>) => [
  `employee|${deployment.employee_id}`,
  ...deployment.transport_resource_ids.map((id) => `transport-resource|${id}`),
];

/** Every pair of deployments that share a resource over overlapping spans (`[start, end)`), as `a/b on resource`. */
export function overlapsAmong(deployments: Deployment[]): string[] {
  const found: string[] = [];
  for (const [index, a] of deployments.entries()) {
    for (const b of deployments.slice(index + 1)) {
      const apart = Date.parse(a.end.at) <= Date.parse(b.start.at) || Date.parse(b.end.at) <= Date.parse(a.start.at);
      if (apart) continue;
      const shared = resourcesOf(a).filter((resource) => resourcesOf(b).includes(resource));
      for (const resource of shared) found.push(`${a.id}/${b.id} on ${resource}`);
    }
  }
  return found;
}

/** One entry of a calendar document, as calendars.ts stores it. */
export interface CalendarEntry {
  deployment: string;
  start: Date;
  end: Date;
  write?: string;
  since: Date;
}

/** The raw `calendars` collection of the service (documents `<tenant>|<entity>|<id>`). */
export function calendarsOf(harness: DeploymentsHarness) {
  return harness.service.store.db.collection<{ _id: string; version: number; entries: CalendarEntry[] }>('calendars');
}

/** Older than STALE_PENDING_MS (60 s): what a crashed writer's pending entry looks like a while later. */
export const staleSince = () => new Date(Date.now() - 5 * 60_000);

/**
 * Adds `entries` to the calendar of a resource as a crashed writer would have left them (creating
 * the calendar document if there is none), bumping its version as every write does.
 */
export async function plantEntries(
  harness: DeploymentsHarness,
  tenant: string,
  entity: 'employee' | 'transport-resource',
  id: string,
  entries: CalendarEntry[],
): Promise<void> {
  const calendars = calendarsOf(harness);
  const _id = `${tenant}|${entity}|${id}`;
  const current = await calendars.findOne({ _id });
  if (current === null) {
    await calendars.insertOne({ _id, version: 1, entries });
    return;
  }
  const { modifiedCount } = await calendars.updateOne(
    { _id, version: current.version },
    { $set: { version: current.version + 1, entries: [...current.entries, ...entries] } },
  );
  if (modifiedCount !== 1) throw new Error(`calendar ${_id} changed while the test planted entries`);
}

/** The entries of a resource's calendar (none when it has no document). */
export async function calendarEntries(
  harness: DeploymentsHarness,
  tenant: string,
  entity: 'employee' | 'transport-resource',
  id: string,
): Promise<CalendarEntry[]> {
  return (await calendarsOf(harness).findOne({ _id: `${tenant}|${entity}|${id}` }))?.entries ?? [];
}

/** Stored fields of a deployment as the repository keeps them (for writing one directly, like a released route's). */
export function storedFields(employee: string, trucks: string[], start: string, end: string, extra: Partial<DeploymentFields> = {}) {
  const fields: DeploymentFields = {
    employee_id: employee,
    transport_resource_ids: trucks,
    start: { at: start, location: DEPOT },
    end: { at: end },
    ...extra,
  };
  return fields;
}

/** A calendar entry as `<entity>|<id> <deployment> <start>/<end>`, `pending` when a write still holds it. */
const entryLine = (resource: string, deployment: string, start: Date | string, end: Date | string, pending = false) =>
  `${resource} ${deployment} ${new Date(start).toISOString()}/${new Date(end).toISOString()}${pending ? ' pending' : ''}`;

/**
 * What the tenant's calendars hold, against what its external deployments take: every committed
 * deployment once on each of its resources, nothing else (no pending entry, nothing of a deployment
 * that is gone or no longer takes the resource). Empty when they agree.
 */
export async function calendarDisagreements(harness: DeploymentsHarness, tenant: string, deployments: Deployment[]): Promise<string[]> {
  const prefix = `${tenant}|`;
  const documents = (await calendarsOf(harness).find({}).toArray()).filter(({ _id }) => _id.startsWith(prefix));
  const held = documents.flatMap(({ _id, entries }) =>
    entries.map(({ deployment, start, end, write }) => entryLine(_id.slice(prefix.length), deployment, start, end, write !== undefined)),
  );
  const expected = deployments
    .filter((deployment) => deployment.planning_id === undefined)
    .flatMap(({ id, start, end, ...taken }) => resourcesOf(taken).map((resource) => entryLine(resource, id, start.at, end.at)));
  const extra = held.filter((line) => !expected.includes(line)).map((line) => `held but not committed: ${line}`);
  const missing = expected.filter((line) => !held.includes(line)).map((line) => `committed but not held: ${line}`);
  const duplicated = held.filter((line, index) => held.indexOf(line) !== index).map((line) => `held twice: ${line}`);
  return [...extra, ...missing, ...duplicated];
}

/**
 * Holds up the first call of `object[method]` whose arguments `match`: `reached` resolves once it is
 * waiting, and it goes on (with the original method back in place) on `release()`. It forces one
 * interleaving of concurrent writes that real timing produces only now and then.
 */
export function pauseAt<T extends object>(object: T, method: keyof T & string, match: (...args: never[]) => boolean) {
  const target = object as Record<string, unknown>;
  const original = target[method] as (...args: unknown[]) => Promise<unknown>;
  let arrive!: () => void;
  let go!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (go = resolve));
  let paused = false;
  target[method] = async (...args: unknown[]) => {
    if (!paused && (match as (...args: unknown[]) => boolean)(...args)) {
      paused = true;
      arrive();
      await released;
    }
    return original.apply(object, args);
  };
  const release = () => {
    target[method] = original;
    go();
  };
  return {
    reached,
    release,
    /**
     * Starts `held` (which makes the call that pauses) and, once that call is held up, runs `meanwhile`
     * to its end; then lets `held` go on. Returns both answers; the pause ends whatever happens.
     */
    async interleave<Held, Meanwhile>(held: () => Promise<Held>, meanwhile: () => Promise<Meanwhile>): Promise<[Held, Meanwhile]> {
      try {
        const answer = held();
        await reached;
        const other = await meanwhile();
        release();
        return [await answer, other];
      } finally {
        release();
      }
    },
  };
}

/** What a GET shows of deployment `id` written with `body` at `version`. */
export function shownDeployment(id: string, { employee, transport_resources, ...rest }: Body, version: number): Body {
  return { id, employee_id: employee, transport_resource_ids: transport_resources, ...rest, version };
}

/** One tenant of the world as the suites of @rm/testkit see a service; `close` ends what the test started. */
export async function worldTenant(world: DeploymentsWorld, tenant: string, close: () => Promise<void>): Promise<TenantService> {
  const headers = await world.harness.as(tenant);
  return {
    tenant,
    service: 'deployments',
    request: tenantInject(world.harness, headers),
    published: () => world.eventsOf(tenant),
    settle: () => world.settle(tenant),
    writes: () => world.harness.writes(),
    db: world.harness.service.store.db,
    close,
  };
}
