import { combinationCost, type TransportResourceView } from './feasibility.js';
import type { Interval } from './interval.js';
import type { AvailableEmployee } from './snapshot.js';

/* The preferences among feasible pairs that follow from the objective (DESIGN §6): shared by the matcher and the greedy pass. */

/** How well a free resource suits a shift: linked first, then cheapest, then the one whose neighbours leave least slack. */
export interface Fit {
  readonly resource: TransportResourceView;
  readonly linked: boolean;
  readonly cost: number;
  readonly slack: number;
}

/**
 * Slack: the time between the shift and the nearest commitments on either side; an idle side adds
 * nothing, but an idle resource has infinite slack, so that shifts are packed onto resources in use and
 * idle ones stay whole for longer shifts.
 */
export function fitOf(shift: AvailableEmployee, resource: TransportResourceView, commitments: Iterable<Interval>): Fit {
  let before = -Infinity;
  let after = Infinity;
  for (const commitment of commitments) {
    if (commitment.end <= shift.window.start) before = Math.max(before, commitment.end);
    else if (commitment.start >= shift.window.end) after = Math.min(after, commitment.start);
  }
  const gapBefore = before === -Infinity ? 0 : shift.window.start - before;
  const gapAfter = after === Infinity ? 0 : after - shift.window.end;
  const slack = before === -Infinity && after === Infinity ? Infinity : gapBefore + gapAfter;
  return { resource, linked: shift.linkedTransportResource === resource.id, cost: combinationCost(resource), slack };
}

export const compareNumbers = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);
// code-unit order, the same on every replica whatever its locale
export const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The objective's preferences for one shift: its linked resource, then the lower cost (DESIGN §6). */
export function compareRanks(a: Pick<Fit, 'linked' | 'cost'>, b: Pick<Fit, 'linked' | 'cost'>): number {
  return compareNumbers(Number(b.linked), Number(a.linked)) || compareNumbers(a.cost, b.cost);
}

export function compareFits(a: Fit, b: Fit): number {
  return compareRanks(a, b) || compareNumbers(a.slack, b.slack) || compareIds(a.resource.id, b.resource.id);
}

export function rankOf(shift: AvailableEmployee, resource: TransportResourceView): Pick<Fit, 'linked' | 'cost'> {
  return { linked: shift.linkedTransportResource === resource.id, cost: combinationCost(resource) };
}

/** Mandatory shifts first, then by start (then id, so that every pass is the same). */
export function comparePriority(a: AvailableEmployee, b: AvailableEmployee): number {
  return (
    compareNumbers(Number(b.mandatory), Number(a.mandatory)) ||
    compareNumbers(a.window.start, b.window.start) ||
    compareIds(a.availabilityId, b.availabilityId)
  );
}
