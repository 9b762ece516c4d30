import type { FastifyRequest } from 'fastify';
import {
  AVAILABILITY_EVENTS,
  EMPLOYEES_PER_GENERATION,
  MAX_GENERATED_PER_CALL,
  MAX_EXPECTED_RANGE_DAYS,
  type AvailabilityGenerationResult,
  type EmployeeFields,
  type ExpectedShift,
  type Problem,
  type Referrer,
  type TenantAvailabilityGenerationResult,
} from '@rm/contracts';
import { NotFound, problemFromError, ValidationProblem, type TenantQuota } from '@rm/service-kit';
import { claimCallerOf, type HomeBaseClaims } from '@rm/service-kit/resources';
import { CREATE_BATCH, entityId, inWaves, isRefusal, newKey, overlapping, ResourceConflictError, type Scope } from '@rm/store';
import {
  comparedWith,
  expectedShifts,
  isKnownTimeZone,
  shiftLocations,
  type ExpectedShiftTime,
  type HeldAvailability,
  type ShiftRange,
} from '../domain/expected-shifts.js';
import { DAY, WEEK } from '../domain/week-timeline.js';
import type { AvailabilityRepository } from '../store/availability-repository.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import type { ScheduledEmployees } from '../store/scheduled-employees.js';
import type { ShiftScheduleRepository } from '../store/shift-schedule-repository.js';
import { claimingCreate } from './claiming-writes.js';

/**
 * Most expected shifts one call lists or generates (eleven a day over the longest range), and most
 * availabilities a tenant's generation call creates: some 15 s of writes. As one employee's range holds no
 * more, no call creates more, whichever employee comes first.
 */
export const MAX_EXPECTED_SHIFTS = MAX_GENERATED_PER_CALL;
/**
 * Employees read and generated side by side: a whole page at once (16 left a second wave of 4, 1.25x
 * against 1.59x the import at 400 employees); each one's creates queue on its guard.
 */
const GENERATIONS_AT_ONCE = EMPLOYEES_PER_GENERATION;

export interface GenerationParts {
  employees: EmployeeRepository;
  schedules: ShiftScheduleRepository;
  scheduledEmployees: ScheduledEmployees;
  availabilities: AvailabilityRepository;
  homeBases: HomeBaseClaims;
  quota: TenantQuota;
}

/** What a request asks: the range, its zone, and perhaps one schedule. */
export interface ExpectedQuery {
  from: string;
  until: string;
  time_zone?: string;
  shift_schedule_id?: string;
}

/** The employee, the expected shifts of the range, and the availabilities they may meet. */
interface Expectations {
  employee: EmployeeFields;
  /** Whether it has a schedule (the one asked for, or any): one removed since the run began has none. */
  scheduled: boolean;
  expected: ExpectedShiftTime[];
  held: HeldAvailability[];
}

/** `GET /employee/{employee_id}/expected-availability`: the expected shifts, each beside what the employee's availabilities say of it. */
export async function listExpectedShifts(parts: GenerationParts, scope: Required<Scope>, query: ExpectedQuery): Promise<ExpectedShift[]> {
  const { employee, expected, held } = await expectationsOf(parts, scope, query);
  return expected.map((shift) => ({ ...shift, ...shiftLocations(shift.availability, employee), ...comparedWith(shift, held) }));
}

/**
 * `POST /employee/{employee_id}/availability-generation`: creates an availability for every expected shift
 * that none covers, in start order, each under the rules of a single create (its home bases claimed, the
 * tenant's quota, the no-overlap rule under the employee's guard, its own event), up to CREATE_BATCH in one
 * commit, and one by one where something refuses them. So running it again creates nothing; a failure part
 * way leaves what was created, and running it again finishes the rest.
 */
export async function generateAvailabilities(
  parts: GenerationParts,
  request: FastifyRequest,
  scope: Required<Scope>,
  query: ExpectedQuery,
): Promise<AvailabilityGenerationResult> {
  return generateFrom(parts, request, scope, await expectationsOf(parts, scope, query));
}

/** Where a generated availability comes from, as the answer names it. */
type ShiftOrigin = Omit<AvailabilityGenerationResult['created'][number], 'availability_id'>;

/** One expected shift, as planned: already met by an availability (`met`), or to be created under `key`. */
type Step = { shift: ExpectedShiftTime; origin: ShiftOrigin } & ({ met: 'existing' | 'overlapping'; availability_id: string } | { key: string });

async function generateFrom(
  parts: GenerationParts,
  request: FastifyRequest,
  scope: Required<Scope>,
  { expected, held }: Expectations,
): Promise<AvailabilityGenerationResult> {
  const result = nothingGenerated();
  const stored = [...held];
  let remaining: readonly ExpectedShiftTime[] = expected;
  while (remaining.length > 0) {
    // planned again after each part: one sent one by one may have come out otherwise than planned
    const steps = planned(remaining, stored);
    const part = steps.slice(0, partEnd(steps));
    const creates = part.filter((step) => 'key' in step);
    if (await createTogether(parts, request, scope, creates)) {
      for (const step of part) {
        if ('key' in step) result.created.push({ ...step.origin, availability_id: step.key });
        else result[step.met].push({ ...step.origin, availability_id: step.availability_id });
      }
      stored.push(...creates.map((step) => ({ id: step.key, availability: step.shift.availability })));
    } else {
      // one by one: each create says what stops it (another write's overlap, the quota, a home base)
      await generateOneByOne(parts, request, scope, part, stored, result);
    }
    remaining = steps.slice(part.length).map((step) => step.shift);
  }
  return result;
}

/** Each expected shift, in start order, compared with the availabilities held and those planned before it. */
function planned(expected: readonly ExpectedShiftTime[], held: readonly HeldAvailability[]): Step[] {
  const planning = [...held];
  return expected.map((shift) => {
    const origin = originOf(shift);
    const { covered_by, overlapping: other } = comparedWith(shift, planning);
    if (covered_by !== undefined) return { shift, origin, met: 'existing', availability_id: covered_by };
    if (other !== undefined) return { shift, origin, met: 'overlapping', availability_id: other };
    const key = newKey();
    planning.push({ id: key, availability: shift.availability });
    return { shift, origin, key };
  });
}

/** Where the first part of the steps ends: before the create past CREATE_BATCH, one commit's worth. */
function partEnd(steps: readonly Step[]): number {
  let creates = 0;
  for (const [index, step] of steps.entries()) {
    if ('key' in step && (creates += 1) > CREATE_BATCH) return index;
  }
  return steps.length;
}

/**
 * Creates the planned availabilities in one commit of the employee's guard, their home bases claimed
 * first and their number reserved in the tenant's quota: two statements for the guard (its commit, and
 * its intent cleared) and one per hundred documents, where one by one took two a document. False when
 * the quota or a refusal (4xx) stopped them: nothing was created then. A fault (5xx) fails the request,
 * as it would one by one.
 */
async function createTogether(
  parts: GenerationParts,
  request: FastifyRequest,
  scope: Required<Scope>,
  creates: readonly (Step & { key: string })[],
): Promise<boolean> {
  if (creates.length === 0) return true;
  const reserved = await parts.quota.reserve(request.auth, creates.length);
  if (reserved === undefined) return false;
  const bodies = creates.map(({ key, shift }) => ({ key, body: shift.availability }));
  const claimed = bodies.map(({ key, body }) => ({ referrer: referrerOf(scope, key), body }));
  const createAll = async () => (await parts.availabilities.createMany(scope, bodies)).map((resource) => ({ resource }));
  try {
    await parts.homeBases.writeMany(claimCallerOf(request), claimed, createAll);
    return true;
  } catch (error) {
    if (!isRefusal(error)) throw error;
    reserved.release();
    return false;
  }
}

/** The steps' shifts created one at a time, each compared again with what is stored (`stored`, which grows). */
async function generateOneByOne(
  parts: GenerationParts,
  request: FastifyRequest,
  scope: Required<Scope>,
  steps: readonly Step[],
  stored: HeldAvailability[],
  result: AvailabilityGenerationResult,
): Promise<void> {
  for (const { shift, origin } of steps) {
    const { covered_by, overlapping: other } = comparedWith(shift, stored);
    if (covered_by !== undefined) result.existing.push({ ...origin, availability_id: covered_by });
    else if (other !== undefined) result.overlapping.push({ ...origin, availability_id: other });
    else {
      try {
        await parts.quota.admit(request.auth, async () => true);
        const create = claimingCreate({ homeBases: parts.homeBases, request, items: parts.availabilities, referrerOf }, scope, shift.availability);
        const created = await create(newKey());
        parts.quota.added(scope.tenant);
        stored.push({ id: created.key, availability: created.body });
        result.created.push({ ...origin, availability_id: created.key });
      } catch (error) {
        // another write came first: the shift overlaps what it created
        if (error instanceof ResourceConflictError) result.overlapping.push({ ...origin, availability_id: conflictingIdOf(error) });
        else result.refused.push({ ...origin, problem: refusalOf(error) });
      }
    }
  }
}

function originOf(shift: ExpectedShiftTime): ShiftOrigin {
  return {
    shift_schedule_id: shift.shift_schedule_id,
    template_index: shift.template_index,
    shift_position: shift.shift_position,
    earliest_start: shift.availability.earliest_start,
  };
}

function referrerOf(of: Scope, key: string): Referrer {
  return { entity: AVAILABILITY_EVENTS.entity, id: entityId({ ...of, key }) };
}

/**
 * `POST /availability-generation`: generateAvailabilities for the tenant's employees that have a schedule, by
 * id from `after`: as many as MAX_EXPECTED_SHIFTS availabilities to create allow (one at least, at most
 * EMPLOYEES_PER_GENERATION), GENERATIONS_AT_ONCE employees side by side, so that a call ends well within the
 * gateway's timeouts whatever the tenant's size; `next_after` says where the next call goes on. An employee
 * removed meanwhile, or whose schedules were, is skipped; one whose range cannot be generated (too many
 * expected shifts) is listed with its problem, and the run goes on past it.
 */
export async function generateForTenant(
  parts: GenerationParts,
  request: FastifyRequest,
  tenant: string,
  query: ExpectedQuery & { after?: string },
): Promise<TenantAvailabilityGenerationResult> {
  // refused up front, whether or not any employee has a schedule
  rangeOf(query);
  zoneOf(query);
  const ids = await parts.scheduledEmployees.page(tenant, query.after, EMPLOYEES_PER_GENERATION + 1);
  type Planned = { employeeId: string; expectations?: Expectations; problem?: Problem };
  const planned: Planned[] = [];
  let creates = 0;
  let passed: string | undefined;
  // read side by side (three reads each), then taken in id order up to the call's most creates
  const outcomes = await inWaves(ids.slice(0, EMPLOYEES_PER_GENERATION), GENERATIONS_AT_ONCE, async (employeeId) => ({
    employeeId,
    // an employee removed meanwhile, or its schedules, is skipped
    ...(await expectationsOf(parts, { tenant, parent: employeeId }, query).then(
      (expectations): Omit<Planned, 'employeeId'> => (expectations.scheduled ? { expectations } : {}),
      (error: unknown): Omit<Planned, 'employeeId'> => (error instanceof NotFound ? {} : { problem: refusalOf(error) }),
    )),
  }));
  for (const outcome of outcomes) {
    const { employeeId } = outcome;
    if (outcome.expectations !== undefined) {
      const { expected, held } = outcome.expectations;
      const uncovered = expected.filter((shift) => Object.keys(comparedWith(shift, held)).length === 0).length;
      if (creates + uncovered > MAX_EXPECTED_SHIFTS) break;
      creates += uncovered;
    }
    if (outcome.expectations !== undefined || outcome.problem !== undefined) planned.push(outcome);
    passed = employeeId;
  }
  const employees = await inWaves(planned, GENERATIONS_AT_ONCE, async ({ employeeId, expectations, problem }) => ({
    employee_id: employeeId,
    ...(expectations === undefined ? nothingGenerated() : await generateFrom(parts, request, { tenant, parent: employeeId }, expectations)),
    ...(problem === undefined ? {} : { problem }),
  }));
  // from the last employee gone through, listed or skipped, so a page of removed employees does not end the run
  const more = passed !== undefined && ids.some((id) => id > passed);
  return { employees, ...(more ? { next_after: passed } : {}) };
}

function nothingGenerated(): AvailabilityGenerationResult {
  return { created: [], existing: [], overlapping: [], refused: [] };
}

async function expectationsOf(parts: GenerationParts, scope: Required<Scope>, query: ExpectedQuery): Promise<Expectations> {
  const range = rangeOf(query);
  const zone = zoneOf(query);
  const employee = await parts.employees.get({ tenant: scope.tenant, key: scope.parent });
  if (employee === null) throw new NotFound(`employee '${scope.parent}' does not exist`);
  const schedules = (await parts.schedules.find(scope))
    .filter((schedule) => query.shift_schedule_id === undefined || schedule.key === query.shift_schedule_id)
    .map((schedule) => ({ id: schedule.key, schedule: schedule.body }));
  if (query.shift_schedule_id !== undefined && schedules.length === 0) {
    throw new NotFound(`shift schedule '${query.shift_schedule_id}' of employee '${scope.parent}' does not exist`);
  }
  const expected = expectedShifts(schedules, range, zone);
  if (expected.length > MAX_EXPECTED_SHIFTS) {
    throw new ValidationProblem([{ field: 'until', message: `the range holds more than ${MAX_EXPECTED_SHIFTS} expected shifts; narrow it` }]);
  }
  // a shift that starts in the range ends less than two weeks later (a window and a duration, each below a week)
  const around = overlapping('span.start', 'span.end', { from: range.from, until: new Date(range.until.getTime() + 2 * WEEK) });
  const held = (await parts.availabilities.find(scope, around)).map((each) => ({ id: each.key, availability: each.body }));
  return { employee: employee.body, scheduled: schedules.length > 0, expected, held };
}

function rangeOf({ from, until }: ExpectedQuery): ShiftRange {
  const range = { from: new Date(from), until: new Date(until) };
  if (!(range.until > range.from)) throw new ValidationProblem([{ field: 'until', message: 'must be after from' }]);
  if (range.until.getTime() - range.from.getTime() > MAX_EXPECTED_RANGE_DAYS * DAY) {
    throw new ValidationProblem([{ field: 'until', message: `must be at most ${MAX_EXPECTED_RANGE_DAYS} days after from` }]);
  }
  return range;
}

function zoneOf({ time_zone: zone = 'UTC' }: ExpectedQuery): string {
  if (!isKnownTimeZone(zone)) throw new ValidationProblem([{ field: 'time_zone', message: 'must be an IANA time zone, like Europe/Amsterdam' }]);
  return zone;
}

function conflictingIdOf(error: ResourceConflictError): string {
  return String(error.extensions.conflicting_id);
}

/** The problem a single create would have answered; a fault of ours (5xx) fails the whole request instead. */
function refusalOf(error: unknown): Problem {
  const { status, body } = problemFromError(error);
  if (status >= 500 || body === undefined) throw error;
  return { title: body.title, status, detail: body.detail, ...(body.violations === undefined ? {} : { violations: body.violations }) };
}
