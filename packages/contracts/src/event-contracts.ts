import { EMPLOYEE_EVENTS } from './employee.js';
import type { EntityEvents } from './events.js';

/** Every entity whose events the system publishes; consumers validate what they receive against it. */
export const EVENT_CONTRACTS: readonly EntityEvents[] = [EMPLOYEE_EVENTS];
