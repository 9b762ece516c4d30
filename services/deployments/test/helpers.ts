import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type PubAck } from '@nats-io/jetstream';
import type { LightMyRequestResponse } from 'fastify';
import {
  createEventValidator,
  EMPLOYEE_EVENTS,
  entityRefKey,
  eventSubject,
  serviceStream,
  type EventAction,
  type EventEnvelope,
} from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { homeBasesService } from '@rm/home-bases/service';
import { startService, type RunningService } from '@rm/runtime';
import type { deploymentsConfigSpec } from '../src/config.js';
import {
  connectTestNats,
  startNatsServer,
  startServiceHarnessWithHomeBases,
  uniqueName,
  waitFor,
  type HarnessWithHomeBases,
  type TestNats,
} from '@rm/testkit';
import { deploymentsService } from '../src/app.js';

export const BASE = '/resource-management/v1';

export type DeploymentsHarness = HarnessWithHomeBases<
  RunningService<ReturnType<typeof deploymentsService.collections>, typeof deploymentsConfigSpec>,
  RunningService<ReturnType<typeof homeBasesService.collections>, Record<never, never>>['app']
>;

/**
 * The deployments service as the runtime runs it in production, over a fresh database of the run's
 * servers, with a home-bases service of its own beside it (where a start location's home base is claimed).
 */
export function startDeployments(variables: Record<string, string> = {}): Promise<DeploymentsHarness> {
  return startServiceHarnessWithHomeBases(
    'deployments',
    (env) => startService(deploymentsService, { env, listen: false }),
    (env) => startService(homeBasesService, { env }),
    variables,
  );
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

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

const validate = createEventValidator([EMPLOYEE_EVENTS]);
/** The durable (ledger name) of the consumer that reads employee events. */
const EMPLOYEES_DURABLE = 'deployments-known-employees';

/** One message of the deployments stream. */
export interface Published {
  subject: string;
  event: EventEnvelope;
}

/**
 * The deployments service on a nats-server of its own (its consumers would otherwise start from the
 * first of every employee event the other packages' tests published on the run's shared server), with
 * a client that publishes employee events onto RM_EMPLOYEES and a recording of everything published
 * on RM_DEPLOYMENTS from its start.
 */
export interface DeploymentsWorld {
  harness: DeploymentsHarness;
  /** Every message on `rm.deployments.>` so far, in stream order, duplicates included. */
  published: Published[];
  /** Publishes an employee event as the employees service does (`msgID` the event id); refuses an invalid one. */
  publish(event: EventEnvelope): Promise<PubAck>;
  /** The version of the employee the consumer has applied (0 for none). */
  appliedVersion(tenant: string, employeeId: string): Promise<number>;
  /** Waits until the consumer has applied the employee at `version` or later (its handler has run). */
  applied(tenant: string, employeeId: string, version: number): Promise<void>;
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

export async function startDeploymentsWorld(variables: Record<string, string> = {}): Promise<DeploymentsWorld> {
  const nats = await startNatsServer();
  let client: TestNats | undefined;
  let harness: DeploymentsHarness | undefined;
  let stopRecording: (() => Promise<void>) | undefined;
  const published: Published[] = [];
  try {
    harness = await startDeployments({ ...variables, NATS_URL: nats.url });
    client = await connectTestNats({ url: nats.url });
    const jsm = await jetstreamManager(client.nc);
    // the service declared them (its consumers read them, and it publishes on its own)
    await declareServiceStream(jsm, 'employees');
    await declareServiceStream(jsm, 'transport-resources');
    const consumer = await jetstream(client.nc).consumers.get(serviceStream('deployments').name, { filter_subjects: ['rm.deployments.>'] });
    const messages = await consumer.consume();
    void (async () => {
      for await (const message of messages) published.push({ subject: message.subject, event: message.json<EventEnvelope>() });
    })();
    stopRecording = async () => void (await messages.close());
  } catch (error) {
    await harness?.close();
    await client?.close();
    await nats.stop();
    throw error;
  }
  const started = harness;
  const opened = client;
  const js = jetstream(opened.nc);

  async function publish(event: EventEnvelope): Promise<PubAck> {
    const check = validate(event);
    if (!check.ok) throw new Error(`the test built an invalid event: ${check.reason}`);
    const action = event.type.slice(event.type.lastIndexOf('.') + 1) as EventAction;
    return js.publish(eventSubject(EMPLOYEE_EVENTS, event.tenant, action), JSON.stringify(event), { msgID: event.id });
  }

  async function appliedVersion(tenant: string, employeeId: string): Promise<number> {
    const ref = { tenant, entity: EMPLOYEE_EVENTS.entity, entityId: employeeId };
    const versions = await started.service.store.appliedVersions(EMPLOYEES_DURABLE).read([ref]);
    return versions.get(entityRefKey(ref)) ?? 0;
  }

  async function applied(tenant: string, employeeId: string, version: number): Promise<void> {
    const what = `employee ${employeeId} at version ${version} applied`;
    await waitFor(what, async () => (await appliedVersion(tenant, employeeId)) >= version);
  }

  const eventsOf = (tenant: string, entityId?: string) =>
    published.filter(({ event }) => event.tenant === tenant && (entityId === undefined || event.entity_id === entityId));

  return {
    harness: started,
    published,
    publish,
    appliedVersion,
    applied,
    async employee(tenant, employeeId, version = 1, action = version === 1 ? 'created' : 'updated') {
      await publish(employeeEvent(tenant, employeeId, version, action));
      await applied(tenant, employeeId, version);
    },
    async drain(tenant) {
      const sentinel = `sentinel-${randomUUID()}`;
      await publish(employeeEvent(tenant, sentinel, 1, 'created'));
      await applied(tenant, sentinel, 1);
    },
    eventsOf,
    async settle(tenant) {
      // an actual of an employee of its own, whose event comes after every event committed before it
      const employeeId = `sentinel-${randomUUID()}`;
      await publish(employeeEvent(tenant, employeeId, 1, 'created'));
      await applied(tenant, employeeId, 1);
      const headers = await started.as(tenant);
      const url = `${BASE}/means/${employeeId}/actual/a`;
      const response = await started.app.inject({ method: 'PUT', url, headers, payload: actualBody() });
      if (response.statusCode !== 201) throw new Error(`the sentinel actual was not written: ${response.statusCode} ${response.body}`);
      await waitFor('the sentinel event', async () => eventsOf(tenant, `${employeeId}/a`).length > 0);
      await sleep(300);
    },
    async close() {
      await stopRecording?.();
      await started.close();
      await opened.close();
      await nats.stop();
    },
  };
}

/** A tenant of its own for a test file (tenant ids become subject tokens: letters, digits, underscores). */
export const newTenant = (prefix: string) => uniqueName(prefix);

/** HTTP calls on one tenant's actuals. */
export function actualClient(harness: DeploymentsHarness, headers: Record<string, string>) {
  const inject = (method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: unknown, extra: Record<string, string> = {}) =>
    harness.app.inject({
      method,
      url: `${BASE}${path}`,
      headers: { ...headers, ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
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
