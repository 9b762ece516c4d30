import { unavailabilitySchemas } from './unavailability.js';

/** `/employee/{employee_id}/unavailability…`; events on `rm.employees.<tenant>.employee-unavailability.*`. */
export const EMPLOYEE_UNAVAILABILITY = unavailabilitySchemas('employees', 'employee-unavailability', 'employee_id');
