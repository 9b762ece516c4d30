import type { FastifyPluginAsync } from 'fastify';
import {
  EmployeeParams,
  EmployeeUnavailability,
  EmployeeUnavailabilityBody,
  EmployeeUnavailabilityList,
  EmployeeUnavailabilityParams,
  Problem,
  TimeRangeQuery,
  type EmployeeParams as Params,
  type EmployeeUnavailabilityParams as ItemParams,
  type TimeRangeQuery as RangeQuery,
} from '@rm/contracts';
import { ValidationProblem, parseIfMatch, replyDeleted, replyRead, replyWritten } from '@rm/service-kit';
import { decideEmployeeUnavailability, type EmployeeUnavailabilityInput } from '../domain/employee-unavailability.js';
import type { EmployeeRepository } from '../store/employee-repository.js';
import { toEmployeeUnavailability, type EmployeeUnavailabilityRepository } from '../store/employee-unavailability-repository.js';
import { assertEmployeeExists, employeeScope, readSubResource, spanOverlapping, subResourceUrl } from './employee-scope.js';

export interface EmployeeUnavailabilityRoutesOptions {
  employees: EmployeeRepository;
  unavailabilities: EmployeeUnavailabilityRepository;
}

const SEGMENT = 'unavailability';
const problems = { 400: Problem, 404: Problem, 412: Problem };

/** `/employee/{employee_id}/unavailability…` (spec: Employee unavailabilities). */
export const employeeUnavailabilityRoutes: FastifyPluginAsync<EmployeeUnavailabilityRoutesOptions> = async (
  app,
  { employees, unavailabilities },
) => {
  app.get<{ Params: Params; Querystring: RangeQuery }>(
    '/employee/:employee_id/unavailability',
    { schema: { params: EmployeeParams, querystring: TimeRangeQuery, response: { 200: EmployeeUnavailabilityList, 400: Problem, 404: Problem } } },
    async (request) => {
      const scope = employeeScope(request);
      const where = spanOverlapping(request.query);
      await assertEmployeeExists(employees, scope);
      return (await unavailabilities.find(scope, where)).map(toEmployeeUnavailability);
    },
  );

  app.post<{ Params: Params; Body: EmployeeUnavailabilityInput }>(
    '/employee/:employee_id/unavailability',
    { schema: { params: EmployeeParams, body: EmployeeUnavailabilityBody, response: { 201: EmployeeUnavailability, ...problems } } },
    async (request, reply) => {
      const decision = decideEmployeeUnavailability(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = employeeScope(request);
      const created = await unavailabilities.create(scope, decision.unavailability);
      return replyWritten(reply, {
        status: 201,
        body: toEmployeeUnavailability(created),
        version: created.version,
        location: subResourceUrl(request, scope, SEGMENT, created.key),
      });
    },
  );

  app.get<{ Params: ItemParams }>(
    '/employee/:employee_id/unavailability/:unavailability_id',
    { schema: { params: EmployeeUnavailabilityParams, response: { 200: EmployeeUnavailability, ...problems } } },
    async (request, reply) => {
      const found = await readSubResource(employees, unavailabilities, employeeScope(request), {
        key: request.params.unavailability_id,
        label: 'employee-unavailability',
      });
      return replyRead(reply, { body: toEmployeeUnavailability(found), version: found.version });
    },
  );

  app.put<{ Params: ItemParams; Body: EmployeeUnavailabilityInput }>(
    '/employee/:employee_id/unavailability/:unavailability_id',
    {
      schema: {
        params: EmployeeUnavailabilityParams,
        body: EmployeeUnavailabilityBody,
        response: { 200: EmployeeUnavailability, 201: EmployeeUnavailability, ...problems },
      },
    },
    async (request, reply) => {
      const decision = decideEmployeeUnavailability(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = employeeScope(request);
      const key = request.params.unavailability_id;
      const { resource, created } = await unavailabilities.put({ ...scope, key }, decision.unavailability, {
        ifMatch: parseIfMatch(request.headers['if-match']),
      });
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: toEmployeeUnavailability(resource),
        version: resource.version,
        location: subResourceUrl(request, scope, SEGMENT, key),
      });
    },
  );

  app.delete<{ Params: ItemParams }>(
    '/employee/:employee_id/unavailability/:unavailability_id',
    { schema: { params: EmployeeUnavailabilityParams, response: { 400: Problem, 404: Problem, 412: Problem } } },
    async (request, reply) => {
      const scope = employeeScope(request);
      await assertEmployeeExists(employees, scope);
      await unavailabilities.remove({ ...scope, key: request.params.unavailability_id }, { ifMatch: parseIfMatch(request.headers['if-match']) });
      return replyDeleted(reply);
    },
  );
};
