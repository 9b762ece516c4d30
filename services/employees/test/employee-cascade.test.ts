import { fileURLToPath } from 'node:url';
import { describeCascades } from '@rm/testkit/suites/cascades';
import { EMPLOYEES_COLLECTION } from '../src/store/employee-parent.js';
import { employeeBody, recordTenantEvents, startTenantEmployees } from './helpers.js';

const dayOf2032 = (n: number) => new Date(Date.UTC(2032, 0, 1 + n)).toISOString();

describeCascades({
  start: startTenantEmployees,
  parent: { entity: 'employee', path: '/employee', collection: EMPLOYEES_COLLECTION, idPrefix: 'emp', body: employeeBody() },
  children: [
    {
      entity: 'shift-schedule',
      segment: 'shift-schedule',
      collection: 'shift_schedules',
      parentField: 'employee_id',
      body: (n) => ({
        name: `schedule ${n}`,
        start: { start_date: '2024-05-06', start_week: 1 },
        templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time: '08:00' } }, duration: { at_most: 'PT8H' } }] }],
      }),
    },
    {
      entity: 'availability',
      segment: 'availability',
      collection: 'availabilities',
      parentField: 'employee_id',
      // one hour each on distinct hours: availabilities of an employee must not overlap
      body: (n) => ({ earliest_start: new Date(Date.UTC(2031, 0, 1) + n * 3_600_000).toISOString(), max_duration: 'PT1H' }),
      bulk: true,
    },
    {
      entity: 'employee-unavailability',
      segment: 'unavailability',
      collection: 'employee_unavailabilities',
      parentField: 'employee_id',
      body: (n) => ({ from: dayOf2032(n), to: dayOf2032(n + 1) }),
    },
  ],
  crash: {
    // the built entry point, as `npm start` runs it (the package's tests run after its build)
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    packageName: '@rm/employees',
    prefix: 'employees_cascade',
    record: recordTenantEvents,
  },
});
