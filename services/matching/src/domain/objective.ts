import type { MatchingState } from './combination.js';
import { combinationCost } from './feasibility.js';

/** The objective's terms (DESIGN §6) of a set of combinations: compare mandatory, then matched, then linked, then cost. */
export interface Objective {
  readonly mandatory: number;
  readonly matched: number;
  readonly linked: number;
  readonly cost: number;
}

export function objectiveOf(state: Pick<MatchingState, 'snapshots' | 'resources' | 'combinations'>): Objective {
  const shifts = new Map(state.snapshots.map((shift) => [shift.availabilityId, shift]));
  const resources = new Map(state.resources.map((resource) => [resource.id, resource]));
  const objective = { mandatory: 0, matched: 0, linked: 0, cost: 0 };
  for (const { availabilityId, transportResourceId } of state.combinations) {
    const shift = shifts.get(availabilityId);
    const resource = resources.get(transportResourceId);
    objective.matched++;
    if (shift?.mandatory === true) objective.mandatory++;
    if (shift?.linkedTransportResource === transportResourceId) objective.linked++;
    if (resource !== undefined) objective.cost += combinationCost(resource);
  }
  return objective;
}

/** Negative when `a` is better than `b` by the objective (DESIGN §6): mandatory, matched, linked, then cost (sums of 4-decimal costs). */
export function compareObjectives(a: Objective, b: Objective): number {
  const cost = Math.abs(a.cost - b.cost) < 1e-6 ? 0 : a.cost - b.cost;
  return b.mandatory - a.mandatory || b.matched - a.matched || b.linked - a.linked || cost;
}
