import {
  TRANSPORT_RESOURCE_EVENTS,
  TRANSPORT_RESOURCE_UNAVAILABILITY,
  TransportResource,
  TransportResourceBody,
  TransportResourcePage,
  TransportResourceParams,
  TransportResourceUnavailabilityParams,
  type TransportResourceFields,
  type TransportResourceInput,
} from '@rm/contracts';
import { defineService } from '@rm/runtime';
import { createTenantQuota } from '@rm/service-kit';
import {
  businessResourceRoutes,
  createHomeBaseClaims,
  createUnavailabilityCollection,
  unavailabilityRoutes,
} from '@rm/service-kit/resources';
import { transportResourcesConfigSpec } from './config.js';
import { decideTransportResource } from './domain/transport-resource.js';
import { SERVICE_NAME } from './events.js';
import {
  createTransportResourceRepository,
  toTransportResource,
  TRANSPORT_RESOURCE_PARENT,
} from './store/transport-resource-repository.js';

const PATH = '/transport-resource';
const PARAM = 'transport_resource_id';

/** The transport-resources service: what it stores and the routes it serves; @rm/runtime connects and runs it. */
export const transportResourcesService = defineService({
  name: SERVICE_NAME,
  port: 3002,
  config: transportResourcesConfigSpec,
  collections: (store) => {
    const unavailabilities = createUnavailabilityCollection(store, {
      name: 'transport_resource_unavailabilities',
      schemas: TRANSPORT_RESOURCE_UNAVAILABILITY,
      parent: { ...TRANSPORT_RESOURCE_PARENT, field: PARAM },
    });
    const transportResources = createTransportResourceRepository(store, [unavailabilities]);
    return { transportResources, unavailabilities };
  },
  routes:
    ({ collections, cursors, config }) =>
    async (api) => {
      const { transportResources, unavailabilities } = collections;
      await api.register(businessResourceRoutes<TransportResourceInput, TransportResourceFields>(), {
        path: PATH,
        param: PARAM,
        label: 'transport-resource',
        listProperty: 'transport_resources',
        resources: transportResources,
        cursors,
        schemas: { Body: TransportResourceBody, Resource: TransportResource, Page: TransportResourcePage, Params: TransportResourceParams },
        represent: toTransportResource,
        decide: decideTransportResource,
        opaqueJsonFields: ['custom_data'],
        homeBases: {
          claims: createHomeBaseClaims({ baseUrl: config.HOME_BASES_URL, timeoutMs: config.HOME_BASES_TIMEOUT_MS, internalApiKey: config.INTERNAL_API_KEY }),
          entity: TRANSPORT_RESOURCE_EVENTS.entity,
        },
        quota: createTenantQuota({ limit: 'transportResources', kind: 'transport resources', count: (tenant) => transportResources.count({ tenant }) }),
      });
      await api.register(unavailabilityRoutes, {
        parent: { path: PATH, param: PARAM, label: 'transport-resource', resources: transportResources },
        unavailabilities,
        schemas: TRANSPORT_RESOURCE_UNAVAILABILITY,
        params: { list: TransportResourceParams, item: TransportResourceUnavailabilityParams },
        label: 'transport-resource-unavailability',
      });
    },
});
