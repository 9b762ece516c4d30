import { entityOfType, type EventEnvelope } from '@rm/contracts';
import type { Logger } from '@rm/service-kit';
import type { KnownState, Resource, ResourceCollection } from '@rm/store';
import type { Combination } from './domain/matcher.js';
import { TenantMatching, type Input, type KeptAddress, type Touched } from './domain/tenant-matching.js';
import { availableEmployeeFields, combinationFields } from './representation.js';
import { createResolver, type ResolverOptions } from './resolve/resolver.js';
import type { InputStore } from './store/inputs.js';
import type { Outputs } from './store/outputs.js';

/** Runs the tenants' matching on this replica, for the partitions it holds. */
export interface MatchingEngine {
  /**
   * Records a batch of input events of this partition's tenants, in stream order, then brings their
   * snapshots and combinations up to date; each tenant's outputs are written once per batch.
   */
  handleBatch(events: readonly { event: EventEnvelope }[], partition: number): Promise<void>;
  /** Forgets the tenants of a partition this replica gives up, once their work in hand is done. */
  release(partition: number): Promise<void>;
  /** Stops the background re-solve. */
  close(): Promise<void>;
  /** How many snapshots and combinations (not deleted) each tenant on this replica has, as last written. */
  counts(): { tenant: string; snapshots: number; combinations: number }[];
}

export interface MatchingEngineOptions {
  inputs: InputStore;
  outputs: Outputs;
  logger: Logger;
  /** The background exact re-solve's schedule and limits; none: no re-solve. */
  resolve?: Omit<ResolverOptions, 'inputsOf' | 'adopt' | 'onError'>;
  now?: () => number;
  /** Told, once a tenant's outputs are written, of the events the write reflects. */
  converged?: (events: readonly EventEnvelope[]) => void;
}

/**
 * What is stored of one output (the engine is its only writer): its version and dates, and its body as
 * JSON, what a write compares with; the body's objects are not kept, which would double the memory.
 */
interface Stored {
  state: Omit<Resource<unknown>, 'body'> | { key: string; tombstone: number };
  json: string | undefined;
}

/** One tenant on this replica: its matching once loaded, what is stored of its outputs, and the work in hand. */
interface TenantSlot {
  partition: number;
  matching?: TenantMatching;
  /** By availability id. */
  stored: { snapshots: Map<string, Stored>; combinations: Map<string, Stored> };
  busy: Promise<unknown>;
}

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
 * A tenant is loaded from the database on its first events here (a replica taking it over rebuilds it
 * from there, before it records the new ones); a failed write unloads it, so that the events, given
 * again, start from what the database holds.
 */
export function createMatchingEngine(options: MatchingEngineOptions): MatchingEngine {
  const { inputs, outputs, logger, resolve, now = Date.now, converged } = options;
  const tenants = new Map<string, TenantSlot>();
  const resolver =
    resolve &&
    createResolver({
      ...resolve,
      inputsOf: (tenant) => inTurnOfLoaded(tenant, async (matching) => matching.exactInputs()),
      adopt: async (tenant, solved, assignment) => {
        await inTurnOfLoaded(tenant, (matching, slot) => write(tenant, slot, matching, matching.adopt(solved, assignment)));
      },
      onError: (tenant, err) => logger.warn({ err, tenant }, 'exact re-solve failed; the next change tries again'),
    });

  function slotOf(tenant: string, partition: number): TenantSlot {
    let slot = tenants.get(tenant);
    if (slot === undefined) {
      slot = { partition, stored: { snapshots: new Map(), combinations: new Map() }, busy: Promise.resolve() };
      tenants.set(tenant, slot);
    }
    return slot;
  }

  async function handleBatch(events: readonly { event: EventEnvelope }[], partition: number): Promise<void> {
    const byTenant = Map.groupBy(events, ({ event }) => event.tenant);
    await Promise.all([...byTenant].map(([tenant, ofTenant]) => handleTenant(tenant, partition, ofTenant.map(({ event }) => event))));
  }

  function handleTenant(tenant: string, partition: number, events: readonly EventEnvelope[]): Promise<void> {
    const slot = slotOf(tenant, partition);
    const batch = events.map(inputOf);
    return inTurn(slot, async () => {
      const matching = slot.matching ?? (await load(tenant, slot));
      await inputs.record(tenant, newestOf(batch));
      const touched: Touched = { snapshots: new Set(), combinations: new Set() };
      for (const input of batch) {
        const { snapshots, combinations } = matching.apply(input, now());
        for (const id of snapshots) touched.snapshots.add(id);
        for (const id of combinations) touched.combinations.add(id);
      }
      await write(tenant, slot, matching, touched);
      converged?.(events);
      resolver?.changed(tenant);
    });
  }

  /** Runs work in the tenant's turn, after the work in hand; a failure unloads the tenant. */
  function inTurn<T>(slot: TenantSlot, work: () => Promise<T>): Promise<T> {
    const run = slot.busy.then(async () => {
      try {
        return await work();
      } catch (error) {
        slot.matching = undefined;
        throw error;
      }
    });
    slot.busy = run.catch(() => undefined);
    return run;
  }

  /** inTurn for a re-solve: nothing (undefined) unless the tenant is still loaded here when its turn comes. */
  async function inTurnOfLoaded<T>(
    tenant: string,
    work: (matching: TenantMatching, slot: TenantSlot) => Promise<T>,
  ): Promise<T | undefined> {
    const slot = tenants.get(tenant);
    if (slot === undefined) return undefined;
    return inTurn(slot, async () => (slot.matching === undefined ? undefined : work(slot.matching, slot)));
  }

  /** Rebuilds the tenant from its recorded inputs and stored combinations, then writes what differs. */
  async function load(tenant: string, slot: TenantSlot): Promise<TenantMatching> {
    const [recorded, snapshots, combinations] = await Promise.all([
      inputs.ofTenant(tenant),
      outputs.availableEmployees.knownStates({ tenant }),
      outputs.combinations.knownStates({ tenant }),
    ]);
    slot.stored.snapshots = new Map(snapshots.map((resource) => [resource.key, storedOf(resource)]));
    slot.stored.combinations = new Map(combinations.map((resource) => [resource.key, storedOf(resource)]));
    const live = combinations.filter(isLive).flatMap(({ key, body }): Combination[] => {
      const [transportResourceId] = body.transport_resource_ids;
      if (body.deployment_id !== undefined || transportResourceId === undefined) return [];
      return [{ availabilityId: key, employeeId: body.employee_id, transportResourceId }];
    });
    const kept = new Map(
      snapshots.filter(isLive).flatMap(({ key, body: { location, address } }): [string, KeptAddress][] =>
        location.home_base_id === undefined || address === undefined ? [] : [[key, { homeBaseId: location.home_base_id, address }]],
      ),
    );
    const matching = TenantMatching.restore(recorded, live, now(), kept);
    const everything = new Set([...matching.availabilityIds(), ...slot.stored.snapshots.keys(), ...slot.stored.combinations.keys()]);
    await write(tenant, slot, matching, { snapshots: everything, combinations: everything });
    slot.matching = matching;
    return matching;
  }

  /**
   * Writes what changed, in an order that keeps every stored combination following its stored snapshot
   * and no transport resource in two: first the combinations that went, then the snapshots, then the
   * new and changed combinations. A combination a reader sees thus vouches for every snapshot of its batch.
   */
  async function write(tenant: string, slot: TenantSlot, matching: TenantMatching, touched: Touched): Promise<void> {
    const combinations = [...touched.combinations].map((id) => {
      const combination = matching.combination(id);
      return { key: id, body: combination && combinationFields(combination) };
    });
    const snapshots = [...touched.snapshots].map((id) => {
      const snapshot = matching.availableEmployee(id);
      return { key: id, body: snapshot && availableEmployeeFields(snapshot) };
    });
    await sync(outputs.combinations, slot.stored.combinations, tenant, combinations.filter(({ body }) => body === undefined));
    await sync(outputs.availableEmployees, slot.stored.snapshots, tenant, snapshots);
    await sync(outputs.combinations, slot.stored.combinations, tenant, combinations.filter(({ body }) => body !== undefined));
  }

  async function release(partition: number): Promise<void> {
    for (const [tenant, slot] of [...tenants]) {
      if (slot.partition !== partition) continue;
      tenants.delete(tenant);
      resolver?.forget(tenant);
      await slot.busy;
    }
  }

  function counts(): { tenant: string; snapshots: number; combinations: number }[] {
    return [...tenants].map(([tenant, { stored }]) => ({
      tenant,
      snapshots: liveCount(stored.snapshots),
      combinations: liveCount(stored.combinations),
    }));
  }

  return { handleBatch, release, close: async () => resolver?.close(), counts };
}

/** The newest input of each entity in a batch: the one to record. */
function newestOf(batch: readonly Input[]): Input[] {
  const newest = new Map<string, Input>();
  for (const input of batch) {
    const key = `${input.entity}|${input.id}`;
    if ((newest.get(key)?.version ?? 0) < input.version) newest.set(key, input);
  }
  return [...newest.values()];
}

function liveCount(stored: ReadonlyMap<string, Stored>): number {
  let live = 0;
  for (const { state } of stored.values()) if (!('tombstone' in state)) live += 1;
  return live;
}

function isLive<Body>(state: KnownState<Body>): state is Resource<Body> {
  return 'body' in state;
}

function storedOf<Body>(state: KnownState<Body>): Stored {
  if (!isLive(state)) return { state, json: undefined };
  const { body, ...rest } = state;
  return { state: rest, json: JSON.stringify(body) };
}

function knownStateOf<Body>({ state, json }: Stored): KnownState<Body> {
  return 'tombstone' in state ? state : { ...state, body: JSON.parse(json as string) as Body };
}

/** Brings stored outputs to their bodies (absent: none), writing only those that differ from what is stored. */
async function sync<Body>(
  collection: ResourceCollection<Body>,
  stored: Map<string, Stored>,
  tenant: string,
  outputs: readonly { key: string; body: Body | undefined }[],
): Promise<void> {
  const changed = outputs.filter(({ key, body }) => stored.get(key)?.json !== (body === undefined ? undefined : JSON.stringify(body)));
  if (changed.length === 0) return;
  const states = await collection.writeKnown(
    { tenant },
    changed.map(({ key, body }) => {
      const known = stored.get(key);
      return { key, stored: known && knownStateOf<Body>(known), body };
    }),
  );
  for (const state of states) stored.set(state.key, storedOf(state));
}
