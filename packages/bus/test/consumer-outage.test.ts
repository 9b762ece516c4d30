import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connectTestNats, startMongoServer, uniqueName, waitFor, type RestartableServerHandle, type TestNats } from '@rm/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumerRunner, declareServiceStream, type ConsumerRunner } from '../src/index.js';
import { consumerSettled, publishEvent, readDeadLetter, runnerParts, widgetEvent } from './helpers.js';

// Reproduced on the runner before this one: during an outage each event used up its delivery
// attempts within a second and was dead-lettered, though nothing was wrong with it.
describe('a consumer whose database goes away', () => {
  let server: RestartableServerHandle;
  let client: MongoClient;
  let nats: TestNats;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let stream: string;
  let service: string;
  let runner: ConsumerRunner | undefined;

  beforeAll(async () => {
    server = await startMongoServer();
    // fail fast while the server is away, so that the test does not wait out the driver's default
    client = new MongoClient(server.url, { serverSelectionTimeoutMS: 300 });
    await client.connect();
    nats = await connectTestNats();
    js = jetstream(nats.nc);
    jsm = await jetstreamManager(nats.nc);
    service = uniqueName('outage').toLowerCase();
    stream = (await declareServiceStream(jsm, service)).config.name;
  });

  afterAll(async () => {
    await runner?.stop();
    await jsm?.streams.delete(stream);
    await nats?.close();
    await client?.close();
    await server?.stop();
  });

  it('holds its events without using up their attempts, turns unready, and handles them all once it is back', { timeout: 60_000 }, async () => {
    const db = client.db('consumer');
    const derived = db.collection<{ _id: string; version: number; delivery: number }>('derived');
    const durable = uniqueName('outage_consumer');
    runner = createConsumerRunner({
      js,
      stream,
      ...runnerParts(db, durable),
      filterSubjects: [`rm.${service}.*.widget.*`],
      maxDeliver: 3,
      nakDelaysMs: [50],
      ackWaitMs: 2_000,
      outageRetryDelaysMs: [100, 200],
      // the derived state lives in the same database, as in a real consumer
      handle: async (event, { deliveryCount }) => {
        await derived.updateOne({ _id: event.entity_id }, { $set: { version: event.version, delivery: deliveryCount } }, { upsert: true });
      },
    });
    await runner.start();
    const before = widgetEvent(service, 'w-before', 1, 'created');
    await publishEvent(js, before.subject, before.event);
    await waitFor('the first event to be handled', async () => (await derived.findOne({ _id: 'w-before' })) !== null);
    await expect(runner.readiness()).resolves.toBeUndefined();

    await server.kill();
    const during = Array.from({ length: 5 }, (_, index) => widgetEvent(service, `w-${index}`, 1, 'created'));
    for (const { subject, event } of during) await publishEvent(js, subject, event);
    await waitFor('the runner to turn unready', async () => runner!.readiness().then(() => false, () => true));
    // longer than the ack wait and than every nak delay times maxDeliver: the old runner dead-lettered in ~1 s
    await sleep(3_000);
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
    await expect(runner.readiness()).rejects.toThrow(/waits for its database/);

    await server.start();
    await waitFor('the consumer to settle', consumerSettled(jsm, stream, durable), 30_000);
    await expect(runner.readiness()).resolves.toBeUndefined();
    const handled = await derived.find({ _id: { $in: during.map(({ event }) => event.entity_id) } }).toArray();
    // each handled on its first delivery: holding them cost no attempt
    expect(handled.map(({ _id, version, delivery }) => [_id, version, delivery]).sort()).toEqual(
      during.map(({ event }) => [event.entity_id, 1, 1]).sort(),
    );
    expect(await readDeadLetter(jsm, durable)).toBeUndefined();
  });
});
