import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeWriteEvents } from '@rm/testkit/suites/write-events';
import { subResource, topLevel, type TenantService } from '@rm/testkit/suites/tenant-service';
import { TRANSPORT_RESOURCES_COLLECTION } from '../src/store/transport-resource-repository.js';
import { startTenantTransportResources, truckBody } from './helpers.js';

const path = '/transport-resource';

async function newTruck({ request }: TenantService): Promise<string> {
  const truck = `truck-${randomUUID()}`;
  expect((await request('PUT', `${path}/${truck}`, truckBody())).statusCode).toBe(201);
  return truck;
}

const unavailabilitiesOf = (truck: string) => subResource(`${path}/${truck}/unavailability`, truck, { post: true, newId: randomUUID, badId: 'not-a-uuid' });

const unavailability = { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z' };

describeWriteEvents({
  start: startTenantTransportResources,
  resources: [
    {
      entity: 'transport-resource',
      collection: TRANSPORT_RESOURCES_COLLECTION,
      place: async ({ request }) => ({
        ...topLevel(path, 'truck'),
        body: truckBody(),
        changed: truckBody({ inactive: true, costs: { fixed: 1.00005 } }),
        // costs are kept to four decimals
        changedKept: truckBody({ inactive: true, costs: { fixed: 1.0001 } }),
        shown: (id, body, version) => ({ business_id: id, inactive: false, ...body, version }),
        refusals: (item) => [
          [400, () => request('PUT', item, truckBody({ capacities: [{ value: 1 }, { value: 2 }] }))],
          [400, () => request('PUT', `${path}/refused-${randomUUID()}`, truckBody({ type: 'BUS' }))],
        ],
      }),
    },
    {
      entity: 'transport-resource-unavailability',
      collection: 'transport_resource_unavailabilities',
      // a new transport resource each time, so that each test starts with no unavailabilities
      place: async (service) => {
        const truck = await newTruck(service);
        const list = unavailabilitiesOf(truck);
        return {
          ...list,
          body: unavailability,
          changed: { ...unavailability, from: '2031-04-01T00:00:00+02:00', description: 'inspection' },
          // a date-time is kept in UTC
          changedKept: { ...unavailability, from: '2031-03-31T22:00:00Z', description: 'inspection' },
          shown: (id, body, version) => ({ ...body, id, transport_resource_id: truck, version }),
          orphan: unavailabilitiesOf(`nobody-${randomUUID()}`),
          refusals: () => [[400, () => service.request('POST', list.list, { from: unavailability.from, to: unavailability.from })]],
        };
      },
    },
  ],
});
