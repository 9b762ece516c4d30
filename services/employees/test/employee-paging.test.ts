import { inListOrder, keyBetween } from '@rm/store';
import { describePaging } from '@rm/testkit/suites/paging';
import { BASE, employeeBody, startEmployees } from './helpers.js';

describePaging('GET /employee', {
  start: startEmployees,
  body: () => employeeBody(),
  listed: (id) => ({ business_id: id, ...employeeBody(), version: 1 }),
  path: `${BASE}/employee`,
  listProperty: 'employees',
  ids: inListOrder(['e01', 'e02', 'e03', 'e04', 'e05']),
  listOrder: { inListOrder, keyBetween },
});
