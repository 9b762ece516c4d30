import {
  Employee,
  EMPLOYEE_UNAVAILABILITY,
  EmployeeBody,
  EMPLOYEE_EVENTS,
  EmployeePage,
  EmployeeParams,
  EmployeeUnavailabilityParams,
  type EmployeeFields,
} from '@rm/contracts';
import { defineService } from '@rm/runtime';
import { createTenantQuota } from '@rm/service-kit';
import {
  businessResourceRoutes,
  createHomeBaseClaims,
  createUnavailabilityCollection,
  unavailabilityRoutes,
} from '@rm/service-kit/resources';
import { employeesConfigSpec } from './config.js';
import { decideEmployee, type EmployeeInput } from './domain/employee.js';
import { SERVICE_NAME } from './events.js';
import { availabilityRoutes } from './routes/availability.routes.js';
import { employeeParent } from './routes/employee-scope.js';
import { expectedAvailabilityRoutes } from './routes/expected-availability.routes.js';
import { shiftScheduleRoutes } from './routes/shift-schedule.routes.js';
import { createAvailabilityRepository } from './store/availability-repository.js';
import { EMPLOYEE_PARENT } from './store/employee-parent.js';
import { createEmployeeRepository, toEmployee } from './store/employee-repository.js';
import { createScheduledEmployees } from './store/scheduled-employees.js';
import { createShiftScheduleRepository } from './store/shift-schedule-repository.js';

/** The employees service: what it stores and the routes it serves; @rm/runtime connects and runs it. */
export const employeesService = defineService({
  name: SERVICE_NAME,
  port: 3001,
  config: employeesConfigSpec,
  collections: (store) => {
    const availabilities = createAvailabilityRepository(store);
    const schedules = createShiftScheduleRepository(store);
    const unavailabilities = createUnavailabilityCollection(store, {
      name: 'employee_unavailabilities',
      schemas: EMPLOYEE_UNAVAILABILITY,
      parent: { ...EMPLOYEE_PARENT, field: 'employee_id' },
    });
    const employees = createEmployeeRepository(store, [availabilities, schedules, unavailabilities]);
    return { employees, availabilities, schedules, unavailabilities };
  },
  routes:
    ({ collections, cursors, config }) =>
    async (api) => {
      const { employees, availabilities, schedules, unavailabilities } = collections;
      const homeBases = createHomeBaseClaims({ baseUrl: config.HOME_BASES_URL, timeoutMs: config.HOME_BASES_TIMEOUT_MS, internalApiKey: config.INTERNAL_API_KEY });
      await api.register(businessResourceRoutes<EmployeeInput, EmployeeFields>(), {
        path: '/employee',
        param: 'employee_id',
        label: 'employee',
        listProperty: 'employees',
        resources: employees,
        cursors,
        schemas: { Body: EmployeeBody, Resource: Employee, Page: EmployeePage, Params: EmployeeParams },
        represent: toEmployee,
        decide: decideEmployee,
        homeBases: { claims: homeBases, entity: EMPLOYEE_EVENTS.entity },
        quota: createTenantQuota({ limit: 'employees', kind: 'employees', count: (tenant) => employees.count({ tenant }) }),
      });
      await api.register(shiftScheduleRoutes, { employees, schedules, homeBases });
      const availabilityQuota = createTenantQuota({ limit: 'availabilities', kind: 'availabilities', count: (tenant) => availabilities.count({ tenant }) });
      await api.register(availabilityRoutes, { employees, availabilities, homeBases, quota: availabilityQuota });
      await api.register(expectedAvailabilityRoutes, {
        employees,
        schedules,
        scheduledEmployees: createScheduledEmployees(schedules),
        availabilities,
        homeBases,
        quota: availabilityQuota,
      });
      await api.register(unavailabilityRoutes, {
        parent: employeeParent(employees),
        unavailabilities,
        schemas: EMPLOYEE_UNAVAILABILITY,
        params: { list: EmployeeParams, item: EmployeeUnavailabilityParams },
        label: 'employee-unavailability',
      });
    },
});
