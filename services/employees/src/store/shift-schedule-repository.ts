import { SHIFT_SCHEDULE_EVENTS, type ShiftSchedule, type ShiftScheduleFields } from '@rm/contracts';
import type { Resource, ResourceCollection, Store } from '@rm/store';
import { EMPLOYEE_PARENT } from './employee-parent.js';

export type ShiftScheduleRepository = ResourceCollection<ShiftScheduleFields>;

/** Shift schedules of every employee, keyed by a generated id under their employee; each write carries its event. */
export function createShiftScheduleRepository(store: Store): ShiftScheduleRepository {
  return store.collection<ShiftScheduleFields>({
    name: 'shift_schedules',
    events: SHIFT_SCHEDULE_EVENTS,
    represent: toShiftSchedule,
    parent: EMPLOYEE_PARENT,
    // generated ids that PUT only updates: a removed id never comes back
    tombstones: 'purge',
  });
}

/** The list's representation and the data of the schedule's events; POST and PUT answer it without version (spec rule 5). */
export function toShiftSchedule(resource: Resource<ShiftScheduleFields>): ShiftSchedule {
  return { id: resource.key, employee_id: resource.parent ?? '', ...resource.body, version: resource.version };
}
