import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectTestMongo, connectTestNats, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxRelay, declareServiceStream, type OutboxRelay } from '../src/index.js';
import { silentLogger, widgetStore } from './helpers.js';

describe("an outbox relay's backlog", () => {
  let mongo: TestMongo;
  let nats: TestNats;
  let closed: TestNats;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    mongo = await connectTestMongo('bus_backlog');
    nats = await connectTestNats();
    closed = await connectTestNats();
    await closed.close();
  });

  afterAll(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await nats?.close();
    await mongo?.close();
  });

  it('counts what waits while publishing fails, and drops what another replica published at its next sweep', async () => {
    const service = uniqueName('backlog').toLowerCase();
    const stream = (await declareServiceStream(await jetstreamManager(nats.nc), service)).config.name;
    const name = uniqueName('widgets');
    // two replicas' stores over one collection: B's connection is closed, so every publish of B fails
    const [storeA, storeB] = [widgetStore(mongo.db, service, name), widgetStore(mongo.db, service, name)];
    await storeA.declareIndexes();
    const fastRetries = { retryDelayMs: 50, sweepIntervalMs: 200 };
    const relayB = createOutboxRelay({ outbox: storeB.outbox, js: jetstream(closed.nc), logger: silentLogger(), ...fastRetries });
    relays.push(relayB);
    relayB.start();
    expect(relayB.backlog()).toEqual({ events: 0, oldestOccurredAt: undefined });

    const before = Date.now();
    await storeB.write('tenant-a', 'w1', { color: 'red' });
    await storeB.write('tenant-a', 'w1', { color: 'blue' });
    await storeB.write('tenant-a', 'w2', { color: 'red' });
    const waiting = relayB.backlog();
    expect(waiting.events).toBe(3);
    expect(waiting.oldestOccurredAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(waiting.oldestOccurredAt).toBeLessThanOrEqual(Date.now());

    const relayA = createOutboxRelay({ outbox: storeA.outbox, js: jetstream(nats.nc), logger: silentLogger() });
    relays.push(relayA);
    relayA.start();
    await waitFor('replica A to publish and clear every event', async () => (await storeA.waiting()) === 0);
    expect((await (await jetstreamManager(nats.nc)).streams.info(stream)).state.messages).toBe(3);
    await waitFor('replica B to see nothing waits', async () => relayB.backlog().events === 0);
    expect(relayB.backlog()).toEqual({ events: 0, oldestOccurredAt: undefined });
    expect(relayA.backlog()).toEqual({ events: 0, oldestOccurredAt: undefined });
  });
});
