import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeIfMatchRaces } from '@rm/testkit/suites/if-match-races';
import { subResource, topLevel } from '@rm/testkit/suites/tenant-service';
import { startTenantTransportResources, truckBody } from './helpers.js';

const path = '/transport-resource';

describeIfMatchRaces({
  start: startTenantTransportResources,
  resources: [
    {
      entity: 'transport-resource',
      place: async () => ({ ...topLevel(path, 'truck'), shown: (id, body, version) => ({ business_id: id, ...body, inactive: false, version }) }),
      variant: (writer) => truckBody({ labels: [`writer-${writer}`] }),
    },
    {
      entity: 'transport-resource-unavailability',
      place: async ({ request }) => {
        const truck = `truck-${randomUUID()}`;
        expect((await request('PUT', `${path}/${truck}`, truckBody())).statusCode).toBe(201);
        const shown = (id: string, body: object, version: number) => ({ id, transport_resource_id: truck, ...body, version });
        return { ...subResource(`${path}/${truck}/unavailability`, truck, { newId: randomUUID, badId: 'not-a-uuid' }), shown };
      },
      variant: (writer) => ({ from: '2031-05-01T08:00:00Z', to: '2031-05-01T10:00:00Z', description: `writer-${writer}` }),
    },
  ],
});
