import type { SubResourceParent } from '@rm/service-kit/resources';
import type { EmployeeRepository } from '../store/employee-repository.js';

/** The employee in a sub-resource's path: `/employee/{employee_id}/…`. */
export function employeeParent(employees: EmployeeRepository): SubResourceParent {
  return { path: '/employee', param: 'employee_id', label: 'employee', resources: employees };
}
