import { describeUnavailabilityApi } from '@rm/testkit/suites/unavailability-api';
import { startTransportResources, truckBody } from './helpers.js';

describeUnavailabilityApi({
  start: () => startTransportResources(),
  parent: { name: 'transport-resource', field: 'transport_resource_id', body: truckBody },
});
