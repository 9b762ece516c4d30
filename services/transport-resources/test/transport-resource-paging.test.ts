import { inListOrder, keyBetween } from '@rm/store';
import { describePaging } from '@rm/testkit/suites/paging';
import { BASE, startTransportResources, truckBody } from './helpers.js';

describePaging('GET /transport-resource', {
  start: startTransportResources,
  body: (id) => truckBody({ reference: id }),
  listed: (id) => ({ business_id: id, ...truckBody({ reference: id }), inactive: false, version: 1 }),
  path: `${BASE}/transport-resource`,
  listProperty: 'transport_resources',
  ids: inListOrder(['t01', 't02', 't03', 't04', 't05']),
  listOrder: { inListOrder, keyBetween },
});
