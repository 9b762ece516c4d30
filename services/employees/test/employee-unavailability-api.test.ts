import { describeUnavailabilityApi } from '@rm/testkit/suites/unavailability-api';
import { employeeBody, startEmployees } from './helpers.js';

describeUnavailabilityApi({
  start: () => startEmployees(),
  parent: { name: 'employee', field: 'employee_id', body: employeeBody },
});
