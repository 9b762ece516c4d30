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

/** One rule of a pair: the reason it gives, and whether the pair breaks it. */
interface PairRule {
  readonly reason: Infeasibility;
  breaks(shift: AvailableEmployee, resource: TransportResourceView): boolean;
}

/** The rules of a pair (DESIGN §6), in the order whyNotCombine checks them. */
const PAIR_RULES: readonly PairRule[] = [
  { reason: 'location', breaks: (shift, resource) => !locationsMatch(shift, resource) },
  { reason: 'inactive', breaks: (_, resource) => resource.inactive },
  // a trailer is never driven alone
  { reason: 'trailer', breaks: (_, resource) => resource.type === 'TRAILER' },
  { reason: 'requirements', breaks: (shift, resource) => !isSubset(resource.requirements, shift.driverSkills) },
  { reason: 'required-capabilities', breaks: (shift, resource) => !isSubset(resource.requiredCapabilities, shift.driverSkills) },
  // no time to work (only inconsistent inputs give a non-empty guaranteed time in an empty window)
  { reason: 'no-guaranteed-time', breaks: (shift) => shift.guaranteed === null || shift.window.start >= shift.window.end },
  // only the guaranteed working time counts: an unavailability elsewhere in the window leaves room to plan around it
  { reason: 'employee-unavailable', breaks: (shift) => shift.guaranteed !== null && overlapsAny(shift.guaranteed, shift.unavailable) },
  { reason: 'resource-unavailable', breaks: (shift, resource) => shift.guaranteed !== null && overlapsAny(shift.guaranteed, resource.unavailable) },
];

/**
 * Why the pair is not feasible on its own, or `null` when it is (DESIGN §6). Whether the resource is
 * already taken in that window is the matcher's concern, not this one's.
 */
export function whyNotCombine(shift: AvailableEmployee, resource: TransportResourceView): Infeasibility | null {
  for (const rule of PAIR_RULES) if (rule.breaks(shift, resource)) return rule.reason;
  return null;
}

/** Every rule the pair breaks, in the same order: what a planner is told of a pair (candidates). */
export function everyReasonNotToCombine(shift: AvailableEmployee, resource: TransportResourceView): Infeasibility[] {
  return PAIR_RULES.filter((rule) => rule.breaks(shift, resource)).map((rule) => rule.reason);
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
