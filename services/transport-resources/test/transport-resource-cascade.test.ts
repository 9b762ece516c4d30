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
import { TRANSPORT_RESOURCES_COLLECTION } from '../src/store/transport-resource-repository.js';
import { BASE, recordTenantEvents, startTransportResources, truckBody, type TransportResourcesHarness } from './helpers.js';

// The built entry point, as `npm start` runs it (the package's tests run after its build).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const UNAVAILABILITIES_COLLECTION = 'transport_resource_unavailabilities';
const DELETED = 'transport-resource-unavailability.deleted';
// The stream outlives test runs on a shared server: this run's tenant tells its events apart.
const tenant = uniqueName('tenant');
let events: RecordedEvents<EventEnvelope> | undefined;
/** Every event of the tenant so far. */
const received = (): EventEnvelope[] => (events?.received ?? []).map(({ event }) => event);

afterAll(async () => {
  await events?.close();
});

/** The stream is declared by the service: record once the first one has started. */
async function startRecording(): Promise<void> {
  events ??= await recordTenantEvents(tenant);
}

const dayOf2032 = (n: number) => new Date(Date.UTC(2032, 0, 1 + n)).toISOString();
const unavailability = (n: number) => ({ from: dayOf2032(n), to: dayOf2032(n + 1), description: `#${n}` });

type Call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object) => Promise<{ status: number; body: unknown }>;

/**
 * Creates the transport resource and `count` unavailabilities, a few at a time; returns
 * `<type> <transport resource>/<id>` of the deleted event each must get, sorted.
 */
async function seed(call: Call, truck: string, count: number): Promise<string[]> {
  expect((await call('PUT', `/transport-resource/${truck}`, truckBody())).status).toBe(201);
  const expected: string[] = [];
  for (let next = 0; next < count; ) {
    const batch = Array.from({ length: Math.min(8, count - next) }, (_, offset) => next + offset);
    next += batch.length;
    const responses = await Promise.all(batch.map((n) => call('POST', `/transport-resource/${truck}/unavailability`, unavailability(n))));
    for (const response of responses) {
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expected.push(`${DELETED} ${truck}/${(response.body as { id: string }).id}`);
    }
  }
  return expected.sort();
}

/** The deleted events of the transport resource's unavailabilities that arrived, as `<type> <entity id>`, sorted. */
const deletedUnavailabilities = (truck: string) =>
  received()
    .filter((event) => event.type === DELETED && event.entity_id.startsWith(`${truck}/`))
    .map((event) => `${event.type} ${event.entity_id}`)
    .sort();

/** The transport resource's unavailabilities not yet removed, counted in the database. */
const liveUnavailabilities = (db: Db, truck: string) =>
  db.collection(UNAVAILABILITIES_COLLECTION).countDocuments({ tenant, parent: truck, deleted: { $exists: false } });

/** The transport resource's document: live, a tombstone, `cascading` while its unavailabilities are being removed. */
const truckDocument = (db: Db, truck: string) => db.collection(TRANSPORT_RESOURCES_COLLECTION).findOne({ tenant, key: truck });

/** Answers of the transport resource and of its list of unavailabilities. */
const statuses = (call: Call, truck: string) =>
  Promise.all([`/transport-resource/${truck}`, `/transport-resource/${truck}/unavailability`].map(async (path) => (await call('GET', path)).status));

/** Waits for a write made after everything before it, then a little more: any duplicate would be here by then. */
async function settle(call: Call): Promise<void> {
  const sentinel = `sentinel-${randomUUID()}`;
  expect((await call('PUT', `/transport-resource/${sentinel}`, truckBody())).status).toBe(201);
  await waitFor('the sentinel', async () => received().some((event) => event.entity_id === sentinel));
  await sleep(300);
}

describe('deleting a transport resource', () => {
  let harness: TransportResourcesHarness;
  let call: Call;

  beforeAll(async () => {
    harness = await startTransportResources();
    await startRecording();
    const headers = await harness.as(tenant);
    call = async (method, path, body) => {
      const response = await harness.app.inject({ method, url: `${BASE}${path}`, headers, ...(body === undefined ? {} : { payload: body }) });
      return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
    };
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('removes all its unavailabilities, each with one deleted event, and leaves another transport resource alone', async () => {
    const [removed, kept] = [`truck-${randomUUID()}`, `truck-${randomUUID()}`];
    const expected = await seed(call, removed, 12);
    const keptItems = await seed(call, kept, 3);
    const keptList = (await call('GET', `/transport-resource/${kept}/unavailability`)).body;
    expect(keptList).toHaveLength(3);

    expect((await call('DELETE', `/transport-resource/${removed}`)).status).toBe(204);
    expect(await statuses(call, removed)).toEqual([404, 404]);
    expect(await liveUnavailabilities(harness.service.store.db, removed)).toBe(0);
    expect((await truckDocument(harness.service.store.db, removed))?.cascading).toBeUndefined();

    await waitFor('the deleted events', async () => deletedUnavailabilities(removed).length >= expected.length);
    await settle(call);
    expect(deletedUnavailabilities(removed)).toEqual(expected);
    expect(received().filter((event) => event.entity_id === removed).map((event) => event.type)).toEqual([
      'transport-resource.created',
      'transport-resource.deleted',
    ]);
    // each deleted event carries the removed unavailability, on the tenant's subject
    const deleted = events!.received.filter(({ event }) => event.type === DELETED && event.entity_id.startsWith(`${removed}/`));
    for (const { subject, event } of deleted) {
      expect(subject).toBe(`rm.transport-resources.${tenant}.transport-resource-unavailability.deleted`);
      expect(event.data).toMatchObject({ id: event.entity_id.split('/')[1], transport_resource_id: removed, version: 1 });
      expect(event.version).toBe(2);
    }

    expect((await call('GET', `/transport-resource/${kept}/unavailability`)).body).toEqual(keptList);
    expect(keptItems).toHaveLength(3);
    expect(deletedUnavailabilities(kept)).toEqual([]);
  });

  it('leaves no unavailability behind when writes race the delete, and each one created gets its deleted event', async () => {
    const truck = `truck-${randomUUID()}`;
    const seeded = await seed(call, truck, 20);
    const post = (n: number) => call('POST', `/transport-resource/${truck}/unavailability`, unavailability(100 + n));
    const racing = await Promise.all([
      ...Array.from({ length: 20 }, (_, n) => post(n)),
      call('DELETE', `/transport-resource/${truck}`),
      ...Array.from({ length: 20 }, (_, n) => post(20 + n)),
    ]);
    const deleteStatus = racing[20]?.status;
    expect(deleteStatus).toBe(204);
    const posted = racing.filter((_, index) => index !== 20);
    for (const { status } of posted) expect([201, 404]).toContain(status);
    const created = posted
      .filter(({ status }) => status === 201)
      .map(({ body }) => `${DELETED} ${truck}/${(body as { id: string }).id}`);

    expect(await liveUnavailabilities(harness.service.store.db, truck)).toBe(0);
    expect(await statuses(call, truck)).toEqual([404, 404]);
    const expected = [...seeded, ...created].sort();
    await waitFor('the deleted events', async () => deletedUnavailabilities(truck).length >= expected.length);
    await settle(call);
    expect(deletedUnavailabilities(truck)).toEqual(expected);
  });

  it('created again, the transport resource starts with no unavailabilities', async () => {
    const truck = `truck-${randomUUID()}`;
    const [first] = await seed(call, truck, 4);
    expect((await call('DELETE', `/transport-resource/${truck}`)).status).toBe(204);
    expect((await call('PUT', `/transport-resource/${truck}`, truckBody())).status).toBe(201);
    expect(await call('GET', `/transport-resource/${truck}/unavailability`)).toEqual({ status: 200, body: [] });
    // an old id is not there either
    const oldId = first!.split('/')[1];
    expect((await call('GET', `/transport-resource/${truck}/unavailability/${oldId}`)).status).toBe(404);
  });
});

describe('a crash in the middle of a cascade', () => {
  let env: TestServiceEnv;
  let mongo: MongoClient;
  let db: Db;
  let call: Call;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    expect(existsSync(MAIN), `${MAIN} is missing: build first (npx turbo run build --filter=@rm/transport-resources)`).toBe(true);
    // maintenance as often as allowed; cascades are finished once untouched for the store's 10 s
    // nothing here names a home base: the home-bases service is never called
    env = await createTestServiceEnv('transport_resources_cascade', { MAINTENANCE_INTERVAL_MS: '1000', HOME_BASES_URL: 'http://127.0.0.1:9/resource-management/v1' });
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
    await waitFor(
      'the service to be ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`the service stopped with ${child.exitCode} before it was ready:\n${output}`);
        return ready();
      },
      20_000,
    );
    await startRecording();
    return child;
  }

  /**
   * Sends the DELETE and SIGKILLs the service once the cascade has removed some unavailabilities; true
   * if the crash left it half done (the tombstone still `cascading`, some unavailabilities still there).
   */
  async function deleteAndKill(child: ChildProcess, truck: string, total: number): Promise<boolean> {
    void call('DELETE', `/transport-resource/${truck}`).catch(() => undefined); // the kill cuts it short
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(5)) {
      if ((await truckDocument(db, truck))?.cascading === true && (await liveUnavailabilities(db, truck)) < total) break;
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    await sleep(500); // the database may still finish what the service had sent
    return (await truckDocument(db, truck))?.cascading === true && (await liveUnavailabilities(db, truck)) > 0;
  }

  it('finishes it after a restart: every unavailability removed, each with its deleted event', async () => {
    let truck = '';
    let expected: string[] = [];
    let halfDone = false;
    // a cascade of several rounds (at most 200 per round); more if it outran the kill
    for (const count of [450, 900, 1800]) {
      const child = await startMain();
      truck = `truck-${randomUUID()}`;
      expected = await seed(call, truck, count);
      halfDone = await deleteAndKill(child, truck, expected.length);
      if (halfDone) break;
    }
    expect(halfDone, 'the service was killed in the middle of the cascade').toBe(true);
    // the transport resource is gone for callers even before the cascade is finished
    expect((await truckDocument(db, truck))?.deleted).toBe(true);

    // the same database: maintenance finishes the cascade once it is stale
    await startMain();
    expect(await statuses(call, truck)).toEqual([404, 404]);
    await waitFor(
      'the cascade to be finished',
      async () => (await liveUnavailabilities(db, truck)) === 0 && (await truckDocument(db, truck))?.cascading === undefined,
      60_000,
    );
    expect(await truckDocument(db, truck)).toMatchObject({ deleted: true });
    await waitFor('a deleted event of every unavailability', async () => new Set(deletedUnavailabilities(truck)).size >= expected.length, 30_000);
    // after a crash an event may come again, but none may be missing and none may be for another
    expect([...new Set(deletedUnavailabilities(truck))]).toEqual(expected);
    expect(received().some((event) => event.type === 'transport-resource.deleted' && event.entity_id === truck)).toBe(true);
    expect(await statuses(call, truck)).toEqual([404, 404]);
  }, 240_000);
});
