import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectTestMongo, startNatsServer, TEST_NATS_ADMIN, testNatsPassword, uniqueName, waitFor, type NatsServerHandle, type TestMongo } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectNats,
  createConsumerRunner,
  createOutboxRelay,
  declareServiceStream,
  type ConsumerRunner,
  type OutboxRelay,
} from '../src/index.js';
import { consumerSettled, runnerParts, silentLogger, widgetStore } from './helpers.js';

const WRITES = 200;
const STOP_AT = 60;
const START_AT = 140;

describe('NATS stopped and started again in the middle of a stream of writes', () => {
  let server: NatsServerHandle;
  let mongo: TestMongo;
  let nc: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let runner: ConsumerRunner | undefined;

  beforeAll(async () => {
    server = await startNatsServer();
    mongo = await connectTestMongo('bus_restart');
  });

  afterAll(async () => {
    await relay?.stop();
    await runner?.stop();
    await nc?.close();
    await mongo?.close();
    await server?.stop();
  });

  it('every event arrives afterwards', { timeout: 120_000 }, async () => {
    const logger = silentLogger();
    nc = await connectNats({ servers: server.url, access: { user: TEST_NATS_ADMIN, password: testNatsPassword() }, name: 'bus-restart-test', logger });
    const js = jetstream(nc);
    const service = uniqueName('restart').toLowerCase();
    const stream = (await declareServiceStream(await jetstreamManager(nc), service)).config.name;
    const durable = 'restart_consumer';
    const received = mongo.db.collection<{ _id: string }>('received');
    runner = createConsumerRunner({
      js,
      stream,
      ...runnerParts(mongo.db, durable),
      ackWaitMs: 5000,
      maxDeliver: 10,
      nakDelaysMs: [100, 500],
      // recorded by entity and version, which the test knows from the writes themselves
      handle: async (event) => {
        await received.updateOne({ _id: `${event.entity_id}@${event.version}` }, { $set: { event_id: event.id } }, { upsert: true });
      },
    });
    await runner.start();
    // the writes and the relay share the store, as a service wires them
    const widgets = widgetStore(mongo.db, service);
    await widgets.declareIndexes();
    relay = createOutboxRelay({ outbox: widgets.outbox, js, logger, publishTimeoutMs: 500, retryDelayMs: 100, sweepIntervalMs: 2_000 });
    relay.start();

    const written: string[] = [];
    for (let n = 0; n < WRITES; n += 1) {
      if (n === STOP_AT) await server.kill();
      if (n === START_AT) await server.start();
      // a quarter of the writes update an earlier widget: had its versions arrived out of order, the
      // runner would skip the older one and the comparison below would miss it
      const key = n % 4 === 3 ? `w${n - 3}` : `w${n}`;
      const version = await widgets.write('tenant-a', key, { n });
      written.push(`${key}@${version}`);
      await sleep(5);
    }

    await waitFor('every outbox to be cleared', async () => (await widgets.waiting()) === 0, 45_000);
    await waitFor('the consumer to settle', consumerSettled(await jetstreamManager(nc), stream, durable), 45_000);
    const arrived = (await received.find().toArray()).map((record) => record._id);
    expect(arrived.sort()).toEqual(written.sort());
  });
});
