import { SHIFT_SCHEDULE_EVENTS, type ShiftSchedule, type ShiftScheduleFields } from '@rm/contracts';
import type { Filter } from 'mongodb';
import { orUnavailable, type Resource, type ResourceCollection, type Store, type StoredDocument } from '@rm/store';
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

/** The ids of the tenant's employees that have a live shift schedule, by id, after `after`, at most `limit`. */
export async function employeesWithSchedules(schedules: ShiftScheduleRepository, tenant: string, after: string | undefined, limit: number): Promise<string[]> {
  const filter = { tenant, deleted: { $exists: false }, ...(after === undefined ? {} : { parent: { $gt: after } }) };
  const parents = await orUnavailable(() => schedules.collection.distinct('parent', filter as Filter<StoredDocument<ShiftScheduleFields>>));
  return (parents as string[]).sort().slice(0, limit);
}
