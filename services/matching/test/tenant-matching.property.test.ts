import type { Address, Availability, Deployment, Employee, TransportResource } from '@rm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Combination, MatchingState } from '../src/domain/combination.js';
import { frozenCombinationOf, holds, type FrozenCombination } from '../src/domain/deployed.js';
import { transportResourceView, type TransportResourceView } from '../src/domain/feasibility.js';
import { overlaps } from '../src/domain/interval.js';
import { objectiveOf } from '../src/domain/objective.js';
import { buildAvailableEmployee, type AvailableEmployee } from '../src/domain/snapshot.js';
import { INPUT_ENTITY, TenantMatching, type Input } from '../src/domain/tenant-matching.js';
import { feasibilityViolations } from '../src/testing/yardsticks.js';
import { hour } from './fixtures.js';

/*
 * Small random tenants as event histories: a few home bases, employees, transport resources, availabilities over two
 * days, unavailabilities and deployments, each entity with one or two versions and sometimes a delete. Few ids and one
 * crowded home base, so that shifts compete for resources.
 */

type Data = Record<string, unknown>;
type Span = { from: number; to: number };

/** One entity's events: its states in version order (1, 2, …), then perhaps a delete carrying the last state. */
interface History {
  readonly entity: string;
  readonly id: string;
  readonly states: readonly Data[];
  readonly deleted: boolean;
}

const iso = (hours: number) => new Date(hour(hours)).toISOString();
/** Before every shift: none has started, so every snapshot follows its inputs exactly (rule 8 keeps nothing). */
const BEFORE_EVERYTHING = hour(-24);
/** The middle of the first day: the morning's shifts have started. */
const MIDDAY = hour(12);

const EMPLOYEES = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'];
const RESOURCES = ['r0', 'r1', 'r2', 'r3', 'r4'];
const SKILLS = ['A', 'B'];
const PLACE: Address = { name: 'P', city: 'Gent' };
const AT_H1: Data = { home_base: { business_id: 'h1' } };
const AT_H2: Data = { home_base: { business_id: 'h2' } };

/** Mostly absent, a quarter of the time there. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const withoutUndefined = (data: Data): Data => Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
const all = (histories: readonly fc.Arbitrary<History>[]): fc.Arbitrary<History[]> =>
  histories.length === 0 ? fc.constant([]) : fc.tuple(...histories).map((list) => [...list]);

/** One or two versions of a state, deleted a quarter of the time. */
function history(entity: string, id: string, state: fc.Arbitrary<Data>): fc.Arbitrary<History> {
  return fc
    .record({ states: fc.array(state, { minLength: 1, maxLength: 2 }), dice: fc.integer({ min: 0, max: 3 }) })
    .map(({ states, dice }) => ({ entity, id, states, deleted: dice === 0 }));
}

const homeBaseState = (id: string) =>
  fc
    .constantFrom('Kaai 1', 'Dok 9', 'Ring 3')
    .map((line): Data => ({ business_id: id, name: id, address: { name: id, address_line: line } }));

const employeeState = (id: string) =>
  fc
    .record({
      location: fc.constantFrom<Data>(AT_H1, AT_H1, AT_H2, { start_location: PLACE }),
      driver_skills: fc.subarray(SKILLS),
      skills: fc.subarray(['x', 'y']),
      linked_transport_resource: rarely(fc.constantFrom(...RESOURCES)),
    })
    .map(({ location, ...fields }): Data => withoutUndefined({ business_id: id, ...location, ...fields }));

const resourceState = (id: string) =>
  fc
    .record({
      type: fc.constantFrom('TRUCK', 'TRUCK', 'TRUCK', 'TRACTOR', 'TRAILER'),
      location: fc.constantFrom<Data>(AT_H1, AT_H1, AT_H2, { start_location: PLACE }),
      inactive: fc.constantFrom(false, false, false, false, false, false, true),
      requirements: rarely(fc.subarray(SKILLS, { minLength: 1, maxLength: 1 })),
      required_capabilities: rarely(fc.subarray(SKILLS, { minLength: 1, maxLength: 1 })),
      capabilities: fc.subarray(['crane', 'cooling']),
      skilled_capabilities: rarely(fc.subarray(SKILLS)),
      cant_do: rarely(fc.constantFrom(['x'], ['crane'])),
      fixed: rarely(fc.constantFrom(1, 2, 5)),
    })
    .map(({ location, fixed, ...fields }): Data =>
      withoutUndefined({ business_id: id, ...location, ...fields, ...(fixed === undefined ? {} : { costs: { fixed } }) }),
    );

/**
 * An availability in a 12-hour slot of its own (an employee's availabilities never overlap): it starts at most two
 * hours into the slot, may start up to an hour later, and lasts two to eight hours, so that it ends before the next slot.
 */
const availabilityState = (employeeId: string, id: string, slot: number) =>
  fc
    .record({
      offset: fc.integer({ min: 0, max: 2 }),
      lateBy: rarely(fc.integer({ min: 0, max: 1 })),
      length: fc.integer({ min: 2, max: 8 }),
      cutBy: rarely(fc.integer({ min: 0, max: 3 })),
      mandatory: fc.boolean(),
      start_location: rarely(fc.constantFrom<Data>(AT_H2, AT_H1, { address: PLACE }, { at_last_end: true })),
    })
    .map(({ offset, lateBy, length, cutBy, ...fields }): Data => {
      const start = slot * 12 + offset;
      return withoutUndefined({
        id,
        employee_id: employeeId,
        earliest_start: iso(start),
        latest_start: lateBy === undefined ? undefined : iso(start + lateBy),
        max_duration: `PT${length}H`,
        min_duration: cutBy === undefined ? undefined : `PT${Math.max(length - cutBy, 1)}H`,
        ...fields,
      });
    });

/** One to eight hours within the two days. */
const spanArbitrary: fc.Arbitrary<Span> = fc
  .tuple(fc.integer({ min: 0, max: 46 }), fc.integer({ min: 1, max: 8 }))
  .map(([from, length]) => ({ from, to: from + length }));

const unavailabilityState = (parentField: string, parentId: string, key: string) =>
  spanArbitrary.map(({ from, to }): Data => ({ id: key, [parentField]: parentId, from: iso(from), to: iso(to) }));

/** A deployment of one employee, planning-bound most of the time, naming one of the employee's availabilities or none. */
const deploymentState = (id: string, availabilityIdsOf: (employeeId: string) => string[]) =>
  fc
    .record({
      employee: fc.constantFrom(...EMPLOYEES),
      resources: fc.subarray(RESOURCES, { minLength: 1, maxLength: 2 }),
      span: spanArbitrary,
      planned: fc.constantFrom(true, true, true, false),
      pick: fc.nat(),
      names: fc.boolean(),
    })
    .map(({ employee, resources, span, planned, pick, names }): Data => {
      const own = availabilityIdsOf(employee);
      return withoutUndefined({
        id,
        employee_id: employee,
        transport_resource_ids: resources,
        start: { at: iso(span.from), location: { home_base: { business_id: 'h1' } } },
        end: { at: iso(span.to) },
        planning_id: planned ? `p-${id}` : undefined,
        availability_id: names && own.length > 0 ? own[pick % own.length] : undefined,
      });
    });

/** Up to three unavailabilities of the parents, by `<parent>/<key>`. */
const unavailabilitiesArbitrary = (entity: string, parentField: string, parents: string[]) =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...parents), fc.constantFrom('u1', 'u2')), {
      maxLength: 3,
      selector: ([parent, key]) => `${parent}/${key}`,
    })
    .chain((keys) => all(keys.map(([parent, key]) => history(entity, `${parent}/${key}`, unavailabilityState(parentField, parent, key)))));

/** Which slots each employee has an availability in: 0 to 3, two a day. */
const slotsArbitrary = fc.tuple(...EMPLOYEES.map(() => fc.subarray([0, 1, 2, 3], { maxLength: 3 })));

const tenantArbitrary: fc.Arbitrary<History[]> = slotsArbitrary.chain((slots) => {
  const keyOf = (employeeId: string, slot: number) => `${employeeId}-s${slot}`;
  const availabilityIdsOf = (employeeId: string) => (slots[EMPLOYEES.indexOf(employeeId)] ?? []).map((slot) => keyOf(employeeId, slot));
  const availabilities = EMPLOYEES.flatMap((employeeId, index) =>
    (slots[index] ?? []).map((slot) => {
      const key = keyOf(employeeId, slot);
      return history(INPUT_ENTITY.availability, `${employeeId}/${key}`, availabilityState(employeeId, key, slot));
    }),
  );
  return fc
    .record({
      homeBases: all(['h1', 'h2'].map((id) => history(INPUT_ENTITY.homeBase, id, homeBaseState(id)))),
      employees: all(EMPLOYEES.map((id) => history(INPUT_ENTITY.employee, id, employeeState(id)))),
      resources: all(RESOURCES.map((id) => history(INPUT_ENTITY.transportResource, id, resourceState(id)))),
      availabilities: all(availabilities),
      employeeUnavailabilities: unavailabilitiesArbitrary(INPUT_ENTITY.employeeUnavailability, 'employee_id', EMPLOYEES),
      resourceUnavailabilities: unavailabilitiesArbitrary(INPUT_ENTITY.transportResourceUnavailability, 'transport_resource_id', RESOURCES),
      deployments: fc
        .subarray(['d0', 'd1', 'd2'], { maxLength: 2 })
        .chain((ids) => all(ids.map((id) => history(INPUT_ENTITY.deployment, id, deploymentState(id, availabilityIdsOf))))),
    })
    .map((parts) => Object.values(parts).flat());
});

/** Every version of every entity, each entity's in version order: first versions first, then updates, then deletes. */
function eventsOf(histories: readonly History[]): Input[] {
  const events = histories.map(({ entity, id, states, deleted }) => {
    const versions = states.map((data, index): Input => ({ entity, id, version: index + 1, deleted: false, data }));
    const last = states[states.length - 1] as Data;
    return deleted ? [...versions, { entity, id, version: states.length + 1, deleted: true, data: last }] : versions;
  });
  const longest = Math.max(0, ...events.map((one) => one.length));
  return Array.from({ length: longest }, (_, index) => events.flatMap((one) => one[index] ?? [])).flat();
}

/** The latest version of each entity, as the engine's input store keeps them for restore. */
function latestOf(histories: readonly History[]): Input[] {
  return histories.map(({ entity, id, states, deleted }) => ({
    entity,
    id,
    version: states.length + (deleted ? 1 : 0),
    deleted,
    data: states[states.length - 1] as Data,
  }));
}

const permutation = <T>(items: readonly T[]) => fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });

const scenario = tenantArbitrary.chain((histories) => {
  const events = eventsOf(histories);
  const latest = latestOf(histories);
  return fc.record({
    histories: fc.constant(histories),
    /** In version order. */
    events: fc.constant(events),
    /** In another order, some more than once. */
    jumbled: fc.subarray(events).chain((again) => permutation([...events, ...again])),
    /** The latest inputs in two orders. */
    latestShuffled: fc.tuple(permutation(latest), permutation(latest)),
  });
});

/* What the tenant should hold, worked out from the latest inputs alone. */

interface Expected {
  /** availability id → its snapshot, for every live availability whose employee is known. */
  readonly snapshots: Map<string, AvailableEmployee>;
  readonly resources: TransportResourceView[];
  readonly frozen: FrozenCombination[];
}

function expectedOf(histories: readonly History[]): Expected {
  const alive = (entity: string) =>
    histories.filter((one) => one.entity === entity && !one.deleted).map((one) => one.states[one.states.length - 1] as Data);
  const of = (unavailabilities: Data[], field: string, parent: unknown) =>
    unavailabilities.filter((one) => one[field] === parent) as unknown as { from: string; to: string }[];
  const employees = new Map(alive(INPUT_ENTITY.employee).map((data) => [String(data['business_id']), data as unknown as Employee]));
  const homeBases = new Map(alive(INPUT_ENTITY.homeBase).map((data) => [String(data['business_id']), data['address'] as Address]));
  const employeeUnavailabilities = alive(INPUT_ENTITY.employeeUnavailability);
  const resourceUnavailabilities = alive(INPUT_ENTITY.transportResourceUnavailability);
  const frozen = alive(INPUT_ENTITY.deployment).flatMap((data) => frozenCombinationOf(data as unknown as Deployment) ?? []);
  const snapshots = new Map<string, AvailableEmployee>();
  for (const data of alive(INPUT_ENTITY.availability)) {
    const availability = data as unknown as Availability;
    const employeeId = availability.employee_id;
    const employee = employees.get(employeeId);
    if (employee === undefined) continue;
    const unavailabilities = of(employeeUnavailabilities, 'employee_id', employeeId);
    const deployed = frozen.filter((one) => one.employeeId === employeeId);
    snapshots.set(availability.id, buildAvailableEmployee({ availability, employee, unavailabilities, homeBases, deployed }));
  }
  const resources = alive(INPUT_ENTITY.transportResource).map((data) =>
    transportResourceView(data as unknown as TransportResource, of(resourceUnavailabilities, 'transport_resource_id', data['business_id'])),
  );
  return { snapshots, resources, frozen };
}

function applyAll(events: readonly Input[], now = BEFORE_EVERYTHING): TenantMatching {
  const tenant = new TenantMatching();
  for (const event of events) tenant.apply(event, now);
  return tenant;
}

function snapshotsOf(tenant: TenantMatching): Map<string, AvailableEmployee | undefined> {
  return new Map(tenant.availabilityIds().sort().map((id) => [id, tenant.availableEmployee(id)]));
}

/** The matcher's combinations (the frozen ones are checked apart). */
function liveOf(tenant: TenantMatching): Combination[] {
  return tenant.availabilityIds().flatMap((availabilityId) => {
    const combination = tenant.combination(availabilityId);
    const transportResourceId = combination?.transportResourceIds[0];
    if (combination === undefined || combination.deploymentId !== undefined || transportResourceId === undefined) return [];
    expect(combination.transportResourceIds).toHaveLength(1);
    return [{ availabilityId, employeeId: combination.employeeId, transportResourceId }];
  });
}

/** availability id → transport resources (and deployment), for exact comparisons. */
function pairsOf(tenant: TenantMatching): Record<string, string> {
  const found: Record<string, string> = {};
  for (const id of tenant.availabilityIds().sort()) {
    const combination = tenant.combination(id);
    if (combination === undefined) continue;
    const deployment = combination.deploymentId === undefined ? '' : ` (${combination.deploymentId})`;
    found[id] = `${combination.transportResourceIds.join('+')}${deployment}`;
  }
  return found;
}

function stateOf(tenant: TenantMatching, expected: Expected): MatchingState {
  const { resources, frozen } = expected;
  return { snapshots: [...expected.snapshots.values()], resources, frozen, combinations: liveOf(tenant) };
}

/** Every rule the tenant's combinations break, the frozen ones included; none when all is well. */
function violationsOf(tenant: TenantMatching, expected: Expected): string[] {
  const violations = feasibilityViolations(stateOf(tenant, expected));
  for (const id of tenant.availabilityIds()) {
    const combination = tenant.combination(id);
    const snapshot = tenant.availableEmployee(id) as AvailableEmployee;
    // of two frozen combinations that hold it, it shows one: the first by start
    const holding = expected.frozen.filter((one) => holds(one, snapshot));
    const shown = holding.find((one) => one.id === combination?.deploymentId);
    const shows = JSON.stringify(combination);
    if (holding.length === 0 && combination?.deploymentId !== undefined) violations.push(`${id} shows another deployment: ${shows}`);
    if (holding.length > 0 && shown === undefined) violations.push(`${id} is held by ${holding.map((one) => one.id)} but shows ${shows}`);
    if (shown !== undefined && JSON.stringify(combination?.transportResourceIds) !== JSON.stringify(shown.transportResourceIds)) {
      violations.push(`${id} shows ${shown.id} with other transport resources than it takes: ${shows}`);
    }
  }
  return violations;
}

const matchedCounts = (tenant: TenantMatching, expected: Expected) => {
  const { matched, mandatory } = objectiveOf(stateOf(tenant, expected));
  return { matched, mandatory };
};

/** How an availability looked after an event. */
interface Sighting {
  readonly snapshot: string;
  readonly combination: string;
  readonly deploymentId: string | undefined;
}

interface Change {
  /** The event. */
  readonly what: string;
  readonly id: string;
  readonly kind: 'snapshot' | 'combination';
  readonly was: Sighting | undefined;
  readonly now: Sighting;
  /** Whether apply said it touched this snapshot or combination. */
  readonly touched: boolean;
}

/** Applies the events one at a time and hands every change of a snapshot or a combination to `check`. */
function watchChanges(events: readonly Input[], check: (change: Change) => void): void {
  const tenant = new TenantMatching();
  const ids = new Set<string>();
  const look = () =>
    new Map(
      [...ids].map((id): [string, Sighting] => {
        const combination = tenant.combination(id);
        const snapshot = JSON.stringify(tenant.availableEmployee(id));
        return [id, { snapshot, combination: JSON.stringify(combination), deploymentId: combination?.deploymentId }];
      }),
    );
  for (const event of events) {
    if (event.entity === INPUT_ENTITY.availability) ids.add(String(event.data['id']));
    const before = look();
    const touched = tenant.apply(event, BEFORE_EVERYTHING);
    const what = `${event.entity} ${event.id} v${event.version}${event.deleted ? ' (deleted)' : ''}`;
    for (const [id, now] of look()) {
      const was = before.get(id);
      if (was?.snapshot !== now.snapshot) check({ what, id, kind: 'snapshot', was, now, touched: touched.snapshots.has(id) });
      if (was?.combination !== now.combination) check({ what, id, kind: 'combination', was, now, touched: touched.combinations.has(id) });
    }
  }
}

/** The same frozen combination before and after, shown anew (its capabilities come from its transport resources). */
const sameFrozen = ({ kind, was, now }: Change) =>
  kind === 'combination' && was?.deploymentId !== undefined && was.deploymentId === now.deploymentId;

describe('a tenant built from random event histories', () => {
  it('holds exactly the snapshots its latest inputs give, and as many matched (mandatory) shifts, whatever the order and repeats', () => {
    fc.assert(
      fc.property(scenario, ({ histories, events, jumbled }) => {
        const expected = expectedOf(histories);
        const inOrder = applyAll(events);
        const outOfOrder = applyAll(jumbled);
        expect(snapshotsOf(inOrder)).toEqual(new Map([...expected.snapshots].sort(([a], [b]) => (a < b ? -1 : 1))));
        expect(snapshotsOf(outOfOrder)).toEqual(snapshotsOf(inOrder));
        // the pairs themselves may differ: the matcher is incremental, and fewest changes keeps what an earlier order chose
        expect(matchedCounts(outOfOrder, expected)).toEqual(matchedCounts(inOrder, expected));
      }),
      { numRuns: 100 },
    );
  });

  it('has only feasible combinations in any order: no resource twice at once, none a frozen one takes, frozen ones shown as such', () => {
    fc.assert(
      fc.property(scenario, ({ histories, events, jumbled }) => {
        const expected = expectedOf(histories);
        expect(violationsOf(applyAll(events), expected)).toEqual([]);
        expect(violationsOf(applyAll(jumbled), expected)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('never gives a transport resource of a frozen combination to a live combination whose window overlaps it', () => {
    fc.assert(
      fc.property(scenario, ({ histories, jumbled }) => {
        const expected = expectedOf(histories);
        for (const { availabilityId, transportResourceId } of liveOf(applyAll(jumbled))) {
          const window = (expected.snapshots.get(availabilityId) as AvailableEmployee).window;
          const takes = (one: FrozenCombination) => one.transportResourceIds.includes(transportResourceId) && overlaps(one.span, window);
          const inTheWay = expected.frozen.filter(takes);
          expect(inTheWay.map((one) => `${availabilityId} on ${transportResourceId} under ${one.id}`)).toEqual([]);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('says which snapshots and combinations an event changed (all but frozen combinations shown anew, see below)', () => {
    fc.assert(
      fc.property(scenario, ({ jumbled }) => {
        watchChanges(jumbled, (change) => {
          if (!sameFrozen(change)) expect(change.touched, `${change.what} changed the ${change.kind} of ${change.id}`).toBe(true);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('says when a frozen combination is shown anew because one of its transport resources changed', () => {
    fc.assert(
      fc.property(scenario, ({ jumbled }) => {
        watchChanges(jumbled, (change) => {
          if (sameFrozen(change)) expect(change.touched, `${change.what} changed the frozen ${change.now.combination}`).toBe(true);
        });
      }),
      // no shrinking: it takes seconds, and the message names the event and the combination (the unit test has the smallest case)
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('with shifts already started, differs by order only in the addresses that rule 8 keeps, and stays feasible', () => {
    const withoutStartedAddress = (tenant: TenantMatching) =>
      new Map(
        [...snapshotsOf(tenant)].map(([id, snapshot]) => {
          if (snapshot === undefined || snapshot.window.start > MIDDAY) return [id, snapshot];
          const { address: _address, ...rest } = snapshot;
          return [id, rest];
        }),
      );
    fc.assert(
      fc.property(scenario, ({ histories, events, jumbled }) => {
        const expected = expectedOf(histories);
        const inOrder = applyAll(events, MIDDAY);
        const outOfOrder = applyAll(jumbled, MIDDAY);
        expect(withoutStartedAddress(outOfOrder)).toEqual(withoutStartedAddress(inOrder));
        for (const [id, snapshot] of snapshotsOf(inOrder)) {
          if (snapshot !== undefined && snapshot.window.start > MIDDAY) expect(snapshot).toEqual(expected.snapshots.get(id));
        }
        expect(violationsOf(inOrder, expected)).toEqual([]);
        expect(violationsOf(outOfOrder, expected)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('restore', () => {
  it('is deterministic: the same inputs in any order give the same snapshots and combinations, as many as applying them', () => {
    fc.assert(
      fc.property(scenario, ({ histories, jumbled, latestShuffled: [one, other] }) => {
        const expected = expectedOf(histories);
        const first = TenantMatching.restore(one, [], BEFORE_EVERYTHING);
        const second = TenantMatching.restore(other, [], BEFORE_EVERYTHING);
        expect(snapshotsOf(second)).toEqual(snapshotsOf(first));
        expect(pairsOf(second)).toEqual(pairsOf(first));
        expect(violationsOf(first, expected)).toEqual([]);
        expect(matchedCounts(first, expected)).toEqual(matchedCounts(applyAll(jumbled), expected));
      }),
      { numRuns: 100 },
    );
  });

  it('from the combinations applying the events gave, gives exactly those combinations and the same snapshots', () => {
    fc.assert(
      fc.property(scenario, ({ histories, jumbled, latestShuffled: [latest] }) => {
        const expected = expectedOf(histories);
        const incremental = applyAll(jumbled);
        const restored = TenantMatching.restore(latest, liveOf(incremental), BEFORE_EVERYTHING);
        expect(snapshotsOf(restored)).toEqual(snapshotsOf(incremental));
        expect(pairsOf(restored)).toEqual(pairsOf(incremental));
        expect(violationsOf(restored, expected)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
