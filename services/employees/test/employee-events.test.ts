import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { createConsumerRunner, createOutboxRelay, declareServiceStream, type ConsumerRunner, type OutboxRelay } from '@rm/bus';
import { createLogger } from '@rm/service-kit';
import { createDocumentLocks, createOutboxStore } from '@rm/store';
import { connectTestNats, uniqueName, waitFor, type TestNats } from '@rm/testkit';
import { EMPLOYEES_STREAM, SERVICE_NAME } from '../src/events.js';
import { EMPLOYEES_COLLECTION } from '../src/store/employee-repository.js';
import { BASE, employeeBody, json, startEmployeesApp, type EmployeesHarness } from './helpers.js';

const logger = createLogger({ level: 'silent', name: 'employees-events-test' });
// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
const received: EventEnvelope[] = [];

let harness: EmployeesHarness;
let nats: TestNats;
let relay: OutboxRelay;
let consumer: ConsumerRunner;
let headers: Record<string, string>;

beforeAll(async () => {
  nats = await connectTestNats();
  const jsm = await jetstreamManager(nats.nc);
  await declareServiceStream(jsm, SERVICE_NAME);
  const locks = createDocumentLocks();
  let wake = () => {};
  harness = await startEmployeesApp({ locks, onWrite: () => wake() });
  relay = createOutboxRelay({
    outbox: createOutboxStore(harness.mongo.db, { collections: [EMPLOYEES_COLLECTION], locks }),
    js: jetstream(nats.nc),
    logger,
  });
  wake = () => relay.wake();
  relay.start();
  consumer = createConsumerRunner({
    js: jetstream(nats.nc),
    db: harness.mongo.db,
    stream: EMPLOYEES_STREAM.name,
    durable: uniqueName('employees_events_test'),
    logger,
    maxDeliver: 3,
    nakDelaysMs: [50],
    handle: async (event) => {
      if (event.tenant === tenant) received.push(event);
    },
  });
  await consumer.start();
  headers = await harness.as(tenant);
});

afterAll(async () => {
  await consumer?.stop();
  await relay?.stop();
  await harness?.close();
  await nats?.close();
});

const eventsOf = (entityId: string) => received.filter((event) => event.entity_id === entityId);

/** The events of the entity once `count` of them have arrived. */
function arrivedEventsOf(entityId: string, count: number): Promise<EventEnvelope[]> {
  return waitFor(`${count} events of ${entityId}`, async () => eventsOf(entityId).length >= count && eventsOf(entityId));
}

describe('employee events', () => {
  it('publishes created, updated and deleted, in order, each with its version and the new state', async () => {
    const put = (body: Record<string, unknown>) =>
      harness.app.inject({ method: 'PUT', url: `${BASE}/employee/emp-ev`, headers, payload: body });
    const created = json(await put(employeeBody()));
    await put(employeeBody()); // unchanged: no write, no event
    const updated = json(await put(employeeBody({ labels: ['day'] })));
    await harness.app.inject({ method: 'DELETE', url: `${BASE}/employee/emp-ev`, headers });

    const events = await arrivedEventsOf('emp-ev', 3);
    expect(events.map((event) => [event.type, event.version])).toEqual([
      ['employee.created', 1],
      ['employee.updated', 2],
      ['employee.deleted', 3],
    ]);
    expect(events[0]).toMatchObject({ tenant, entity_id: 'emp-ev', data: created });
    expect(events[1]?.data).toEqual(updated);
    expect(events[2]?.data).toEqual({ business_id: 'emp-ev' });
    for (const event of events) {
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
      expect(Date.parse(event.occurred_at)).not.toBeNaN();
    }
  });

  it('publishes nothing for a refused write', async () => {
    const refused = await harness.app.inject({
      method: 'PUT',
      url: `${BASE}/employee/emp-refused`,
      headers,
      payload: employeeBody({ nickname: 'x' }),
    });
    expect(refused.statusCode).toBe(400);
    await harness.app.inject({ method: 'PUT', url: `${BASE}/employee/emp-after`, headers, payload: employeeBody() });
    expect(await arrivedEventsOf('emp-after', 1)).toHaveLength(1);
    // Events live only inside written documents: a refused write leaves neither.
    expect(await harness.mongo.db.collection(EMPLOYEES_COLLECTION).countDocuments({ key: 'emp-refused' })).toBe(0);
    expect(eventsOf('emp-refused')).toEqual([]);
  });

  it('leaves no event waiting in the outbox once published', async () => {
    await arrivedEventsOf('emp-after', 1);
    const waiting = () => harness.mongo.db.collection(EMPLOYEES_COLLECTION).countDocuments({ outbox: { $exists: true } });
    await waitFor('the outbox to be empty', async () => (await waiting()) === 0);
    expect(await waiting()).toBe(0);
  });
});
