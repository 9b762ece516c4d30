import type { Deployment } from '@rm/contracts';
import { intervalOf, overlaps, type Interval } from './interval.js';

/**
 * A combination bound to a released route (a planning-bound deployment): never changed or removed by
 * the matcher (DESIGN §6), and its transport resources are taken for its span.
 */
export interface FrozenCombination {
  /** The deployment's id. */
  readonly id: string;
  readonly employeeId: string;
  readonly availabilityId?: string;
  readonly transportResourceIds: readonly string[];
  readonly span: Interval;
}

/** The frozen combination of a deployment, or `undefined` for an external one (it binds no route). */
export function frozenCombinationOf(deployment: Omit<Deployment, 'version'>): FrozenCombination | undefined {
  if (deployment.planning_id === undefined) return undefined;
  return {
    id: deployment.id,
    employeeId: deployment.employee_id,
    ...(deployment.availability_id === undefined ? {} : { availabilityId: deployment.availability_id }),
    transportResourceIds: deployment.transport_resource_ids,
    span: intervalOf(deployment.start.at, deployment.end.at),
  };
}

/** What of an availability decides whether a deployment holds it. */
export interface DeployableShift {
  readonly availabilityId: string;
  readonly employeeId: string;
  readonly window: Interval;
}

/**
 * Whether the frozen combination is this shift's own: it names the availability, or, naming none, it is
 * the employee's and overlaps the shift (an employee's availabilities never overlap, so it can be no other).
 */
export function holds(frozen: FrozenCombination, shift: DeployableShift): boolean {
  if (frozen.employeeId !== shift.employeeId) return false;
  return frozen.availabilityId === undefined ? overlaps(frozen.span, shift.window) : frozen.availabilityId === shift.availabilityId;
}

/**
 * The employee's deployed combination that precedes a shift starting at `start`: the one that ended
 * last, at or before it. A journey (`at_last_end`) continues with its transport resources (spec rule 3).
 */
export function precedingFrozen(
  employeesFrozen: readonly FrozenCombination[],
  availabilityId: string,
  start: number,
): FrozenCombination | undefined {
  let preceding: FrozenCombination | undefined;
  for (const frozen of employeesFrozen) {
    if (frozen.availabilityId === availabilityId || frozen.span.end > start) continue;
    if (preceding === undefined || frozen.span.end > preceding.span.end) preceding = frozen;
  }
  return preceding;
}
