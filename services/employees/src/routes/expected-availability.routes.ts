import type { FastifyPluginAsync } from 'fastify';
import {
  AvailabilityGenerationBody,
  AvailabilityGenerationResult,
  EmployeeParams,
  ExpectedAvailabilityQuery,
  ExpectedShiftList,
  Problem,
  TenantAvailabilityGenerationBody,
  TenantAvailabilityGenerationResult,
  WRITES_HEADER,
  type EmployeeParams as Params,
} from '@rm/contracts';
import { parentScope } from '@rm/service-kit/resources';
import { generateAvailabilities, generateForTenant, listExpectedShifts, type GenerationParts } from '../coordination/availability-generation.js';
import { employeeParent } from './employee-scope.js';

/**
 * Availabilities from shift schedules (spec: behaviour 1, "generated through the application's user
 * interface"; issue 30): what the schedules imply, and generating what is missing.
 */
export const expectedAvailabilityRoutes: FastifyPluginAsync<GenerationParts> = async (app, parts) => {
  const employee = employeeParent(parts.employees);
  app.get<{ Params: Params; Querystring: ExpectedAvailabilityQuery }>(
    '/employee/:employee_id/expected-availability',
    { schema: { params: EmployeeParams, querystring: ExpectedAvailabilityQuery, response: { 200: ExpectedShiftList, 400: Problem, 404: Problem } } },
    async (request) => listExpectedShifts(parts, parentScope(request, employee), request.query),
  );

  app.post<{ Params: Params; Body: AvailabilityGenerationBody }>(
    '/employee/:employee_id/availability-generation',
    { schema: { params: EmployeeParams, body: AvailabilityGenerationBody, response: { 200: AvailabilityGenerationResult, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const result = await generateAvailabilities(parts, request, parentScope(request, employee), request.body);
      reply.header(WRITES_HEADER, result.created.length);
      return result;
    },
  );

  app.post<{ Body: TenantAvailabilityGenerationBody }>(
    '/availability-generation',
    { schema: { body: TenantAvailabilityGenerationBody, response: { 200: TenantAvailabilityGenerationResult, 400: Problem } } },
    async (request, reply) => {
      const result = await generateForTenant(parts, request, request.auth.tenant, request.body);
      reply.header(WRITES_HEADER, result.employees.reduce((created, each) => created + each.created.length, 0));
      return result;
    },
  );
};
