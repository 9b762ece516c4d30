import { defineService, type ServiceContext } from '@rm/runtime';
import { createHomeBaseClaims } from '@rm/service-kit/resources';
import type { Store } from '@rm/store';
import { deploymentsConfigSpec } from './config.js';
import { committedSpanOf, createDeploymentWriter } from './coordination/deployment-writer.js';
import { createResourceChecks } from './coordination/resource-checks.js';
import { createResourceOwners } from './coordination/resource-owners.js';
import { ownerConsumers, plannedRouteConsumer, SERVICE_NAME } from './events.js';
import { actualRoutes } from './routes/actual.routes.js';
import { deploymentRoutes } from './routes/deployment.routes.js';
import { createActualRepository } from './store/actual-repository.js';
import { createCalendars } from './store/calendars.js';
import { createDeploymentRepository } from './store/deployment-repository.js';
import { createKnownResources } from './store/known-resources.js';

/** What the service stores: each collection once, shared by its routes and its consumers. */
function collections(store: Store) {
  const deployments = createDeploymentRepository(store);
  return {
    deployments,
    calendars: createCalendars(store, committedSpanOf(deployments)),
    actuals: createActualRepository(store),
    known: createKnownResources(store),
  };
}

type Context = ServiceContext<ReturnType<typeof collections>, typeof deploymentsConfigSpec>;
/** Whether the resources a write names exist: known here, or else their owners asked. */
const resourcesOf = ({ collections, config }: Context) =>
  createResourceChecks(
    collections.known,
    createResourceOwners({
      employeesUrl: config.EMPLOYEES_URL,
      transportResourcesUrl: config.TRANSPORT_RESOURCES_URL,
      timeoutMs: config.OWNERS_TIMEOUT_MS,
    }),
  );
const writerOf = (context: Context, resources = resourcesOf(context)) => createDeploymentWriter({ ...context.collections, resources, logger: context.logger });

/** The deployments service: what it stores, the routes it serves and the events it consumes; @rm/runtime connects and runs it. */
export const deploymentsService = defineService({
  name: SERVICE_NAME,
  port: 3004,
  config: deploymentsConfigSpec,
  collections,
  routes: (context) => async (api) => {
    const { deployments, actuals } = context.collections;
    const homeBases = createHomeBaseClaims({
      baseUrl: context.config.HOME_BASES_URL,
      timeoutMs: context.config.HOME_BASES_TIMEOUT_MS,
      internalApiKey: context.config.INTERNAL_API_KEY,
    });
    const resources = resourcesOf(context);
    await api.register(deploymentRoutes, { deployments, writer: writerOf(context, resources), homeBases, cursors: context.cursors });
    await api.register(actualRoutes, { actuals, resources, cursors: context.cursors });
  },
  consumers: (context) => {
    const parts = { ...context.collections, writer: writerOf(context) };
    return [...ownerConsumers(parts), plannedRouteConsumer(parts)];
  },
});
