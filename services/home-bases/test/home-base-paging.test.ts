import { inListOrder, keyBetween } from '@rm/store';
import { describePaging } from '@rm/testkit/suites/paging';
import { BASE, homeBaseBody, startHomeBases } from './helpers.js';

describePaging('GET /home-base', {
  start: startHomeBases,
  body: (id) => homeBaseBody({ name: id }),
  listed: (id) => ({ business_id: id, ...homeBaseBody({ name: id }), version: 1 }),
  path: `${BASE}/home-base`,
  listProperty: 'home_bases',
  ids: inListOrder(['h01', 'h02', 'h03', 'h04', 'h05']),
  listOrder: { inListOrder, keyBetween },
});
