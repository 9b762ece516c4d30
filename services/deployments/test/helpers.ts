import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type PubAck } from '@nats-io/jetstream';
import {
  createEventValidator,
  EMPLOYEE_EVENTS,
  entityOfType,
  eventSubject,
  serviceStream,
  TRANSPORT_RESOURCE_EVENTS,
  type EventAction,
  type EventEnvelope,
} from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { employeesService } from '@rm/employees/service';
import { startBesideHomeBases } from '@rm/home-bases/testing';
import { startService } from '@rm/runtime';
import { NOBODY_LISTENS_URL, testServers, uniqueName, waitFor } from '@rm/testkit';
import { BASE, startOnOwnNats, useWorld } from '@rm/testkit/service-helpers';
import type { Method } from '@rm/testkit/suites/tenant-service';
import { transportResourcesService } from '@rm/transport-resources/service';
import { deploymentsService } from '../src/app.js';

export { BASE, json } from '@rm/testkit/service-helpers';

export interface DeploymentsOptions {
  /**
   * Starts an employees and a transport-resources service of its own beside it, which it asks about
   * those it does not know from their events (a write naming an unknown or deleted one): what they
   * answer is what a test of such a write sees (a 404 there makes it unknown). Without them the
   * service's EMPLOYEES_URL and TRANSPORT_RESOURCES_URL are where nobody listens: a write that would
   * ask them is a 503.
   */
  owners?: boolean;
  variables?: Record<string, string>;
}

/** A resource owner's env: the run's shared nats-server, never the one a world gives the service (see startDeployments). */
const onSharedNats = (env: Record<string, string>) => ({ env: { ...env, NATS_URL: testServers().natsUrl } });

/** What the harness needs of an owner it starts: its app, to create and delete its resources. */
type Owner = { app: { inject(request: object): Promise<{ statusCode: number; body: string }> } };

/** The owners of the employees and transport resources, as companions of the harness. */
const OWNERS = {
  employees: { variable: 'EMPLOYEES_URL', start: (env: Record<string, string>) => startService(employeesService, onSharedNats(env)) },
  transport_resources: {
    variable: 'TRANSPORT_RESOURCES_URL',
    start: (env: Record<string, string>) => startService(transportResourcesService, onSharedNats(env)),
  },
};

/**
 * The deployments service as the runtime runs it in production, over a fresh database of the run's
 * servers, with the services it calls beside it: a home-bases service of its own (where a start
 * location's home base is claimed) and, with `owners`, an employees and a transport-resources service
 * of its own. The owners publish on the run's shared nats-server, never on the one a world gives the
 * service: what a test writes at an owner, the service learns only by asking it. `variables` may
 * point EMPLOYEES_URL or TRANSPORT_RESOURCES_URL elsewhere (an owner that cannot answer).
 */
export async function startDeployments({ owners = false, variables = {} }: DeploymentsOptions = {}) {
  const unanswered: Record<string, string> = owners ? {} : { EMPLOYEES_URL: NOBODY_LISTENS_URL, TRANSPORT_RESOURCES_URL: NOBODY_LISTENS_URL };
  const { companions, ...harness } = await startBesideHomeBases('deployments', deploymentsService, { ...unanswered, ...variables }, owners ? OWNERS : {});
  const started: { employees?: Owner; transport_resources?: Owner } = companions;
  const ownerOf = { employee: started.employees, 'transport-resource': started.transport_resources };

  /** Calls the owner of `entity` (an employee or a transport resource) on resource `id` as the tenant. */
  async function atOwner(tenant: string, entity: ConsumedEntity, method: 'PUT' | 'DELETE', id: string, payload?: object) {
    const owner = ownerOf[entity];
    if (owner === undefined) throw new Error(`this harness started no owner of ${entity}: start it with owners`);
    const url = `${BASE}/${entity}/${encodeURIComponent(id)}`;
    const response = await owner.app.inject({ method, url, headers: await harness.as(tenant), ...(payload === undefined ? {} : { payload }) });
    if (response.statusCode >= 300) throw new Error(`${method} ${url} at the owner: ${response.statusCode} ${response.body}`);
  }

  return {
    ...harness,
    /**
     * Writes an employee or a transport resource at its owner only (its event never reaches the
     * service), with `changes` to its body: a create, or an update of one written before.
     */
    writeAtOwner: (tenant: string, entity: ConsumedEntity, id: string, changes: object = {}) =>
      atOwner(tenant, entity, 'PUT', id, { ...OWNER_BODIES[entity], ...changes }),
    /** Deletes it there. */
    deleteAtOwner: (tenant: string, entity: ConsumedEntity, id: string) => atOwner(tenant, entity, 'DELETE', id),
  };
}

/** Valid bodies of an employee and a transport resource at their owners (start locations that are addresses). */
const OWNER_START_LOCATION = { name: 'Depot Gent', city: 'Gent', zip_code: '9000', country_code: 'BE' };
const OWNER_BODIES: Record<ConsumedEntity, object> = {
  employee: { name: { first_name: 'Ada', last_name: 'Peeters' }, start_location: OWNER_START_LOCATION },
  'transport-resource': { type: 'TRUCK', start_location: OWNER_START_LOCATION },
};

export type DeploymentsHarness = Awaited<ReturnType<typeof startDeployments>>;

type Body = Record<string, unknown>;

/** A valid actual: an 8-hour shift in the past with 7h30 worked. */
export function actualBody(overrides: Body = {}): Body {
  return { start: '2024-03-01T08:00:00Z', end: '2024-03-01T16:00:00Z', work_time: 'PT7H30M', ...overrides };
}

/** An ISO date-time `ms` milliseconds from now (negative: in the past). */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

export const HOUR = 3_600_000;

/** A valid employee as its events carry it. */
export function employeeData(id: string, version: number): Body {
  const start_location = { name: 'Depot', city: 'Gent', country_code: 'BE' };
  return { business_id: id, name: { first_name: 'Ada', last_name: 'Peeters' }, start_location, version };
}

/** The envelope of `employee.<action>` at `version`, as the employees service publishes it. */
export function employeeEvent(tenant: string, id: string, version: number, action: EventAction = 'updated'): EventEnvelope {
  const occurred_at = new Date().toISOString();
  return { id: randomUUID(), type: `employee.${action}`, tenant, entity_id: id, version, occurred_at, data: employeeData(id, version) };
}

/** The events the service consumes, by entity, and the durable (ledger name) of the consumer of each. */
const CONSUMED = {
  employee: { events: EMPLOYEE_EVENTS, durable: 'deployments-known-employees' },
  'transport-resource': { events: TRANSPORT_RESOURCE_EVENTS, durable: 'deployments-known-transport-resources' },
};

export type ConsumedEntity = keyof typeof CONSUMED;

const validate = createEventValidator(Object.values(CONSUMED).map(({ events }) => events));

/** One message of the deployments stream. */
interface Published {
  subject: string;
  event: EventEnvelope;
}

/**
 * The deployments service on a nats-server of its own (its consumers would otherwise start from the
 * first of every employee event the other packages' tests published on the run's shared server), with
 * a client that publishes employee and transport-resource events onto their streams and a recording
 * of everything published on RM_DEPLOYMENTS from its start.
 */
export interface DeploymentsWorld {
  harness: DeploymentsHarness;
  /** Publishes an employee or transport-resource event as its service does (`msgID` the event id); refuses an invalid one. */
  publish(event: EventEnvelope): Promise<PubAck>;
  /** Waits until the consumer of `entity`'s events (employees by default) has handled every one of them up to the `published` one. */
  handled(published: PubAck, entity?: ConsumedEntity): Promise<void>;
  /** Publishes `employee.<action>` at `version` and waits until it is applied. */
  employee(tenant: string, employeeId: string, version?: number, action?: EventAction): Promise<void>;
  /** Waits until every employee event published before has been handled (a sentinel after them is applied). */
  drain(tenant: string): Promise<void>;
  /** The published events of one tenant's actual `<employee>/<actual>` (or all of the tenant). */
  eventsOf(tenant: string, entityId?: string): Published[];
  /** Waits for a write after everything before it to be published, then a little more: what was due is out. */
  settle(tenant: string): Promise<void>;
  close(): Promise<void>;
}

export async function startDeploymentsWorld(options: DeploymentsOptions = {}): Promise<DeploymentsWorld> {
  const published: Published[] = [];
  let stopRecording = async () => {};
  const own = await startOnOwnNats(
    (natsUrl) => startDeployments({ ...options, variables: { ...options.variables, NATS_URL: natsUrl } }),
    async (nats) => {
      const jsm = await jetstreamManager(nats.nc);
      // the streams of the events it consumes, as the service declared them (its consumers read them)
      for (const { events } of Object.values(CONSUMED)) await declareServiceStream(jsm, events.service);
      const consumer = await jetstream(nats.nc).consumers.get(serviceStream('deployments').name, { filter_subjects: ['rm.deployments.>'] });
      const messages = await consumer.consume();
      void (async () => {
        for await (const message of messages) published.push({ subject: message.subject, event: message.json<EventEnvelope>() });
      })();
      stopRecording = async () => void (await messages.close());
    },
  );
  const { harness } = own;
  const js = jetstream(own.nats.nc);
  const jsm = await jetstreamManager(own.nats.nc);

  async function publish(event: EventEnvelope): Promise<PubAck> {
    const check = validate(event);
    if (!check.ok) throw new Error(`the test built an invalid event: ${check.reason}`);
    const action = event.type.slice(event.type.lastIndexOf('.') + 1) as EventAction;
    const { events } = CONSUMED[entityOfType(event.type) as ConsumedEntity];
    return js.publish(eventSubject(events, event.tenant, action), JSON.stringify(event), { msgID: event.id });
  }

  // the consumer acknowledges an event once its handler has run (or terminates it, dead-lettered); its ack
  // floor is the last of a run of settled ones, so an earlier event retried later holds it back
  async function handled(published: PubAck, entity: ConsumedEntity = 'employee'): Promise<void> {
    // the runtime names a durable after its database too (startConsumer)
    const durable = `${CONSUMED[entity].durable}-${harness.env.variables.MONGO_DB}`;
    const acknowledged = async () => (await jsm.consumers.info(published.stream, durable)).ack_floor.stream_seq;
    await waitFor(`the ${entity} events up to ${published.seq} handled`, async () => (await acknowledged()) >= published.seq);
  }

  const eventsOf = (tenant: string, entityId?: string) =>
    published.filter(({ event }) => event.tenant === tenant && (entityId === undefined || event.entity_id === entityId));

  return {
    harness,
    publish,
    handled,
    async employee(tenant, employeeId, version = 1, action = version === 1 ? 'created' : 'updated') {
      await handled(await publish(employeeEvent(tenant, employeeId, version, action)));
    },
    async drain(tenant) {
      await handled(await publish(employeeEvent(tenant, `sentinel-${randomUUID()}`, 1, 'created')));
    },
    eventsOf,
    async settle(tenant) {
      // an actual of an employee of its own, whose event comes after every event committed before it
      const employeeId = `sentinel-${randomUUID()}`;
      await handled(await publish(employeeEvent(tenant, employeeId, 1, 'created')));
      const headers = await harness.as(tenant);
      const url = `${BASE}/means/${employeeId}/actual/a`;
      const response = await harness.app.inject({ method: 'PUT', url, headers, payload: actualBody() });
      if (response.statusCode !== 201) throw new Error(`the sentinel actual was not written: ${response.statusCode} ${response.body}`);
      await waitFor('the sentinel event', async () => eventsOf(tenant, `${employeeId}/a`).length > 0);
      await sleep(300);
    },
    async close() {
      await stopRecording();
      await own.close();
    },
  };
}

/** A deployments world shared by the tests of the file, with an actuals client of each of `tenants`. */
export const useDeploymentsWorld = <Tenants extends string[]>(...tenants: Tenants) => useWorld(startDeploymentsWorld, actualClient, ...tenants);

/** The same, with the owners of employees and transport resources answering (DeploymentsOptions.owners). */
export const useDeploymentsWorldWithOwners = <Tenants extends string[]>(...tenants: Tenants) =>
  useWorld(() => startDeploymentsWorld({ owners: true }), actualClient, ...tenants);

/** A tenant of its own for a test file (tenant ids become subject tokens: letters, digits, underscores). */
export const newTenant = (prefix: string) => uniqueName(prefix);

/** Calls the API (below BASE) with a tenant's `headers`, and `extra` ones on top. */
export function tenantInject(harness: DeploymentsHarness, headers: Record<string, string>) {
  return (method: Method, path: string, payload?: unknown, extra: Record<string, string> = {}) =>
    harness.app.inject({
      method,
      url: `${BASE}${path}`,
      headers: { ...headers, ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

/** HTTP calls on one tenant's actuals. */
export function actualClient(harness: DeploymentsHarness, headers: Record<string, string>) {
  const inject = tenantInject(harness, headers);
  return {
    inject,
    put: (employeeId: string, actualId: string, body: unknown, extra: Record<string, string> = {}) =>
      inject('PUT', `/means/${employeeId}/actual/${actualId}`, body, extra),
    get: (employeeId: string, actualId: string, extra: Record<string, string> = {}) =>
      inject('GET', `/means/${employeeId}/actual/${actualId}`, undefined, extra),
    remove: (employeeId: string, actualId: string, extra: Record<string, string> = {}) =>
      inject('DELETE', `/means/${employeeId}/actual/${actualId}`, undefined, extra),
    list: (employeeId: string, query = '', extra: Record<string, string> = {}) =>
      inject('GET', `/means/${employeeId}/actual${query}`, undefined, extra),
  };
}

export type ActualClient = ReturnType<typeof actualClient>;

/** What a GET shows of an actual. */
export const stored = (employeeId: string, actualId: string, version: number, body: Body = actualBody()) => ({
  employee_id: employeeId,
  business_id: actualId,
  ...body,
  version,
});

/** Live (not tombstoned) actual documents of an employee, read directly from the database. */
export function liveActualCount(harness: DeploymentsHarness, tenant: string, employeeId: string): Promise<number> {
  return harness.service.store.db.collection('actuals').countDocuments({ tenant, parent: employeeId, deleted: { $exists: false } });
}
