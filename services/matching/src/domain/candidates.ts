import type { AvailableEmployeeCandidates, CandidateReasonCode } from '@rm/contracts';
import { everyReasonNotToCombine, locationsMatch, type TransportResourceView } from './feasibility.js';
import { overlaps, type Interval } from './interval.js';
import type { AvailableEmployee } from './snapshot.js';

export type Candidate = AvailableEmployeeCandidates['candidates'][number];
type Reason = Candidate['reasons'][number];

/** A combination as candidates need it: whose it is, and what it holds when. */
export interface Occupant {
  combinationId: string;
  employeeId: string;
  window: Interval;
  transportResourceIds: readonly string[];
}

const iso = (time: number) => new Date(time).toISOString();
const periodsOver = (guaranteed: Interval | null, intervals: readonly Interval[]) =>
  intervals.filter((interval) => guaranteed !== null && overlaps(interval, guaranteed)).map(({ start, end }) => ({ from: iso(start), to: iso(end) }));

/**
 * The transport resources where the shift starts, each with every reason it cannot take the shift: the
 * engine's rules of a pair (feasibility.ts), and another shift's combination holding it over an
 * overlapping window (the matcher keeps a resource's windows apart). The shift's own combination is
 * `combined`. Ordered: combined, then feasible, then the others, each by id.
 */
export function candidatesOf(shift: AvailableEmployee, resources: readonly TransportResourceView[], occupants: readonly Occupant[]): Candidate[] {
  const own = occupants.find((occupant) => occupant.combinationId === shift.availabilityId);
  const others = occupants.filter((occupant) => occupant !== own && overlaps(occupant.window, shift.window));
  const candidates = resources
    .filter((resource) => locationsMatch(shift, resource))
    .map((resource): Candidate => {
      const reasons = [
        ...everyReasonNotToCombine(shift, resource).map((code) => reasonOf(code, shift, resource)),
        ...others.filter((occupant) => occupant.transportResourceIds.includes(resource.id)).map(takenBy),
      ];
      return { transport_resource_id: resource.id, feasible: reasons.length === 0, combined: own?.transportResourceIds.includes(resource.id) === true, reasons };
    });
  const rank = (candidate: Candidate) => (candidate.combined ? 0 : candidate.feasible ? 1 : 2);
  return candidates.sort((a, b) => rank(a) - rank(b) || a.transport_resource_id.localeCompare(b.transport_resource_id));
}

function reasonOf(code: Exclude<CandidateReasonCode, 'taken'>, shift: AvailableEmployee, resource: TransportResourceView): Reason {
  const missing = (needed: readonly string[]) => needed.filter((skill) => !shift.driverSkills.includes(skill));
  switch (code) {
    case 'location':
      return { code, message: 'the transport resource does not start where the shift does' };
    case 'inactive':
      return { code, message: 'the transport resource is inactive' };
    case 'trailer':
      return { code, message: 'a trailer is never driven alone' };
    case 'requirements':
      return { code, message: "the employee's driver skills lack requirements of the transport resource", missing: missing(resource.requirements) };
    case 'required-capabilities':
      return { code, message: "the employee's driver skills lack required capabilities of the transport resource", missing: missing(resource.requiredCapabilities) };
    case 'no-guaranteed-time':
      return { code, message: 'the shift has no guaranteed working time (its latest start is not before its earliest start plus its minimum duration)' };
    case 'employee-unavailable':
      return { code, message: 'the employee is unavailable during the guaranteed working time', periods: periodsOver(shift.guaranteed, shift.unavailable) };
    case 'resource-unavailable':
      return { code, message: 'the transport resource is unavailable during the guaranteed working time', periods: periodsOver(shift.guaranteed, resource.unavailable) };
  }
}

function takenBy(occupant: Occupant): Reason {
  return {
    code: 'taken',
    message: `combined with a shift of employee '${occupant.employeeId}' that overlaps this one`,
    taken_by: { resource_combination_id: occupant.combinationId, employee_id: occupant.employeeId },
  };
}
