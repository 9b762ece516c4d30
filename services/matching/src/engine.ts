import { entityOfType, type EventEnvelope, type OutboxEntry } from '@rm/contracts';
import type { Logger } from '@rm/service-kit';
import type { KnownState, Resource, ResourceCollection } from '@rm/store';
import type { Combination } from './domain/matcher.js';
import { TenantMatching, type Input, type KeptAddress, type Touched } from './domain/tenant-matching.js';
import { availableEmployeeFields, combinationFields } from './representation.js';
import { createResolver, type ResolverOptions } from './resolve/resolver.js';
import type { InputStore, InputToRecord } from './store/inputs.js';
import type { Outputs } from './store/outputs.js';
import type { UnpublishedMarks } from './store/unpublished.js';

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
  /** The tenants on this replica that are too large to match (MatchingEngineOptions.maxInputs). */
  refused(): string[];
}

export interface MatchingEngineOptions {
  inputs: InputStore;
  outputs: Outputs;
  unpublished: UnpublishedMarks;
  /** Publishes the outputs' events (the engine is their only writer: no outbox holds them); resolves once all are stored. */
  publish(events: readonly OutboxEntry[]): Promise<void>;
  logger: Logger;
  /** The background exact re-solve's schedule and limits; none: no re-solve. */
  resolve?: Omit<ResolverOptions, 'inputsOf' | 'adopt' | 'onError'>;
  now?: () => number;
  /** Told, once a tenant's outputs are written, of the events the write reflects. */
  converged?: (events: readonly EventEnvelope[]) => void;
  /**
   * A tenant with more inputs is refused: its inputs are still recorded (nothing is lost), but it is not
   * held in memory nor matched, and its outputs stay as they were, until the limit is raised and the
   * replica restarted. Without it, one tenant could take a replica out of memory, and then each replica
   * that took its partition over.
   */
  maxInputs?: number;
}

/**
 * Shifts per part of a re-solve (TenantMatching.exactInputParts): each part is solved in a thread of its
 * own, so this bounds what one thread holds besides the solver, and how long another tenant's part waits.
 */
const RESOLVE_PART_SHIFTS = 2_000;

/**
 * How long a tenant's mark (UnpublishedMarks) stays after its events are out: a burst of batches sets it
 * once and clears it once, and the clear is off the path of the batch that publishes.
 */
const MARK_KEPT_MS = 1_000;

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
  /** Whether the tenant is marked as having writes whose events may not be out (UnpublishedMarks). */
  marked: boolean;
  /** Clears the mark once no write came for MARK_KEPT_MS. */
  unmarking?: ReturnType<typeof setTimeout>;
  /** Too large to match here (MatchingEngineOptions.maxInputs). */
  refused: boolean;
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
  const { inputs, outputs, unpublished, publish, logger, resolve, now = Date.now, converged, maxInputs = Infinity } = options;
  const tenants = new Map<string, TenantSlot>();
  const resolver =
    resolve &&
    createResolver({
      ...resolve,
      inputsOf: (tenant) => inTurnOfLoaded(tenant, async (matching) => matching.exactInputParts(RESOLVE_PART_SHIFTS)),
      adopt: async (tenant, solved, assignment) => {
        await inTurnOfLoaded(tenant, (matching, slot) => write(tenant, slot, matching, matching.adopt(solved, assignment)));
      },
      onError: (tenant, err) => logger.warn({ err, tenant }, 'exact re-solve failed; the next change tries again'),
    });

  function slotOf(tenant: string, partition: number): TenantSlot {
    let slot = tenants.get(tenant);
    if (slot === undefined) {
      slot = { partition, stored: { snapshots: new Map(), combinations: new Map() }, marked: false, refused: false, busy: Promise.resolve() };
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
      const matching = slot.refused ? undefined : (slot.matching ?? (await load(tenant, slot)));
      if (matching === undefined) {
        // known or not, each is raised unless a newer version is there
        await inputs.record(tenant, batch.map((input) => ({ input, stored: true })));
        return;
      }
      const touched: Touched = { snapshots: new Set(), combinations: new Set() };
      // the newest input of each entity that is newer than the one held, and whether a row holds that one
      const toRecord = new Map<string, InputToRecord>();
      for (const input of batch) {
        const held = matching.versionOf(input);
        const { snapshots, combinations } = matching.apply(input, now());
        for (const id of snapshots) touched.snapshots.add(id);
        for (const id of combinations) touched.combinations.add(id);
        const key = `${input.entity}|${input.id}`;
        if (input.version > held) toRecord.set(key, { input, stored: toRecord.get(key)?.stored ?? held > 0 });
      }
      await inputs.record(tenant, [...toRecord.values()]);
      if (matching.inputCount() > maxInputs) {
        refuse(tenant, slot, matching.inputCount());
        return;
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

  /**
   * Rebuilds the tenant from its recorded inputs and stored combinations, then writes what differs;
   * first, the events of what was written since a mark left behind are published again.
   */
  async function load(tenant: string, slot: TenantSlot): Promise<TenantMatching | undefined> {
    // read first and alone: a tenant too large is refused before anything else of it is held
    const recorded = await inputs.ofTenant(tenant, maxInputs);
    if (recorded === undefined) {
      refuse(tenant, slot, maxInputs + 1);
      return undefined;
    }
    const since = await unpublished.of(tenant);
    if (since !== undefined) {
      slot.marked = true;
      const scope = { tenant };
      await publish([...(await outputs.availableEmployees.eventsSince(scope, since)), ...(await outputs.combinations.eventsSince(scope, since))]);
      await unpublished.clear(tenant);
      slot.marked = false;
    }
    const [snapshots, combinations] = await Promise.all([
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

  /** `inputCount`: how many it holds, or, when loading stopped there, one more than the limit. */
  function refuse(tenant: string, slot: TenantSlot, inputCount: number): void {
    slot.refused = true;
    slot.matching = undefined;
    resolver?.forget(tenant);
    logger.error({ tenant, inputs_at_least: inputCount, max_inputs: maxInputs }, 'tenant too large to match on one replica: its inputs are recorded, its outputs no longer change');
  }

  /**
   * Writes what changed, in an order that keeps every stored combination following its stored snapshot
   * and no transport resource in two: first the combinations that went, then the snapshots, then the
   * new and changed combinations. A combination a reader sees thus vouches for every snapshot of its batch.
   * Then it publishes their events, in the same order, under the tenant's mark (UnpublishedMarks), which
   * is cleared once no write came for MARK_KEPT_MS.
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
    const removed = changedOf(slot.stored.combinations, combinations.filter(({ body }) => body === undefined));
    const changedSnapshots = changedOf(slot.stored.snapshots, snapshots);
    const changedCombinations = changedOf(slot.stored.combinations, combinations.filter(({ body }) => body !== undefined));
    if (removed.length + changedSnapshots.length + changedCombinations.length === 0) return;
    clearTimeout(slot.unmarking);
    if (!slot.marked) {
      await unpublished.mark(tenant, new Date());
      slot.marked = true;
    }
    const events = [
      ...(await writeChanged(outputs.combinations, slot.stored.combinations, tenant, removed)),
      ...(await writeChanged(outputs.availableEmployees, slot.stored.snapshots, tenant, changedSnapshots)),
      ...(await writeChanged(outputs.combinations, slot.stored.combinations, tenant, changedCombinations)),
    ];
    await publish(events);
    clearTimeout(slot.unmarking);
    slot.unmarking = setTimeout(() => {
      inTurn(slot, async () => {
        if (!slot.marked || slot.matching === undefined) return;
        await unpublished.clear(tenant);
        slot.marked = false;
      }).catch((error: unknown) => logger.warn({ err: error, tenant }, 'the mark of published outputs could not be cleared; a reload publishes them again'));
    }, MARK_KEPT_MS);
    // a mark still to clear keeps no process alive
    slot.unmarking.unref();
  }

  async function release(partition: number): Promise<void> {
    for (const [tenant, slot] of [...tenants]) {
      if (slot.partition !== partition) continue;
      tenants.delete(tenant);
      resolver?.forget(tenant);
      clearTimeout(slot.unmarking);
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

  function refused(): string[] {
    return [...tenants].flatMap(([tenant, slot]) => (slot.refused ? [tenant] : []));
  }

  async function close(): Promise<void> {
    for (const slot of tenants.values()) clearTimeout(slot.unmarking);
    await resolver?.close();
  }

  return { handleBatch, release, close, counts, refused };
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

type Output<Body> = { key: string; body: Body | undefined };

/** The outputs whose bodies (absent: none) differ from what is stored. */
function changedOf<Body>(stored: ReadonlyMap<string, Stored>, outputs: readonly Output<Body>[]): Output<Body>[] {
  return outputs.filter(({ key, body }) => stored.get(key)?.json !== (body === undefined ? undefined : JSON.stringify(body)));
}

/** Brings stored outputs to their bodies; returns their events, to publish. */
async function writeChanged<Body>(
  collection: ResourceCollection<Body>,
  stored: Map<string, Stored>,
  tenant: string,
  changed: readonly Output<Body>[],
): Promise<OutboxEntry[]> {
  if (changed.length === 0) return [];
  const { states, toPublish } = await collection.writeKnown(
    { tenant },
    changed.map(({ key, body }) => {
      const known = stored.get(key);
      return { key, stored: known && knownStateOf<Body>(known), body };
    }),
  );
  for (const state of states) stored.set(state.key, storedOf(state));
  return toPublish;
}
