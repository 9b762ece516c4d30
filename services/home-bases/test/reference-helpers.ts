import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type PubAck } from '@nats-io/jetstream';
import type { LightMyRequestResponse } from 'fastify';
import {
  AVAILABILITY_EVENTS,
  createEventValidator,
  EMPLOYEE_EVENTS,
  entityOfType,
  entityRefKey,
  TRANSPORT_RESOURCE_EVENTS,
  type EntityEvents,
  type EventAction,
  type EventEnvelope,
} from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { INTERNAL_API_KEY_HEADER } from '@rm/service-kit';
import { waitFor } from '@rm/testkit';
import { startOnOwnNats, useWorld } from '@rm/testkit/service-helpers';
import { fresh } from '@rm/testkit/suites/home-base-references';
import { BASE, homeBaseBody, json, startHomeBases, type HomeBasesHarness } from './helpers.js';

/** The entities whose events name home bases, by entity, and the home-bases consumer that reads each (its ledger's name). */
const CONTRACTS: Record<string, { events: EntityEvents; durable: string }> = {
  employee: { events: EMPLOYEE_EVENTS, durable: 'home-bases-references-employees' },
  availability: { events: AVAILABILITY_EVENTS, durable: 'home-bases-references-employees' },
  'transport-resource': { events: TRANSPORT_RESOURCE_EVENTS, durable: 'home-bases-references-transport-resources' },
};

const validate = createEventValidator(Object.values(CONTRACTS).map(({ events }) => events));

type Data = Record<string, unknown>;

/** A valid employee as its events carry it, naming `homeBase` when given (else located at an address). */
export function employeeData(id: string, version: number, homeBase?: string): Data {
  const address = { start_location: { name: 'Depot', city: 'Gent', country_code: 'BE' } };
  const location = homeBase === undefined ? address : { home_base: { business_id: homeBase } };
  return { business_id: id, name: { first_name: 'Ada', last_name: 'Peeters' }, ...location, version };
}

/** A valid availability of `employeeId`, starting at `homeBase` when given. */
export function availabilityData(employeeId: string, availabilityId: string, version: number, homeBase?: string): Data {
  return {
    id: availabilityId,
    employee_id: employeeId,
    ...(homeBase === undefined ? {} : { start_location: { home_base: { business_id: homeBase } } }),
    earliest_start: '2030-01-07T06:00:00Z',
    max_duration: 'PT8H',
    version,
  };
}

/** A valid transport resource, at `homeBase` when given. */
export function transportResourceData(id: string, version: number, homeBase?: string, extra: Data = {}): Data {
  const located = homeBase === undefined ? {} : { home_base: { business_id: homeBase } };
  return { business_id: id, type: 'TRUCK', inactive: false, ...located, ...extra, version };
}

export interface EventOptions {
  action?: EventAction;
  occurredAt?: Date;
}

/** The envelope of `<entity>.<action>` (default `updated`) of an entity at `version`, with `data` as its contract wants it. */
export function referrerEvent(
  entity: string,
  tenant: string,
  entityId: string,
  version: number,
  data: Data,
  options: EventOptions = {},
): EventEnvelope {
  const { action = 'updated', occurredAt = new Date() } = options;
  const occurred_at = occurredAt.toISOString();
  return { id: randomUUID(), type: `${entity}.${action}`, tenant, entity_id: entityId, version, occurred_at, data };
}

export const employeeEvent = (tenant: string, id: string, version: number, homeBase?: string, options: EventOptions = {}) =>
  referrerEvent('employee', tenant, id, version, employeeData(id, version, homeBase), options);

export const transportResourceEvent = (tenant: string, id: string, version: number, homeBase?: string, options: EventOptions = {}) =>
  referrerEvent('transport-resource', tenant, id, version, transportResourceData(id, version, homeBase), options);

/** An availability event: its entity id is `<employee>/<availability>`. */
export const availabilityEvent = (tenant: string, employeeId: string, availabilityId: string, version: number, homeBase?: string) =>
  referrerEvent(
    'availability',
    tenant,
    `${employeeId}/${availabilityId}`,
    version,
    availabilityData(employeeId, availabilityId, version, homeBase),
  );

/** A referrer as a refused delete lists it. */
export interface ListedReferrer {
  entity: string;
  id: string;
  pending?: true;
}

export interface InUse {
  title: string;
  detail: string;
  status: number;
  referrers: ListedReferrer[];
  referrers_total: number;
}

/**
 * The home-bases service on a nats-server of its own, with a client that publishes onto the streams
 * it consumes. On the run's shared server its consumers would start from the first of every event
 * the other test files and packages published, and future-dated events published here (to pass a
 * claim's deadline) would reach theirs.
 */
export interface ReferenceWorld {
  harness: HomeBasesHarness;
  /** Publishes onto the referrer's stream as its service does (`msgID` defaults to the event id); refuses an invalid event. */
  publish(event: EventEnvelope, msgID?: string): Promise<PubAck>;
  /** The version of the entity the service's consumer has applied (0 for none). */
  appliedVersion(tenant: string, entity: string, id: string): Promise<number>;
  /** Waits until the consumer has applied the entity at `version` or later. */
  applied(tenant: string, entity: string, id: string, version: number): Promise<void>;
  /**
   * Waits until the consumer that reads `entity`'s stream (employees' by default) has handled everything
   * published there before: a new entity's event, published after them, has been applied (a consumer
   * handles its batches in stream order and records them when handled).
   */
  drain(tenant: string, entity?: 'employee' | 'transport-resource'): Promise<void>;
  close(): Promise<void>;
}

export async function startReferenceWorld(variables: Record<string, string> = {}): Promise<ReferenceWorld> {
  const own = await startOnOwnNats(
    (natsUrl) => startHomeBases({ ...variables, NATS_URL: natsUrl }),
    async (nats) => {
      const jsm = await jetstreamManager(nats.nc);
      // declared as the service declares them (it has: its consumers read them)
      await declareServiceStream(jsm, 'employees');
      await declareServiceStream(jsm, 'transport-resources');
    },
  );
  const js = jetstream(own.nats.nc);

  const contractOf = (entity: string) => {
    const contract = CONTRACTS[entity];
    if (contract === undefined) throw new Error(`no referrer entity ${entity}`);
    return contract;
  };

  async function publish(event: EventEnvelope, msgID = event.id): Promise<PubAck> {
    const check = validate(event);
    if (!check.ok) throw new Error(`the test built an invalid event: ${check.reason}`);
    const action = event.type.slice(event.type.lastIndexOf('.') + 1);
    const entity = entityOfType(event.type);
    return js.publish(`rm.${contractOf(entity).events.service}.${event.tenant}.${entity}.${action}`, JSON.stringify(event), { msgID });
  }

  async function appliedVersion(tenant: string, entity: string, id: string): Promise<number> {
    const ref = { tenant, entity, entityId: id };
    const versions = await own.harness.service.store.appliedVersions(contractOf(entity).durable).read([ref]);
    return versions.get(entityRefKey(ref)) ?? 0;
  }

  async function applied(tenant: string, entity: string, id: string, version: number): Promise<void> {
    await waitFor(`${entity} ${id} at version ${version} applied`, async () => (await appliedVersion(tenant, entity, id)) >= version);
  }

  async function drain(tenant: string, entity: 'employee' | 'transport-resource' = 'employee'): Promise<void> {
    // a second version: the consumer ignores a first one that names no home base, and records nothing of it
    const sentinel = `sentinel-${randomUUID()}`;
    const data = entity === 'employee' ? employeeData(sentinel, 2) : transportResourceData(sentinel, 2);
    await publish(referrerEvent(entity, tenant, sentinel, 2, data));
    await applied(tenant, entity, sentinel, 2);
  }

  return { harness: own.harness, publish, appliedVersion, applied, drain, close: own.close };
}

/** A reference world shared by the tests of the file, with a home-base client of each of `tenants`. */
export const useReferenceWorld = <Tenants extends string[]>(...tenants: Tenants) => useWorld(startReferenceWorld, homeBaseClient, ...tenants);

/** HTTP calls of one tenant, with the waits that poll a home base's delete. */
export function homeBaseClient(harness: HomeBasesHarness, headers: Record<string, string>) {
  // the services' key, which every caller of /internal adds to its caller's token
  const internal = { [INTERNAL_API_KEY_HEADER]: harness.env.variables.INTERNAL_API_KEY! };
  const inject = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, payload?: unknown, extra: Record<string, string> = {}) =>
    harness.app.inject({
      method,
      url: `${BASE}${path}`,
      headers: { ...headers, ...(path.startsWith('/internal/') ? internal : {}), ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  const create = async (id: string): Promise<void> => {
    const response = await inject('PUT', `/home-base/${id}`, homeBaseBody());
    if (response.statusCode >= 300) throw new Error(`home base ${id} was not written: ${response.statusCode} ${response.body}`);
  };

  /** Tries to delete the home base; one that was deleted is created again, so that the poll changes nothing. */
  const tryDelete = async (id: string): Promise<LightMyRequestResponse> => {
    const response = await inject('DELETE', `/home-base/${id}`);
    if (response.statusCode === 204) await create(id);
    return response;
  };

  return {
    inject,
    create,
    /** Creates `count` home bases of new ids; returns the ids. */
    async createHomeBases(count: number): Promise<string[]> {
      const ids = Array.from({ length: count }, () => fresh('hb'));
      for (const id of ids) await create(id);
      return ids;
    },
    tryDelete,
    claim: (referrer: { entity: string; id: string }, references: { field: string; business_id: string }[]) =>
      inject('POST', '/internal/home-base-claims', { referrer, references }),
    settle: (claimId: string, version: number) => inject('PUT', `/internal/home-base-claims/${claimId}`, { version }),
    drop: (claimId: string) => inject('DELETE', `/internal/home-base-claims/${claimId}`),
    /**
     * Polls until the delete is refused with a listing that agrees with its count (see the test of
     * referrersOf's two reads) and `until` holds of the 409's body; returns that body.
     */
    blocked: (id: string, until: (body: InUse) => boolean = () => true) =>
      waitFor(`the delete of ${id} to be refused`, async () => {
        const response = await tryDelete(id);
        if (response.statusCode !== 409) return false;
        const body = json<InUse>(response);
        return body.referrers.length === Math.min(body.referrers_total, 100) && until(body) && body;
      }),
    /** Polls until the delete goes through (the home base is then deleted). */
    free: (id: string) =>
      waitFor(`the delete of ${id} to go through`, async () => {
        const response = await inject('DELETE', `/home-base/${id}`);
        if (![204, 409].includes(response.statusCode)) throw new Error(`delete of ${id}: ${response.statusCode} ${response.body}`);
        return response.statusCode === 204;
      }),
  };
}

export type HomeBaseClient = ReturnType<typeof homeBaseClient>;
