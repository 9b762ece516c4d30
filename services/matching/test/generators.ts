import fc from 'fast-check';
import type { CombinationChange } from '../src/domain/combination.js';
import type { FrozenCombination } from '../src/domain/deployed.js';
import type { TransportResourceView } from '../src/domain/feasibility.js';
import type { Matcher } from '../src/domain/matcher.js';
import type { AvailableEmployee, StartKey } from '../src/domain/snapshot.js';
import { atHomeBase, atPlace, frozen, shift, truck } from './fixtures.js';

/**
 * Small random tenants: few ids, so that operations keep hitting the same shifts, resources and places,
 * and shifts crowded into a few hours at one main home base, so that they compete for resources.
 */
export const SHIFT_IDS = ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11'];
export const RESOURCE_IDS = ['r0', 'r1', 'r2', 'r3', 'r4'];
const FROZEN_IDS = ['f0', 'f1', 'f2'];
const SKILLS = ['A', 'B'];

const hours = (from: number, to: number): fc.Arbitrary<[number, number]> =>
  fc.tuple(fc.integer({ min: from, max: to }), fc.integer({ min: 1, max: 12 })).map(([start, length]) => [start, start + length]);

/** Mostly none, sometimes one: rules that should bite now and then, not rule out most pairs. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T[]> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant<T[]>([]) }, { weight: 1, arbitrary: arbitrary.map((one) => [one]) });

const place = fc.constantFrom(atHomeBase('h1'), atHomeBase('h1'), atHomeBase('h1'), atHomeBase('h2'), atPlace('P'));

const startKey: fc.Arbitrary<StartKey> = fc.oneof(
  { weight: 8, arbitrary: place },
  {
    weight: 1,
    arbitrary: fc.subarray(RESOURCE_IDS, { maxLength: 2 }).map((ids): StartKey => ({ kind: 'journey', transportResourceIds: ids })),
  },
);

export const shiftArbitrary: fc.Arbitrary<AvailableEmployee> = fc
  .record({
    id: fc.constantFrom(...SHIFT_IDS),
    window: hours(0, 8),
    // hours cut from each end of the window for the guaranteed time; cuts that meet leave none
    cut: fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })),
    location: startKey,
    mandatory: fc.boolean(),
    driverSkills: fc.subarray(SKILLS),
    linked: fc.option(fc.constantFrom(...RESOURCE_IDS), { nil: undefined }),
    unavailable: rarely(hours(0, 24)),
  })
  .map(({ id, window, cut, location, mandatory, driverSkills, linked, unavailable }) => {
    const guaranteed: [number, number] = [window[0] + cut[0], window[1] - cut[1]];
    return shift(id, {
      window,
      guaranteed: guaranteed[0] < guaranteed[1] ? guaranteed : null,
      location,
      mandatory,
      driverSkills,
      ...(linked === undefined ? {} : { linked }),
      unavailable,
    });
  });

export const resourceArbitrary: fc.Arbitrary<TransportResourceView> = fc
  .record({
    id: fc.constantFrom(...RESOURCE_IDS),
    type: fc.constantFrom('TRUCK', 'TRUCK', 'TRUCK', 'TRACTOR', 'TRAILER'),
    inactive: fc.constantFrom(false, false, false, false, false, false, false, true),
    location: place,
    requirements: rarely(fc.constantFrom(...SKILLS)),
    fixedCost: fc.option(fc.constantFrom(1, 2, 5), { nil: undefined }),
    unavailable: rarely(hours(0, 24)),
  })
  .map(({ id, ...options }) => truck(id, options));

/** A frozen combination holding one of the shifts (its employee is the fixture's), or only taking resources. */
export const frozenArbitrary: fc.Arbitrary<FrozenCombination> = fc
  .record({
    id: fc.constantFrom(...FROZEN_IDS),
    holds: fc.option(fc.constantFrom(...SHIFT_IDS), { nil: undefined }),
    resources: fc.subarray(RESOURCE_IDS, { minLength: 1, maxLength: 2 }),
    span: hours(0, 40),
  })
  .map(({ id, holds, resources, span }) =>
    holds === undefined ? frozen(id, `ghost-${id}`, resources, span) : frozen(id, `employee-of-${holds}`, resources, span, holds),
  );

export type Operation =
  | { kind: 'upsertSnapshot'; shift: AvailableEmployee }
  | { kind: 'removeSnapshot'; id: string }
  | { kind: 'upsertResource'; resource: TransportResourceView }
  | { kind: 'removeResource'; id: string }
  | { kind: 'upsertFrozen'; frozen: FrozenCombination }
  | { kind: 'removeFrozen'; id: string }
  | { kind: 'setFrozen'; frozen: FrozenCombination[] };

export const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 8, arbitrary: shiftArbitrary.map((shift): Operation => ({ kind: 'upsertSnapshot', shift })) },
  { weight: 2, arbitrary: fc.constantFrom(...SHIFT_IDS).map((id): Operation => ({ kind: 'removeSnapshot', id })) },
  { weight: 5, arbitrary: resourceArbitrary.map((resource): Operation => ({ kind: 'upsertResource', resource })) },
  { weight: 1, arbitrary: fc.constantFrom(...RESOURCE_IDS).map((id): Operation => ({ kind: 'removeResource', id })) },
  { weight: 1, arbitrary: frozenArbitrary.map((frozen): Operation => ({ kind: 'upsertFrozen', frozen })) },
  { weight: 1, arbitrary: fc.constantFrom(...FROZEN_IDS).map((id): Operation => ({ kind: 'removeFrozen', id })) },
  {
    weight: 1,
    arbitrary: fc
      .uniqueArray(frozenArbitrary, { maxLength: 2, selector: (one) => one.id })
      .map((all): Operation => ({ kind: 'setFrozen', frozen: all })),
  },
);

/** Runs one generated operation on a matcher: each kind is the Matcher method of that name. */
export function perform(matcher: Matcher, operation: Operation): CombinationChange[] {
  // one line a kind, read as a table; the switch keeps each case's fields typed
  switch (operation.kind) {
    case 'upsertSnapshot': return matcher.upsertSnapshot(operation.shift);
    case 'removeSnapshot': return matcher.removeSnapshot(operation.id);
    case 'upsertResource': return matcher.upsertResource(operation.resource);
    case 'removeResource': return matcher.removeResource(operation.id);
    case 'upsertFrozen': return matcher.upsertFrozen(operation.frozen);
    case 'removeFrozen': return matcher.removeFrozen(operation.id);
    case 'setFrozen': return matcher.setFrozen(operation.frozen);
  }
}
