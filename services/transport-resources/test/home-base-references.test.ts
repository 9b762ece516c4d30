import { describeHomeBaseReferences } from '@rm/testkit/suites/home-base-references';
import { startTransportResources, truckBody } from './helpers.js';

describeHomeBaseReferences({
  start: startTransportResources,
  resource: {
    name: 'transport-resource',
    body: truckBody,
    defaults: { inactive: false },
    ownData: (homeBaseId) => ({ custom_data: { home_base: { business_id: homeBaseId }, home_base_id: homeBaseId } }),
  },
});
