import { defineService } from '@rm/runtime';
import { ownerConsumers, SERVICE_NAME } from './events.js';
import { actualRoutes } from './routes/actual.routes.js';
import { createActualRepository } from './store/actual-repository.js';
import { createKnownResources } from './store/known-resources.js';

/** The deployments service: what it stores, the routes it serves and the events it consumes; @rm/runtime connects and runs it. */
export const deploymentsService = defineService({
  name: SERVICE_NAME,
  port: 3004,
  collections: (store) => ({ actuals: createActualRepository(store), known: createKnownResources(store) }),
  routes:
    ({ collections, cursors }) =>
    async (api) => {
      await api.register(actualRoutes, { actuals: collections.actuals, known: collections.known, cursors });
    },
  consumers: ({ collections }) => ownerConsumers(collections),
});
