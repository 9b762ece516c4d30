import type { FastifyPluginAsync } from 'fastify';
import { MatchingListQuery, MatchingParams, Problem, type MatchingListQuery as ListQuery, type MatchingParams as Params } from '@rm/contracts';
import { NotFound, parseTimeRange, replyRead, type CursorCodec } from '@rm/service-kit';
import { pageOfResources } from '@rm/service-kit/resources';
import { overlapping, type Resource, type ResourceCollection } from '@rm/store';

export interface OutputRoutesOptions<Body> {
  /** `/resource-combination`. */
  path: string;
  /** What a 404 calls it: `resource combination`. */
  label: string;
  /** The list's property in a page: `resource_combinations`. */
  listProperty: string;
  resources: ResourceCollection<Body>;
  represent(resource: Resource<Body>): unknown;
  schemas: { Resource: unknown; Page: unknown };
  cursors: CursorCodec;
}

/**
 * The read-only API of what the engine derives (experimental): a list cursor-paged in list order,
 * narrowed by employee, transport resource and a range the shift window overlaps; and one item by id.
 */
export function outputRoutes<Body>(): FastifyPluginAsync<OutputRoutesOptions<Body>> {
  return async (app, { path, label, listProperty, resources, represent, schemas, cursors }) => {
    app.get<{ Querystring: ListQuery }>(
      path,
      { schema: { querystring: MatchingListQuery, response: { 200: schemas.Page, 400: Problem } } },
      async (request) => {
        const { employee_id, transport_resource_id, from, until } = request.query;
        const where = {
          ...overlapping('span.start', 'span.end', parseTimeRange({ ...(from === undefined ? {} : { from }), ...(until === undefined ? {} : { until }) })),
          ...(employee_id === undefined ? {} : { employee_id }),
          ...(transport_resource_id === undefined ? {} : { transport_resource_ids: transport_resource_id }),
        };
        const parameters = { employee_id, transport_resource_id, from, until };
        const page = await pageOfResources(resources, { tenant: request.auth.tenant }, listProperty, request.query, cursors, { where, parameters });
        return { [listProperty]: page.items.map(represent), cursors: page.cursors };
      },
    );

    app.get<{ Params: Params }>(
      `${path}/:id`,
      { schema: { params: MatchingParams, response: { 200: schemas.Resource, 400: Problem, 404: Problem } } },
      async (request, reply) => {
        const found = await resources.get({ tenant: request.auth.tenant, key: request.params.id });
        if (found === null) throw new NotFound(`${label} '${request.params.id}' does not exist`);
        return replyRead(reply, { body: represent(found), version: found.version });
      },
    );
  };
}
