// @rm/employees/testing: what the bench reaches of the employees service besides running it
// (@rm/employees/service): its collections' names and representations. Never imported by the service.
export { EMPLOYEES_COLLECTION } from '../store/employee-parent.js';
export type { EmployeeRepository } from '../store/employee-repository.js';
export { toShiftSchedule } from '../store/shift-schedule-repository.js';
