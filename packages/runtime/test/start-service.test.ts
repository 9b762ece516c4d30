import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ConfigError } from '@rm/service-kit';
import { APPLIED_VERSIONS_COLLECTION, IDEMPOTENCY_KEYS_COLLECTION } from '@rm/store';
import { connectTestNats, createTestServiceEnv, findFreePort, uniqueName, waitFor, type TestServiceEnv } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../src/index.js';
import { GADGETS_NATS_USER, gadgetsService } from './fixtures/gadgets-service.js';

const BASE = '/resource-management/v1';

/** Log lines of a service, kept in memory to be read by the test. */
function logLines() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { destination, lines };
}

describe('a service run from its definition', () => {
  let env: TestServiceEnv;
  let service: RunningService<ReturnType<typeof gadgetsService.collections>, NonNullable<typeof gadgetsService.config>>;
  const tenant = uniqueName('tenant');
  const logs = logLines();

  beforeAll(async () => {
    env = await createTestServiceEnv('runtime', { ...GADGETS_NATS_USER, LOG_LEVEL: 'info', MAINTENANCE_INTERVAL_MS: '1000', GADGET_LABEL: 'widget-like gadget' });
    service = await startService(gadgetsService, { env: env.variables, listen: false, logDestination: logs.destination });
  });

  afterAll(async () => {
    await service?.stop();
    await env?.close();
  });

  it('serves its routes behind authentication, with its own typed config', async () => {
    const headers = await env.bearer(tenant);
    const put = await service.app.inject({ method: 'PUT', url: `${BASE}/gadget/g-1`, headers, payload: { colour: 'red' } });
    expect(put.statusCode).toBe(201);
    expect(put.json()).toEqual({ business_id: 'g-1', colour: 'red', version: 1 });
    expect((await service.app.inject({ url: `${BASE}/gadget/g-1` })).statusCode).toBe(401);
    const missing = await service.app.inject({ url: `${BASE}/gadget/g-none`, headers });
    expect(missing.json()).toMatchObject({ status: 404, detail: "widget-like gadget 'g-none' does not exist" });
    expect(service.config.GADGET_LABEL).toBe('widget-like gadget');
  });

  it('relays every write to its stream, and runs its consumers, which see each write once', async () => {
    const headers = await env.bearer(tenant);
    await service.app.inject({ method: 'PUT', url: `${BASE}/gadget/g-2`, headers, payload: { colour: 'red' } });
    await service.app.inject({ method: 'PUT', url: `${BASE}/gadget/g-2`, headers, payload: { colour: 'blue' } });
    const sighting = await waitFor('the consumer to see the second version', async () => {
      const found = await service.collections.sightings.get({ tenant, key: 'g-2' });
      return found?.body.colour === 'blue' ? found : undefined;
    });
    expect(sighting.body).toEqual({ colour: 'blue' });
    // the consumer's own writes are relayed too: every collection of the store is known to the relay
    await waitFor('every outbox to be empty', async () => (await service.store.db.collection('sightings').countDocuments({ outbox: { $exists: true } })) === 0);
  });

  it('hands a consumer that keeps its own versions every event, an older one too, and keeps no ledger for it', async () => {
    const headers = await env.bearer(tenant);
    await service.app.inject({ method: 'PUT', url: `${BASE}/gadget/g-3`, headers, payload: { colour: 'red' } });
    await service.app.inject({ method: 'PUT', url: `${BASE}/gadget/g-3`, headers, payload: { colour: 'blue' } });
    const versionsSeen = async () => (await service.collections.seen.find({ entity_id: 'g-3' }).toArray()).map((one) => one.version).sort();
    await waitFor('both events to reach it', async () => (await versionsSeen()).length === 2);
    await waitFor('the ledger consumer to apply the second', async () => (await service.collections.sightings.get({ tenant, key: 'g-3' }))?.body.colour === 'blue');

    // the first version again, as a late duplicate under another event id
    const nats = await connectTestNats();
    try {
      const older = { id: randomUUID(), type: 'gadget.updated', tenant, entity_id: 'g-3', version: 1, occurred_at: new Date().toISOString(), data: { business_id: 'g-3', colour: 'green', version: 1 } };
      await jetstream(nats.nc).publish(`rm.gadgets.${tenant}.gadget.updated`, JSON.stringify(older));
      await waitFor('the older event to reach it', async () => (await versionsSeen()).length === 3);
      expect(await versionsSeen()).toEqual([1, 1, 2]);
      const jsm = await jetstreamManager(nats.nc);
      await waitFor('the ledger consumer to settle it', async () => {
        const info = await jsm.consumers.info('RM_GADGETS', `gadgets-sightings-${service.config.MONGO_DB}`);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      });
    } finally {
      await nats.close();
    }
    // the consumer with a ledger skipped it; the other one keeps no ledger at all
    expect((await service.collections.sightings.get({ tenant, key: 'g-3' }))?.body.colour).toBe('blue');
    const ledger = service.store.db.collection<{ _id: string }>(APPLIED_VERSIONS_COLLECTION);
    expect(await ledger.countDocuments({ _id: { $regex: '^gadgets-every-event\\|' } })).toBe(0);
    expect(await ledger.countDocuments({ _id: { $regex: '^gadgets-sightings\\|' } })).toBeGreaterThan(0);
  });

  it('reports ready when MongoDB, NATS and its consumers are', async () => {
    const ready = await service.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { mongodb: 'ok', nats: 'ok', consumers: 'ok' } });
  });

  it('runs the store maintenance on its interval', async () => {
    // an idempotency key first used long ago: maintenance forgets it
    const keys = service.store.db.collection(IDEMPOTENCY_KEYS_COLLECTION);
    await keys.insertOne({ _id: 'gadgets/expired-key', key: 'k', fingerprint: 'f', created: true, at: new Date(0), minute: 0 } as never);
    await waitFor('maintenance to forget the key', async () => (await keys.countDocuments({ _id: 'gadgets/expired-key' } as never)) === 0, 10_000);
  });

  it('declares its stream and its consumer on the publisher stream, named for the database that holds its ledger', async () => {
    const nats = await connectTestNats();
    try {
      const jsm = await jetstreamManager(nats.nc);
      expect((await jsm.streams.info('RM_GADGETS')).config.subjects).toEqual(['rm.gadgets.>']);
      const durable = `gadgets-sightings-${service.config.MONGO_DB}`;
      expect((await jsm.consumers.info('RM_GADGETS', durable)).config.filter_subject).toBe('rm.gadgets.*.gadget.*');
    } finally {
      await nats.close();
    }
  });
});

describe('starting and stopping', () => {
  it('refuses a bad configuration, naming every bad variable of the common and the service\'s own, before opening anything', async () => {
    const failure = startService(gadgetsService, { env: { PORT: 'x', CONNECT_ATTEMPTS: '0', GADGET_LIMIT: 'many' }, listen: false });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(/PORT[\s\S]*MONGO_URL is required[\s\S]*CONNECT_ATTEMPTS[\s\S]*NATS_URL is required[\s\S]*GADGET_LIMIT/);
  });

  it('closes what it opened when NATS cannot be reached', async () => {
    const env = await createTestServiceEnv('runtime_failed', {
      ...GADGETS_NATS_USER,
      NATS_URL: `nats://127.0.0.1:${await findFreePort()}`,
      CONNECT_ATTEMPTS: '2',
      CONNECT_RETRY_DELAY_MS: '10',
      LOG_LEVEL: 'info',
    });
    const logs = logLines();
    try {
      await expect(startService(gadgetsService, { env: env.variables, listen: false, logDestination: logs.destination })).rejects.toThrow(/cannot connect to NATS/);
      expect(logs.lines.filter((line) => line.msg === 'nats not reachable yet, retrying')).toHaveLength(1);
    } finally {
      await env.close();
    }
  });

  // Reproduced before the fix: the consumers started before the failing one kept running (their
  // heartbeat timer alone kept the process alive).
  it('stops the consumers it had started when a later one fails, so that nothing is left running', async () => {
    const env = await createTestServiceEnv('runtime_consumers', GADGETS_NATS_USER);
    try {
      const child = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/failed-start.fixture.ts', import.meta.url))], {
        env: { ...process.env, ...env.variables },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout?.on('data', (chunk) => (output += chunk));
      const exited = once(child, 'exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      expect(output).toContain('start failed');
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      await env.close();
    }
  });

  it('shuts down in order: HTTP, the token revocations it checked, consumers, maintenance, relay, NATS, MongoDB', async () => {
    const env = await createTestServiceEnv('runtime_stop', { ...GADGETS_NATS_USER, LOG_LEVEL: 'info' });
    const logs = logLines();
    const service = await startService(gadgetsService, { env: env.variables, logDestination: logs.destination });
    try {
      const address = service.app.server.address();
      expect(address).toMatchObject({ address: '127.0.0.1' });
      expect(await service.stop('test')).toBe('clean');
      expect(logs.lines.filter((line) => line.msg === 'shutdown step done').map((line) => line.step)).toEqual([
        'http server',
        'token revocations',
        'consumers',
        'maintenance',
        'outbox relay',
        'nats',
        'mongodb',
      ]);
    } finally {
      await env.close();
    }
  });
});
