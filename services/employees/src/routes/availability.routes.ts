import type { FastifyPluginAsync } from 'fastify';
import {
  CreateHeaders,
  AVAILABILITY_EVENTS,
  Availability,
  AvailabilityBody,
  AvailabilityList,
  EmployeeItemParams,
  EmployeeParams,
  Problem,
  TimeRangeQuery,
  type EmployeeItemParams as ItemParams,
  type EmployeeParams as Params,
  type TimeRangeQuery as RangeQuery,
} from '@rm/contracts';
import { replyDeleted, replyWritten, sendJsonArray, ValidationProblem, type TenantQuota } from '@rm/service-kit';
import {
  assertParentExists,
  idempotencyKeyOf,
  parentScope,
  replyCreated,
  serveSubResourceItem,
  spanOverlapping,
  subResourceUrl,
  type HomeBaseClaims,
} from '@rm/service-kit/resources';
import { entityId, type Scope } from '@rm/store';
import { claimingCreate, claimingUpdate } from '../coordination/claiming-writes.js';
import { decideAvailability, type AvailabilityInput } from '../domain/availability.js';
import { toAvailability, type AvailabilityRepository } from '../store/availability-repository.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import { employeeParent } from './employee-scope.js';

export interface AvailabilityRoutesOptions {
  employees: EmployeeRepository;
  availabilities: AvailabilityRepository;
  homeBases: HomeBaseClaims;
  /** The tenant's quota of availabilities: a create beyond it is a 409. */
  quota: TenantQuota;
}

const SEGMENT = 'availability';
/** How this sub-resource names home bases, as the entity of its events (HomeBaseClaims). */
const referrerOf = (scope: Scope, key: string) => ({ entity: AVAILABILITY_EVENTS.entity, id: entityId({ ...scope, key }) });
const problems = { 400: Problem, 404: Problem, 409: Problem, 412: Problem };

/** `/employee/{employee_id}/availability…` (spec: Availabilities). */
export const availabilityRoutes: FastifyPluginAsync<AvailabilityRoutesOptions> = async (app, { employees, availabilities, homeBases, quota }) => {
  const employee = employeeParent(employees);
  app.get<{ Params: Params; Querystring: RangeQuery }>(
    '/employee/:employee_id/availability',
    { schema: { params: EmployeeParams, querystring: TimeRangeQuery, response: { 200: AvailabilityList, ...problems } } },
    async (request, reply) => {
      const scope = parentScope(request, employee);
      const where = spanOverlapping(request.query);
      await assertParentExists(employee, scope);
      return sendJsonArray(reply, availabilities.findEach(scope, where), toAvailability);
    },
  );

  app.post<{ Params: Params; Body: AvailabilityInput }>(
    '/employee/:employee_id/availability',
    {
      schema: {
        params: EmployeeParams,
        headers: CreateHeaders,
        body: AvailabilityBody,
        response: { 201: Availability, ...problems, 422: Problem },
      },
    },
    async (request, reply) => {
      const decision = decideAvailability(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = parentScope(request, employee);
      // a retried create (Idempotency-Key) adds nothing, but is refused as well once the tenant is at its quota
      await quota.admit(request.auth, async () => true);
      const create = claimingCreate({ homeBases, request, items: availabilities, referrerOf }, scope, decision.availability);
      const created = await availabilities.createOnce(scope, decision.availability, { idempotencyKey: idempotencyKeyOf(request), create });
      if (!created.replayed) quota.added(scope.tenant);
      return replyCreated(request, reply, { parent: employee, scope, segment: SEGMENT }, created, toAvailability(created.resource));
    },
  );

  app.delete<{ Params: Params; Querystring: RangeQuery }>(
    '/employee/:employee_id/availability',
    { schema: { params: EmployeeParams, querystring: TimeRangeQuery, response: { 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const scope = parentScope(request, employee);
      const where = spanOverlapping(request.query);
      await assertParentExists(employee, scope);
      await availabilities.removeMany(scope, where);
      return replyDeleted(reply);
    },
  );

  serveSubResourceItem(app, {
    parent: employee,
    items: availabilities,
    path: '/employee/:employee_id/availability/:generated_id',
    param: 'generated_id',
    label: 'availability',
    schemas: { params: EmployeeItemParams, resource: Availability },
    represent: toAvailability,
  });

  app.put<{ Params: ItemParams; Body: AvailabilityInput }>(
    '/employee/:employee_id/availability/:generated_id',
    { schema: { params: EmployeeItemParams, body: AvailabilityBody, response: { 200: Availability, ...problems } } },
    async (request, reply) => {
      const decision = decideAvailability(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = parentScope(request, employee);
      const key = request.params.generated_id;
      const parts = { homeBases, request, items: availabilities, referrerOf };
      const resource = await claimingUpdate(parts, scope, key, decision.availability);
      return replyWritten(reply, {
        status: 200,
        body: toAvailability(resource),
        version: resource.version,
        location: subResourceUrl(request, employee, scope, SEGMENT, key),
      });
    },
  );
};
