import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeWriteEvents, type EventedResource, type WritePlace } from '@rm/testkit/suites/write-events';
import { subResource, type Body, type TenantService } from '@rm/testkit/suites/tenant-service';
import { employeeBody, startTenantEmployees } from './helpers.js';

/** One kind of sub-resource of an employee: its list, bodies to write, and where its spec differs. */
interface SubResource extends Pick<WritePlace, 'body' | 'changed' | 'answered' | 'updateStatus'> {
  entity: string;
  collection: string;
  segment: string;
  /** Ids the caller chooses (PUT creates) besides the ones POST makes. */
  ownIds?: boolean;
  /** A body that conflicts with `changed` under the same employee (409), where a rule says so. */
  conflicting?: Body;
}

const weekOfMondays = (name: string): Body => ({
  name,
  start: { start_date: '2024-05-06', start_week: 1 },
  templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time: '08:00' } }, duration: { at_most: 'PT8H' } }] }],
});

const SUB_RESOURCES: SubResource[] = [
  {
    entity: 'shift-schedule',
    collection: 'shift_schedules',
    segment: 'shift-schedule',
    body: weekOfMondays('days'),
    changed: weekOfMondays('early days'),
    // its spec: a PUT answers 201, and a write answers without `version` (the ETag carries it)
    updateStatus: 201,
    answered: ({ version: _version, ...schedule }) => schedule,
  },
  {
    entity: 'availability',
    collection: 'availabilities',
    segment: 'availability',
    body: { earliest_start: '2031-03-03T08:00:00Z', max_duration: 'PT8H' },
    changed: { earliest_start: '2031-03-03T08:00:00Z', max_duration: 'PT8H', mandatory: true },
    conflicting: { earliest_start: '2031-03-03T12:00:00Z', max_duration: 'PT2H' },
  },
  {
    entity: 'employee-unavailability',
    collection: 'employee_unavailabilities',
    segment: 'unavailability',
    body: { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z' },
    changed: { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z', description: 'holiday' },
    ownIds: true,
  },
];

async function newEmployee({ request }: TenantService): Promise<string> {
  const employee = `emp-${randomUUID()}`;
  expect((await request('PUT', `/employee/${employee}`, employeeBody())).statusCode).toBe(201);
  return employee;
}

const resources = SUB_RESOURCES.map(({ entity, collection, segment, ownIds, conflicting, ...bodies }): EventedResource<TenantService> => {
  const listOf = (employee: string) =>
    subResource(`/employee/${employee}/${segment}`, employee, { post: true, ...(ownIds ? { newId: randomUUID } : {}), badId: 'not-a-uuid' });
  return {
    entity,
    collection,
    // a new employee each time, so that each test starts with no sub-resources
    place: async (service): Promise<WritePlace> => {
      const employee = await newEmployee(service);
      const list = listOf(employee);
      return {
        ...list,
        ...bodies,
        shown: (id, body, version) => ({ ...body, id, employee_id: employee, version }),
        orphan: listOf(`nobody-${randomUUID()}`),
        // the guard of an employee's availabilities refuses overlaps; the others have no such rule
        refusals: () => (conflicting === undefined ? [] : [[409, () => service.request('POST', list.list, conflicting)]]),
      };
    },
  };
});

describeWriteEvents({
  start: startTenantEmployees,
  resources,
});
