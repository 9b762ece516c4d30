import type { FastifyPluginAsync } from 'fastify';
import {
  DEFAULT_PAGE_SIZE,
  Employee,
  EmployeeBody,
  EmployeePage,
  EmployeeParams,
  PageQuery,
  Problem,
  type EmployeeFields,
  type EmployeeParams as Params,
  type PageQuery as Query,
} from '@rm/contracts';
import {
  assertHomeBasesExist,
  isStringKey,
  NotFound,
  paginate,
  parseIfMatch,
  replyDeleted,
  replyRead,
  replyWritten,
  resourceUrl,
  ValidationProblem,
  type CursorCodec,
} from '@rm/service-kit';
import type { Resource } from '@rm/store';
import { decideEmployee, type EmployeeInput } from '../domain/employee.js';
import { toEmployee, type EmployeeRepository } from '../store/employee-repository.js';

export interface EmployeeRoutesOptions {
  employees: EmployeeRepository;
  cursors: CursorCodec;
}

const problems = { 400: Problem, 404: Problem, 412: Problem };

/** `/employee` and `/employee/{employee_id}` (spec: Employees). */
export const employeeRoutes: FastifyPluginAsync<EmployeeRoutesOptions> = async (app, { employees, cursors }) => {
  app.get<{ Querystring: Query }>(
    '/employee',
    { schema: { querystring: PageQuery, response: { 200: EmployeePage, 400: Problem } } },
    async (request) => {
      const { tenant } = request.auth;
      const page = await paginate({
        cursor: request.query.cursor,
        limit: request.query.limit ?? DEFAULT_PAGE_SIZE,
        codec: cursors,
        key: (employee: Resource<EmployeeFields>) => employee.key,
        isKey: isStringKey,
        // A cursor names a position in one tenant's list; another tenant's cursor is refused.
        scope: `${tenant}:employees`,
        fetch: (read) => employees.list({ tenant }, read),
      });
      return { employees: page.items.map(toEmployee), cursors: page.cursors };
    },
  );

  app.get<{ Params: Params }>(
    '/employee/:employee_id',
    { schema: { params: EmployeeParams, response: { 200: Employee, ...problems } } },
    async (request, reply) => {
      const found = await employees.get({ tenant: request.auth.tenant, key: request.params.employee_id });
      if (found === null) throw new NotFound(`employee '${request.params.employee_id}' does not exist`);
      return replyRead(reply, { body: toEmployee(found), version: found.version });
    },
  );

  app.put<{ Params: Params; Body: EmployeeInput }>(
    '/employee/:employee_id',
    { schema: { params: EmployeeParams, body: EmployeeBody, response: { 200: Employee, 201: Employee, ...problems } } },
    async (request, reply) => {
      const decision = decideEmployee(request.body);
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      await assertHomeBasesExist(request.auth.tenant, decision.employee);
      const key = request.params.employee_id;
      const { resource, created } = await employees.put({ tenant: request.auth.tenant, key }, decision.employee, {
        ifMatch: parseIfMatch(request.headers['if-match']),
      });
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: toEmployee(resource),
        version: resource.version,
        location: resourceUrl(request, `/employee/${key}`),
      });
    },
  );

  app.delete<{ Params: Params }>(
    '/employee/:employee_id',
    { schema: { params: EmployeeParams, response: { 404: Problem, 412: Problem } } },
    async (request, reply) => {
      await employees.remove({ tenant: request.auth.tenant, key: request.params.employee_id }, {
        ifMatch: parseIfMatch(request.headers['if-match']),
      });
      return replyDeleted(reply);
    },
  );
};
