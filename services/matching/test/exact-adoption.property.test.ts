import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CombinationChange, MatchingState } from '../src/domain/combination.js';
import { combinationsOf, solveAll } from '../src/domain/exact.js';
import { components } from '../src/domain/locations.js';
import { createMatcher, type Matcher } from '../src/domain/matcher.js';
import { compareObjectives, objectiveOf } from '../src/domain/objective.js';
import { feasibilityViolations } from '../src/testing/yardsticks.js';
import { operationArbitrary, perform } from './generators.js';

const pairsOf = (state: MatchingState) => new Map(state.combinations.map((one) => [one.availabilityId, one.transportResourceId]));

/** Adopts the re-solve into the matcher, component by component, as TenantMatching.adopt does. */
function adoptAll(matcher: Matcher, taken: MatchingState, assignment: ReadonlyMap<string, string>, revision: number): CombinationChange[] {
  return components(taken.snapshots, taken.resources).flatMap((part) => matcher.adopt(part, assignment, revision));
}

/** A matcher that searches little falls behind the optimum often, so that there is something to adopt. */
const WEAK = { augmentDepth: 0, augmentNodes: 4, retriesPerFreedResource: 1, freedResourcesPerChange: 1 };

const scenario = fc.record({
  before: fc.array(operationArbitrary, { minLength: 5, maxLength: 40, size: 'max' }),
  /** What happens while the solve runs: often nothing. */
  meanwhile: fc.oneof(fc.constant([]), fc.array(operationArbitrary, { minLength: 1, maxLength: 3 })),
  after: fc.array(operationArbitrary, { maxLength: 10 }),
});

describe('adopting an exact re-solve under random operations', () => {
  it('is feasible, never worse, keeps frozen combinations, reaches the optimum if nothing changed, and operations go on', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ before, meanwhile, after }) => {
        const matcher = createMatcher(WEAK);
        for (const operation of before) perform(matcher, operation);
        const taken = matcher.state();
        const revision = matcher.revision();
        const existing = pairsOf(taken);
        const { assignment } = await solveAll(taken.snapshots, taken.resources, { frozen: taken.frozen, existing });
        for (const operation of meanwhile) perform(matcher, operation);

        const live = matcher.state();
        const changes = adoptAll(matcher, taken, assignment, revision);
        const adopted = matcher.state();

        expect(feasibilityViolations(adopted)).toEqual([]);
        expect(adopted.frozen).toEqual(live.frozen);
        expect(compareObjectives(objectiveOf(adopted), objectiveOf(live))).toBeLessThanOrEqual(0);
        // the changes reported are exactly the difference, for the engine to write
        const changed = new Set([...pairsOf(live)].filter(([id, to]) => pairsOf(adopted).get(id) !== to).map(([id]) => id));
        for (const [id, to] of pairsOf(adopted)) if (pairsOf(live).get(id) !== to) changed.add(id);
        expect(new Set(changes.map((change) => change.combination.availabilityId))).toEqual(changed);
        if (meanwhile.length === 0) {
          const optimum = objectiveOf({ ...taken, combinations: combinationsOf(assignment, taken.snapshots) });
          expect(objectiveOf(adopted)).toEqual(optimum);
        }

        // the operations after it report their changes against the adopted state, and stay feasible
        const stored = pairsOf(adopted);
        for (const operation of after) {
          for (const { kind, combination } of perform(matcher, operation)) {
            if (kind === 'created' || kind === 'moved') stored.set(combination.availabilityId, combination.transportResourceId);
            else stored.delete(combination.availabilityId);
          }
          const state = matcher.state();
          expect(feasibilityViolations(state)).toEqual([]);
          expect(pairsOf(state)).toEqual(stored);
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
