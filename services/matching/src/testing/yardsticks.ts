// Yardsticks for the tests and the bench, never used by the service: a greedy
// pass to compare the matcher with, and every rule a set of combinations may break.
import type { Combination, MatchingState } from '../domain/combination.js';
import { holds, type FrozenCombination } from '../domain/deployed.js';
import { canCombine, type TransportResourceView } from '../domain/feasibility.js';
import { overlaps, type Interval } from '../domain/interval.js';
import { compareFits, comparePriority, fitOf, type Fit } from '../domain/preferences.js';
import type { AvailableEmployee } from '../domain/snapshot.js';

/**
 * A full pass for comparison: mandatory shifts first, then by start, each on its best free resource
 * (the same preferences as the incremental matcher, without moving anything already placed).
 */
export function greedy(
  snapshots: readonly AvailableEmployee[],
  resources: readonly TransportResourceView[],
  frozen: readonly FrozenCombination[] = [],
): Combination[] {
  const taken = new Map<string, Interval[]>();
  for (const { transportResourceIds, span } of frozen) {
    for (const id of transportResourceIds) taken.set(id, [...(taken.get(id) ?? []), span]);
  }
  const combinations: Combination[] = [];
  const movable = snapshots.filter((shift) => !frozen.some((one) => holds(one, shift))).sort(comparePriority);
  for (const shift of movable) {
    let best: Fit | undefined;
    for (const resource of resources) {
      const commitments = taken.get(resource.id) ?? [];
      if (!canCombine(shift, resource) || commitments.some((interval) => overlaps(interval, shift.window))) continue;
      const fit = fitOf(shift, resource, commitments);
      if (best === undefined || compareFits(fit, best) < 0) best = fit;
    }
    if (best === undefined) continue;
    const resourceId = best.resource.id;
    taken.set(resourceId, [...(taken.get(resourceId) ?? []), shift.window]);
    combinations.push({ availabilityId: shift.availabilityId, employeeId: shift.employeeId, transportResourceId: resourceId });
  }
  return combinations;
}

/** Every rule a set of combinations breaks, in words; none when it is feasible (DESIGN §6). */
export function feasibilityViolations(state: MatchingState): string[] {
  const shifts = new Map(state.snapshots.map((shift) => [shift.availabilityId, shift]));
  const resources = new Map(state.resources.map((resource) => [resource.id, resource]));
  const violations: string[] = [];
  const windowsOn = new Map<string, { availabilityId: string; window: Interval }[]>();
  const seen = new Set<string>();
  for (const { availabilityId, transportResourceId } of state.combinations) {
    const shift = shifts.get(availabilityId);
    const resource = resources.get(transportResourceId);
    const pair = `${availabilityId} on ${transportResourceId}`;
    if (seen.has(availabilityId)) violations.push(`${availabilityId} is in more than one combination`);
    seen.add(availabilityId);
    if (shift === undefined || resource === undefined) {
      violations.push(`${pair}: unknown availability or transport resource`);
      continue;
    }
    if (!canCombine(shift, resource)) violations.push(`${pair}: the pair is not feasible`);
    if (state.frozen.some((frozen) => holds(frozen, shift))) violations.push(`${pair}: a frozen combination holds the availability`);
    const inTheWay = (frozen: FrozenCombination) =>
      frozen.transportResourceIds.includes(transportResourceId) && overlaps(frozen.span, shift.window);
    if (state.frozen.some(inTheWay)) violations.push(`${pair}: a frozen combination takes the resource`);
    windowsOn.set(transportResourceId, [...(windowsOn.get(transportResourceId) ?? []), { availabilityId, window: shift.window }]);
  }
  for (const [resourceId, placed] of windowsOn) {
    placed.sort((a, b) => a.window.start - b.window.start);
    // sweep by start: each window against the one reaching furthest so far finds an overlap whenever there is one
    let furthest = placed[0];
    for (const next of placed.slice(1)) {
      if (furthest !== undefined && overlaps(furthest.window, next.window)) {
        violations.push(`${furthest.availabilityId} and ${next.availabilityId} overlap on ${resourceId}`);
      }
      if (furthest === undefined || next.window.end > furthest.window.end) furthest = next;
    }
  }
  return violations;
}

export function isFeasible(state: MatchingState): boolean {
  return feasibilityViolations(state).length === 0;
}
