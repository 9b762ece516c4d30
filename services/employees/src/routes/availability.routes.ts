import type { FastifyPluginAsync } from 'fastify';
import {
  AVAILABILITY_EVENTS,
  Availability,
  AvailabilityBody,
  AvailabilityList,
  EmployeeParams,
  Problem,
  TimeRangeQuery,
  type AvailabilityFields,
  type EmployeeParams as Params,
  type TimeRangeQuery as RangeQuery,
} from '@rm/contracts';
import { replyDeleted, sendJsonArray, ValidationProblem, type TenantQuota } from '@rm/service-kit';
import { assertParentExists, parentScope, spanOverlapping, type HomeBaseClaims } from '@rm/service-kit/resources';
import { entityId, type Scope } from '@rm/store';
import { decideAvailability, type AvailabilityInput } from '../domain/availability.js';
import { toAvailability, type AvailabilityRepository } from '../store/availability-repository.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import { serveClaimingSubResource } from './claiming-sub-resource.js';
import { employeeParent } from './employee-scope.js';

export interface AvailabilityRoutesOptions {
  employees: EmployeeRepository;
  availabilities: AvailabilityRepository;
  homeBases: HomeBaseClaims;
  /** The tenant's quota of availabilities: a create beyond it is a 409. */
  quota: TenantQuota;
}

/** How this sub-resource names home bases, as the entity of its events (HomeBaseClaims). */
const referrerOf = (scope: Scope, key: string) => ({ entity: AVAILABILITY_EVENTS.entity, id: entityId({ ...scope, key }) });
const problems = { 400: Problem, 404: Problem, 409: Problem, 412: Problem };

function decidedAvailability(body: AvailabilityInput): AvailabilityFields {
  const decision = decideAvailability(body);
  if (!decision.ok) throw new ValidationProblem(decision.violations);
  return decision.availability;
}

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

  serveClaimingSubResource(app, {
    employee,
    items: availabilities,
    homeBases,
    segment: 'availability',
    referrerOf,
    decide: decidedAvailability,
    represent: toAvailability,
    written: toAvailability,
    schemas: { resource: Availability, body: AvailabilityBody, written: Availability },
    problems,
    updated: 200,
    quota,
  });

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
};
