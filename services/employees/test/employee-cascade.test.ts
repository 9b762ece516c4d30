import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@rm/contracts';
import { createTestServiceEnv, uniqueName, waitFor, type RecordedEvents, type TestServiceEnv } from '@rm/testkit';
import { EMPLOYEES_COLLECTION } from '../src/store/employee-parent.js';
import { BASE, employeeBody, recordTenantEvents, startEmployees, type EmployeesHarness } from './helpers.js';

// The built entry point, as `npm start` runs it (the package's tests run after its build).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let events: RecordedEvents<EventEnvelope>;
/** Every event of the tenant so far. */
const received = (): EventEnvelope[] => events.received.map(({ event }) => event);

beforeAll(async () => {
  events = await recordTenantEvents(tenant);
});

afterAll(async () => {
  await events?.close();
});

const dayOf2032 = (n: number) => new Date(Date.UTC(2032, 0, 1 + n)).toISOString();

/** The three kinds of sub-resource: URL segment, event entity, MongoDB collection, and the n-th valid body. */
const KINDS = [
  {
    segment: 'shift-schedule',
    entity: 'shift-schedule',
    collection: 'shift_schedules',
    body: (n: number) => ({
      name: `schedule ${n}`,
      start: { start_date: '2024-05-06', start_week: 1 },
      templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'MONDAY', time: '08:00' } }, duration: { at_most: 'PT8H' } }] }],
    }),
  },
  {
    segment: 'availability',
    entity: 'availability',
    collection: 'availabilities',
    // one hour each on distinct hours: availabilities of an employee must not overlap
    body: (n: number) => ({ earliest_start: new Date(Date.UTC(2031, 0, 1) + n * 3_600_000).toISOString(), max_duration: 'PT1H' }),
  },
  {
    segment: 'unavailability',
    entity: 'employee-unavailability',
    collection: 'employee_unavailabilities',
    body: (n: number) => ({ from: dayOf2032(n), to: dayOf2032(n + 1) }),
  },
] as const;

type Counts = Record<(typeof KINDS)[number]['segment'], number>;
type Call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object) => Promise<{ status: number; body: unknown }>;

/**
 * Creates the employee and its sub-resources, one at a time per kind (each kind commits through a guard
 * of its own, so the kinds go side by side); returns `<entity>.deleted <employee>/<id>` for each.
 */
async function seed(call: Call, employee: string, counts: Counts): Promise<string[]> {
  expect((await call('PUT', `/employee/${employee}`, employeeBody())).status).toBe(201);
  const created = await Promise.all(
    KINDS.map(async ({ segment, entity, body }) => {
      const ids: string[] = [];
      for (let n = 0; n < counts[segment]; n += 1) {
        const response = await call('POST', `/employee/${employee}/${segment}`, body(n));
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        ids.push(`${entity}.deleted ${employee}/${(response.body as { id: string }).id}`);
      }
      return ids;
    }),
  );
  return created.flat().sort();
}

/** The `.deleted` events of the employee's sub-resources that arrived, as `<type> <entity id>`, sorted. */
const deletedSubResources = (employee: string) =>
  received()
    .filter((event) => event.type.endsWith('.deleted') && event.entity_id.startsWith(`${employee}/`))
    .map((event) => `${event.type} ${event.entity_id}`)
    .sort();

/** The employee's sub-resources not yet removed, counted in the database. */
async function liveSubResources(db: Db, employee: string): Promise<number> {
  const live = { tenant, parent: employee, deleted: { $exists: false } };
  const counts = await Promise.all(KINDS.map(({ collection }) => db.collection(collection).countDocuments(live)));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** The employee's document: live, a tombstone, `cascading` while its sub-resources are being removed. */
const employeeDocument = (db: Db, employee: string) => db.collection(EMPLOYEES_COLLECTION).findOne({ tenant, key: employee });

/** Answers of the employee and of its three lists. */
async function statuses(call: Call, employee: string): Promise<number[]> {
  const paths = [`/employee/${employee}`, ...KINDS.map(({ segment }) => `/employee/${employee}/${segment}`)];
  return Promise.all(paths.map(async (path) => (await call('GET', path)).status));
}

describe('deleting an employee', () => {
  let harness: EmployeesHarness;
  let call: Call;

  beforeAll(async () => {
    harness = await startEmployees();
    const headers = await harness.as(tenant);
    call = async (method, path, body) => {
      const response = await harness.app.inject({ method, url: `${BASE}${path}`, headers, ...(body === undefined ? {} : { payload: body }) });
      return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
    };
  });

  afterAll(async () => {
    await harness?.close();
  });

  const lists = (employee: string) => Promise.all(KINDS.map(async ({ segment }) => (await call('GET', `/employee/${employee}/${segment}`)).body));

  it('removes its schedules, availabilities and unavailabilities, each with one deleted event, and leaves another employee alone', async () => {
    const [removed, kept] = [`emp-${randomUUID()}`, `emp-${randomUUID()}`];
    const expected = await seed(call, removed, { 'shift-schedule': 3, availability: 5, unavailability: 2 });
    const keptItems = await seed(call, kept, { 'shift-schedule': 1, availability: 2, unavailability: 1 });
    const keptLists = await lists(kept);

    expect((await call('DELETE', `/employee/${removed}`)).status).toBe(204);
    expect(await statuses(call, removed)).toEqual([404, 404, 404, 404]);
    expect(await liveSubResources(harness.service.store.db, removed)).toBe(0);

    await waitFor('the deleted events', async () => deletedSubResources(removed).length >= expected.length);
    // a write after the cascade whose event has arrived, and a moment more: any duplicate would be here
    expect((await call('PUT', `/employee/sentinel-${randomUUID()}`, employeeBody())).status).toBe(201);
    await waitFor('the sentinel', async () => received().some((event) => event.entity_id.startsWith('sentinel-')));
    await sleep(300);
    expect(deletedSubResources(removed)).toEqual(expected);
    expect(received().filter((event) => event.entity_id === removed).map((event) => event.type)).toEqual(['employee.created', 'employee.deleted']);

    expect(await lists(kept)).toEqual(keptLists);
    expect(keptLists.flat()).toHaveLength(keptItems.length);
    expect(deletedSubResources(kept)).toEqual([]);
  });

  it('created again, the employee starts with no sub-resources', async () => {
    const employee = `emp-${randomUUID()}`;
    await seed(call, employee, { 'shift-schedule': 2, availability: 2, unavailability: 2 });
    expect((await call('DELETE', `/employee/${employee}`)).status).toBe(204);
    expect((await call('PUT', `/employee/${employee}`, employeeBody())).status).toBe(201);
    expect(await lists(employee)).toEqual([[], [], []]);
  });
});

describe('a crash in the middle of a cascade', () => {
  let env: TestServiceEnv;
  let mongo: MongoClient;
  let db: Db;
  let call: Call;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    expect(existsSync(MAIN), `${MAIN} is missing: build first (npx turbo run build --filter=@rm/employees)`).toBe(true);
    // maintenance as often as allowed; cascades are finished once untouched for the store's 10 s
    // nothing here names a home base: the home-bases service is never called
    env = await createTestServiceEnv('employees_cascade', { MAINTENANCE_INTERVAL_MS: '1000', HOME_BASES_URL: 'http://127.0.0.1:9/resource-management/v1' });
    mongo = await MongoClient.connect(env.variables.MONGO_URL ?? '');
    db = mongo.db(env.variables.MONGO_DB);
    const origin = `http://127.0.0.1:${env.variables.PORT}`;
    const authorization = await env.bearer(tenant);
    call = async (method, path, body) => {
      const json = body === undefined ? {} : { headers: { ...authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) };
      const response = await fetch(`${origin}${BASE}${path}`, { method, headers: authorization, ...json });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    };
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await mongo?.close();
    await env?.close();
  });

  /** Runs the built service on the test database until it is ready; fails with its output if it stops first. */
  async function startMain(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env.variables, LOG_LEVEL: 'warn' } });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const ready = () => fetch(`http://127.0.0.1:${env.variables.PORT}/readyz`).then((response) => response.ok, () => false);
    await waitFor('the service to be ready', async () => {
      if (child.exitCode !== null) throw new Error(`the service stopped with ${child.exitCode} before it was ready:\n${output}`);
      return ready();
    }, 20_000);
    return child;
  }

  /**
   * Sends the DELETE and SIGKILLs the service once the cascade has removed some sub-resources; true if
   * the crash left it half done (the tombstone still `cascading`, some sub-resources still there).
   */
  async function deleteAndKill(child: ChildProcess, employee: string, total: number): Promise<boolean> {
    void call('DELETE', `/employee/${employee}`).catch(() => undefined); // the kill cuts it short
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(5)) {
      if ((await employeeDocument(db, employee))?.cascading === true && (await liveSubResources(db, employee)) < total) break;
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    await sleep(500); // the database may still finish what the service had sent
    return (await employeeDocument(db, employee))?.cascading === true && (await liveSubResources(db, employee)) > 0;
  }

  it('finishes it after a restart: every sub-resource removed, each with its deleted event', async () => {
    let employee = '';
    let expected: string[] = [];
    let halfDone = false;
    // a cascade of several rounds (at most 200 per round and collection); more if it outran the kill
    for (const availabilities of [450, 900, 1800]) {
      const child = await startMain();
      employee = `emp-${randomUUID()}`;
      expected = await seed(call, employee, { 'shift-schedule': 20, availability: availabilities, unavailability: 20 });
      halfDone = await deleteAndKill(child, employee, expected.length);
      if (halfDone) break;
    }
    expect(halfDone, 'the service was killed in the middle of the cascade').toBe(true);

    // the same database: maintenance finishes the cascade once it is stale
    await startMain();
    await waitFor(
      'the cascade to be finished',
      async () => (await liveSubResources(db, employee)) === 0 && (await employeeDocument(db, employee))?.cascading === undefined,
      60_000,
    );
    expect(await employeeDocument(db, employee)).toMatchObject({ deleted: true });
    await waitFor('a deleted event of every sub-resource', async () => new Set(deletedSubResources(employee)).size >= expected.length, 30_000);
    // after a crash an event may come again, but none may be missing
    expect([...new Set(deletedSubResources(employee))]).toEqual(expected);
    expect(received().some((event) => event.type === 'employee.deleted' && event.entity_id === employee)).toBe(true);
    expect(await statuses(call, employee)).toEqual([404, 404, 404, 404]);
  }, 240_000);
});
