import { parseDuration, shiftWindowOf, type Address, type Availability, type Costs, type Employee, type UnavailabilityFields } from '@rm/contracts';
import { precedingFrozen, type FrozenCombination } from './deployed.js';
import { intervalOf, overlaps, type Interval } from './interval.js';

/**
 * Where a shift starts, as matching sees it: transport resources at the same home base, or at an ad-hoc
 * location of the same name (spec: Availability rules 3 and 4); on a journey only the transport
 * resources of the preceding deployed combination; with no start location known, none.
 */
export type StartKey =
  | { readonly kind: 'home-base'; readonly id: string }
  | { readonly kind: 'ad-hoc'; readonly name: string }
  | { readonly kind: 'journey'; readonly transportResourceIds: readonly string[] }
  | { readonly kind: 'none' };

/** The consolidated snapshot of one availability (DESIGN §6: AvailableEmployee); ids are the tenant's own. */
export interface AvailableEmployee {
  readonly availabilityId: string;
  readonly employeeId: string;
  /** The shift window `[earliest_start, calculated latest_stop)`. */
  readonly window: Interval;
  /** The guaranteed working time, `null` when empty: such a shift is never matched. */
  readonly guaranteed: Interval | null;
  readonly location: StartKey;
  readonly mandatory: boolean;
  readonly driverSkills: readonly string[];
  readonly skills: readonly string[];
  readonly linkedTransportResource?: string;
  /** The employee's costs, carried for the planner: they are the same whichever transport resource is chosen. */
  readonly costs?: Costs;
  /** The employee's unavailabilities that overlap the window, by start. */
  readonly unavailable: readonly Interval[];
  /** The start address: a copy of the home base's (so that its updates reach the snapshot, rule 8) or the ad-hoc one. */
  readonly address?: Address;
}

export interface SnapshotInputs {
  readonly availability: Omit<Availability, 'version'>;
  readonly employee: Omit<Employee, 'version'>;
  /** The employee's unavailabilities. */
  readonly unavailabilities: readonly Pick<UnavailabilityFields, 'from' | 'to'>[];
  /** The tenant's home bases: id → address. */
  readonly homeBases: ReadonlyMap<string, Address>;
  /** The employee's frozen combinations, where a journey finds its transport resources. */
  readonly deployed?: readonly FrozenCombination[];
}

type Timing = Pick<Availability, 'earliest_start' | 'latest_start' | 'latest_stop' | 'min_duration' | 'max_duration'>;

// durations are validated upstream; an unreadable one counts as zero, which leaves the shift unmatched
const millisecondsOf = (duration: string) => parseDuration(duration) ?? 0;

/** `[latest_start ?? earliest_start, earliest_start + (min_duration ?? max_duration))`, or `null` when empty (DESIGN §6). */
export function guaranteedTime(availability: Timing): Interval | null {
  const start = Date.parse(availability.latest_start ?? availability.earliest_start);
  const end = Date.parse(availability.earliest_start) + millisecondsOf(availability.min_duration ?? availability.max_duration);
  return start < end ? { start, end } : null;
}

/** The AvailableEmployee of an availability, from everything it depends on; rebuilt whenever one of them changes. */
export function buildAvailableEmployee(inputs: SnapshotInputs): AvailableEmployee {
  const { availability, employee } = inputs;
  const window = shiftWindowOf(availability);
  const start = startOf(inputs, window.start);
  const unavailable = inputs.unavailabilities
    .map(({ from, to }) => intervalOf(from, to))
    .filter((interval) => overlaps(interval, window))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  return {
    availabilityId: availability.id,
    employeeId: availability.employee_id,
    window,
    guaranteed: guaranteedTime(availability),
    location: start.key,
    mandatory: availability.mandatory ?? false,
    driverSkills: employee.driver_skills ?? [],
    skills: employee.skills ?? [],
    ...(employee.linked_transport_resource === undefined ? {} : { linkedTransportResource: employee.linked_transport_resource }),
    ...(employee.costs === undefined ? {} : { costs: employee.costs }),
    unavailable,
    ...(start.address === undefined ? {} : { address: start.address }),
  };
}

interface Start {
  key: StartKey;
  address?: Address | undefined;
}

/** The availability's start location overrides the employee's (spec: Availability, start_location). */
function startOf({ availability, employee, homeBases, deployed }: SnapshotInputs, windowStart: number): Start {
  const location = availability.start_location;
  const atHomeBase = (id: string): Start => ({ key: { kind: 'home-base', id }, address: homeBases.get(id) });
  if (location?.at_last_end === true) {
    const preceding = precedingFrozen(deployed ?? [], availability.id, windowStart);
    return { key: { kind: 'journey', transportResourceIds: preceding?.transportResourceIds ?? [] } };
  }
  if (location?.address !== undefined) return { key: { kind: 'ad-hoc', name: location.address.name }, address: location.address };
  if (location?.home_base !== undefined) return atHomeBase(location.home_base.business_id);
  if (location?.name !== undefined) {
    // the deprecated flat fields are the address itself
    const { address: _address, home_base: _homeBase, at_last_end: _atLastEnd, ...flat } = location;
    return { key: { kind: 'ad-hoc', name: location.name }, address: flat };
  }
  if (availability.home_base_id !== undefined) return atHomeBase(availability.home_base_id);
  if (employee.start_location !== undefined) {
    return { key: { kind: 'ad-hoc', name: employee.start_location.name }, address: employee.start_location };
  }
  if (employee.home_base !== undefined) return atHomeBase(employee.home_base.business_id);
  return { key: { kind: 'none' } };
}
