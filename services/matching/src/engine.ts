import type { BatchCompletion } from '@rm/bus';
import { entityOfType, type EventEnvelope, type OutboxEntry } from '@rm/contracts';
import type { Logger } from '@rm/service-kit';
import type { KnownState, Resource, ResourceCollection } from '@rm/store';
import type { Combination } from './domain/combination.js';
import { TenantMatching, type Input, type KeptAddress, type Touched } from './domain/tenant-matching.js';
import { availableEmployeeFields, combinationFields } from './representation.js';
import { createResolver, type ResolverOptions } from './resolve/resolver.js';
import type { InputStore, InputToRecord } from './store/inputs.js';
import type { AvailableEmployeeFields, CombinationFields, Outputs } from './store/outputs.js';
import type { UnpublishedMarks } from './store/unpublished.js';

/** Runs the tenants' matching on this replica, for the partitions it holds. */
export interface MatchingEngine {
  /**
   * Applies a batch of input events of this partition's tenants, in stream order, and resolves once
   * their snapshots and combinations are decided; the completion it hands back resolves once the inputs
   * are recorded and the outputs written (once per batch and tenant) and published. The next batch is
   * matched while they are written: the engine's time then overlaps the database's.
   */
  handleBatch(events: readonly { event: EventEnvelope }[], partition: number): Promise<BatchCompletion>;
  /** Forgets the tenants of a partition this replica gives up, once their work in hand is done. */
  release(partition: number): Promise<void>;
  /** Stops the background re-solve. */
  close(): Promise<void>;
  /** How many snapshots and combinations (not deleted) each tenant on this replica has, as last written. */
  counts(): { tenant: string; snapshots: number; combinations: number }[];
  /** The tenants on this replica that are too large to match (MatchingEngineOptions.maxInputs). */
  refused(): string[];
  /** How many tenants on this replica have an exact re-solve due or running. */
  resolvesPending(): number;
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

/**
 * One kind of output of a tenant, by availability id: what is stored, and the bodies (JSON; undefined:
 * removed) decided but whose writes are still queued, which a newer decision compares with.
 */
interface OutputsHeld {
  stored: Map<string, Stored>;
  queued: Map<string, string | undefined>;
}

/** One tenant on this replica: its matching once loaded, what is stored of its outputs, and the work in hand. */
interface TenantSlot {
  partition: number;
  matching?: TenantMatching;
  snapshots: OutputsHeld;
  combinations: OutputsHeld;
  /** Whether the tenant is marked as having writes whose events may not be out (UnpublishedMarks). */
  marked: boolean;
  /** Clears the mark once no write came for MARK_KEPT_MS. */
  unmarking?: ReturnType<typeof setTimeout>;
  /** Too large to match here (MatchingEngineOptions.maxInputs). */
  refused: boolean;
  /** The matching's turn: loading, applying a batch, taking or adopting a re-solve's part. */
  busy: Promise<unknown>;
  /** The writes decided, one batch after the other; a failed one fails those queued after it. */
  writes: Promise<void>;
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
        const decided = await inTurnOfLoaded(tenant, async (matching, slot) => ({
          written: queueWrites(slot, write(tenant, slot, decide(slot, matching, matching.adopt(solved, assignment)))),
        }));
        await decided?.written;
      },
      onError: (tenant, err) => logger.warn({ err, tenant }, 'exact re-solve failed; the next change tries again'),
    });

  function slotOf(tenant: string, partition: number): TenantSlot {
    let slot = tenants.get(tenant);
    if (slot === undefined) {
      slot = {
        partition,
        snapshots: { stored: new Map(), queued: new Map() },
        combinations: { stored: new Map(), queued: new Map() },
        marked: false,
        refused: false,
        busy: Promise.resolve(),
        writes: Promise.resolve(),
      };
      tenants.set(tenant, slot);
    }
    return slot;
  }

  async function handleBatch(events: readonly { event: EventEnvelope }[], partition: number): Promise<BatchCompletion> {
    const byTenant = Map.groupBy(events, ({ event }) => event.tenant);
    const decided = await Promise.all([...byTenant].map(([tenant, ofTenant]) => handleTenant(tenant, partition, ofTenant.map(({ event }) => event))));
    return { completed: Promise.all(decided.map(({ written }) => written)).then(() => undefined) };
  }

  /** Applies a tenant's events in its turn; resolves once they are decided, with their writes queued. */
  function handleTenant(tenant: string, partition: number, events: readonly EventEnvelope[]): Promise<{ written: Promise<void> }> {
    const slot = slotOf(tenant, partition);
    const batch = events.map(inputOf);
    return inTurn(slot, async () => {
      const matching = slot.refused ? undefined : (slot.matching ?? (await load(tenant, slot)));
      if (matching === undefined) {
        // known or not, each is raised unless a newer version is there
        return { written: queueWrites(slot, () => inputs.record(tenant, batch.map((input) => ({ input, stored: true })))) };
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
      const recorded = [...toRecord.values()];
      if (matching.inputCount() > maxInputs) {
        refuse(tenant, slot, matching.inputCount());
        return { written: queueWrites(slot, () => inputs.record(tenant, recorded)) };
      }
      const writeOutputs = write(tenant, slot, decide(slot, matching, touched));
      const written = queueWrites(slot, async () => {
        await inputs.record(tenant, recorded);
        await writeOutputs();
        converged?.(events);
        resolver?.changed(tenant);
      });
      return { written };
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
   * Queues writes after those queued before. Writes decided by the tenant's matching build on those
   * before them: once one fails, those queued after it fail too, and the matching is dropped, to be
   * loaded again from what the database holds. Without a matching (a refused tenant's inputs, each
   * raised unless a newer version is there) they run whatever came before.
   */
  function queueWrites(slot: TenantSlot, work: () => Promise<void>): Promise<void> {
    const decidedBy = slot.matching;
    const written = decidedBy === undefined ? slot.writes.catch(() => undefined).then(work) : slot.writes.then(work);
    // handled here: its batch may wait for other tenants before it waits for this
    written.catch(() => {
      if (slot.matching === decidedBy) slot.matching = undefined;
    });
    slot.writes = written;
    return written;
  }

  /**
   * Rebuilds the tenant from its recorded inputs and stored combinations, then writes what differs;
   * first, the events of what was written since a mark left behind are published again.
   */
  async function load(tenant: string, slot: TenantSlot): Promise<TenantMatching | undefined> {
    // a failed write left the database behind what was decided: start from the database, once nothing more is written
    await slot.writes.catch(() => undefined);
    slot.writes = Promise.resolve();
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
    slot.snapshots = { stored: new Map(snapshots.map((resource) => [resource.key, storedOf(resource)])), queued: new Map() };
    slot.combinations = { stored: new Map(combinations.map((resource) => [resource.key, storedOf(resource)])), queued: new Map() };
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
    const everything = new Set([...matching.availabilityIds(), ...slot.snapshots.stored.keys(), ...slot.combinations.stored.keys()]);
    slot.matching = matching;
    await queueWrites(slot, write(tenant, slot, decide(slot, matching, { snapshots: everything, combinations: everything })));
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
   * The outputs the matching now has of what it touched, those that differ from what is stored or
   * queued, in the order write() writes them: first the combinations that went, then the snapshots,
   * then the new and changed combinations. They count as queued from here on.
   */
  function decide(slot: TenantSlot, matching: TenantMatching, touched: Touched): Decided {
    const combinations = [...touched.combinations].map((id) => {
      const combination = matching.combination(id);
      return { key: id, body: combination && combinationFields(combination) };
    });
    const snapshots = [...touched.snapshots].map((id) => {
      const snapshot = matching.availableEmployee(id);
      return { key: id, body: snapshot && availableEmployeeFields(snapshot) };
    });
    return {
      removed: changedOf(slot.combinations, combinations.filter(({ body }) => body === undefined)),
      snapshots: changedOf(slot.snapshots, snapshots),
      combinations: changedOf(slot.combinations, combinations.filter(({ body }) => body !== undefined)),
    };
  }

  /**
   * The writes of what was decided, in that order, which keeps every stored combination following its
   * stored snapshot and no transport resource in two: a combination a reader sees thus vouches for every
   * snapshot of its batch. Then their events are published, in the same order, under the tenant's mark
   * (UnpublishedMarks), which is cleared once no write came for MARK_KEPT_MS.
   */
  function write(tenant: string, slot: TenantSlot, decided: Decided): () => Promise<void> {
    return async () => {
      if (decided.removed.length + decided.snapshots.length + decided.combinations.length === 0) return;
      clearTimeout(slot.unmarking);
      if (!slot.marked) {
        await unpublished.mark(tenant, new Date());
        slot.marked = true;
      }
      const events = [
        ...(await writeChanged(outputs.combinations, slot.combinations, tenant, decided.removed)),
        ...(await writeChanged(outputs.availableEmployees, slot.snapshots, tenant, decided.snapshots)),
        ...(await writeChanged(outputs.combinations, slot.combinations, tenant, decided.combinations)),
      ];
      await publish(events);
      clearTimeout(slot.unmarking);
      slot.unmarking = setTimeout(() => {
        queueWrites(slot, async () => {
          if (!slot.marked || slot.matching === undefined) return;
          await unpublished.clear(tenant);
          slot.marked = false;
        }).catch((error: unknown) => logger.warn({ err: error, tenant }, 'the mark of published outputs could not be cleared; a reload publishes them again'));
      }, MARK_KEPT_MS);
      // a mark still to clear keeps no process alive
      slot.unmarking.unref();
    };
  }

  async function release(partition: number): Promise<void> {
    for (const [tenant, slot] of [...tenants]) {
      if (slot.partition !== partition) continue;
      tenants.delete(tenant);
      resolver?.forget(tenant);
      clearTimeout(slot.unmarking);
      await slot.busy;
      await slot.writes.catch(() => undefined);
    }
  }

  function counts(): { tenant: string; snapshots: number; combinations: number }[] {
    return [...tenants].map(([tenant, slot]) => ({
      tenant,
      snapshots: liveCount(slot.snapshots.stored),
      combinations: liveCount(slot.combinations.stored),
    }));
  }

  function refused(): string[] {
    return [...tenants].flatMap(([tenant, slot]) => (slot.refused ? [tenant] : []));
  }

  async function close(): Promise<void> {
    for (const slot of tenants.values()) clearTimeout(slot.unmarking);
    await resolver?.close();
  }

  return { handleBatch, release, close, counts, refused, resolvesPending: () => resolver?.pending() ?? 0 };
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

/** An output decided, with its body as JSON (undefined: removed). */
type Decision<Body> = Output<Body> & { json: string | undefined };

interface Decided {
  removed: Decision<CombinationFields>[];
  snapshots: Decision<AvailableEmployeeFields>[];
  combinations: Decision<CombinationFields>[];
}

/** The outputs whose bodies differ from what is queued of them, else stored; they count as queued from here on. */
function changedOf<Body>(held: OutputsHeld, outputs: readonly Output<Body>[]): Decision<Body>[] {
  const changed: Decision<Body>[] = [];
  for (const { key, body } of outputs) {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const current = held.queued.has(key) ? held.queued.get(key) : held.stored.get(key)?.json;
    if (json === current) continue;
    held.queued.set(key, json);
    changed.push({ key, body, json });
  }
  return changed;
}

/** Brings stored outputs to their bodies; returns their events, to publish. */
async function writeChanged<Body>(
  collection: ResourceCollection<Body>,
  held: OutputsHeld,
  tenant: string,
  changed: readonly Decision<Body>[],
): Promise<OutboxEntry[]> {
  if (changed.length === 0) return [];
  const { states, toPublish } = await collection.writeKnown(
    { tenant },
    changed.map(({ key, body }) => {
      const known = held.stored.get(key);
      return { key, stored: known && knownStateOf<Body>(known), body };
    }),
  );
  for (const state of states) held.stored.set(state.key, storedOf(state));
  // no longer queued, unless a later decision is
  for (const { key, json } of changed) if (held.queued.get(key) === json) held.queued.delete(key);
  return toPublish;
}
