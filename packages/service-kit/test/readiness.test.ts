import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectTestMongo, connectTestNats, type TestMongo, type TestNats } from '@rm/testkit';
import { mongoReadiness, natsReadiness } from '../src/index.js';
import { buildTestService } from './helpers.js';

describe('/readyz', () => {
  let mongo: TestMongo;
  let nats: TestNats;

  beforeAll(async () => {
    mongo = await connectTestMongo('service_kit_ready');
    nats = await connectTestNats();
  });
  afterAll(async () => {
    await mongo.close();
    await nats.close();
  });

  it('answers 200 when MongoDB and NATS JetStream answer', async () => {
    const readiness = { mongodb: mongoReadiness(mongo.db), nats: natsReadiness(nats.nc, await jetstreamManager(nats.nc)) };
    const { app } = await buildTestService(undefined, { readiness });
    const response = await app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { mongodb: 'ok', nats: 'ok' } });
    await app.close();
  });

  it('answers 503 naming the checks that fail: an unreachable MongoDB, a closed NATS connection, a check that hangs', async () => {
    const unreachable = new MongoClient('mongodb://127.0.0.1:9/', { serverSelectionTimeoutMS: 300 });
    const closed = await connectTestNats();
    await closed.close();
    const readiness = {
      mongodb: mongoReadiness(unreachable.db('nothing')),
      nats: natsReadiness(closed.nc),
      flush: natsReadiness(nats.nc),
      hanging: () => new Promise<void>(() => {}),
    };
    const { app, logs } = await buildTestService(undefined, { readiness });
    const response = await app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({
      title: 'Service Unavailable',
      status: 503,
      detail: 'Not ready: mongodb, nats, hanging',
      checks: { mongodb: 'failed', nats: 'failed', flush: 'ok', hanging: 'failed' },
    });
    expect(logs.records().filter((record) => record.msg === 'readiness check failed').map((record) => record.check)).toEqual(
      expect.arrayContaining(['mongodb', 'nats', 'hanging']),
    );
    await app.close();
    await unreachable.close();
  });

  it('answers 503 once shutdown has begun, while /healthz stays 200', async () => {
    const { app } = await buildTestService(undefined, { readiness: { mongodb: mongoReadiness(mongo.db) } });
    app.markShuttingDown();
    const response = await app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 503, detail: 'The service is shutting down.' });
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    await app.close();
  });
});
