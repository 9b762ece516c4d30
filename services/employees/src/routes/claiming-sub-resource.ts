import type { FastifyInstance } from 'fastify';
import {
  CreateHeaders,
  EmployeeItemParams,
  EmployeeParams,
  Problem,
  type EmployeeItemParams as ItemParams,
  type EmployeeParams as Params,
  type Referrer,
} from '@rm/contracts';
import { replyWritten, type TenantQuota } from '@rm/service-kit';
import {
  idempotencyKeyOf,
  parentScope,
  replyCreated,
  serveSubResourceItem,
  subResourceUrl,
  type HomeBaseClaims,
  type SubResourceParent,
} from '@rm/service-kit/resources';
import type { Resource, ResourceCollection, Scope } from '@rm/store';
import { claimingCreate, claimingUpdate } from '../coordination/claiming-writes.js';

export interface ClaimingSubResourceOptions<Input, Fields> {
  employee: SubResourceParent;
  items: ResourceCollection<Fields>;
  homeBases: HomeBaseClaims;
  /** The path segment under the employee, which also names an item in problems: `availability`. */
  segment: string;
  referrerOf(scope: Scope, key: string): Referrer;
  /** The body's fields, or a ValidationProblem thrown. */
  decide(body: Input): Fields;
  /** The item as GET answers it. */
  represent(resource: Resource<Fields>): unknown;
  /** The item as POST and PUT answer it. */
  written(resource: Resource<Fields>): unknown;
  schemas: { resource: unknown; body: unknown; written: unknown };
  /** The problems a write may answer, by status (a POST also answers 422). */
  problems: Record<number, unknown>;
  /** PUT's status of success (the spec's). */
  updated: 200 | 201;
  /** The tenant's quota of these items: a create beyond it is a 409. */
  quota?: TenantQuota;
}

/**
 * The writes and the items of an employee's sub-resource that names home bases (availabilities, shift
 * schedules): POST, and GET, PUT and DELETE of one. POST and PUT claim the home bases the body names
 * before they write, as the referrer the item's key makes it.
 */
export function serveClaimingSubResource<Input, Fields>(app: FastifyInstance, options: ClaimingSubResourceOptions<Input, Fields>): void {
  const { employee, items, homeBases, segment, referrerOf, decide, represent, written, schemas, problems, updated, quota } = options;
  const parts = (request: Parameters<typeof claimingCreate>[0]['request']) => ({ homeBases, request, items, referrerOf });

  app.post<{ Params: Params; Body: Input }>(
    `/employee/:employee_id/${segment}`,
    {
      schema: {
        params: EmployeeParams,
        headers: CreateHeaders,
        body: schemas.body,
        response: { 201: schemas.written, ...problems, 422: Problem },
      },
    },
    async (request, reply) => {
      // fastify widens a generic body type; the schema has checked it
      const fields = decide(request.body as Input);
      const scope = parentScope(request, employee);
      // a retried create (Idempotency-Key) adds nothing, but is refused as well once the tenant is at its quota
      await quota?.admit(request.auth, async () => true);
      const create = claimingCreate(parts(request), scope, fields);
      const created = await items.createOnce(scope, fields, { idempotencyKey: idempotencyKeyOf(request), create });
      if (!created.replayed) quota?.added(scope.tenant);
      return replyCreated(request, reply, { parent: employee, scope, segment }, created, written(created.resource));
    },
  );

  const path = `/employee/:employee_id/${segment}/:generated_id`;
  serveSubResourceItem(app, {
    parent: employee,
    items,
    path,
    param: 'generated_id',
    label: segment,
    schemas: { params: EmployeeItemParams, resource: schemas.resource },
    represent,
  });

  app.put<{ Params: ItemParams; Body: Input }>(
    path,
    { schema: { params: EmployeeItemParams, body: schemas.body, response: { [updated]: schemas.written, ...problems } } },
    async (request, reply) => {
      const fields = decide(request.body as Input);
      const scope = parentScope(request, employee);
      const key = request.params.generated_id;
      const resource = await claimingUpdate(parts(request), scope, key, fields);
      return replyWritten(reply, {
        status: updated,
        body: written(resource),
        version: resource.version,
        location: subResourceUrl(request, employee, scope, segment, key),
      });
    },
  );
}
