import { randomUUID } from 'node:crypto';
import { describeWriteEvents } from '@rm/testkit/suites/write-events';
import { topLevel } from '@rm/testkit/suites/tenant-service';
import { homeBaseBody, startTenantHomeBases } from './helpers.js';

const address = { name: 'Yard', geo_point: { latitude: 51.05, longitude: 3.72 } };

describeWriteEvents({
  start: startTenantHomeBases,
  resources: [
    {
      entity: 'home-base',
      collection: 'home_bases',
      place: async ({ request }) => ({
        ...topLevel('/home-base', 'hb'),
        body: homeBaseBody(),
        // the address included: a resolved flag sent with its geo point is not kept
        changed: homeBaseBody({ address: { ...address, geo_point: { ...address.geo_point, resolved: true } } }),
        changedKept: homeBaseBody({ address }),
        shown: (id, body, version) => ({ business_id: id, ...body, version }),
        refusals: (item) => [
          [400, () => request('PUT', item, homeBaseBody({ address: { city: 'Gent', zip_code: '9000', country_code: 'XX' } }))],
          [400, () => request('PUT', `/home-base/refused-${randomUUID()}`, homeBaseBody({ name: '' }))],
        ],
      }),
    },
  ],
});
