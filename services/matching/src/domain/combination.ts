import type { FrozenCombination } from './deployed.js';
import type { TransportResourceView } from './feasibility.js';
import type { AvailableEmployee } from './snapshot.js';

/** A ResourceCombination the matcher may still change: an availability paired with one transport resource. */
export interface Combination {
  readonly availabilityId: string;
  readonly employeeId: string;
  readonly transportResourceId: string;
}

/**
 * What one operation did to the combinations, netted over the operation, for the service to persist and
 * publish. `deleted` and `deployed` carry the combination as it was; `deployed` means a planning-bound
 * deployment now holds it on the same transport resource, so it lives on as a frozen combination.
 */
export type CombinationChange =
  | { readonly kind: 'created'; readonly combination: Combination }
  | { readonly kind: 'moved'; readonly combination: Combination; readonly from: string }
  | { readonly kind: 'deleted'; readonly combination: Combination }
  | { readonly kind: 'deployed'; readonly combination: Combination };

/** Everything one tenant's matching holds: what a replica rebuilds from, and what the checks below read. */
export interface MatchingState {
  readonly snapshots: readonly AvailableEmployee[];
  readonly resources: readonly TransportResourceView[];
  readonly frozen: readonly FrozenCombination[];
  readonly combinations: readonly Combination[];
}
