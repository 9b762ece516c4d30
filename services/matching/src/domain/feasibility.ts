import type { Costs, TransportResource, UnavailabilityFields } from '@rm/contracts';
import { intervalOf, overlapsAny, type Interval } from './interval.js';
import type { AvailableEmployee } from './snapshot.js';

/** Where a transport resource starts: its home base, or its ad-hoc start location's name. */
export type ResourceLocation =
  | { readonly kind: 'home-base'; readonly id: string }
  | { readonly kind: 'ad-hoc'; readonly name: string }
  | { readonly kind: 'none' };

/** What matching needs of a transport resource and its unavailabilities. */
export interface TransportResourceView {
  readonly id: string;
  readonly type: TransportResource['type'];
  readonly inactive: boolean;
  readonly location: ResourceLocation;
  readonly requirements: readonly string[];
  readonly requiredCapabilities: readonly string[];
  readonly capabilities: readonly string[];
  readonly skilledCapabilities: readonly string[];
  readonly cantDo: readonly string[];
  readonly costs?: Costs;
  readonly unavailable: readonly Interval[];
}

export function transportResourceView(
  resource: Omit<TransportResource, 'version'>,
  unavailabilities: readonly Pick<UnavailabilityFields, 'from' | 'to'>[],
): TransportResourceView {
  const location: ResourceLocation =
    resource.home_base !== undefined
      ? { kind: 'home-base', id: resource.home_base.business_id }
      : resource.start_location !== undefined
        ? { kind: 'ad-hoc', name: resource.start_location.name }
        : { kind: 'none' };
  return {
    id: resource.business_id,
    type: resource.type,
    inactive: resource.inactive,
    location,
    requirements: resource.requirements ?? [],
    requiredCapabilities: resource.required_capabilities ?? [],
    capabilities: resource.capabilities ?? [],
    skilledCapabilities: resource.skilled_capabilities ?? [],
    cantDo: resource.cant_do ?? [],
    ...(resource.costs === undefined ? {} : { costs: resource.costs }),
    unavailable: unavailabilities.map(({ from, to }) => intervalOf(from, to)).sort((a, b) => a.start - b.start || a.end - b.end),
  };
}

/** Why an employee's shift and a transport resource cannot be combined, checked in this order. */
export type Infeasibility =
  | 'location'
  | 'inactive'
  | 'trailer'
  | 'requirements'
  | 'required-capabilities'
  | 'no-guaranteed-time'
  | 'employee-unavailable'
  | 'resource-unavailable';

/**
 * Why the pair is not feasible on its own, or `null` when it is (DESIGN §6). Whether the resource is
 * already taken in that window is the matcher's concern, not this one's.
 */
export function whyNotCombine(shift: AvailableEmployee, resource: TransportResourceView): Infeasibility | null {
  if (!locationsMatch(shift, resource)) return 'location';
  if (resource.inactive) return 'inactive';
  // a trailer is never driven alone
  if (resource.type === 'TRAILER') return 'trailer';
  if (!isSubset(resource.requirements, shift.driverSkills)) return 'requirements';
  if (!isSubset(resource.requiredCapabilities, shift.driverSkills)) return 'required-capabilities';
  // no time to work (only inconsistent inputs give a non-empty guaranteed time in an empty window)
  if (shift.guaranteed === null || shift.window.start >= shift.window.end) return 'no-guaranteed-time';
  // only the guaranteed working time counts: an unavailability elsewhere in the window leaves room to plan around it
  if (overlapsAny(shift.guaranteed, shift.unavailable)) return 'employee-unavailable';
  if (overlapsAny(shift.guaranteed, resource.unavailable)) return 'resource-unavailable';
  return null;
}

export function canCombine(shift: AvailableEmployee, resource: TransportResourceView): boolean {
  return whyNotCombine(shift, resource) === null;
}

/** Home base with the same home base, ad-hoc with the same name, a journey with the resources it continues with. */
export function locationsMatch(shift: AvailableEmployee, resource: TransportResourceView): boolean {
  const { location } = shift;
  switch (location.kind) {
    case 'home-base':
      return resource.location.kind === 'home-base' && resource.location.id === location.id;
    case 'ad-hoc':
      return resource.location.kind === 'ad-hoc' && resource.location.name === location.name;
    case 'journey':
      return location.transportResourceIds.includes(resource.id);
    case 'none':
      return false;
  }
}

/**
 * The capabilities of the combination (field reference): capabilities ∪ required_capabilities ∪
 * (skilled_capabilities ∩ driver_skills) ∪ employee skills, minus cant_do; sorted.
 */
export function combinationCapabilities(shift: AvailableEmployee, resource: TransportResourceView): string[] {
  const skilled = resource.skilledCapabilities.filter((capability) => shift.driverSkills.includes(capability));
  const all = new Set([...resource.capabilities, ...resource.requiredCapabilities, ...skilled, ...shift.skills]);
  for (const removed of resource.cantDo) all.delete(removed);
  return [...all].sort();
}

/** The cost matching minimizes: the resource's fixed cost, 0 without one. */
export function combinationCost(resource: TransportResourceView): number {
  return resource.costs?.fixed ?? 0;
}

function isSubset(needed: readonly string[], have: readonly string[]): boolean {
  return needed.every((item) => have.includes(item));
}
