import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { OUTBOX_FIELD } from '@rm/store';
import { connectTestMongo, connectTestNats, testServers, uniqueName, waitFor, type TestMongo, type TestNats } from '@rm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumerRunner, createOutboxRelay, declareServiceStream, type ConsumerRunner } from '../src/index.js';
import { consumerSettled, handledLog, publishEvent, runnerParts, silentLogger, widgetEvent, widgetStore } from './helpers.js';

const CRASHING_RELAY = fileURLToPath(new URL('./fixtures/crashing-relay.fixture.ts', import.meta.url));

describe('outbox relay killed between the publish and the clearing of the outbox entry', () => {
  let mongo: TestMongo;
  let nats: TestNats;
  let jsm: JetStreamManager;
  let service: string;
  let stream: string;
  const streams: string[] = [];
  let widgets: ReturnType<typeof widgetStore>;
  const runners: ConsumerRunner[] = [];

  beforeAll(async () => {
    mongo = await connectTestMongo('bus_crash');
    nats = await connectTestNats();
    jsm = await jetstreamManager(nats.nc);
    service = uniqueName('crash').toLowerCase();
    stream = (await declareServiceStream(jsm, service)).config.name;
    streams.push(stream);
    widgets = widgetStore(mongo.db, service);
    await widgets.declareIndexes();
  });

  /** A durable consumer of `on` that records every delivery it handles (not idempotent, on purpose). */
  async function startRecordingConsumer(on: string, durablePrefix: string) {
    const durable = uniqueName(durablePrefix);
    const handled = handledLog(mongo.db, durable);
    const runner = createConsumerRunner({
      js: jetstream(nats.nc),
      stream: on,
      ...runnerParts(mongo.db, durable),
      maxDeliver: 5,
      nakDelaysMs: [50],
      handle: async (event, { deliveryCount }) => void (await handled.record(event, deliveryCount)),
    });
    runners.push(runner);
    await runner.start();
    return { durable, handled };
  }

  afterAll(async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
    await Promise.all(streams.map((name) => jsm.streams.delete(name)));
    await nats?.close();
    await mongo?.close();
  });

  it("a write's event reaches a durable consumer exactly once in effect", async () => {
    const js = jetstream(nats.nc);
    const { durable, handled } = await startRecordingConsumer(stream, 'crash_consumer');

    await widgets.write('tenant-a', 'w1', { color: 'red' });
    const [stored] = await widgets.collection.find().toArray();
    const event = stored?.[OUTBOX_FIELD]?.[0];
    expect(event).toBeDefined();

    // a real relay process, killed right after the PubAck and before it pops the entry
    const child = spawn(process.execPath, [CRASHING_RELAY], {
      env: {
        ...process.env,
        MONGO_URL: testServers().mongoUrl,
        NATS_URL: testServers().natsUrl,
        DB_NAME: mongo.db.databaseName,
        COLLECTION: widgets.name,
        SERVICE: service,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const [exitCode, signal] = await once(child, 'exit');
    expect({ exitCode, signal }).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect((await jsm.streams.info(stream)).state.messages).toBe(1);
    const afterCrash = await widgets.collection.findOne({});
    expect(afterCrash?.[OUTBOX_FIELD]?.map((entry) => entry.id)).toEqual([event?.id]);

    // a fresh relay publishes the entry again (same msgID) and clears it
    const relay = createOutboxRelay({ outbox: widgets.outbox, js, logger: silentLogger() });
    relay.start();
    try {
      await waitFor('the outbox to be cleared', async () => (await widgets.waiting()) === 0);
    } finally {
      await relay.stop();
    }
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable));

    expect((await jsm.streams.info(stream)).state.messages).toBe(1);
    expect(await handled.all()).toEqual([{ event_id: event?.id, entity_id: 'w1', version: 1, delivery: 1 }]);
  });

  it('ignores the same event published again beyond the duplicate window, by its version', async () => {
    const js = jetstream(nats.nc);
    const windowService = uniqueName('window').toLowerCase();
    const windowStream = (await declareServiceStream(jsm, windowService)).config.name;
    streams.push(windowStream);
    const { durable, handled } = await startRecordingConsumer(windowStream, 'window_consumer');
    const { subject, event } = widgetEvent(windowService, 'w1', 1, 'created');
    await publishEvent(js, subject, event);
    await waitFor('the consumer to settle', async () => (await handled.count()) === 1 && consumerSettled(jsm, windowStream, durable)());

    // beyond the duplicate window JetStream no longer knows the msgID: a fresh msgID stands for that
    await publishEvent(js, subject, event, `${event.id}-beyond-window`);
    expect((await jsm.streams.info(windowStream)).state.messages).toBe(2);

    const settled = await waitFor('the consumer to settle', consumerSettled(jsm, windowStream, durable));
    expect(settled.delivered.stream_seq).toBe(2);
    expect(await handled.count()).toBe(1);
    const { applied } = runnerParts(mongo.db, durable);
    expect([...(await applied.read([{ tenant: 'tenant-a', entity: 'widget', entityId: 'w1' }])).values()]).toEqual([1]);
  });
});
