import type { FastifyPluginAsync } from 'fastify';
import {
  SHIFT_SCHEDULE_EVENTS,
  EmployeeParams,
  Problem,
  ShiftSchedule,
  ShiftScheduleBody,
  ShiftScheduleList,
  WrittenShiftSchedule,
  type ShiftScheduleFields,
  type EmployeeParams as Params,
} from '@rm/contracts';
import { sendJsonArray, ValidationProblem } from '@rm/service-kit';
import { assertParentExists, parentScope, type HomeBaseClaims } from '@rm/service-kit/resources';
import { entityId, type Scope, type Resource } from '@rm/store';
import { decideShiftSchedule, type ShiftScheduleInput } from '../domain/shift-schedule.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import { toShiftSchedule, type ShiftScheduleRepository } from '../store/shift-schedule-repository.js';
import { serveClaimingSubResource } from './claiming-sub-resource.js';
import { employeeParent } from './employee-scope.js';

export interface ShiftScheduleRoutesOptions {
  employees: EmployeeRepository;
  schedules: ShiftScheduleRepository;
  homeBases: HomeBaseClaims;
}

/** How this sub-resource names home bases, as the entity of its events (HomeBaseClaims). */
const referrerOf = (scope: Scope, key: string) => ({ entity: SHIFT_SCHEDULE_EVENTS.entity, id: entityId({ ...scope, key }) });

function decidedSchedule(body: ShiftScheduleInput): ShiftScheduleFields {
  const decision = decideShiftSchedule(body);
  if (!decision.ok) throw new ValidationProblem(decision.violations);
  return decision.schedule;
}

/** POST and PUT answer the schedule without `version` (spec rule 5); the ETag carries it. */
function writtenSchedule(resource: Resource<ShiftScheduleFields>) {
  const { version: _version, ...schedule } = toShiftSchedule(resource);
  return schedule;
}

/**
 * `/employee/{employee_id}/shift-schedule…` (spec: Shift schedules). The GET of one schedule is ours:
 * it is where `Location` points.
 */
export const shiftScheduleRoutes: FastifyPluginAsync<ShiftScheduleRoutesOptions> = async (app, { employees, schedules, homeBases }) => {
  const employee = employeeParent(employees);
  app.get<{ Params: Params }>(
    '/employee/:employee_id/shift-schedule',
    { schema: { params: EmployeeParams, response: { 200: ShiftScheduleList, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const scope = parentScope(request, employee);
      await assertParentExists(employee, scope);
      return sendJsonArray(reply, schedules.findEach(scope), toShiftSchedule);
    },
  );

  serveClaimingSubResource(app, {
    employee,
    items: schedules,
    homeBases,
    segment: 'shift-schedule',
    referrerOf,
    decide: decidedSchedule,
    represent: toShiftSchedule,
    written: writtenSchedule,
    schemas: { resource: ShiftSchedule, body: ShiftScheduleBody, written: WrittenShiftSchedule },
    problems: { 400: Problem, 404: Problem, 412: Problem },
    // spec: "201 with the schedule, or 204"
    updated: 201,
  });
};
