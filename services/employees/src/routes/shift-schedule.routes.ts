import type { FastifyPluginAsync } from 'fastify';
import {
  CreateHeaders,
  SHIFT_SCHEDULE_EVENTS,
  EmployeeItemParams,
  EmployeeParams,
  Problem,
  ShiftSchedule,
  ShiftScheduleBody,
  ShiftScheduleList,
  WrittenShiftSchedule,
  type EmployeeItemParams as ItemParams,
  type ShiftScheduleFields,
  type EmployeeParams as Params,
} from '@rm/contracts';
import { replyWritten, sendJsonArray, ValidationProblem } from '@rm/service-kit';
import {
  assertParentExists,
  idempotencyKeyOf,
  parentScope,
  replyCreated,
  serveSubResourceItem,
  subResourceUrl,
  type HomeBaseClaims,
} from '@rm/service-kit/resources';
import { entityId, type Scope, type Resource } from '@rm/store';
import { claimingCreate, claimingUpdate } from '../coordination/claiming-writes.js';
import { decideShiftSchedule, type ShiftScheduleInput } from '../domain/shift-schedule.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import { toShiftSchedule, type ShiftScheduleRepository } from '../store/shift-schedule-repository.js';
import { employeeParent } from './employee-scope.js';

export interface ShiftScheduleRoutesOptions {
  employees: EmployeeRepository;
  schedules: ShiftScheduleRepository;
  homeBases: HomeBaseClaims;
}

const SEGMENT = 'shift-schedule';
/** How this sub-resource names home bases, as the entity of its events (HomeBaseClaims). */
const referrerOf = (scope: Scope, key: string) => ({ entity: SHIFT_SCHEDULE_EVENTS.entity, id: entityId({ ...scope, key }) });
const problems = { 400: Problem, 404: Problem, 412: Problem };

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

  app.post<{ Params: Params; Body: ShiftScheduleInput }>(
    '/employee/:employee_id/shift-schedule',
    {
      schema: {
        params: EmployeeParams,
        headers: CreateHeaders,
        body: ShiftScheduleBody,
        response: { 201: WrittenShiftSchedule, ...problems, 422: Problem },
      },
    },
    async (request, reply) => {
      const decision = decideShiftSchedule(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = parentScope(request, employee);
      const create = claimingCreate({ homeBases, request, items: schedules, referrerOf }, scope, decision.schedule);
      const created = await schedules.createOnce(scope, decision.schedule, { idempotencyKey: idempotencyKeyOf(request), create });
      return replyCreated(request, reply, { parent: employee, scope, segment: SEGMENT }, created, writtenSchedule(created.resource));
    },
  );

  serveSubResourceItem(app, {
    parent: employee,
    items: schedules,
    path: '/employee/:employee_id/shift-schedule/:generated_id',
    param: 'generated_id',
    label: 'shift-schedule',
    schemas: { params: EmployeeItemParams, resource: ShiftSchedule },
    represent: toShiftSchedule,
  });

  app.put<{ Params: ItemParams; Body: ShiftScheduleInput }>(
    '/employee/:employee_id/shift-schedule/:generated_id',
    { schema: { params: EmployeeItemParams, body: ShiftScheduleBody, response: { 201: WrittenShiftSchedule, ...problems } } },
    async (request, reply) => {
      const decision = decideShiftSchedule(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = parentScope(request, employee);
      const key = request.params.generated_id;
      const parts = { homeBases, request, items: schedules, referrerOf };
      const resource = await claimingUpdate(parts, scope, key, decision.schedule);
      // spec: "201 with the schedule, or 204"
      return replyWritten(reply, {
        status: 201,
        body: writtenSchedule(resource),
        version: resource.version,
        location: subResourceUrl(request, employee, scope, SEGMENT, key),
      });
    },
  );
};
