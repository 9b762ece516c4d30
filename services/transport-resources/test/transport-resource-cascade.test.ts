import { fileURLToPath } from 'node:url';
import { describeCascades } from '@rm/testkit/suites/cascades';
import { TRANSPORT_RESOURCES_COLLECTION } from '../src/store/transport-resource-repository.js';
import { recordTenantEvents, startTenantTransportResources, truckBody } from './helpers.js';

const path = '/transport-resource';
const dayOf2032 = (n: number) => new Date(Date.UTC(2032, 0, 1 + n)).toISOString();

describeCascades({
  start: startTenantTransportResources,
  parent: { entity: 'transport-resource', path, collection: TRANSPORT_RESOURCES_COLLECTION, idPrefix: 'truck', body: truckBody() },
  children: [
    {
      entity: 'transport-resource-unavailability',
      segment: 'unavailability',
      collection: 'transport_resource_unavailabilities',
      parentField: 'transport_resource_id',
      body: (n) => ({ from: dayOf2032(n), to: dayOf2032(n + 1), description: `#${n}` }),
      bulk: true,
    },
  ],
  crash: {
    // the built entry point, as `npm start` runs it (the package's tests run after its build)
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    packageName: '@rm/transport-resources',
    prefix: 'transport_resources_cascade',
    record: recordTenantEvents,
  },
});
