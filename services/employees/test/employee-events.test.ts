import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventValidator, EMPLOYEE_EVENTS, serviceStream, type EventEnvelope } from '@rm/contracts';
import { createConsumerRunner, type ConsumerRunner } from '@rm/bus';
import { createLogger } from '@rm/service-kit';
import { isOutage } from '@rm/store';
import { connectTestNats, uniqueName, waitFor, type TestNats } from '@rm/testkit';
import { EMPLOYEES_COLLECTION } from '../src/store/employee-parent.js';
import { BASE, employeeBody, json, startEmployees, type EmployeesHarness } from './helpers.js';

// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
const received: { subject: string; event: EventEnvelope }[] = [];

let harness: EmployeesHarness;
let nats: TestNats;
let consumer: ConsumerRunner;
let headers: Record<string, string>;

beforeAll(async () => {
  harness = await startEmployees();
  nats = await connectTestNats();
  const durable = uniqueName('employees_events_test');
  // a consumer as another service would run it, of this tenant's employee events only
  consumer = createConsumerRunner({
    js: jetstream(nats.nc),
    stream: serviceStream('employees').name,
    durable,
    filterSubjects: [`rm.employees.${tenant}.employee.*`],
    logger: createLogger({ level: 'silent', name: 'employees-events-test' }),
    applied: harness.service.store.appliedVersions(durable),
    validate: createEventValidator([EMPLOYEE_EVENTS]),
    isOutage,
    maxDeliver: 3,
    nakDelaysMs: [50],
    handle: async (event, { subject }) => void received.push({ subject, event }),
  });
  await consumer.start();
  headers = await harness.as(tenant);
});

afterAll(async () => {
  await consumer?.stop();
  await harness?.close();
  await nats?.close();
});

const eventsOf = (entityId: string) => received.filter(({ event }) => event.entity_id === entityId);

/** The events of the entity once `count` of them have arrived. */
function arrived(entityId: string, count: number) {
  return waitFor(`${count} events of ${entityId}`, async () => eventsOf(entityId).length >= count && eventsOf(entityId));
}

describe('employee events', () => {
  it('publishes created, updated and deleted, in order, each with its version, on subjects that carry the tenant', async () => {
    const put = (body: Record<string, unknown>) => harness.app.inject({ method: 'PUT', url: `${BASE}/employee/emp-ev`, headers, payload: body });
    const created = json(await put(employeeBody()));
    await put(employeeBody()); // unchanged: no write, no event
    const updated = json(await put(employeeBody({ labels: ['day'] })));
    await harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/emp-ev`, headers });

    const events = await arrived('emp-ev', 3);
    expect(events.map(({ subject, event }) => [subject, event.type, event.version])).toEqual([
      [`rm.employees.${tenant}.employee.created`, 'employee.created', 1],
      [`rm.employees.${tenant}.employee.updated`, 'employee.updated', 2],
      [`rm.employees.${tenant}.employee.deleted`, 'employee.deleted', 3],
    ]);
    expect(events[0]?.event).toMatchObject({ tenant, entity_id: 'emp-ev', data: created });
    expect(events[1]?.event.data).toEqual(updated);
    // a delete carries the removed state, so that a consumer can drop what it derived from it
    expect(events[2]?.event.data).toEqual(updated);
    for (const { event } of events) {
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
      expect(Date.parse(event.occurred_at)).not.toBeNaN();
    }
  });

  it('publishes nothing for a refused write', async () => {
    const refused = await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/emp-refused`, headers, payload: employeeBody({ nickname: 'x' }) });
    expect(refused.statusCode).toBe(400);
    await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/emp-after`, headers, payload: employeeBody() });
    expect(await arrived('emp-after', 1)).toHaveLength(1);
    // events live only inside written documents: a refused write leaves neither
    expect(await harness.service.store.db.collection(EMPLOYEES_COLLECTION).countDocuments({ key: 'emp-refused' })).toBe(0);
    expect(eventsOf('emp-refused')).toEqual([]);
  });

  it('leaves no event waiting in the outbox once published', async () => {
    await arrived('emp-after', 1);
    const waiting = () => harness.service.store.db.collection(EMPLOYEES_COLLECTION).countDocuments({ outbox: { $exists: true } });
    await waitFor('the outbox to be empty', async () => (await waiting()) === 0);
    expect(await waiting()).toBe(0);
  });
});
