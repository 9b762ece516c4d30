import { entityOfType, type EventEnvelope } from '@rm/contracts';
import { ResourceNotFoundError, type ResourceCollection } from '@rm/store';
import type { Combination } from './domain/matcher.js';
import { TenantMatching, type Input, type Touched } from './domain/tenant-matching.js';
import { availableEmployeeFields, combinationFields } from './representation.js';
import type { InputStore } from './store/inputs.js';
import type { Outputs } from './store/outputs.js';

/** Runs the tenants' matching on this replica, for the partitions it holds. */
export interface MatchingEngine {
  /** Records an input event of a tenant of this partition, then brings its snapshots and combinations up to date. */
  handle(event: EventEnvelope, partition: number): Promise<void>;
  /** Forgets the tenants of a partition this replica gives up, once their work in hand is done. */
  release(partition: number): Promise<void>;
}

export interface MatchingEngineOptions {
  inputs: InputStore;
  outputs: Outputs;
  now?: () => number;
}

/** One tenant on this replica: its matching once loaded, what is stored of its outputs, and its queue of work. */
interface TenantSlot {
  partition: number;
  matching?: TenantMatching;
  /** The stored body of each output, as JSON, by availability id: what a write compares with. */
  stored: { snapshots: Map<string, string>; combinations: Map<string, string> };
  queue: Promise<unknown>;
}

/** Writes of one tenant's outputs that run side by side. */
const WRITE_CONCURRENCY = 16;

export function inputOf(event: EventEnvelope): Input {
  return {
    entity: entityOfType(event.type),
    id: event.entity_id,
    version: event.version,
    deleted: event.type.endsWith('.deleted'),
    data: event.data,
  };
}

/**
 * Each tenant's work runs one event at a time, in the order the events came. A tenant is loaded from
 * the database on its first event here (a replica taking it over rebuilds it from there); a failed
 * write unloads it, so that the next event starts again from what the database holds.
 */
export function createMatchingEngine({ inputs, outputs, now = Date.now }: MatchingEngineOptions): MatchingEngine {
  const tenants = new Map<string, TenantSlot>();

  function slotOf(tenant: string, partition: number): TenantSlot {
    let slot = tenants.get(tenant);
    if (slot === undefined) {
      slot = { partition, stored: { snapshots: new Map(), combinations: new Map() }, queue: Promise.resolve() };
      tenants.set(tenant, slot);
    }
    return slot;
  }

  function handle(event: EventEnvelope, partition: number): Promise<void> {
    const slot = slotOf(event.tenant, partition);
    const work = slot.queue.then(async () => {
      const input = inputOf(event);
      await inputs.record(event.tenant, input);
      try {
        if (slot.matching === undefined) await load(event.tenant, slot);
        else await write(event.tenant, slot, slot.matching, slot.matching.apply(input, now()));
      } catch (error) {
        slot.matching = undefined;
        throw error;
      }
    });
    slot.queue = work.catch(() => undefined);
    return work;
  }

  /** Rebuilds the tenant from its recorded inputs and stored combinations, then writes what differs. */
  async function load(tenant: string, slot: TenantSlot): Promise<void> {
    const [recorded, snapshots, combinations] = await Promise.all([
      inputs.ofTenant(tenant),
      outputs.availableEmployees.find({ tenant }),
      outputs.combinations.find({ tenant }),
    ]);
    slot.stored.snapshots = new Map(snapshots.map((resource) => [resource.key, JSON.stringify(resource.body)]));
    slot.stored.combinations = new Map(combinations.map((resource) => [resource.key, JSON.stringify(resource.body)]));
    const live = combinations.flatMap(({ key, body }): Combination[] => {
      const [transportResourceId] = body.transport_resource_ids;
      if (body.deployment_id !== undefined || transportResourceId === undefined) return [];
      return [{ availabilityId: key, employeeId: body.employee_id, transportResourceId }];
    });
    const matching = TenantMatching.restore(recorded, live, now());
    const everything = new Set([...matching.availabilityIds(), ...slot.stored.snapshots.keys(), ...slot.stored.combinations.keys()]);
    await write(tenant, slot, matching, { snapshots: everything, combinations: everything });
    slot.matching = matching;
  }

  async function write(tenant: string, slot: TenantSlot, matching: TenantMatching, touched: Touched): Promise<void> {
    const writes = [
      ...[...touched.snapshots].map((id) => () => {
        const snapshot = matching.availableEmployee(id);
        return sync(outputs.availableEmployees, slot.stored.snapshots, tenant, id, snapshot && availableEmployeeFields(snapshot));
      }),
      ...[...touched.combinations].map((id) => () => {
        const combination = matching.combination(id);
        return sync(outputs.combinations, slot.stored.combinations, tenant, id, combination && combinationFields(combination));
      }),
    ];
    for (let start = 0; start < writes.length; start += WRITE_CONCURRENCY) {
      await Promise.all(writes.slice(start, start + WRITE_CONCURRENCY).map((run) => run()));
    }
  }

  async function release(partition: number): Promise<void> {
    for (const [tenant, slot] of [...tenants]) {
      if (slot.partition !== partition) continue;
      tenants.delete(tenant);
      await slot.queue;
    }
  }

  return { handle, release };
}

/** Brings one stored output to `body` (absent: none), writing only when it differs from what is stored. */
async function sync<Body>(collection: ResourceCollection<Body>, stored: Map<string, string>, tenant: string, key: string, body: Body | undefined) {
  const json = body === undefined ? undefined : JSON.stringify(body);
  if (stored.get(key) === json) return;
  if (body === undefined) {
    await collection.remove({ tenant, key }).catch((error: unknown) => {
      if (!(error instanceof ResourceNotFoundError)) throw error;
    });
    stored.delete(key);
  } else {
    await collection.put({ tenant, key }, body);
    stored.set(key, json as string);
  }
}
