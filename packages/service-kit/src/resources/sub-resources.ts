import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, type CreateHeaders, type TimeRangeQuery } from '@rm/contracts';
import {
  overlapping,
  type IdempotentCreated,
  type IndexedFilter,
  type Resource,
  type ResourceCollection,
  type ResourceId,
  type Scope,
} from '@rm/store';
import { NotFound } from '../errors.js';
import { parseIfMatch, replyDeleted, replyRead, replyWritten, resourceUrl } from '../http.js';
import { parseTimeRange } from '../time-range.js';

/** The resource that sub-resources hang under in paths (`/employee/{employee_id}/availability/…`). */
export interface SubResourceParent {
  /** Path of the parents under the base path: `/employee`. */
  path: string;
  /** Path parameter of the parent's id: `employee_id`; also the field naming it in a sub-resource. */
  param: string;
  /** Names the parent in problems: `employee`. */
  label: string;
  /** Where the parents are. */
  resources: { get(id: ResourceId): Promise<unknown> };
}

/** The sub-resources of the parent in the path, in the caller's tenant. */
export function parentScope(request: FastifyRequest, parent: SubResourceParent): Required<Scope> {
  return { tenant: request.auth.tenant, parent: (request.params as Record<string, string>)[parent.param] as string };
}

/**
 * Reads of an unknown parent's sub-resources are 404 naming the parent (writes learn it from the
 * store, which checks the parent inside their guarded decision).
 */
export async function assertParentExists(parent: SubResourceParent, { tenant, parent: key }: Required<Scope>): Promise<void> {
  if ((await parent.resources.get({ tenant, key })) === null) throw new NotFound(`${parent.label} '${key}' does not exist`);
}

/** The sub-resource in the path: 404 naming the parent when it is unknown, else naming the sub-resource (`label`). */
export async function readSubResource<Body>(
  parent: SubResourceParent,
  items: ResourceCollection<Body>,
  scope: Required<Scope>,
  { key, label }: { key: string; label: string },
): Promise<Resource<Body>> {
  await assertParentExists(parent, scope);
  const found = await items.get({ ...scope, key });
  if (found === null) throw new NotFound(`${label} '${key}' does not exist`);
  return found;
}

/** Lists and bulk deletes by range match sub-resources whose indexed `span` overlaps it (spec: Conventions 5). */
export function spanOverlapping(query: TimeRangeQuery): IndexedFilter {
  return overlapping('span.start', 'span.end', parseTimeRange(query));
}

/** Absolute URI of a sub-resource: `{parent path}/{parent id}/{segment}/{id}`. */
export function subResourceUrl(request: FastifyRequest, parent: SubResourceParent, { parent: key }: Required<Scope>, segment: string, id: string): string {
  return resourceUrl(request, `${parent.path}/${key}/${segment}/${id}`);
}

/** The Idempotency-Key of a create, as its route's `CreateHeaders` schema let it through. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  return (request.headers as CreateHeaders)['idempotency-key'];
}

/**
 * The answer to a create (POST) of a sub-resource, as replyWritten gives it: 201 with its Location; the
 * answer to a retried Idempotency-Key says so in `Idempotent-Replayed`.
 */
export function replyCreated<Body>(
  request: FastifyRequest,
  reply: FastifyReply,
  { parent, scope, segment }: { parent: SubResourceParent; scope: Required<Scope>; segment: string },
  { resource, replayed }: IdempotentCreated<Body>,
  body: unknown,
): FastifyReply {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  const location = subResourceUrl(request, parent, scope, segment, resource.key);
  return replyWritten(reply, { status: 201, body, version: resource.version, location });
}

export interface SubResourceItemOptions<Body> {
  parent: SubResourceParent;
  items: ResourceCollection<Body>;
  /** Route of one item, in fastify's form: `/employee/:employee_id/availability/:generated_id`. */
  path: string;
  /** Path parameter of the item's id: `generated_id`. */
  param: string;
  /** Names an item in problems: `availability`. */
  label: string;
  schemas: { params: unknown; resource: unknown };
  represent(resource: Resource<Body>): unknown;
}

/**
 * GET of one sub-resource (with its ETag) and its DELETE (with optional If-Match): 404 naming the
 * parent when it is unknown, else naming the item.
 */
export function serveSubResourceItem<Body>(
  app: FastifyInstance,
  { parent, items, path, param, label, schemas, represent }: SubResourceItemOptions<Body>,
): void {
  const keyOf = (params: unknown) => (params as Record<string, string>)[param] as string;
  const problems = { 400: Problem, 404: Problem, 412: Problem };

  app.get(path, { schema: { params: schemas.params, response: { 200: schemas.resource, ...problems } } }, async (request, reply) => {
    const found = await readSubResource(parent, items, parentScope(request, parent), { key: keyOf(request.params), label });
    return replyRead(reply, { body: represent(found), version: found.version });
  });

  app.delete(path, { schema: { params: schemas.params, response: problems } }, async (request, reply) => {
    const scope = parentScope(request, parent);
    await assertParentExists(parent, scope);
    await items.remove({ ...scope, key: keyOf(request.params) }, { ifMatch: parseIfMatch(request.headers['if-match']) });
    return replyDeleted(reply);
  });
}
