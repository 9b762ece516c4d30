import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { LightMyRequestResponse } from 'fastify';
import { createEventValidator, eventSubject, type EntityEvents, type EventAction, type EventEnvelope } from '@rm/contracts';
import { declareServiceStream } from '@rm/bus';
import { startService, type RunningService } from '@rm/runtime';
import { connectTestNats, startNatsServer, startServiceHarness, waitFor, type ServiceHarness, type TestNats } from '@rm/testkit';
import { matchingService } from '../src/app.js';
import { INPUT_EVENTS } from '../src/events.js';

export const BASE = '/resource-management/v1';
export const HOUR = 3_600_000;

type Collections = ReturnType<typeof matchingService.collections>;
type MatchingConfig = NonNullable<typeof matchingService.config>;
export type MatchingHarness = ServiceHarness<RunningService<Collections, MatchingConfig>>;

type Data = Record<string, unknown>;
const validate = createEventValidator(INPUT_EVENTS);
const entityEvents = (entity: string) => INPUT_EVENTS.find((events) => events.entity === entity) as EntityEvents;

/** A combination as the read API shows it. */
export interface CombinationBody {
  id: string;
  employee_id: string;
  transport_resource_ids: string[];
  deployment_id?: string;
  capabilities: string[];
  linked: boolean;
  version: number;
}

/**
 * The matching engine on a nats-server of its own (its input stream would otherwise copy every event
 * the other packages' tests published), with a client that publishes the input events as their
 * owners do, and readers of what the engine derived.
 */
export interface MatchingWorld {
  natsUrl: string;
  /** The first replica. */
  harness: MatchingHarness;
  /** Another replica, or a fresh engine over a database of its own (`MONGO_DB`). */
  startReplica(variables?: Record<string, string>): Promise<MatchingHarness>;
  /** Publishes `<entity>.<action>` as its owner does; a version above the last one of the entity unless given. */
  publish(tenant: string, entity: string, entityId: string, data: Data, options?: { action?: EventAction; version?: number }): Promise<EventEnvelope>;
  /** Every combination of the tenant, by availability id, as one replica's API lists them. */
  combinations(tenant: string, harness?: MatchingHarness): Promise<Map<string, CombinationBody>>;
  /** Waits until the tenant's combinations satisfy `check`; returns them. */
  until(tenant: string, what: string, check: (combinations: Map<string, CombinationBody>) => boolean, harness?: MatchingHarness): Promise<Map<string, CombinationBody>>;
  close(): Promise<void>;
}

export async function startMatchingWorld(variables: Record<string, string> = {}): Promise<MatchingWorld> {
  const nats = await startNatsServer();
  const replicas: MatchingHarness[] = [];
  let client: TestNats | undefined;
  const startReplica = async (extra: Record<string, string> = {}) => {
    const replica = await startServiceHarness('matching', (env) => startService(matchingService, { env, listen: false }), {
      MATCHING_PARTITIONS: '4',
      MATCHING_LEASE_MS: '1500',
      ...variables,
      ...extra,
      NATS_URL: nats.url,
    });
    replicas.push(replica);
    return replica;
  };
  try {
    const harness = await startReplica();
    client = await connectTestNats({ url: nats.url });
    const jsm = await jetstreamManager(client.nc);
    for (const service of new Set(INPUT_EVENTS.map((events) => events.service))) await declareServiceStream(jsm, service);
    const js = jetstream(client.nc);
    const versions = new Map<string, number>();

    const world: MatchingWorld = {
      natsUrl: nats.url,
      harness,
      startReplica,
      async publish(tenant, entity, entityId, data, options = {}) {
        const key = `${tenant}|${entity}|${entityId}`;
        const version = options.version ?? (versions.get(key) ?? 0) + 1;
        versions.set(key, Math.max(version, versions.get(key) ?? 0));
        const action = options.action ?? (version === 1 ? 'created' : 'updated');
        const event = inputEvent(tenant, entity, entityId, data, { action, version });
        const check = validate(event);
        if (!check.ok) throw new Error(`the test built an invalid event: ${check.reason}`);
        await js.publish(eventSubject(entityEvents(entity), tenant, action), JSON.stringify(event), { msgID: event.id });
        return event;
      },
      async combinations(tenant, replica = harness) {
        const headers = await replica.as(tenant);
        const found = new Map<string, CombinationBody>();
        let url: string | undefined = `${BASE}/resource-combination?limit=1000`;
        while (url !== undefined) {
          const response: LightMyRequestResponse = await replica.app.inject({ method: 'GET', url, headers });
          if (response.statusCode !== 200) throw new Error(`listing combinations: ${response.statusCode} ${response.body}`);
          const page = JSON.parse(response.body) as { resource_combinations: CombinationBody[]; cursors: { next?: string } };
          for (const combination of page.resource_combinations) found.set(combination.id, combination);
          url = page.cursors.next === undefined ? undefined : `${BASE}/resource-combination?limit=1000&cursor=${encodeURIComponent(page.cursors.next)}`;
        }
        return found;
      },
      async until(tenant, what, check, replica = harness) {
        let last = new Map<string, CombinationBody>();
        await waitFor(what, async () => check((last = await world.combinations(tenant, replica))));
        return last;
      },
      async close() {
        for (const replica of replicas.reverse()) await replica.close();
        await client?.close();
        await nats.stop();
      },
    };
    return world;
  } catch (error) {
    for (const replica of replicas) await replica.close();
    await client?.close();
    await nats.stop();
    throw error;
  }
}

/** An input event as its owner publishes it. */
export function inputEvent(
  tenant: string,
  entity: string,
  entityId: string,
  data: Data,
  { action, version }: { action: EventAction; version: number },
): EventEnvelope {
  return {
    id: randomUUID(),
    type: `${entity}.${action}`,
    tenant,
    entity_id: entityId,
    version,
    occurred_at: new Date().toISOString(),
    data: { ...data, version },
  };
}

/** Input bodies as their owners publish them. */
export const inputs = {
  employee: (id: string, fields: Data = {}): Data => ({ business_id: id, name: { first_name: 'Ada', last_name: 'Peeters' }, ...fields }),
  availability: (employeeId: string, id: string, start: string, fields: Data = {}): Data => ({
    id,
    employee_id: employeeId,
    earliest_start: start,
    max_duration: 'PT8H',
    ...fields,
  }),
  transportResource: (id: string, fields: Data = {}): Data => ({ business_id: id, type: 'TRUCK', inactive: false, ...fields }),
  unavailability: (parentField: string, parentId: string, id: string, from: string, to: string): Data => ({ id, [parentField]: parentId, from, to }),
  homeBase: (id: string, city = 'Gent'): Data => ({ business_id: id, name: id, address: { city, country_code: 'BE' } }),
};

/** A home base `hb` as an employee's and a transport resource's location. */
export const atHomeBase = (id: string) => ({ home_base: { business_id: id } });
