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

/**
 * The ids of the tenant's employees that have a live shift schedule, by id, after `after`, at most `limit`:
 * read from the tenant's schedules in id order, stopping once `limit` are found. A find, not `distinct`,
 * whose filter FerretDB does not push down: it read every tenant's schedules (a Seq Scan).
 */
export async function employeesWithSchedules(schedules: ShiftScheduleRepository, tenant: string, after: string | undefined, limit: number): Promise<string[]> {
  const filter = { tenant, deleted: { $exists: false }, ...(after === undefined ? {} : { parent: { $gt: after } }) };
  return orUnavailable(async () => {
    const found: string[] = [];
    const cursor = schedules.collection.find(filter as Filter<StoredDocument<ShiftScheduleFields>>, { projection: { parent: 1 } }).sort({ parent: 1 });
    try {
      for await (const { parent } of cursor) {
        if (parent !== undefined && parent !== found.at(-1)) found.push(parent);
        if (found.length === limit) break;
      }
    } finally {
      await cursor.close();
    }
    return found;
  });
}
