import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  Actual,
  ActualBody,
  ActualListParams,
  ActualPage,
  ActualParams,
  EMPLOYEE_EVENTS,
  PageQuery,
  Problem,
  type ActualFields,
  type ActualInput,
  type ActualListParams as ListParams,
  type ActualParams as Params,
  type PageQuery as Query,
} from '@rm/contracts';
import {
  etag,
  NotFound,
  parseIfMatch,
  replyDeleted,
  replyRead,
  replyWritten,
  resourceUrl,
  ValidationProblem,
  type CursorCodec,
} from '@rm/service-kit';
import { claimCallerOf, pageOfResources } from '@rm/service-kit/resources';
import { ignoreNotFound, type Resource } from '@rm/store';
import type { ResourceChecks } from '../coordination/resource-checks.js';
import { decideActual } from '../domain/actual.js';
import { toActual, type ActualRepository } from '../store/actual-repository.js';

export interface ActualRoutesOptions {
  actuals: ActualRepository;
  /** Whether the employee exists: known here, or else the employees service asked. */
  resources: ResourceChecks;
  cursors: CursorCodec;
}

const LIST = '/means/:employee_id/actual';
const ITEM = `${LIST}/:actual_id`;
const problems = { 400: Problem, 404: Problem, 412: Problem };
const noEmployee = (employeeId: string) => new NotFound(`employee '${employeeId}' does not exist`);
const listed = (resource: Resource<ActualFields>) => ({ ...toActual(resource), etag: etag(resource.version) });

/**
 * `/means/{employee_id}/actual…` (spec: Actuals): worked hours of an employee's completed shifts.
 * The employee lives in the employees service: this one knows it from its events, and asks that
 * service about one it does not know (ResourceChecks).
 */
export const actualRoutes: FastifyPluginAsync<ActualRoutesOptions> = async (app, { actuals, resources, cursors }) => {
  /** 404 unless the employee exists, here or, on a miss, at the employees service (asked with the caller's token). */
  const assertEmployee = async (request: FastifyRequest, tenant: string, employeeId: string) => {
    const missing = await resources.missing(claimCallerOf(request), tenant, EMPLOYEE_EVENTS.entity, [employeeId]);
    if (missing.size > 0) throw noEmployee(employeeId);
  };
  const scopeOf = (request: FastifyRequest) => {
    const { employee_id } = request.params as ListParams;
    return { tenant: request.auth.tenant, parent: employee_id };
  };

  app.get<{ Params: ListParams; Querystring: Query }>(
    LIST,
    { schema: { params: ActualListParams, querystring: PageQuery, response: { 200: ActualPage, 400: Problem, 404: Problem } } },
    async (request) => {
      const scope = scopeOf(request);
      await assertEmployee(request, scope.tenant, scope.parent);
      const page = await pageOfResources(actuals, scope, 'actuals', request.query, cursors);
      return { actuals: page.items.map(listed), cursors: page.cursors };
    },
  );

  app.put<{ Params: Params; Body: ActualInput }>(
    ITEM,
    { schema: { params: ActualParams, body: ActualBody, response: { 200: Actual, 201: Actual, ...problems } } },
    async (request, reply) => {
      const decision = decideActual(request.body, new Date());
      if (!decision.ok) throw new ValidationProblem(decision.violations);
      const scope = scopeOf(request);
      const id = { ...scope, key: request.params.actual_id };
      await assertEmployee(request, scope.tenant, scope.parent);
      const { resource, created } = await actuals.put(id, decision.fields, { ifMatch: parseIfMatch(request.headers['if-match']) });
      // The employee may have been deleted while this was written, after its actuals were removed:
      // then this one goes too (see KnownResources). This copy only, never the owner (see
      // ResourceChecks.missingHere): the first check recorded what the owner said.
      if ((await resources.missingHere(scope.tenant, EMPLOYEE_EVENTS.entity, [scope.parent])).size > 0) {
        await actuals.remove(id).catch(ignoreNotFound);
        throw noEmployee(scope.parent);
      }
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: toActual(resource),
        version: resource.version,
        location: resourceUrl(request, `/means/${scope.parent}/actual/${resource.key}`),
      });
    },
  );

  app.get<{ Params: Params }>(
    ITEM,
    { schema: { params: ActualParams, response: { 200: Actual, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const found = await actuals.get({ ...scopeOf(request), key: request.params.actual_id });
      const { actual_id, employee_id } = request.params;
      if (found === null) throw new NotFound(`actual '${actual_id}' of employee '${employee_id}' does not exist`);
      return replyRead(reply, { body: toActual(found), version: found.version });
    },
  );

  app.delete<{ Params: Params }>(
    ITEM,
    { schema: { params: ActualParams, response: problems } },
    async (request, reply) => {
      await actuals.remove({ ...scopeOf(request), key: request.params.actual_id }, { ifMatch: parseIfMatch(request.headers['if-match']) });
      return replyDeleted(reply);
    },
  );
};
