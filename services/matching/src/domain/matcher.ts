import type { Combination, CombinationChange, MatchingState } from './combination.js';
import { holds, type FrozenCombination } from './deployed.js';
import { canCombine, combinationCost, type TransportResourceView } from './feasibility.js';
import { hull, overlaps, type Interval } from './interval.js';
import { resourceKey, resourceKeys, shiftKeys, type LocationPart } from './locations.js';
import { compareObjectives, objectiveOf, type Objective } from './objective.js';
import { Timeline } from './timeline.js';
import { bestPacking } from './packing.js';
import { ShiftsByStart } from './shifts-by-start.js';
import { compareFits, compareIds, compareNumbers, comparePriority, compareRanks, fitOf, rankOf, type Fit } from './preferences.js';
import type { AvailableEmployee } from './snapshot.js';

/** Bounds that keep one operation's work small whatever the tenant's size. */
export interface MatcherLimits {
  /** Most other shifts an augmenting path moves. */
  readonly augmentDepth: number;
  /** Most (shift, resource) pairs one augmenting-path search looks at. */
  readonly augmentNodes: number;
  /** Most waiting shifts re-tried, and most placed shifts moved, when a transport resource gains room. */
  readonly retriesPerFreedResource: number;
  /** Most transport resources refilled after one operation. */
  readonly freedResourcesPerChange: number;
}

export const DEFAULT_LIMITS: MatcherLimits = {
  augmentDepth: 3,
  augmentNodes: 2000,
  retriesPerFreedResource: 16,
  freedResourcesPerChange: 64,
};

/** One tenant's incremental matcher: each operation re-evaluates only what it touches and returns what changed. */
export interface Matcher {
  upsertSnapshot(snapshot: AvailableEmployee): CombinationChange[];
  removeSnapshot(availabilityId: string): CombinationChange[];
  /** A new or changed transport resource, its unavailabilities included (rule 6). */
  upsertResource(resource: TransportResourceView): CombinationChange[];
  removeResource(transportResourceId: string): CombinationChange[];
  upsertFrozen(frozen: FrozenCombination): CombinationChange[];
  removeFrozen(frozenId: string): CombinationChange[];
  /** Replaces every frozen combination at once. */
  setFrozen(frozen: readonly FrozenCombination[]): CombinationChange[];
  /**
   * Loads a stored state into an empty matcher (a replica taking over a tenant): stored combinations that
   * are still feasible are kept, the others deleted, and the shifts left waiting are matched around the
   * kept ones, which are neither moved nor taken apart.
   */
  restore(state: MatchingState): CombinationChange[];
  combinationOf(availabilityId: string): Combination | undefined;
  /** The availabilities combined with this transport resource. */
  availabilitiesOn(transportResourceId: string): string[];
  state(): MatchingState;
  /** A count of the input changes so far (shifts, resources, frozen combinations): what changedSince compares with. */
  revision(): number;
  /** Whether an input under the keys of a location component's shifts and resources changed after `revision`. */
  changedSince(part: LocationPart, revision: number): boolean;
  /**
   * Takes an exact re-solve of a location component as it was at `revision` (see exact.ts): its shifts get
   * the assignment's resources, or none. Refused, with no change, when an input of the component changed
   * since, when a pair no longer fits, or when it is not better by the objective than what holds now.
   */
  adopt(part: LocationPart, assignment: ReadonlyMap<string, string>, revision: number): CombinationChange[];
}

export function createMatcher(limits: Partial<MatcherLimits> = {}): Matcher {
  return new IncrementalMatcher({ ...DEFAULT_LIMITS, ...limits });
}

function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const values = index.get(key);
  if (values === undefined) index.set(key, new Set([value]));
  else values.add(value);
}

function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const values = index.get(key);
  if (values === undefined) return;
  values.delete(value);
  if (values.size === 0) index.delete(key);
}

/** A tentative step of an augmenting path: a shift moves to a resource, or, without one, gives way. */
interface Move {
  readonly shift: AvailableEmployee;
  readonly to?: string;
}

const movers = (path: readonly Move[]) => path.filter((move) => move.to !== undefined).length;
const evictions = (path: readonly Move[]) => path.length - movers(path);

/** A mover taking a resource: the optional shifts in its way that give way, and the others, which must move on. */
interface Step {
  readonly mover: AvailableEmployee;
  readonly resourceId: string;
  readonly evicted: readonly AvailableEmployee[];
  readonly mustMove: readonly AvailableEmployee[];
}

/** The path after the step (built only for the steps taken: the searches try many more). */
const pathThrough = (moves: readonly Move[], { mover, resourceId, evicted }: Step): Move[] => [
  ...moves,
  ...evicted.map((shift): Move => ({ shift })),
  { shift: mover, to: resourceId },
];

/** Room that opened on a transport resource: over `interval`, or anywhere when it is absent. */
interface Freed {
  readonly resourceId: string;
  readonly interval?: Interval;
}

class IncrementalMatcher implements Matcher {
  private readonly shifts = new Map<string, AvailableEmployee>();
  private readonly resources = new Map<string, TransportResourceView>();
  private readonly frozen = new Map<string, FrozenCombination>();
  /** availability id → transport resource id. */
  private readonly assigned = new Map<string, string>();
  private readonly onResource = new Map<string, Timeline>();
  private readonly frozenOnResource = new Map<string, Set<string>>();
  private readonly frozenOfEmployee = new Map<string, Set<string>>();
  private readonly shiftsOfEmployee = new Map<string, Set<string>>();
  private readonly shiftsByKey = new Map<string, Set<string>>();
  private readonly resourcesByKey = new Map<string, Set<string>>();
  /** Shifts the matcher may place but has not, by start: a subset of shiftsByKey. */
  private readonly waitingByKey = new Map<string, ShiftsByStart>();
  private readonly linkedTo = new Map<string, Set<string>>();
  /** availability id → the resources it may be paired with on their own (pairable): the searches ask for them again and again. */
  private readonly pairableOf = new Map<string, readonly TransportResourceView[]>();

  /** Per operation: each touched availability's combination before it, to net the changes. */
  private readonly before = new Map<string, Combination | undefined>();
  private readonly toPlace = { mandatory: [] as string[], optional: [] as string[] };
  private readonly freed: Freed[] = [];
  /** While restoring: the stored combinations kept, which placing the waiting shifts neither moves nor takes apart. */
  private readonly kept = new Set<string>();
  /** Per key: the revision of the last input change under it; the revision counts them. */
  private readonly changedAt = new Map<string, number>();
  private inputChanges = 0;
  private readonly limits: MatcherLimits;

  // a field rather than a parameter property: the re-solve's worker runs this file with Node's type stripping
  constructor(limits: MatcherLimits) {
    this.limits = limits;
  }

  upsertSnapshot(shift: AvailableEmployee): CombinationChange[] {
    return this.operation(() => {
      const previous = this.shifts.get(shift.availabilityId);
      const current = this.assigned.get(shift.availabilityId);
      // the pair is taken apart and put back when it still fits, so that the resource's timeline holds the new window
      if (previous !== undefined && current !== undefined) this.unassign(previous);
      if (previous !== undefined) this.unindexShift(previous);
      this.shifts.set(shift.availabilityId, shift);
      this.indexShift(shift);
      if (current === undefined || this.isDeployed(shift) || !this.isFree(shift, this.resourceById(current))) return this.enqueue(shift);
      this.assign(shift, current);
      this.moveIfBetter(shift, current);
    });
  }

  removeSnapshot(availabilityId: string): CombinationChange[] {
    return this.operation(() => {
      const shift = this.shifts.get(availabilityId);
      if (shift === undefined) return;
      if (this.assigned.has(availabilityId)) this.unassign(shift);
      this.unindexShift(shift);
      this.shifts.delete(availabilityId);
    });
  }

  upsertResource(resource: TransportResourceView): CombinationChange[] {
    return this.operation(() => {
      const previous = this.resources.get(resource.id);
      if (previous !== undefined) this.unindexResource(previous);
      this.resources.set(resource.id, resource);
      this.indexResource(resource);
      // rule 6 and every other rule of the pair: what no longer fits loses its combination and is matched again
      for (const shift of this.shiftsOn(resource.id)) {
        if (canCombine(shift, resource)) continue;
        this.unassign(shift);
        this.enqueue(shift);
      }
      // a dearer resource may lose its shifts to cheaper free ones
      for (const shift of this.shiftsOn(resource.id)) this.moveIfBetter(shift, resource.id);
      this.freed.push({ resourceId: resource.id });
    });
  }

  removeResource(transportResourceId: string): CombinationChange[] {
    return this.operation(() => {
      const resource = this.resources.get(transportResourceId);
      if (resource === undefined) return;
      const held = this.shiftsOn(transportResourceId);
      for (const shift of held) this.unassign(shift);
      this.unindexResource(resource);
      this.resources.delete(transportResourceId);
      for (const shift of held) this.enqueue(shift);
    });
  }

  upsertFrozen(frozen: FrozenCombination): CombinationChange[] {
    return this.operation(() => this.replaceFrozen(this.frozen.get(frozen.id), frozen));
  }

  removeFrozen(frozenId: string): CombinationChange[] {
    return this.operation(() => this.replaceFrozen(this.frozen.get(frozenId), undefined));
  }

  setFrozen(all: readonly FrozenCombination[]): CombinationChange[] {
    return this.operation(() => {
      const kept = new Set(all.map((frozen) => frozen.id));
      for (const frozen of [...this.frozen.values()]) if (!kept.has(frozen.id)) this.replaceFrozen(frozen, undefined);
      for (const frozen of all) if (this.frozen.get(frozen.id) !== frozen) this.replaceFrozen(this.frozen.get(frozen.id), frozen);
    });
  }

  restore(state: MatchingState): CombinationChange[] {
    const changes = this.operation(() => {
      for (const resource of state.resources) {
        this.resources.set(resource.id, resource);
        this.indexResource(resource);
      }
      for (const frozen of state.frozen) this.indexFrozen(frozen);
      for (const shift of state.snapshots) {
        this.shifts.set(shift.availabilityId, shift);
        this.indexShift(shift);
      }
      for (const combination of state.combinations) {
        this.before.set(combination.availabilityId, combination);
        const shift = this.shifts.get(combination.availabilityId);
        const resourceId = combination.transportResourceId;
        if (shift === undefined || this.assigned.has(shift.availabilityId) || this.isDeployed(shift)) continue;
        const resource = this.resources.get(resourceId);
        if (resource === undefined || !this.isFree(shift, resource)) continue;
        this.assign(shift, resourceId);
        this.kept.add(shift.availabilityId);
      }
      // an operation retries only the waiting shifts near its change, within the limits: retried all at once,
      // they could take kept combinations apart even in the very state a replica left
      for (const shift of [...this.shifts.values()].sort(comparePriority)) this.enqueue(shift);
    });
    this.kept.clear();
    return changes;
  }

  combinationOf(availabilityId: string): Combination | undefined {
    const transportResourceId = this.assigned.get(availabilityId);
    const shift = this.shifts.get(availabilityId);
    if (transportResourceId === undefined || shift === undefined) return undefined;
    return { availabilityId, employeeId: shift.employeeId, transportResourceId };
  }

  availabilitiesOn(transportResourceId: string): string[] {
    return this.shiftsOn(transportResourceId).map((shift) => shift.availabilityId);
  }

  state(): MatchingState {
    return {
      snapshots: [...this.shifts.values()],
      resources: [...this.resources.values()],
      frozen: [...this.frozen.values()],
      combinations: [...this.assigned.keys()].flatMap((id) => this.combinationOf(id) ?? []),
    };
  }

  revision(): number {
    return this.inputChanges;
  }

  changedSince({ shifts, resources }: LocationPart, revision: number): boolean {
    const after = (key: string) => (this.changedAt.get(key) ?? 0) > revision;
    return shifts.some((shift) => shiftKeys(shift).some(after)) || resources.some((resource) => resourceKeys(resource).some(after));
  }

  /**
   * A component with no change since `revision` (a member changed, came or went, or a frozen combination on
   * its resources or shifts did: each marks the keys involved) is the one the solver saw, so its pairs fit;
   * they are checked again all the same, as cheap insurance.
   */
  adopt(part: LocationPart, assignment: ReadonlyMap<string, string>, revision: number): CombinationChange[] {
    if (this.changedSince(part, revision)) return [];
    // a frozen combination holds some shifts: those are not the matcher's to move
    const shifts = part.shifts.flatMap((shift) => this.shifts.get(shift.availabilityId) ?? []).filter((shift) => !this.isDeployed(shift));
    const proposed = shifts.flatMap(({ availabilityId, employeeId }): Combination[] => {
      const transportResourceId = assignment.get(availabilityId);
      return transportResourceId === undefined ? [] : [{ availabilityId, employeeId, transportResourceId }];
    });
    const current = shifts.flatMap((shift) => this.combinationOf(shift.availabilityId) ?? []);
    const better = compareObjectives(this.objectiveOf(shifts, proposed), this.objectiveOf(shifts, current)) < 0;
    if (!better || !this.fitsTogether(proposed, new Set(shifts))) return [];
    return this.operation(() => {
      for (const shift of shifts) if (this.assigned.has(shift.availabilityId)) this.unassign(shift);
      for (const { availabilityId, transportResourceId } of proposed) this.assign(this.shiftById(availabilityId), transportResourceId);
    });
  }

  /** Runs one change, lets its consequences settle within the limits, and nets what changed. */
  private operation(change: () => void): CombinationChange[] {
    change();
    this.settle();
    return this.changes();
  }

  private settle(): void {
    let refills = 0;
    for (;;) {
      const next = this.toPlace.mandatory.shift() ?? this.toPlace.optional.shift();
      if (next !== undefined) {
        const shift = this.shifts.get(next);
        if (shift !== undefined && this.isWaiting(shift)) this.place(shift);
        continue;
      }
      const freed = this.freed.shift();
      if (freed === undefined || refills++ >= this.limits.freedResourcesPerChange) break;
      this.refill(freed);
    }
    this.freed.length = 0;
  }

  private changes(): CombinationChange[] {
    const changes: CombinationChange[] = [];
    for (const [availabilityId, was] of this.before) {
      const now = this.combinationOf(availabilityId);
      if (was?.transportResourceId === now?.transportResourceId) continue;
      if (was === undefined) changes.push({ kind: 'created', combination: now as Combination });
      else if (now !== undefined) changes.push({ kind: 'moved', combination: now, from: was.transportResourceId });
      else changes.push({ kind: this.deployedOn(availabilityId, was.transportResourceId) ? 'deployed' : 'deleted', combination: was });
    }
    this.before.clear();
    return changes;
  }

  /**
   * A waiting shift: the best free resource; else an augmenting path that moves others to make room;
   * else, for a mandatory shift, one on which optional shifts give way; else a resource packed anew.
   */
  private place(shift: AvailableEmployee): void {
    const candidates = this.candidates(shift);
    if (candidates.length === 0) return;
    const best = this.bestFree(shift, candidates);
    if (best !== undefined) return this.assign(shift, best.resource.id);
    const path = this.augmentingPath(shift, candidates, false);
    if (path !== undefined) return this.apply(path);
    const evicting = shift.mandatory ? this.augmentingPath(shift, candidates, true) : undefined;
    if (evicting !== undefined) return this.apply(evicting);
    this.repack(shift, candidates);
  }

  /**
   * Breadth first, so that the path moving the fewest others wins. The one shift in a mover's way moves
   * on in turn; several in its way must each find room at once, one step away. With `evict` (a mandatory
   * shift's last resort: most mandatory matched comes first), optional shifts in the way give way
   * instead, the fewest at each step, and only mandatory ones move on.
   */
  private augmentingPath(start: AvailableEmployee, startCandidates: readonly TransportResourceView[], evict: boolean): Move[] | undefined {
    const visited = new Set([start.availabilityId]);
    const queue: { mover: AvailableEmployee; moves: Move[] }[] = [{ mover: start, moves: [] }];
    const search = { budget: this.limits.augmentNodes, evict };
    for (let head = 0; head < queue.length && search.budget > 0; head++) {
      const { mover, moves } = queue[head] as (typeof queue)[number];
      let leastEvicting: Move[] | undefined;
      for (const resource of head === 0 ? startCandidates : this.candidates(mover)) {
        if (--search.budget < 0) break;
        if (resource.id === this.assigned.get(mover.availabilityId)) continue;
        const step = this.stepOnto(resource.id, mover, moves, evict);
        if (step === undefined) continue;
        const blocker = step.mustMove[0];
        if (step.mustMove.length === 1 && blocker !== undefined) {
          if (movers(moves) + 1 > this.limits.augmentDepth || visited.has(blocker.availabilityId)) continue;
          visited.add(blocker.availabilityId);
          queue.push({ mover: blocker, moves: pathThrough(moves, step) });
          continue;
        }
        const path = step.mustMove.length === 0 ? pathThrough(moves, step) : this.relocateAll(step.mustMove, pathThrough(moves, step), search);
        if (path === undefined) continue;
        if (evictions(path) === evictions(moves)) return path;
        if (leastEvicting === undefined || evictions(path) < evictions(leastEvicting)) leastEvicting = path;
      }
      if (leastEvicting !== undefined) return leastEvicting;
    }
    return undefined;
  }

  /**
   * The mover takes the resource: optional shifts in its way give way when evicting; the others must move
   * on. None when a kept combination is in its way.
   */
  private stepOnto(resourceId: string, mover: AvailableEmployee, moves: readonly Move[], evict: boolean): Step | undefined {
    const blocking = this.occupants(resourceId, mover, moves);
    if (blocking.some((other) => this.kept.has(other.availabilityId))) return undefined;
    const evicted = evict ? blocking.filter((other) => !other.mandatory) : [];
    const mustMove = evict ? blocking.filter((other) => other.mandatory) : blocking;
    return { mover, resourceId, evicted, mustMove };
  }

  /** Each shift finds room one step away, free if it can, else (when evicting) where only optional shifts give way. */
  private relocateAll(shifts: readonly AvailableEmployee[], path: Move[], search: { budget: number; evict: boolean }): Move[] | undefined {
    // a shift that already moved on this path stays where the path puts it
    if (shifts.some((shift) => path.some((move) => move.shift === shift))) return undefined;
    let extended = path;
    for (const shift of shifts) {
      const from = this.assigned.get(shift.availabilityId);
      let found: Step | undefined;
      for (const resource of this.candidates(shift)) {
        if (--search.budget < 0) return undefined;
        if (resource.id === from) continue;
        const step = this.stepOnto(resource.id, shift, extended, search.evict);
        if (step === undefined || step.mustMove.length > 0 || (found !== undefined && step.evicted.length >= found.evicted.length)) continue;
        found = step;
        if (found.evicted.length === 0) break;
      }
      if (found === undefined) return undefined;
      extended = pathThrough(extended, found);
    }
    return extended;
  }

  /** Shifts that give way look for room elsewhere afterwards. */
  private apply(path: readonly Move[]): void {
    for (const { shift } of path) if (this.assigned.has(shift.availabilityId)) this.unassign(shift);
    for (const { shift, to } of path) if (to !== undefined) this.assign(shift, to);
    for (const { shift, to } of path) if (to === undefined) this.enqueue(shift);
  }

  /**
   * The last resort: the part of a resource that the shift needs is packed anew from the shifts in it
   * and the waiting ones around it, and taken when that beats what is there (more mandatory, or as many
   * and more matched); the shifts left out look for room elsewhere.
   */
  private repack(shift: AvailableEmployee, candidates: readonly TransportResourceView[]): void {
    for (const resource of candidates) {
      const blocking = this.occupants(resource.id, shift);
      if (blocking.some((other) => this.kept.has(other.availabilityId))) continue;
      const region = blocking.reduce((span, other) => hull(span, other.window), shift.window);
      const fitsAmongTheRest = (other: AvailableEmployee) =>
        canCombine(other, resource) &&
        !this.frozenBlocks(other, resource.id) &&
        this.occupants(resource.id, other).every((occupant) => blocking.includes(occupant));
      const pool = new Set([shift, ...blocking, ...this.waitingFor(resource, region).filter(fitsAmongTheRest)]);
      const chosen = bestPacking([...pool]);
      const mandatory = (shifts: readonly AvailableEmployee[]) => shifts.filter((one) => one.mandatory).length;
      const gain = compareNumbers(mandatory(chosen), mandatory(blocking)) || compareNumbers(chosen.length, blocking.length);
      if (gain <= 0) continue;
      const leaving = blocking.filter((other) => !chosen.includes(other)).map((other): Move => ({ shift: other }));
      const coming = chosen.filter((other) => !blocking.includes(other)).map((other): Move => ({ shift: other, to: resource.id }));
      return this.apply([...leaving, ...coming]);
    }
  }

  /** Waiting shifts that could use the resource, overlapping the interval if one is given, in priority order, bounded. */
  private waitingFor(resource: TransportResourceView, interval?: Interval): AvailableEmployee[] {
    return resourceKeys(resource)
      .flatMap((key) => this.waitingUnder(key, interval))
      .sort(comparePriority)
      .slice(0, this.limits.retriesPerFreedResource);
  }

  /** The shifts waiting under the key, overlapping the interval if one is given. */
  private waitingUnder(key: string, interval: Interval | undefined): AvailableEmployee[] {
    const waiting = this.waitingByKey.get(key);
    if (waiting === undefined) return [];
    return interval === undefined ? [...waiting] : waiting.overlapping(interval);
  }

  /**
   * Room opened on a resource: the waiting shifts around it are tried again, most important first; then
   * placed shifts that would be better off on it (their linked resource, or a cheaper one) move there.
   */
  private refill({ resourceId, interval }: Freed): void {
    const resource = this.resources.get(resourceId);
    if (resource === undefined) return;
    const inRange = (shift: AvailableEmployee) => interval === undefined || overlaps(shift.window, interval);
    for (const shift of this.waitingAround(resource, interval)) if (this.isWaiting(shift)) this.place(shift);
    let moves = 0;
    for (const shift of this.betterOn(resource, inRange)) {
      if (moves >= this.limits.retriesPerFreedResource) break;
      if (!this.assigned.has(shift.availabilityId) || this.kept.has(shift.availabilityId) || !this.isFree(shift, resource)) continue;
      this.unassign(shift);
      this.assign(shift, resourceId);
      moves++;
    }
  }

  /**
   * The waiting shifts that the room may help, in priority order, bounded: those that could use the
   * resource, and those waiting behind a placed shift that could move to it (an augmenting path, found
   * from its far end: it reaches across places through shifts on a journey).
   */
  private waitingAround(resource: TransportResourceView, interval: Interval | undefined): AvailableEmployee[] {
    // key → the span over which its waiting shifts count (undefined: all of them)
    const spans = new Map<string, Interval | undefined>();
    const widen = (key: string, span: Interval | undefined) => {
      const known = spans.get(key);
      if (!spans.has(key)) spans.set(key, span);
      else if (known !== undefined) spans.set(key, span === undefined ? undefined : hull(known, span));
    };
    const behind = (placed: AvailableEmployee) => {
      const current = this.assigned.get(placed.availabilityId);
      if (current === undefined || current === resource.id) return;
      for (const key of resourceKeys(this.resourceById(current))) widen(key, placed.window);
    };
    for (const key of resourceKeys(resource)) {
      widen(key, interval);
      if (key === resourceKey(resource.id)) {
        for (const id of this.shiftsByKey.get(key) ?? []) {
          const placed = this.shiftById(id);
          if (interval === undefined || overlaps(placed.window, interval)) behind(placed);
        }
        continue;
      }
      // the other resources of the place: whatever waits for them may gain when one of their shifts moves here
      for (const otherId of this.resourcesByKey.get(key) ?? []) {
        if (interval === undefined) for (const behindKey of resourceKeys(this.resourceById(otherId))) widen(behindKey, undefined);
        else for (const placed of this.onResource.get(otherId)?.overlapping(interval) ?? []) behind(placed);
      }
    }
    const found = new Set<AvailableEmployee>();
    for (const [key, span] of spans) for (const shift of this.waitingUnder(key, span)) found.add(shift);
    return [...found].sort(comparePriority).slice(0, this.limits.retriesPerFreedResource);
  }

  /** Placed shifts that would rank the resource better than their own: linked to it, or on a dearer resource of its place. */
  private betterOn(resource: TransportResourceView, inRange: (shift: AvailableEmployee) => boolean): AvailableEmployee[] {
    const found = new Set<AvailableEmployee>();
    const consider = (shift: AvailableEmployee) => {
      const current = this.assigned.get(shift.availabilityId);
      if (current === undefined || current === resource.id || !inRange(shift)) return;
      if (compareRanks(rankOf(shift, resource), rankOf(shift, this.resourceById(current))) < 0) found.add(shift);
    };
    for (const id of this.linkedTo.get(resource.id) ?? []) consider(this.shiftById(id));
    const cost = combinationCost(resource);
    for (const key of resourceKeys(resource)) {
      for (const otherId of this.resourcesByKey.get(key) ?? []) {
        if (combinationCost(this.resourceById(otherId)) > cost) for (const shift of this.shiftsOn(otherId)) consider(shift);
      }
    }
    return [...found].sort(comparePriority);
  }

  /** Fewest changes ranks last in the objective: a placed shift moves only to a free resource it ranks better. */
  private moveIfBetter(shift: AvailableEmployee, currentId: string): void {
    const best = this.bestFree(shift, this.candidates(shift));
    const current = this.resourceById(currentId);
    if (best === undefined || compareRanks(best, rankOf(shift, current)) >= 0) return;
    this.unassign(shift);
    this.assign(shift, best.resource.id);
  }

  /** Resources the shift may be paired with on their own and that no frozen combination takes during its window; linked and cheap first. */
  private candidates(shift: AvailableEmployee): readonly TransportResourceView[] {
    const pairable = this.pairable(shift);
    return this.frozenOnResource.size === 0 ? pairable : pairable.filter((resource) => !this.frozenBlocks(shift, resource.id));
  }

  /** Resources the shift may be paired with on their own, in the order of candidates; kept until the shift or a resource of its keys changes. */
  private pairable(shift: AvailableEmployee): readonly TransportResourceView[] {
    const known = this.pairableOf.get(shift.availabilityId);
    if (known !== undefined) return known;
    const found: TransportResourceView[] = [];
    for (const key of shiftKeys(shift)) {
      for (const id of this.resourcesByKey.get(key) ?? []) {
        const resource = this.resourceById(id);
        if (canCombine(shift, resource)) found.push(resource);
      }
    }
    found.sort((a, b) => compareRanks(rankOf(shift, a), rankOf(shift, b)) || compareIds(a.id, b.id));
    this.pairableOf.set(shift.availabilityId, found);
    return found;
  }

  private bestFree(shift: AvailableEmployee, candidates: readonly TransportResourceView[]): Fit | undefined {
    let best: Fit | undefined;
    for (const resource of candidates) {
      if (this.occupants(resource.id, shift).length > 0) continue;
      const fit = fitOf(shift, resource, this.commitments(resource.id, shift));
      if (best === undefined || compareFits(fit, best) < 0) best = fit;
    }
    return best;
  }

  /** Whether the combinations may all hold at once, the `moving` shifts leaving their resources first. */
  private fitsTogether(combinations: readonly Combination[], moving: ReadonlySet<AvailableEmployee>): boolean {
    const placed = new Map<string, AvailableEmployee[]>();
    for (const { availabilityId, transportResourceId: resourceId } of combinations) {
      const shift = this.shiftById(availabilityId);
      const resource = this.resources.get(resourceId);
      if (resource === undefined || !canCombine(shift, resource) || this.frozenBlocks(shift, resourceId)) return false;
      if (this.occupants(resourceId, shift).some((other) => !moving.has(other))) return false;
      const others = placed.get(resourceId) ?? [];
      if (others.some((other) => overlaps(other.window, shift.window))) return false;
      placed.set(resourceId, [...others, shift]);
    }
    return true;
  }

  private objectiveOf(shifts: readonly AvailableEmployee[], combinations: readonly Combination[]): Objective {
    const resources = [...new Set(combinations.map((one) => one.transportResourceId))].flatMap((id) => this.resources.get(id) ?? []);
    return objectiveOf({ snapshots: shifts, resources, combinations });
  }

  private isFree(shift: AvailableEmployee, resource: TransportResourceView): boolean {
    return canCombine(shift, resource) && !this.frozenBlocks(shift, resource.id) && this.occupants(resource.id, shift).length === 0;
  }

  /** The other shifts on the resource whose windows overlap the shift's, after the tentative moves. */
  private occupants(resourceId: string, shift: AvailableEmployee, moves: readonly Move[] = []): AvailableEmployee[] {
    const found = (this.onResource.get(resourceId)?.overlapping(shift.window) ?? []).filter(
      (other) => other !== shift && !moves.some((move) => move.shift === other),
    );
    for (const move of moves) if (move.to === resourceId && overlaps(move.shift.window, shift.window)) found.push(move.shift);
    return found;
  }

  /** What else takes the resource around a shift that fits on it: the neighbouring windows and the frozen spans. */
  private *commitments(resourceId: string, shift: AvailableEmployee): Generator<Interval> {
    yield* this.onResource.get(resourceId)?.neighbours(shift.window, shift) ?? [];
    for (const id of this.frozenOnResource.get(resourceId) ?? []) yield this.frozenById(id).span;
  }

  private frozenBlocks(shift: AvailableEmployee, resourceId: string): boolean {
    for (const id of this.frozenOnResource.get(resourceId) ?? []) if (overlaps(this.frozenById(id).span, shift.window)) return true;
    return false;
  }

  private isDeployed(shift: AvailableEmployee): boolean {
    for (const id of this.frozenOfEmployee.get(shift.employeeId) ?? []) if (holds(this.frozenById(id), shift)) return true;
    return false;
  }

  /** Whether the shift is now held by a frozen combination that takes this resource. */
  private deployedOn(availabilityId: string, resourceId: string): boolean {
    const shift = this.shifts.get(availabilityId);
    if (shift === undefined) return false;
    return [...(this.frozenOfEmployee.get(shift.employeeId) ?? [])].some((id) => {
      const frozen = this.frozenById(id);
      return holds(frozen, shift) && frozen.transportResourceIds.includes(resourceId);
    });
  }

  private isWaiting(shift: AvailableEmployee): boolean {
    return !this.assigned.has(shift.availabilityId) && !this.isDeployed(shift);
  }

  /**
   * A frozen combination came, went or changed: shifts it now holds leave the matcher, movable shifts
   * in its way lose their resource, and shifts it held before, and the room it took, are matched again.
   */
  private replaceFrozen(previous: FrozenCombination | undefined, next: FrozenCombination | undefined): void {
    const employees = new Set([previous?.employeeId, next?.employeeId].flatMap((id) => id ?? []));
    const ownShifts = [...employees].flatMap((employee) => [...(this.shiftsOfEmployee.get(employee) ?? [])]);
    if (previous !== undefined) this.unindexFrozen(previous);
    if (next !== undefined) this.indexFrozen(next);
    for (const id of ownShifts) {
      const shift = this.shiftById(id);
      // whether a frozen combination holds the shift may have changed
      this.markChanged(shiftKeys(shift));
      if (this.isDeployed(shift) && this.assigned.has(id)) this.unassign(shift);
      this.syncWaiting(shift);
      this.enqueue(shift);
    }
    // the room the previous version took is free again, unless the next one takes it back below
    if (previous !== undefined) {
      for (const resourceId of previous.transportResourceIds) this.freed.push({ resourceId, interval: previous.span });
    }
    if (next === undefined) return;
    for (const resourceId of next.transportResourceIds) {
      for (const shift of this.shiftsOn(resourceId)) {
        if (!overlaps(shift.window, next.span)) continue;
        this.unassign(shift);
        this.enqueue(shift);
      }
    }
  }

  private enqueue(shift: AvailableEmployee): void {
    if (!this.isWaiting(shift)) return;
    (shift.mandatory ? this.toPlace.mandatory : this.toPlace.optional).push(shift.availabilityId);
  }

  private assign(shift: AvailableEmployee, resourceId: string): void {
    this.record(shift);
    this.assigned.set(shift.availabilityId, resourceId);
    const timeline = this.onResource.get(resourceId) ?? new Timeline();
    timeline.add(shift);
    this.onResource.set(resourceId, timeline);
    this.syncWaiting(shift);
  }

  private unassign(shift: AvailableEmployee): void {
    this.record(shift);
    const resourceId = this.assigned.get(shift.availabilityId);
    if (resourceId === undefined) return;
    this.assigned.delete(shift.availabilityId);
    const timeline = this.onResource.get(resourceId) as Timeline;
    timeline.remove(shift);
    if (timeline.size === 0) this.onResource.delete(resourceId);
    this.freed.push({ resourceId, interval: shift.window });
    this.syncWaiting(shift);
  }

  private record(shift: AvailableEmployee): void {
    if (!this.before.has(shift.availabilityId)) this.before.set(shift.availabilityId, this.combinationOf(shift.availabilityId));
  }

  // the indexes hold only ids of what the maps hold
  private shiftById(id: string): AvailableEmployee {
    return this.shifts.get(id) as AvailableEmployee;
  }

  private resourceById(id: string): TransportResourceView {
    return this.resources.get(id) as TransportResourceView;
  }

  private frozenById(id: string): FrozenCombination {
    return this.frozen.get(id) as FrozenCombination;
  }

  private shiftsOn(resourceId: string): AvailableEmployee[] {
    return [...(this.onResource.get(resourceId) ?? [])];
  }

  private syncWaiting(shift: AvailableEmployee): void {
    const waiting = this.isWaiting(shift);
    for (const key of shiftKeys(shift)) {
      if (waiting) this.addWaiting(key, shift);
      else this.removeWaiting(key, shift);
    }
  }

  private addWaiting(key: string, shift: AvailableEmployee): void {
    const waiting = this.waitingByKey.get(key) ?? new ShiftsByStart();
    waiting.add(shift);
    this.waitingByKey.set(key, waiting);
  }

  private removeWaiting(key: string, shift: AvailableEmployee): void {
    const waiting = this.waitingByKey.get(key);
    if (waiting === undefined) return;
    waiting.remove(shift);
    if (waiting.size === 0) this.waitingByKey.delete(key);
  }

  /** An input changed under these keys: a re-solve of their component taken before must not be adopted. */
  private markChanged(keys: readonly string[]): void {
    this.inputChanges += 1;
    for (const key of keys) this.changedAt.set(key, this.inputChanges);
  }

  private indexShift(shift: AvailableEmployee): void {
    this.markChanged(shiftKeys(shift));
    this.pairableOf.delete(shift.availabilityId);
    for (const key of shiftKeys(shift)) addTo(this.shiftsByKey, key, shift.availabilityId);
    addTo(this.shiftsOfEmployee, shift.employeeId, shift.availabilityId);
    if (shift.linkedTransportResource !== undefined) addTo(this.linkedTo, shift.linkedTransportResource, shift.availabilityId);
    this.syncWaiting(shift);
  }

  private unindexShift(shift: AvailableEmployee): void {
    this.markChanged(shiftKeys(shift));
    this.pairableOf.delete(shift.availabilityId);
    for (const key of shiftKeys(shift)) {
      removeFrom(this.shiftsByKey, key, shift.availabilityId);
      this.removeWaiting(key, shift);
    }
    removeFrom(this.shiftsOfEmployee, shift.employeeId, shift.availabilityId);
    if (shift.linkedTransportResource !== undefined) removeFrom(this.linkedTo, shift.linkedTransportResource, shift.availabilityId);
  }

  private indexResource(resource: TransportResourceView): void {
    this.markChanged(resourceKeys(resource));
    this.forgetPairable(resource);
    for (const key of resourceKeys(resource)) addTo(this.resourcesByKey, key, resource.id);
  }

  private unindexResource(resource: TransportResourceView): void {
    this.markChanged(resourceKeys(resource));
    this.forgetPairable(resource);
    for (const key of resourceKeys(resource)) removeFrom(this.resourcesByKey, key, resource.id);
  }

  /** The shifts that meet the resource under one of its keys may gain or lose it. */
  private forgetPairable(resource: TransportResourceView): void {
    for (const key of resourceKeys(resource)) for (const id of this.shiftsByKey.get(key) ?? []) this.pairableOf.delete(id);
  }

  private indexFrozen(frozen: FrozenCombination): void {
    this.markChanged(frozen.transportResourceIds.map(resourceKey));
    this.frozen.set(frozen.id, frozen);
    for (const resourceId of frozen.transportResourceIds) addTo(this.frozenOnResource, resourceId, frozen.id);
    addTo(this.frozenOfEmployee, frozen.employeeId, frozen.id);
  }

  private unindexFrozen(frozen: FrozenCombination): void {
    this.markChanged(frozen.transportResourceIds.map(resourceKey));
    this.frozen.delete(frozen.id);
    for (const resourceId of frozen.transportResourceIds) removeFrom(this.frozenOnResource, resourceId, frozen.id);
    removeFrom(this.frozenOfEmployee, frozen.employeeId, frozen.id);
  }
}
