import type { Address, Availability, Deployment, Employee, TransportResource, UnavailabilityFields } from '@rm/contracts';
import { frozenCombinationOf, holds, type FrozenCombination } from './deployed.js';
import type { Combination, MatchingState } from './combination.js';
import { combinationCapabilities, transportResourceView, type TransportResourceView } from './feasibility.js';
import { components, type Component } from './locations.js';
import { createMatcher, type Matcher, type MatcherLimits } from './matcher.js';
import { buildAvailableEmployee, type AvailableEmployee } from './snapshot.js';

/** The entities matching is built from (DESIGN §6), by their event entity names. */
export const INPUT_ENTITY = {
  employee: 'employee',
  availability: 'availability',
  employeeUnavailability: 'employee-unavailability',
  transportResource: 'transport-resource',
  transportResourceUnavailability: 'transport-resource-unavailability',
  homeBase: 'home-base',
  deployment: 'deployment',
} as const;

/** The latest known version of one input: its state, or, once deleted, the state it had. */
export interface Input {
  readonly entity: string;
  /** The event's entity id (`<parent>/<key>` for a sub-resource). */
  readonly id: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly data: Record<string, unknown>;
}

/** What an input changed: the snapshots and the combinations (by availability id) to write again. */
export interface Touched {
  readonly snapshots: Set<string>;
  readonly combinations: Set<string>;
}

/**
 * What an exact re-solve takes (exact.ts solveAll): the location components with a change since the last
 * adoption, the frozen combinations that bear on them, and their live combinations as `existing`, so
 * that the solve keeps the most of them. `revision` is the matcher's when they were taken.
 */
export interface ExactInputs {
  readonly revision: number;
  readonly shifts: readonly AvailableEmployee[];
  readonly resources: readonly TransportResourceView[];
  readonly frozen: readonly FrozenCombination[];
  readonly existing: ReadonlyMap<string, string>;
}

/** The address a snapshot copied from its home base: what a shift that has started keeps (rule 8). */
export interface KeptAddress {
  readonly homeBaseId: string;
  readonly address: Address;
}

/** A combination as the read API and its events show it, without id and version. */
export interface CombinationView {
  readonly employeeId: string;
  readonly transportResourceIds: readonly string[];
  readonly snapshot: AvailableEmployee;
  readonly capabilities: readonly string[];
  readonly linked: boolean;
  readonly deploymentId?: string;
}

type Unavailability = Pick<UnavailabilityFields, 'from' | 'to'>;
type EmployeeUnavailability = Unavailability & { employee_id: string };
type ResourceUnavailability = Unavailability & { transport_resource_id: string };

/** A one-to-many index: parent id → child ids. */
class Children {
  private readonly byParent = new Map<string, Set<string>>();
  of(parent: string): readonly string[] {
    return [...(this.byParent.get(parent) ?? [])];
  }
  set(parent: string, child: string): void {
    const children = this.byParent.get(parent) ?? new Set();
    children.add(child);
    this.byParent.set(parent, children);
  }
  delete(parent: string, child: string): void {
    const children = this.byParent.get(parent);
    children?.delete(child);
    if (children?.size === 0) this.byParent.delete(parent);
  }
}

/**
 * One tenant's matching, with no I/O: it holds the latest version of every input, rebuilds the
 * AvailableEmployee snapshots an input touches (rule 2), feeds the incremental matcher, and says which
 * snapshots and combinations to write again. Inputs may come in any order and more than once: an
 * older or equal version changes nothing, and a snapshot waits for its employee.
 */
export class TenantMatching {
  private readonly versions = new Map<string, number>();
  private readonly employees = new Map<string, Omit<Employee, 'version'>>();
  private readonly availabilities = new Map<string, Omit<Availability, 'version'>>();
  private readonly availabilitiesOf = new Children();
  private readonly employeeUnavailabilities = new Map<string, EmployeeUnavailability>();
  private readonly employeeUnavailabilitiesOf = new Children();
  private readonly resources = new Map<string, Omit<TransportResource, 'version'>>();
  private readonly views = new Map<string, TransportResourceView>();
  private readonly resourceUnavailabilities = new Map<string, ResourceUnavailability>();
  private readonly resourceUnavailabilitiesOf = new Children();
  private readonly homeBases = new Map<string, Address>();
  private readonly frozen = new Map<string, FrozenCombination>();
  private readonly frozenOf = new Children();
  private readonly snapshots = new Map<string, AvailableEmployee>();
  /** While restoring: the addresses of the stored snapshots, in place of the snapshots built before. */
  private kept: ReadonlyMap<string, KeptAddress> = new Map();
  private readonly matcher: Matcher;
  /** The revision of the last inputs adopted: components with no change since need no re-solve. */
  private adoptedAt = 0;
  /** The inputs this instance gave out: a re-solve taken from another one (the tenant reloaded) is not adopted. */
  private readonly issued = new WeakSet<ExactInputs>();

  constructor(limits: Partial<MatcherLimits> = {}) {
    this.matcher = createMatcher(limits);
  }

  /**
   * Loads a tenant's inputs and what was stored of it at once (a replica taking the tenant over): stored
   * combinations that still fit are kept (see Matcher.restore), and shifts that have started keep the
   * stored snapshots' addresses (rule 8).
   */
  static restore(
    inputs: readonly Input[],
    stored: readonly Combination[],
    now: number,
    kept: ReadonlyMap<string, KeptAddress> = new Map(),
    limits: Partial<MatcherLimits> = {},
  ): TenantMatching {
    const tenant = new TenantMatching(limits);
    for (const input of inputs) tenant.hold(input);
    for (const [id, resource] of tenant.resources) tenant.views.set(id, tenant.viewOf(resource));
    tenant.kept = kept;
    for (const id of tenant.availabilities.keys()) {
      const snapshot = tenant.build(id, now);
      if (snapshot !== undefined) tenant.snapshots.set(id, snapshot);
    }
    tenant.kept = new Map();
    tenant.matcher.restore({
      snapshots: [...tenant.snapshots.values()],
      resources: [...tenant.views.values()],
      frozen: [...tenant.frozen.values()],
      combinations: stored,
    });
    return tenant;
  }

  /** Applies one input if it is newer than what is held; `now` decides which shifts have started (rule 8). */
  apply(input: Input, now: number): Touched {
    const touched: Touched = { snapshots: new Set(), combinations: new Set() };
    // a deployment may move to another employee, whose shifts it held too
    const formerEmployee = input.entity === INPUT_ENTITY.deployment ? this.frozen.get(input.id)?.employeeId : undefined;
    if (!this.hold(input)) return touched;
    const { data } = input;
    switch (input.entity) {
      case INPUT_ENTITY.employee:
        this.rebuild(this.availabilitiesOf.of(input.id), now, touched);
        break;
      case INPUT_ENTITY.availability:
        this.rebuild([String(data['id'])], now, touched);
        break;
      case INPUT_ENTITY.employeeUnavailability:
        this.rebuild(this.availabilitiesOf.of(String(data['employee_id'])), now, touched);
        break;
      case INPUT_ENTITY.deployment:
        this.syncFrozen(input.id, touched);
        for (const employeeId of new Set([String(data['employee_id']), formerEmployee ?? []].flat())) {
          this.rebuild(this.availabilitiesOf.of(employeeId), now, touched);
        }
        break;
      case INPUT_ENTITY.transportResource:
        this.refreshResource(input.id, touched);
        break;
      case INPUT_ENTITY.transportResourceUnavailability:
        this.refreshResource(String(data['transport_resource_id']), touched);
        break;
      case INPUT_ENTITY.homeBase:
        // rule 8: a shift that has started keeps the address it had (see build)
        this.rebuild([...this.snapshots.values()].filter((shift) => atHomeBase(shift, input.id)).map((shift) => shift.availabilityId), now, touched);
        break;
    }
    return touched;
  }

  /** The inputs of an exact re-solve: the components changed since the last adoption; none when nothing changed. */
  exactInputs(): ExactInputs {
    const state = this.matcher.state();
    return this.inputsOf(this.changedComponents(state), state.frozen);
  }

  /**
   * exactInputs in parts of at most `maxShifts` shifts (a component is never split: a larger one is a part
   * of its own), each to be solved and adopted on its own: a re-solve's memory and time then go by part,
   * and another tenant's parts can be solved in between.
   */
  exactInputParts(maxShifts: number): ExactInputs[] {
    const state = this.matcher.state();
    const groups: Component[][] = [];
    let shifts = Infinity;
    for (const part of this.changedComponents(state)) {
      if (shifts + part.shifts.length > maxShifts) {
        groups.push([]);
        shifts = 0;
      }
      groups.at(-1)?.push(part);
      shifts += part.shifts.length;
    }
    return groups.map((group) => this.inputsOf(group, state.frozen));
  }

  private changedComponents(state: MatchingState): Component[] {
    return components(state.snapshots, state.resources).filter(
      (part) => part.shifts.length > 0 && part.resources.length > 0 && this.matcher.changedSince(part, this.adoptedAt),
    );
  }

  /** The inputs of a re-solve of these components, issued by this instance (see adopt). */
  private inputsOf(parts: readonly Component[], frozen: readonly FrozenCombination[]): ExactInputs {
    const shifts = parts.flatMap((part) => part.shifts);
    const resources = parts.flatMap((part) => part.resources);
    const employeeIds = new Set(shifts.map((shift) => shift.employeeId));
    const resourceIds = new Set(resources.map((resource) => resource.id));
    const existing = new Map(
      shifts.flatMap((shift): [string, string][] => {
        const live = this.matcher.combinationOf(shift.availabilityId);
        return live === undefined ? [] : [[shift.availabilityId, live.transportResourceId]];
      }),
    );
    const inputs: ExactInputs = {
      revision: this.matcher.revision(),
      shifts,
      resources,
      frozen: frozen.filter((one) => employeeIds.has(one.employeeId) || one.transportResourceIds.some((id) => resourceIds.has(id))),
      existing,
    };
    this.issued.add(inputs);
    return inputs;
  }

  /**
   * Adopts an exact re-solve of `exactInputs()`, component by component: a component is taken only when
   * none of its inputs changed since they were taken, and when it is better by the objective than what
   * holds now (Matcher.adopt); frozen combinations are never touched. Says what to write, as `apply` does.
   */
  adopt(inputs: ExactInputs, assignment: ReadonlyMap<string, string>): Touched {
    const touched: Touched = { snapshots: new Set(), combinations: new Set() };
    if (!this.issued.has(inputs)) return touched;
    for (const part of components(inputs.shifts, inputs.resources)) {
      this.note(this.matcher.adopt(part, assignment, inputs.revision), touched);
    }
    // a component left out changed after the inputs were taken: the next exactInputs offers it again
    this.adoptedAt = Math.max(this.adoptedAt, inputs.revision);
    return touched;
  }

  /** How many inputs (entities, deleted ones included) it holds: what its memory grows with. */
  inputCount(): number {
    return this.versions.size;
  }

  /** The version held of the input's entity; 0 when none is. */
  versionOf({ entity, id }: Pick<Input, 'entity' | 'id'>): number {
    return this.versions.get(`${entity}|${id}`) ?? 0;
  }

  availableEmployee(availabilityId: string): AvailableEmployee | undefined {
    return this.snapshots.get(availabilityId);
  }

  /** The availability's combination: the matcher's, or the frozen one a planning-bound deployment holds it in. */
  combination(availabilityId: string): CombinationView | undefined {
    const snapshot = this.snapshots.get(availabilityId);
    if (snapshot === undefined) return undefined;
    const live = this.matcher.combinationOf(availabilityId);
    if (live !== undefined) return this.viewOfCombination(snapshot, [live.transportResourceId]);
    // should two hold it, the first by start, then id, whatever order they came in
    const frozen = this.frozenOf
      .of(snapshot.employeeId)
      .map((id) => this.frozen.get(id) as FrozenCombination)
      .filter((held) => holds(held, snapshot))
      .sort((a, b) => a.span.start - b.span.start || (a.id < b.id ? -1 : 1))[0];
    return frozen === undefined ? undefined : this.viewOfCombination(snapshot, frozen.transportResourceIds, frozen.id);
  }

  /** Every availability with a snapshot, and every one the matcher or a frozen combination pairs. */
  availabilityIds(): string[] {
    return [...this.snapshots.keys()];
  }

  private viewOfCombination(snapshot: AvailableEmployee, transportResourceIds: readonly string[], deploymentId?: string): CombinationView {
    const known = transportResourceIds.flatMap((id) => this.views.get(id) ?? []);
    const capabilities = [...new Set(known.flatMap((resource) => combinationCapabilities(snapshot, resource)))].sort();
    return {
      employeeId: snapshot.employeeId,
      transportResourceIds,
      snapshot,
      capabilities,
      linked: snapshot.linkedTransportResource !== undefined && transportResourceIds.includes(snapshot.linkedTransportResource),
      ...(deploymentId === undefined ? {} : { deploymentId }),
    };
  }

  /** Records the input as the latest of its entity; false when it is not newer than what is held. */
  private hold(input: Input): boolean {
    const key = `${input.entity}|${input.id}`;
    if ((this.versions.get(key) ?? 0) >= input.version) return false;
    this.versions.set(key, input.version);
    const data = input.deleted ? null : input.data;
    switch (input.entity) {
      case INPUT_ENTITY.employee:
        setOrDelete(this.employees, input.id, data as Omit<Employee, 'version'> | null);
        break;
      case INPUT_ENTITY.availability:
        this.holdChild(this.availabilities, this.availabilitiesOf, data as Omit<Availability, 'version'> | null, input, 'employee_id', 'id');
        break;
      case INPUT_ENTITY.employeeUnavailability:
        this.holdChild(this.employeeUnavailabilities, this.employeeUnavailabilitiesOf, data as EmployeeUnavailability | null, input, 'employee_id');
        break;
      case INPUT_ENTITY.transportResource:
        setOrDelete(this.resources, input.id, data as Omit<TransportResource, 'version'> | null);
        break;
      case INPUT_ENTITY.transportResourceUnavailability:
        this.holdChild(
          this.resourceUnavailabilities,
          this.resourceUnavailabilitiesOf,
          data as ResourceUnavailability | null,
          input,
          'transport_resource_id',
        );
        break;
      case INPUT_ENTITY.homeBase:
        setOrDelete(this.homeBases, input.id, data === null ? null : ((data['address'] ?? {}) as Address));
        break;
      case INPUT_ENTITY.deployment: {
        const previous = this.frozen.get(input.id);
        if (previous !== undefined) this.frozenOf.delete(previous.employeeId, input.id);
        const frozen = data === null ? undefined : frozenCombinationOf(data as Omit<Deployment, 'version'>);
        if (frozen === undefined) this.frozen.delete(input.id);
        else {
          this.frozen.set(input.id, frozen);
          this.frozenOf.set(frozen.employeeId, input.id);
        }
        break;
      }
    }
    return true;
  }

  /** A sub-resource, stored by its own id (`key`, else the entity id) and indexed under its parent. */
  private holdChild<T extends Record<string, unknown>>(
    items: Map<string, T>,
    children: Children,
    data: T | null,
    input: Input,
    parentField: string,
    keyField?: string,
  ): void {
    const id = keyField === undefined ? input.id : input.id.slice(input.id.lastIndexOf('/') + 1);
    const previous = items.get(id);
    if (previous !== undefined) children.delete(String(previous[parentField]), id);
    if (data === null) items.delete(id);
    else {
      items.set(id, data);
      children.set(String(data[parentField]), id);
    }
  }

  private syncFrozen(deploymentId: string, touched: Touched): void {
    const frozen = this.frozen.get(deploymentId);
    const changes = frozen === undefined ? this.matcher.removeFrozen(deploymentId) : this.matcher.upsertFrozen(frozen);
    for (const change of changes) touched.combinations.add(change.combination.availabilityId);
  }

  /** Builds these availabilities' snapshots again and hands the changed ones to the matcher. */
  private rebuild(availabilityIds: readonly string[], now: number, touched: Touched): void {
    for (const id of availabilityIds) {
      const before = this.snapshots.get(id);
      const after = this.build(id, now);
      touched.snapshots.add(id);
      touched.combinations.add(id);
      if (after === undefined) {
        this.snapshots.delete(id);
        if (before !== undefined) this.note(this.matcher.removeSnapshot(id), touched);
      } else {
        this.snapshots.set(id, after);
        this.note(this.matcher.upsertSnapshot(after), touched);
      }
    }
  }

  /** A transport resource or one of its unavailabilities changed: the matcher re-evaluates its pairings (rules 4, 6). */
  private refreshResource(resourceId: string, touched: Touched): void {
    const resource = this.resources.get(resourceId);
    const held = this.matcher.availabilitiesOn(resourceId);
    if (resource === undefined) {
      this.views.delete(resourceId);
      this.note(this.matcher.removeResource(resourceId), touched);
    } else {
      const view = this.viewOf(resource);
      this.views.set(resourceId, view);
      this.note(this.matcher.upsertResource(view), touched);
    }
    // their capabilities may have changed with the resource, frozen ones' too
    for (const id of held) touched.combinations.add(id);
    for (const frozen of this.frozen.values()) {
      if (frozen.transportResourceIds.includes(resourceId)) for (const id of this.availabilitiesOf.of(frozen.employeeId)) touched.combinations.add(id);
    }
  }

  private note(changes: readonly { combination: Combination }[], touched: Touched): void {
    for (const change of changes) touched.combinations.add(change.combination.availabilityId);
  }

  private viewOf(resource: Omit<TransportResource, 'version'>): TransportResourceView {
    const unavailabilities = this.resourceUnavailabilitiesOf.of(resource.business_id).map((id) => this.resourceUnavailabilities.get(id) as ResourceUnavailability);
    return transportResourceView(resource, unavailabilities);
  }

  /** The snapshot of an availability, or `undefined` while its employee is unknown. A started shift keeps its address (rule 8). */
  private build(availabilityId: string, now: number): AvailableEmployee | undefined {
    const availability = this.availabilities.get(availabilityId);
    const employee = availability === undefined ? undefined : this.employees.get(availability.employee_id);
    if (availability === undefined || employee === undefined) return undefined;
    const employeeId = availability.employee_id;
    const snapshot = buildAvailableEmployee({
      availability,
      employee,
      unavailabilities: this.employeeUnavailabilitiesOf.of(employeeId).map((id) => this.employeeUnavailabilities.get(id) as EmployeeUnavailability),
      homeBases: this.homeBases,
      deployed: this.frozenOf.of(employeeId).map((id) => this.frozen.get(id) as FrozenCombination),
    });
    const before = this.snapshots.get(availabilityId);
    const kept = before === undefined ? this.kept.get(availabilityId) : keptAddressOf(before);
    const { location } = snapshot;
    if (kept === undefined || snapshot.window.start > now || location.kind !== 'home-base' || location.id !== kept.homeBaseId) return snapshot;
    return { ...snapshot, address: kept.address };
  }
}

function setOrDelete<T>(map: Map<string, T>, id: string, value: T | null): void {
  if (value === null) map.delete(id);
  else map.set(id, value);
}

function atHomeBase(shift: AvailableEmployee, homeBaseId: string): boolean {
  return shift.location.kind === 'home-base' && shift.location.id === homeBaseId;
}

/** The home base's address a snapshot holds, if it has one. */
export function keptAddressOf({ location, address }: AvailableEmployee): KeptAddress | undefined {
  return location.kind === 'home-base' && address !== undefined ? { homeBaseId: location.id, address } : undefined;
}
