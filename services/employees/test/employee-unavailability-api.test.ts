import { describeUnavailabilityApi } from '@rm/testkit/suites/unavailability-api';
import { BASE, employeeBody, startEmployees } from './helpers.js';

describeUnavailabilityApi({
  start: () => startEmployees(),
  base: BASE,
  parent: { name: 'employee', field: 'employee_id', body: employeeBody },
});
