import { defineService } from '@rm/runtime';
import { SERVICE_NAME } from './events.js';
import { employeeRoutes } from './routes/employee.routes.js';
import { createEmployeeRepository } from './store/employee-repository.js';

/** The employees service: what it stores and the routes it serves; @rm/runtime connects and runs it. */
export const employeesService = defineService({
  name: SERVICE_NAME,
  port: 3001,
  collections: (store) => ({ employees: createEmployeeRepository(store) }),
  routes:
    ({ collections, cursors }) =>
    async (api) => {
      await api.register(employeeRoutes, { employees: collections.employees, cursors });
    },
});
