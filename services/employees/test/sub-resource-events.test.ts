import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor, type RecordedEvents } from '@rm/testkit';
import type { EventEnvelope } from '@rm/contracts';
import { BASE, employeeBody, json, recordTenantEvents, startEmployees, type EmployeesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let events: RecordedEvents<EventEnvelope>;
let received: RecordedEvents<EventEnvelope>['received'];

let harness: EmployeesHarness;
let headers: Record<string, string>;

beforeAll(async () => {
  harness = await startEmployees();
  headers = await harness.as(tenant);
  events = await recordTenantEvents(tenant);
  received = events.received;
});

afterAll(async () => {
  await events?.close();
  await harness?.close();
});

type Body = Record<string, unknown>;

/** One kind of sub-resource: where it lives, its event entity, and bodies to write. */
interface SubResource {
  entity: string;
  segment: string;
  body: Body;
  changed: Body;
  /** A body that conflicts with `changed` under the same employee (409), where a rule says so. */
  conflicting?: Body;
}

const weekOfMondays = (name: string): Body => ({
  name,
  start: { start_date: '2024-05-06', start_week: 1 },
  templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time: '08:00' } }, duration: { at_most: 'PT8H' } }] }],
});

const SUB_RESOURCES: SubResource[] = [
  { entity: 'shift-schedule', segment: 'shift-schedule', body: weekOfMondays('days'), changed: weekOfMondays('early days') },
  {
    entity: 'availability',
    segment: 'availability',
    body: { earliest_start: '2031-03-03T08:00:00Z', max_duration: 'PT8H' },
    changed: { earliest_start: '2031-03-03T08:00:00Z', max_duration: 'PT8H', mandatory: true },
    conflicting: { earliest_start: '2031-03-03T12:00:00Z', max_duration: 'PT2H' },
  },
  {
    entity: 'employee-unavailability',
    segment: 'unavailability',
    body: { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z' },
    changed: { from: '2031-04-01T00:00:00Z', to: '2031-04-08T00:00:00Z', description: 'holiday' },
  },
];

function request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: Body, extra: Record<string, string> = {}) {
  return harness.app.inject({ method, url: `${BASE}${path}`, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload }) });
}

const eventsOf = (entityId: string) => received.filter(({ event }) => event.entity_id === entityId);

/** Waits for a write made after everything before it, then a little more: what was due has arrived by then. */
async function settle(): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await request('PUT', `/employee/${sentinel}`, employeeBody())).statusCode).toBe(201);
  await waitFor('the sentinel event', async () => eventsOf(sentinel).length > 0);
  await sleep(300);
}

describe.each(SUB_RESOURCES)('$entity events', ({ entity, segment, body, changed, conflicting }) => {
  /** A new employee of the tenant, so that each test starts with no sub-resources, and the path of its list. */
  async function newEmployee(): Promise<{ employee: string; list: string }> {
    const employee = `emp-${randomUUID()}`;
    expect((await request('PUT', `/employee/${employee}`, employeeBody())).statusCode).toBe(201);
    return { employee, list: `/employee/${employee}/${segment}` };
  }
  const subject = (action: string) => `rm.employees.${tenant}.${entity}.${action}`;

  it('publishes created, updated and deleted once each, in order, with the version and the representation', async () => {
    const { employee, list } = await newEmployee();
    const posted = await request('POST', list, body);
    expect(posted.statusCode).toBe(201);
    const { id } = json<{ id: string }>(posted);
    const item = `${list}/${id}`;
    const createdState = json(await request('GET', item));
    expect(createdState).toMatchObject({ ...body, id, employee_id: employee, version: 1 });

    const unchanged = await request('PUT', item, body);
    expect(unchanged.statusCode).toBeLessThan(300);
    expect(unchanged.headers.etag).toBe('W/"1"');
    expect((await request('PUT', item, changed)).headers.etag).toBe('W/"2"');
    const updatedState = json(await request('GET', item));
    expect(updatedState).toMatchObject({ ...changed, id, employee_id: employee, version: 2 });
    expect((await request('DELETE', item)).statusCode).toBe(204);

    const entityId = `${employee}/${id}`;
    await waitFor(`3 events of ${entityId}`, async () => eventsOf(entityId).length >= 3);
    await settle();
    const events = eventsOf(entityId);
    expect(events.map(({ subject: published, event }) => [published, event.type, event.version])).toEqual([
      [subject('created'), `${entity}.created`, 1],
      [subject('updated'), `${entity}.updated`, 2],
      [subject('deleted'), `${entity}.deleted`, 3],
    ]);
    for (const { event } of events) expect(event).toMatchObject({ tenant, entity_id: entityId });
    expect(events.map(({ event }) => event.data.version)).toEqual([1, 2, 2]);
    expect(events[0]?.event.data).toEqual(createdState);
    expect(events[1]?.event.data).toEqual(updatedState);
    // a delete carries the removed state (its last version), as the employee's own delete does
    expect(events[2]?.event.data).toEqual(updatedState);
  });

  it('publishes nothing for an unchanged PUT, which keeps the version', async () => {
    const { employee, list } = await newEmployee();
    const { id } = json<{ id: string }>(await request('POST', list, changed));
    const item = `${list}/${id}`;
    const entityId = `${employee}/${id}`;
    await waitFor(`the creation of ${entityId}`, async () => eventsOf(entityId).length >= 1);
    const state = json(await request('GET', item));

    const again = await request('PUT', item, changed);
    expect(again.statusCode).toBeLessThan(300);
    expect(again.headers.etag).toBe('W/"1"');
    // the representation sent back from a GET (read-only fields included) is unchanged too
    expect((await request('PUT', item, state)).headers.etag).toBe('W/"1"');
    expect(json(await request('GET', item))).toEqual(state);
    await settle();
    expect(eventsOf(entityId).map(({ event }) => event.type)).toEqual([`${entity}.created`]);
  });

  it('publishes nothing for a refused write (400, 404, 409, 412)', async () => {
    const { list } = await newEmployee();
    const { id } = json<{ id: string }>(await request('POST', list, changed));
    const item = `${list}/${id}`;
    const missing = `${list}/${randomUUID()}`;
    expect((await request('PUT', item, body)).headers.etag).toBe('W/"2"');
    const refused: [number, () => ReturnType<typeof request>][] = [
      [400, () => request('POST', list, { ...body, unknown_field: 1 })],
      [400, () => request('PUT', item, { ...changed, unknown_field: 1 })],
      [404, () => request('POST', `/employee/nobody-${randomUUID()}/${segment}`, body)],
      [404, () => request('DELETE', missing)],
      [412, () => request('PUT', item, changed, { 'if-match': 'W/"1"' })],
      [412, () => request('DELETE', item, undefined, { 'if-match': 'W/"1"' })],
    ];
    // generated ids are never created by PUT (an unavailability's PUT may choose its id)
    if (entity !== 'employee-unavailability') refused.push([404, () => request('PUT', missing, body)]);
    // the guard of an employee's availabilities refuses overlaps; the others have no such rule
    if (conflicting !== undefined) refused.push([409, () => request('POST', list, conflicting)]);
    await settle();
    const seen = received.length;
    const listed = (await request('GET', list)).body;

    for (const [status, write] of refused) expect((await write()).statusCode, `refused with ${status}`).toBe(status);
    await settle();
    expect(received.slice(seen).filter(({ event }) => !event.entity_id.startsWith('sentinel-'))).toEqual([]);
    expect((await request('GET', list)).body).toBe(listed);
  });
});
