import { describeUnavailabilityApi } from '@rm/testkit/suites/unavailability-api';
import { BASE, startTransportResources, truckBody } from './helpers.js';

describeUnavailabilityApi({
  start: () => startTransportResources(),
  base: BASE,
  parent: { name: 'transport-resource', field: 'transport_resource_id', body: truckBody },
});
