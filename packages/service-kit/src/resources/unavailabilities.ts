import type { FastifyPluginAsync } from 'fastify';
import {
  CreateHeaders,
  decideUnavailability,
  Problem,
  TimeRangeQuery,
  type EntityEvents,
  type TimeRangeQuery as RangeQuery,
  type UnavailabilityFields,
  type UnavailabilityInput,
} from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';
import { ValidationProblem } from '../errors.js';
import { parseIfMatch, replyWritten } from '../http.js';
import { sendJsonArray } from '../json-array.js';
import {
  assertParentExists,
  idempotencyKeyOf,
  parentScope,
  replyCreated,
  serveSubResourceItem,
  spanOverlapping,
  subResourceUrl,
  type SubResourceParent,
} from './sub-resources.js';

/** What `unavailabilitySchemas` of @rm/contracts gives for one kind of parent. */
export interface UnavailabilitySchemas {
  Body: unknown;
  Resource: unknown;
  List: unknown;
  events: EntityEvents;
}
export type UnavailabilityCollection = ResourceCollection<UnavailabilityFields>;

/** The API representation of an unavailability, also its events' data: `parentField` names its parent. */
function representUnavailability(parentField: string) {
  return (resource: Resource<UnavailabilityFields>): Record<string, unknown> => ({
    id: resource.key,
    [parentField]: resource.parent,
    ...resource.body,
    version: resource.version,
  });
}

/**
 * The unavailabilities of every parent of one kind, under their parent (whose delete removes them);
 * PUT may choose the id, so tombstones are kept (a removed id that comes back continues its versions).
 */
export function createUnavailabilityCollection(
  store: Store,
  { name, schemas, parent }: { name: string; schemas: UnavailabilitySchemas; parent: { collection: string; entity: string; field: string } },
): UnavailabilityCollection {
  return store.collection<UnavailabilityFields>({
    name,
    events: schemas.events,
    represent: representUnavailability(parent.field),
    parent: { collection: parent.collection, entity: parent.entity },
    indexed: (unavailability) => ({ span: { start: new Date(unavailability.from), end: new Date(unavailability.to) } }),
    indexes: { span: ['span.end', 'span.start'] },
  });
}

export interface UnavailabilityRoutesOptions {
  parent: SubResourceParent;
  unavailabilities: UnavailabilityCollection;
  schemas: UnavailabilitySchemas;
  /** Path parameters of the list (the parent's id) and of one unavailability (and `unavailability_id`). */
  params: { list: unknown; item: unknown };
  /** Names an unavailability in problems: `employee-unavailability`. */
  label: string;
}

type ItemParams = { unavailability_id: string };
const SEGMENT = 'unavailability';
const problems = { 400: Problem, 404: Problem, 412: Problem };
const createProblems = { 400: Problem, 404: Problem, 409: Problem, 422: Problem };

/**
 * `{parent}/{id}/unavailability…` (spec: Employee unavailabilities, Transport resource
 * unavailabilities): POST with a generated id, PUT with the caller's, list by overlapping range, get,
 * delete; `to` strictly after `from`.
 */
export const unavailabilityRoutes: FastifyPluginAsync<UnavailabilityRoutesOptions> = async (
  app,
  { parent, unavailabilities, schemas, params, label },
) => {
  const represent = representUnavailability(parent.param);
  const listPath = `${parent.path}/:${parent.param}/${SEGMENT}`;
  const itemPath = `${listPath}/:unavailability_id`;
  const decide = (body: UnavailabilityInput) => {
    const decision = decideUnavailability(body);
    if (!decision.ok) throw new ValidationProblem(decision.violations);
    return decision.fields;
  };

  app.get<{ Querystring: RangeQuery }>(
    listPath,
    { schema: { params: params.list, querystring: TimeRangeQuery, response: { 200: schemas.List, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const scope = parentScope(request, parent);
      const where = spanOverlapping(request.query);
      await assertParentExists(parent, scope);
      return sendJsonArray(reply, unavailabilities.findEach(scope, where), represent);
    },
  );

  app.post<{ Body: UnavailabilityInput }>(
    listPath,
    { schema: { params: params.list, headers: CreateHeaders, body: schemas.Body, response: { 201: schemas.Resource, ...createProblems } } },
    async (request, reply) => {
      const unavailability = decide(request.body);
      const scope = parentScope(request, parent);
      const created = await unavailabilities.createOnce(scope, unavailability, { idempotencyKey: idempotencyKeyOf(request) });
      return replyCreated(request, reply, { parent, scope, segment: SEGMENT }, created, represent(created.resource));
    },
  );

  serveSubResourceItem(app, {
    parent,
    items: unavailabilities,
    path: itemPath,
    param: 'unavailability_id',
    label,
    schemas: { params: params.item, resource: schemas.Resource },
    represent,
  });

  app.put<{ Params: ItemParams; Body: UnavailabilityInput }>(
    itemPath,
    { schema: { params: params.item, body: schemas.Body, response: { 200: schemas.Resource, 201: schemas.Resource, ...problems } } },
    async (request, reply) => {
      const unavailability = decide(request.body);
      const scope = parentScope(request, parent);
      const key = request.params.unavailability_id;
      const { resource, created } = await unavailabilities.put({ ...scope, key }, unavailability, {
        ifMatch: parseIfMatch(request.headers['if-match']),
      });
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: represent(resource),
        version: resource.version,
        location: subResourceUrl(request, parent, scope, SEGMENT, key),
      });
    },
  );

};
