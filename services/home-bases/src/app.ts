import { HomeBase, HomeBaseBody, HomeBasePage, HomeBaseParams, type HomeBaseFields, type HomeBaseInput } from '@rm/contracts';
import { defineService } from '@rm/runtime';
import { businessResourceRoutes } from '@rm/service-kit';
import { decideHomeBase } from './domain/home-base.js';
import { SERVICE_NAME } from './events.js';
import { createHomeBaseRepository, toHomeBase } from './store/home-base-repository.js';

/** The home-bases service: what it stores and the routes it serves; @rm/runtime connects and runs it. */
export const homeBasesService = defineService({
  name: SERVICE_NAME,
  port: 3003,
  collections: (store) => ({ homeBases: createHomeBaseRepository(store) }),
  routes:
    ({ collections, cursors }) =>
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
      });
    },
});
