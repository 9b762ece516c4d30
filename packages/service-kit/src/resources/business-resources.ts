import type { FastifyPluginAsync } from 'fastify';
import { PageQuery, Problem, type FieldsDecision, type PageQuery as Query } from '@rm/contracts';
import type { IfMatch, Resource, ResourceCollection, ResourceId } from '@rm/store';
import type { CursorCodec } from '../cursor.js';
import { NotFound, ValidationProblem } from '../errors.js';
import { claimCallerOf, type HomeBaseClaims } from './home-base-references.js';
import { parseIfMatch, replyDeleted, replyRead, replyWritten, resourceUrl } from '../http.js';
import { pageOfResources } from './resource-pages.js';
import type { TenantQuota } from '../tenant-quota.js';

export interface BusinessResourceRoutesOptions<Input, Fields> {
  /** Path of the list under the base path: `/employee`; one resource is `{path}/{id}`. */
  path: string;
  /** Path parameter of the id: `employee_id`. */
  param: string;
  /** Names a resource in problems: `employee`. */
  label: string;
  /** Property of a page holding the list: `employees` (field reference: Paging). */
  listProperty: string;
  resources: ResourceCollection<Fields>;
  cursors: CursorCodec;
  schemas: { Body: unknown; Resource: unknown; Page: unknown; Params: unknown };
  /** The API representation, also the data of the resource's events. */
  represent(resource: Resource<Fields>): Record<string, unknown>;
  decide(input: Input): FieldsDecision<Fields>;
  /** Top-level body fields taken exactly as sent, whatever their keys (see FastifyContextConfig). */
  opaqueJsonFields?: readonly string[];
  /** The tenant's quota of these resources: an upsert that would add one beyond it is a 409. */
  quota?: TenantQuota;
  /** Resources that name home bases claim them for each write (HomeBaseClaims), as the `entity` of their events. */
  homeBases?: { claims: HomeBaseClaims; entity: string };
  /** A delete that may be refused (home bases still referred to): what it does instead of `resources.remove`, and its 409's schema. */
  guardedRemove?: {
    remove(id: ResourceId, options: { ifMatch?: IfMatch }): Promise<unknown>;
    conflict: unknown;
  };
}

const problems = { 400: Problem, 404: Problem, 412: Problem };

/**
 * A tenant's resources keyed by the caller's business id (spec: Employees, Transport resources, Home
 * bases): cursor-paged list, upsert with If-Match and Prefer (201, 200 or 204), get, delete. Every
 * home base a body names must exist, and is claimed for the write (HomeBaseClaims).
 */
export function businessResourceRoutes<Input, Fields>(): FastifyPluginAsync<BusinessResourceRoutesOptions<Input, Fields>> {
  return async (app, options) => {
    const { path, param, label, listProperty, resources, cursors, schemas, represent, decide, opaqueJsonFields = [], homeBases, guardedRemove, quota } = options;
    const remove = guardedRemove?.remove ?? ((id: ResourceId, removeOptions: { ifMatch?: IfMatch }) => resources.remove(id, removeOptions));
    const removeProblems = { 404: Problem, 412: Problem, ...(guardedRemove === undefined ? {} : { 409: guardedRemove.conflict }) };
    const itemPath = `${path}/:${param}`;
    const idOf = (params: unknown) => (params as Record<string, string>)[param] as string;

    app.get<{ Querystring: Query }>(path, { schema: { querystring: PageQuery, response: { 200: schemas.Page, 400: Problem } } }, async (request) => {
      const page = await pageOfResources(resources, { tenant: request.auth.tenant }, listProperty, request.query, cursors);
      return { [listProperty]: page.items.map(represent), cursors: page.cursors };
    });

    app.get(itemPath, { schema: { params: schemas.Params, response: { 200: schemas.Resource, ...problems } } }, async (request, reply) => {
      const key = idOf(request.params);
      const found = await resources.get({ tenant: request.auth.tenant, key });
      if (found === null) throw new NotFound(`${label} '${key}' does not exist`);
      return replyRead(reply, { body: represent(found), version: found.version });
    });

    app.put(
      itemPath,
      {
        schema: { params: schemas.Params, body: schemas.Body, response: { 200: schemas.Resource, 201: schemas.Resource, ...problems, ...(quota === undefined ? {} : { 409: Problem }) } },
        config: { opaqueJsonFields },
      },
      async (request, reply) => {
        const decision = decide(request.body as Input);
        if (!decision.ok) throw new ValidationProblem(decision.violations);
        const key = idOf(request.params);
        const { tenant } = request.auth;
        await quota?.admit(request.auth, async () => (await resources.get({ tenant, key })) === null);
        const put = () => resources.put({ tenant, key }, decision.fields, { ifMatch: parseIfMatch(request.headers['if-match']) });
        const { resource, created } = await (homeBases === undefined
          ? put()
          : homeBases.claims.write(claimCallerOf(request), { entity: homeBases.entity, id: key }, decision.fields, put));
        if (created) quota?.added(tenant);
        return replyWritten(reply, {
          status: created ? 201 : 200,
          body: represent(resource),
          version: resource.version,
          location: resourceUrl(request, `${path}/${key}`),
        });
      },
    );

    app.delete(itemPath, { schema: { params: schemas.Params, response: removeProblems } }, async (request, reply) => {
      await remove({ tenant: request.auth.tenant, key: idOf(request.params) }, { ifMatch: parseIfMatch(request.headers['if-match']) });
      return replyDeleted(reply);
    });
  };
}
