import { HomeBase, HomeBaseBody, HomeBaseInUse, HomeBasePage, HomeBaseParams, type HomeBaseFields, type HomeBaseInput } from '@rm/contracts';
import { defineService } from '@rm/runtime';
import { businessResourceRoutes } from '@rm/service-kit/resources';
import { homeBasesConfigSpec } from './config.js';
import { decideHomeBase } from './domain/home-base.js';
import { referenceConsumers, SERVICE_NAME } from './events.js';
import { createHomeBaseIntegrity } from './coordination/referential-integrity.js';
import { forecastRoutes } from './routes/forecast.routes.js';
import { homeBaseClaimRoutes } from './routes/home-base-claims.routes.js';
import { createDeletionMarks } from './store/deletion-marks.js';
import { createForecastRepository } from './store/forecast-repository.js';
import { createHomeBaseRepository, toHomeBase } from './store/home-base-repository.js';
import { createReferenceIndex } from './store/reference-index.js';

/** The home-bases service: what it stores, the routes it serves and the events it consumes; @rm/runtime connects and runs it. */
export const homeBasesService = defineService({
  name: SERVICE_NAME,
  port: 3003,
  config: homeBasesConfigSpec,
  collections: (store) => {
    const homeBases = createHomeBaseRepository(store);
    const references = createReferenceIndex(store);
    return {
      homeBases,
      forecasts: createForecastRepository(store),
      references,
      integrity: createHomeBaseIntegrity({ homeBases, references, marks: createDeletionMarks(store) }),
    };
  },
  routes:
    ({ collections, config, cursors }) =>
    async (api) => {
      await api.register(businessResourceRoutes<HomeBaseInput, HomeBaseFields>(), {
        path: '/home-base',
        param: 'home_base_id',
        label: 'home-base',
        listProperty: 'home_bases',
        resources: collections.homeBases,
        cursors,
        schemas: { Body: HomeBaseBody, Resource: HomeBase, Page: HomeBasePage, Params: HomeBaseParams },
        represent: toHomeBase,
        decide: decideHomeBase,
        guardedRemove: { remove: collections.integrity.remove, conflict: HomeBaseInUse },
      });
      await api.register(forecastRoutes, { forecasts: collections.forecasts });
      await api.register(homeBaseClaimRoutes, { integrity: collections.integrity, references: collections.references, internalApiKey: config.INTERNAL_API_KEY });
    },
  consumers: ({ collections, logger }) => referenceConsumers(collections.references, logger),
});
