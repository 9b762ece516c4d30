import { Type, type Static } from '@sinclair/typebox';
import { BusinessId } from './common.js';
import { DeploymentFields } from './deployment.js';
import { entityEvents } from './events.js';

/** A deployment of a released route: as every deployment, with its id and the combination it deploys. */
export const PlannedDeployment = Type.Object(
  { id: BusinessId, ...Type.Omit(DeploymentFields, ['planning_id']).properties },
  { additionalProperties: false },
);
export type PlannedDeployment = Static<typeof PlannedDeployment>;

/** A released route: every deployment of its `planning_id`, replacing those of an earlier release. */
export const ReleasedRoute = Type.Object(
  {
    planning_id: Type.String({ minLength: 1, maxLength: 512 }),
    deployments: Type.Array(PlannedDeployment, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type ReleasedRoute = Static<typeof ReleasedRoute>;

/**
 * The planning platform's two messages, on its stream `RM_PLANNING`, as entity events of a route
 * (`entity_id` = planning_id, `version` = the route's revision, increasing with each message):
 * - **release**: `planned-route.created` or `.updated` on `rm.planning.<tenant>.planned-route.<…>`,
 *   data a ReleasedRoute: create or replace all deployments of that planning_id;
 * - **unrelease**: `planned-route.deleted`, data `{ planning_id, deployments: [] }`: remove them.
 * A consumer applies each route's messages in revision order and skips older ones, so repeated or
 * reordered messages converge to the latest.
 */
export const PLANNED_ROUTE_EVENTS = entityEvents('planning', 'planned-route', ReleasedRoute);
